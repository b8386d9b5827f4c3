/**
 * The native `gateway:` section, read after the schema checked its keys and types: the rules a
 * schema says poorly (authentication off only on a loopback address, a bind address that is an
 * address). Which views it names exist is checked once every file is merged (load.ts), since a
 * view may come from another file.
 */
import { isLoopbackHost } from '../../auth/egress-policy.js';
import type { GatewayConfig, SourceLocation } from '../model.js';
import type { Report } from './native-rules.js';

/** The `gateway:` section as the model holds it, or undefined when an error fails it. */
export function readNativeGateway(
  entry: Record<string, unknown>,
  source: SourceLocation,
  report: Report,
): GatewayConfig | undefined {
  const gateway = { ...entry, source } as GatewayConfig;
  let ok = true;
  const host = gateway.host;
  if (host !== undefined && !isBindAddress(host)) {
    report(
      'error',
      'invalid-value',
      'expected an address or host name to listen on (no scheme, port or path)',
      ['gateway', 'host'],
    );
    ok = false;
  }
  const loopback = host === undefined || !ok || isLoopbackHost(unbracket(host));
  if (gateway.auth === false && !loopback) {
    report(
      'error',
      'insecure-value',
      'authentication can be off only on a loopback host (127.0.0.1, ::1, localhost): anyone who reaches the port could run every server',
      ['gateway', 'auth'],
    );
    ok = false;
  } else if (!loopback) {
    report(
      'warning',
      'exposed-listener',
      'the gateway listens beyond this machine: every client needs the token, and allowedHosts must name how they reach it',
      ['gateway', 'host'],
    );
  }
  for (const [name, client] of Object.entries(gateway.clients ?? {}))
    if (typeof client.tokenFile !== 'string') {
      report('error', 'missing-key', `the gateway client '${name}' needs a tokenFile`, [
        'gateway',
        'clients',
        name,
        'tokenFile',
      ]);
      ok = false;
    }
  const seen = new Set<string>();
  (gateway.views ?? []).forEach((view, index) => {
    if (seen.has(view))
      report('warning', 'duplicate-value', `the view '${view}' is listed twice`, [
        'gateway',
        'views',
        index,
      ]);
    seen.add(view);
  });
  return ok ? gateway : undefined;
}

/** An IP address (IPv6 with or without brackets) or a DNS name: what `listen()` takes. */
function isBindAddress(host: string): boolean {
  const bare = unbracket(host);
  if (bare.includes(':')) return /^[0-9a-f:.]+$/i.test(bare);
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(bare);
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
