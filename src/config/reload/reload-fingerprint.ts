/**
 * Digests a reload compares: a server's effective config (equal digests: it keeps running), the
 * host-wide settings (which a running host cannot take), and the config files' bytes (equal: an
 * event that changed nothing). SHA-256 of canonical JSON: only digests are kept between reloads,
 * never the values, which may be secrets.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { HostServerDefinition } from '../../host/server-definition.js';
import { canonicalJson } from '../../state/canonical-json.js';
import type { HostDefaultsConfig, ServerConfig, ViewConfig } from '../model.js';

/**
 * What decides how a server runs. With the resolver's own digest (`resolveServer` gives one, of
 * everything that takes effect on a connect, after expansion, `enabled` excluded): that digest and
 * `enabled` (switching a server on or off goes through a replace too, so the old one drains).
 * Without: the normalised config without where it was written (`source`: file, line, column) and
 * unknown keys (`extra`), the per-server defaults, the definition's plain data (functions such as
 * the transport factory left out) and the expanded values the resolver reports (`effective`).
 */
export function serverFingerprint(
  server: ServerConfig,
  defaults: HostDefaultsConfig | undefined,
  resolved: { definition: HostServerDefinition; fingerprint?: string; effective?: unknown },
): string {
  if (resolved.fingerprint !== undefined)
    return digestOf({ resolved: resolved.fingerprint, enabled: resolved.definition.enabled });
  const { source: _source, extra: _extra, ...config } = server;
  return digestOf({
    config,
    defaults: {
      timeouts: defaults?.timeouts,
      retry: defaults?.retry,
      toolsTtlMs: defaults?.toolsTtlMs,
    },
    definition: resolved.definition,
    effective: resolved.effective,
  });
}

/**
 * The host-wide settings: everything in `defaults` but what servers take one by one, and the
 * views (without where they were written).
 */
export function hostWideDigest(
  defaults: HostDefaultsConfig | undefined,
  views: Readonly<Record<string, ViewConfig>> | undefined,
): string {
  const { timeouts: _t, retry: _r, toolsTtlMs: _ttl, ...hostWide } = defaults ?? {};
  const plainViews = Object.entries(views ?? {}).map(([name, { source: _s, ...view }]) => [
    name,
    view,
  ]);
  return digestOf({ hostWide, views: plainViews });
}

/** The files' bytes, in order (a missing or unreadable file counts as such). */
export async function filesDigest(files: readonly string[]): Promise<string> {
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(file).update('\0');
    try {
      hash.update(await readFile(file));
    } catch (error) {
      hash.update(`<unreadable: ${(error as NodeJS.ErrnoException).code ?? 'error'}>`);
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** SHA-256 of the canonical JSON of a value's plain data. */
export function digestOf(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(plainData(value)))
    .digest('hex');
}

/** The JSON data of a value (functions and undefined dropped); a value with none gives null. */
function plainData(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
  } catch {
    return '<opaque>'; // a cycle, a BigInt: compared as "something"
  }
}
