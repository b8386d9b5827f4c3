/**
 * How tool pins are stored: one record per server identity in the state store (namespace
 * `pins`), and its in-memory form. Internal to tool pinning (tool-pins.ts).
 *
 * Format 1: `{ version: 1, tools: { <name>: { pin?, definition?, pinnedAt?, removedAt?, pending? } } }`
 * where `pin` is the pinned hash, `definition` the pinned definition (absent when it was too large
 * to keep, or the tool was removed), `removedAt` set once the tool is no longer listed, and `pending` a quarantined
 * definition waiting for approval (`{ pin, definition?, reason, since }`). A tool held as new has
 * `pending` only.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { diffToolDefinitions, type PinnedDefinition, type ToolDiff } from './tool-diff.js';

/** The state store namespace of pins; the key is the server identity. */
export const PINS_NAMESPACE = 'pins';
/** The format version of a stored pin record. */
export const PINS_FORMAT_VERSION = 1;
/** A stored definition: its pin, and the definition unless it was too large to keep. */
export interface StoredDefinition {
  pin: string;
  definition?: PinnedDefinition;
}

export interface StoredTool {
  pin?: string;
  definition?: PinnedDefinition;
  pinnedAt?: string;
  removedAt?: string;
  pending?: StoredDefinition & { reason: 'changed' | 'new'; since: string };
}

export interface StoredPins {
  version: number;
  tools: Record<string, StoredTool>;
}

/** A record in memory: tools in a Map (a tool may be called `__proto__`). */
export interface PinsRecord {
  exists: boolean;
  tools: Map<string, StoredTool>;
}

export function readRecord(value: StoredPins | undefined, identity: string): PinsRecord {
  if (value === undefined) return { exists: false, tools: new Map() };
  if (typeof value === 'object' && value !== null && value.version > PINS_FORMAT_VERSION)
    throw new McpHostError(
      'STATE_VERSION_UNSUPPORTED',
      `tool pins of '${identity}' were written by a newer mcp-host (format ${String(value.version)})`,
      { details: { identity, version: value.version } },
    );
  const tools = new Map<string, StoredTool>();
  const stored = (value as { tools?: unknown } | null)?.tools;
  // A malformed entry is dropped (its tool is then new again); the record still exists, so the
  // next listing is not a first listing.
  if (typeof stored === 'object' && stored !== null)
    for (const [name, entry] of Object.entries(stored as Record<string, unknown>))
      if (isStoredTool(entry)) tools.set(name, entry);
  return { exists: true, tools };
}

export function writeRecord(record: PinsRecord): StoredPins {
  const tools = [...record.tools].map(([name, entry]): [string, StoredTool] => [
    name,
    dropUndefined(entry),
  ]);
  return { version: PINS_FORMAT_VERSION, tools: Object.fromEntries(tools) };
}

function dropUndefined(entry: StoredTool): StoredTool {
  return Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== undefined));
}

function isStoredTool(value: unknown): value is StoredTool {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as StoredTool;
  const pinOk = entry.pin === undefined || typeof entry.pin === 'string';
  const pending = entry.pending as unknown;
  const pendingOk =
    pending === undefined ||
    (typeof pending === 'object' &&
      pending !== null &&
      typeof (pending as { pin?: unknown }).pin === 'string');
  return pinOk && pendingOk && (entry.pin !== undefined || pending !== undefined);
}

export function storedDiffBase(
  pin: string,
  definition: PinnedDefinition | undefined,
): StoredDefinition {
  return definition === undefined ? { pin } : { pin, definition };
}

/**
 * The diff between two stored definitions; one kept by hash alone (too large, or of a removed
 * tool) gives a one-change diff at the root.
 */
export function diffStored(before: StoredDefinition, after: StoredDefinition): ToolDiff {
  if (before.definition !== undefined && after.definition !== undefined)
    return diffToolDefinitions(before.definition, after.definition);
  return {
    changes: [{ path: '', kind: 'changed' }],
    truncated: true,
    summary: 'definition changed (only the hash of the pinned definition was kept)',
  };
}
