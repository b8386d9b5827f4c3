import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { Agent, EnvHttpProxyAgent, ProxyAgent, type Dispatcher } from 'undici';
import { DEFAULT_HTTP_OPTIONS } from './http-options.js';

/** Certificates trusted on top of Node's own store (PEM). */
export type CaCertificates = string | Buffer | readonly (string | Buffer)[];

export interface DispatcherOptions {
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  proxy?: string | false;
  ca?: CaCertificates;
}

const PROXY_VARIABLES = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'];

/**
 * The private connection pool of one transport (destroyed with it, so no socket outlives it):
 * through `proxy` when given; through `HTTPS_PROXY` / `HTTP_PROXY` (honouring `NO_PROXY`) when
 * one is set in the environment and `proxy` is not `false`; direct otherwise. `ca` adds trusted
 * certificates for the server and the proxy; Node's own store (with `NODE_EXTRA_CA_CERTS`) is
 * kept. Response bodies have no idle timeout here: streams may idle, and each POST exchange has
 * its own total deadline.
 */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const ca = options.ca === undefined ? undefined : withNodeStore(options.ca);
  const common = {
    connect: {
      timeout: options.connectTimeoutMs ?? DEFAULT_HTTP_OPTIONS.connectTimeoutMs,
      ...(ca === undefined ? {} : { ca }),
    },
    headersTimeout: options.headersTimeoutMs ?? DEFAULT_HTTP_OPTIONS.headersTimeoutMs,
    bodyTimeout: 0,
  };
  const tls = ca === undefined ? {} : { requestTls: { ca }, proxyTls: { ca } };
  if (typeof options.proxy === 'string')
    return new ProxyAgent({ ...common, ...tls, uri: options.proxy });
  if (options.proxy !== false && PROXY_VARIABLES.some((name) => process.env[name]))
    return new EnvHttpProxyAgent({ ...common, ...tls });
  return new Agent(common);
}

/** Extra certificates added to (not replacing) the ones Node trusts by default. */
function withNodeStore(ca: CaCertificates): (string | Buffer)[] {
  const extra = Array.isArray(ca) ? [...(ca as (string | Buffer)[])] : [ca as string | Buffer];
  return [...rootCertificates(), ...extra];
}

let roots: readonly string[] | undefined;

/**
 * What Node trusts by default: `tls.getCACertificates('default')` where Node has it (22.15+),
 * else the bundled roots plus the `NODE_EXTRA_CA_CERTS` file, as Node itself would add it.
 */
function rootCertificates(): readonly string[] {
  if (roots !== undefined) return roots;
  const withDefaults = tls as typeof tls & { getCACertificates?: (type: string) => string[] };
  if (typeof withDefaults.getCACertificates === 'function') {
    const found = withDefaults.getCACertificates('default');
    roots = found;
    return found;
  }
  const extra: string[] = [];
  const file = process.env.NODE_EXTRA_CA_CERTS;
  if (file !== undefined && file !== '') {
    try {
      extra.push(readFileSync(file, 'utf8'));
    } catch {
      // Node warns about an unreadable file at startup already.
    }
  }
  const found = [...tls.rootCertificates, ...extra];
  roots = found;
  return found;
}
