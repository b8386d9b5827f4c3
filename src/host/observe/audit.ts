/**
 * One audit record per tool call: who called what, when, how it ended, and a digest of the
 * arguments instead of their values. Platform-neutral and synchronous.
 */
import { redactor, truncate } from '../../errors/redact.js';
import { canonicalJson } from '../../state/canonical-json.js';
import type { CallOutcome } from './call-outcome.js';

/**
 * The algorithm of `argsDigest`: 64-bit FNV-1a over the UTF-8 bytes of the arguments' RFC 8785
 * canonical JSON, as 16 lowercase hex digits. NOT a cryptographic hash.
 *
 * Why not SHA-256: the digest exists to tell whether two calls had the same arguments (dedupe,
 * correlate a record with a trace or a log line), not to prove integrity, which is the sink's job.
 * Web Crypto's SHA-256 is asynchronous: a record could no longer be written in the call's
 * `finally`, records could arrive out of order, and each call would pay a promise and a thread-pool
 * hop (tens of µs against the host's 5 µs routing target). FNV-1a is synchronous, allocates
 * nothing beyond the canonical JSON, and anyone can recompute it. Its limits: collisions can be
 * crafted on purpose, and (like any unkeyed hash, SHA-256 included) a digest of guessable
 * arguments can be confirmed by guessing. A host that needs more passes `digest` in
 * {@link AuditOptions}.
 */
export const AUDIT_DIGEST_ALGORITHM = 'fnv1a-64';

/** Written in place of a digest when the arguments have no JSON form (a cycle, a BigInt, …). */
export const UNSERIALISABLE_ARGUMENTS = 'unserialisable';

export interface AuditRecord {
  /** When the call ended, ISO 8601. */
  time: string;
  /** The calling agent, when the call carried one. */
  caller?: string;
  /** The server's key in the host's configuration; absent for a native tool. */
  server?: string;
  /** The tool's exposed name. */
  tool: string;
  /** The digest of the arguments' canonical JSON (absent arguments count as `{}`). */
  argsDigest: string;
  /** How `argsDigest` was made: {@link AUDIT_DIGEST_ALGORITHM} unless replaced. */
  argsDigestAlgorithm: string;
  outcome: CallOutcome;
  durationMs: number;
  errorCode?: string;
  /** Only with `includeArguments`: the canonical JSON of the arguments, redacted and capped. */
  arguments?: string;
}

/** Receives each record; must not throw (the host catches and drops what a sink throws). */
export type AuditSink = (record: AuditRecord) => void;

/** What the host knows about a finished call. */
export interface AuditInput {
  /** When the call ended; now by default. */
  time?: Date | number;
  caller?: string;
  server: string | undefined;
  tool: string;
  arguments?: unknown;
  outcome: CallOutcome;
  durationMs: number;
  errorCode?: string;
}

export interface AuditOptions {
  /** Put the arguments' values in the record, passed through the redactor. Off by default. */
  includeArguments?: boolean;
  /** The longest `arguments` text kept (characters, after redaction). */
  maxArgumentChars?: number;
  /** A replacement digest, e.g. a synchronous SHA-256 where one is available. */
  digest?: { algorithm: string; digest(canonicalJson: string): string };
}

export const AUDIT_DEFAULTS = {
  includeArguments: false,
  maxArgumentChars: 4096,
} as const;

/** Builds the audit record of one call. Never throws for unserialisable arguments. */
export function createAuditRecord(input: AuditInput, options: AuditOptions = {}): AuditRecord {
  let json: string | undefined;
  try {
    json = canonicalJson(input.arguments === undefined ? {} : input.arguments);
  } catch {
    json = undefined;
  }
  const digest = options.digest;
  // Built member by member so that records read in one order: when, who, what, how.
  const record = { time: new Date(input.time ?? Date.now()).toISOString() } as AuditRecord;
  if (input.caller !== undefined) record.caller = input.caller;
  if (input.server !== undefined) record.server = input.server;
  record.tool = input.tool;
  record.argsDigest =
    json === undefined
      ? UNSERIALISABLE_ARGUMENTS
      : digest === undefined
        ? fnv1a64Hex(json)
        : digest.digest(json);
  record.argsDigestAlgorithm = digest === undefined ? AUDIT_DIGEST_ALGORITHM : digest.algorithm;
  record.outcome = input.outcome;
  record.durationMs = input.durationMs;
  if (input.errorCode !== undefined) record.errorCode = input.errorCode;
  if (options.includeArguments === true && json !== undefined)
    record.arguments = redactCapped(
      json,
      options.maxArgumentChars ?? AUDIT_DEFAULTS.maxArgumentChars,
    );
  return record;
}

/** The digest of a JSON value's canonical form, as in `AuditRecord.argsDigest`. */
export function digestArguments(args: unknown): string {
  return fnv1a64Hex(canonicalJson(args === undefined ? {} : args));
}

/**
 * 64-bit FNV-1a over the UTF-8 encoding of `text` (a lone surrogate counts as U+FFFD, as
 * `TextEncoder` writes it), as 16 hex digits. Encodes on the fly: no byte array is made. The
 * 64-bit state is kept as four 16-bit limbs so that every product stays exact in a double.
 */
export function fnv1a64Hex(text: string): string {
  // Offset basis 0xcbf29ce484222325, low limb first.
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  const step = (byte: number): void => {
    h0 ^= byte;
    // h *= 0x100000001b3, i.e. h * 0x1b3 + (h << 40), modulo 2^64.
    const t0 = h0 * 0x1b3;
    const t1 = h1 * 0x1b3 + (t0 >>> 16);
    const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
    const t3 = h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16);
    h0 = t0 & 0xffff;
    h1 = t1 & 0xffff;
    h2 = t2 & 0xffff;
    h3 = t3 & 0xffff;
  };
  for (let index = 0; index < text.length; index++) {
    let code = text.charCodeAt(index);
    if (code < 0x80) {
      step(code);
      continue;
    }
    if (code < 0x800) {
      step(0xc0 | (code >> 6));
      step(0x80 | (code & 0x3f));
      continue;
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      const next = index + 1 < text.length ? text.charCodeAt(index + 1) : 0;
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
        index++;
        step(0xf0 | (code >> 18));
        step(0x80 | ((code >> 12) & 0x3f));
        step(0x80 | ((code >> 6) & 0x3f));
        step(0x80 | (code & 0x3f));
        continue;
      }
      code = 0xfffd;
    }
    step(0xe0 | (code >> 12));
    step(0x80 | ((code >> 6) & 0x3f));
    step(0x80 | (code & 0x3f));
  }
  return hex16(h3) + hex16(h2) + hex16(h1) + hex16(h0);
}

function hex16(limb: number): string {
  return limb.toString(16).padStart(4, '0');
}

/** Redacts a window wide enough that a secret starting inside the kept part is seen whole. */
function redactCapped(text: string, maxChars: number): string {
  const window = text.slice(0, maxChars * 2 + redactor.maxSecretLength + 256);
  return truncate(redactor.redact(window), maxChars);
}

/**
 * Keeps the last `capacity` records in a fixed array (oldest overwritten first); for tests and the
 * command line. `sink` is bound, so it can be handed to the host as is.
 */
export class AuditRingSink {
  readonly #records: Array<AuditRecord | undefined>;
  #next = 0;
  #size = 0;
  #dropped = 0;

  constructor(readonly capacity = 1000) {
    if (!(Number.isInteger(capacity) && capacity > 0))
      throw new RangeError('AuditRingSink: capacity must be a positive integer');
    this.#records = new Array<AuditRecord | undefined>(capacity).fill(undefined);
  }

  readonly sink: AuditSink = (record) => {
    if (this.#size === this.capacity) this.#dropped += 1;
    else this.#size += 1;
    this.#records[this.#next] = record;
    this.#next = (this.#next + 1) % this.capacity;
  };

  /** Records held now. */
  get size(): number {
    return this.#size;
  }

  /** Records overwritten since construction or the last `clear()`. */
  get dropped(): number {
    return this.#dropped;
  }

  /** The records held, oldest first. */
  records(): AuditRecord[] {
    const out: AuditRecord[] = [];
    const start = (this.#next - this.#size + this.capacity) % this.capacity;
    for (let offset = 0; offset < this.#size; offset++) {
      const record = this.#records[(start + offset) % this.capacity];
      if (record !== undefined) out.push(record);
    }
    return out;
  }

  clear(): void {
    this.#records.fill(undefined);
    this.#next = 0;
    this.#size = 0;
    this.#dropped = 0;
  }
}
