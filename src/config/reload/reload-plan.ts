/**
 * One server's part of a reload: what the reloader's resolver gave for it, fingerprinted (see
 * reload-fingerprint.ts), so the reload can tell added, changed and unchanged servers apart. A
 * plan holds the secrets its resolution registered until it is applied or released.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../../host/server-definition.js';
import type { Disposable } from '../../internal/disposable.js';
import type { ConfigDiagnostic, McpConfig, ServerConfig } from '../model.js';
import { serverFingerprint } from './reload-fingerprint.js';
import { diagnosticOf } from './reload-diagnostics.js';
import type { ServerResolution } from './reload-types.js';

/** A server as last applied: its fingerprint and the secrets its running config holds. */
export interface Applied {
  fingerprint: string;
  secrets: readonly Disposable[];
}

/** A server resolved for this reload, not yet applied. */
export interface Planned extends Applied {
  server: ServerConfig;
  definition: HostServerDefinition;
}

/** Gives up the secrets a config held (each is masked no longer). */
export function release(secrets: readonly Disposable[] | undefined): void {
  for (const secret of secrets ?? []) secret.dispose();
}

/**
 * One server's plan from what the resolver gave for it: what to apply and its fingerprint, or
 * undefined when it failed (a resolver error, or a definition under another name, whose secrets
 * are released); the diagnostics either way.
 */
export function planServer(
  server: ServerConfig,
  config: McpConfig,
  resolved: ServerResolution,
): { planned: Planned | undefined; diagnostics: ConfigDiagnostic[] } {
  if ('error' in resolved)
    return { planned: undefined, diagnostics: [diagnosticOf(resolved.error, server.name, server)] };
  const diagnostics = [...(resolved.diagnostics ?? [])];
  const secrets = resolved.secrets ?? [];
  if (resolved.definition.name !== server.name) {
    release(secrets);
    diagnostics.push(
      diagnosticOf(
        new McpHostError(
          'INVALID_ARGUMENT',
          `the resolver named it '${resolved.definition.name}'`,
          { serverName: server.name },
        ),
        server.name,
        server,
      ),
    );
    return { planned: undefined, diagnostics };
  }
  return {
    planned: {
      server,
      definition: resolved.definition,
      fingerprint: serverFingerprint(server, config.defaults, resolved),
      secrets,
    },
    diagnostics,
  };
}
