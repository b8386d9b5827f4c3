import type { createSchemaValidator } from '../schema/schema-validator.js';
import type { EraRequests } from './era-requests.js';
import type { ModernSubscriptions } from './modern-subscriptions.js';
import type { openSession } from './open-session.js';
import type { RemoteRequests } from './remote-requests.js';
import type { SessionRecovery } from './session-recovery.js';

/**
 * The session's code: the handshake of either era, the JSON-RPC peer, the era's requests and the
 * HTTP policy around them. Loaded by the first `connect()`, after it has started a local server's
 * process (see early-transport.ts), so that a program importing `mcp-host/client` loads it while
 * its server starts. One promise per process.
 */
let sessionCode: Promise<SessionCode> | undefined;

export interface SessionCode {
  createSchemaValidator: typeof createSchemaValidator;
  openSession: typeof openSession;
  EraRequests: typeof EraRequests;
  RemoteRequests: typeof RemoteRequests;
  SessionRecovery: typeof SessionRecovery;
  ModernSubscriptions: typeof ModernSubscriptions;
}

export function loadSessionCode(): Promise<SessionCode> {
  sessionCode ??= Promise.all([
    import('./open-session.js'),
    import('./era-requests.js'),
    import('./remote-requests.js'),
    import('./session-recovery.js'),
    import('./modern-subscriptions.js'),
    import('../schema/schema-validator.js'),
  ]).then(
    ([
      { openSession },
      { EraRequests },
      { RemoteRequests },
      { SessionRecovery },
      modern,
      { createSchemaValidator },
    ]) => ({
      createSchemaValidator,
      openSession,
      EraRequests,
      RemoteRequests,
      SessionRecovery,
      ModernSubscriptions: modern.ModernSubscriptions,
    }),
    (error: unknown) => {
      sessionCode = undefined;
      throw error;
    },
  );
  return sessionCode;
}
