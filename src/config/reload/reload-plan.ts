/**
 * One server's part of a reload: resolved with the reloader's resolver and fingerprinted (see
 * reload-fingerprint.ts), so the reload can tell added, changed and unchanged servers apart. A
 * plan holds the secrets its resolution registered until it is applied or released.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import type { HostServerDefinition } from '../../host/host-options.js';
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

/** Resolves one server and computes its fingerprint; undefined (and a diagnostic) if it fails. */
export async function planServer(
  server: ServerConfig,
  config: McpConfig,
  resolve: (
    server: ServerConfig,
    config: McpConfig,
  ) => ServerResolution | Promise<ServerResolution>,
  diagnostics: ConfigDiagnostic[],
): Promise<Planned | undefined> {
  let resolved: ServerResolution;
  try {
    resolved = await resolve(server, config);
  } catch (error) {
    resolved = { error };
  }
  if ('error' in resolved) {
    diagnostics.push(diagnosticOf(resolved.error, server.name, server));
    return undefined;
  }
  diagnostics.push(...(resolved.diagnostics ?? []));
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
    return undefined;
  }
  return {
    server,
    definition: resolved.definition,
    fingerprint: serverFingerprint(server, config.defaults, resolved),
    secrets,
  };
}
