/**
 * The naming options of tool-names.ts checked and completed, and the per-name arithmetic: how a
 * (server, tool) pair is sanitised (provider-safe, or only free of unsafe characters), bounded and
 * hashed. Pure: no I/O.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { hash8 } from './name-hash.js';

/** How exposed names are built. */
export interface ToolNamingOptions {
  /** The first part of every name (default `mcp`); `''` for none (`{server}__{tool}`). */
  prefix?: string;
  /** Between prefix, server and tool (default `__`). Non-empty. */
  separator?: string;
  /**
   * Builds the name instead of prefix and separator. The result is still sanitised, bounded and
   * made unique; names of different servers may then clash (and are resolved by the same rule).
   */
  format?: (server: string, tool: string) => string;
  /**
   * Keep every name within `^[a-zA-Z0-9_-]{1,64}$` (default true). With false, names are only
   * kept non-empty, unique, bounded by `maxLength` and free of control characters, for a model that
   * accepts names such as the `mcp:{server}:{tool}` style.
   */
  providerSafe?: boolean;
  /** Longest exposed name, in UTF-16 code units (default 64; at most 64 when provider-safe). */
  maxLength?: number;
  /**
   * Expose every tool (and prompt) under its server's own name, with no prefix or namespace
   * (default false): for a host of **one** server, such as a gateway that stands in for it. Names
   * are still sanitised, bounded and made unique (so a name that is not provider-safe still
   * changes); `prefix` and `separator` are not used, and `format` may not be given too. With
   * names of their own, two servers' tools could clash: a second server is refused
   * (`serverKeyProblems` reason `pass-through`; `McpHost` throws `INVALID_ARGUMENT` naming both).
   */
  passThrough?: boolean;
}

export const DEFAULT_TOOL_NAMING = {
  prefix: 'mcp',
  separator: '__',
  providerSafe: true,
  maxLength: 64,
} as const;

/** What a provider-safe name matches (OpenAI, Anthropic, Gemini and Bedrock all accept it). */
export const PROVIDER_SAFE_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** `_` and 8 hex digits. */
export const HASH_SUFFIX_LENGTH = 9;

/** Shortest `maxLength` accepted: a hash suffix and one more character. */
const MIN_MAX_LENGTH = HASH_SUFFIX_LENGTH + 1;

/**
 * The longest namespace of a server key too long to be its own namespace: a cut of the key, `_`
 * and 8 hex digits of a hash of the whole key (15 + 1 + 8), leaving the tool names room to read.
 */
const HASHED_NAMESPACE_LENGTH = 24;

/** Hex digits of a hash. */
const HASH_DIGITS = 8;

/** Hash seeds tried for a namespace before a key is called too long (practically one). */
const MAX_NAMESPACE_ATTEMPTS = 16;

/** A tool (or prompt) by its server key and its own name on that server. */
export interface ToolRef {
  readonly server: string;
  readonly tool: string;
}

export type ServerKeyProblemReason =
  | 'empty'
  | 'separator'
  | 'too-long'
  | 'same-as-another'
  /** `passThrough` names and more than one server. */
  | 'pass-through';

/** A server key that cannot be used as a namespace; that server's tools get no names. */
export interface ServerKeyProblem {
  readonly server: string;
  readonly reason: ServerKeyProblemReason;
  readonly message: string;
  /** For `same-as-another` and `pass-through`: the other keys it clashes with. */
  readonly others?: readonly string[];
}

/** The provider-safe spelling of `text`: accents dropped, every other run of characters `_`. */
export function toProviderSafe(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9_-]+/gu, '_');
}

/**
 * Characters never allowed in a name, even when provider-safety is off: control characters, line
 * and paragraph separators, bidirectional overrides (they make a name read differently than it
 * is), and lone surrogates.
 */
const UNSAFE_CHARACTERS =
  /[\p{Cc}\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]+|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/gu;

function toControlFree(text: string): string {
  return text.replace(UNSAFE_CHARACTERS, '_');
}

function hasUnsafeCharacter(text: string): boolean {
  UNSAFE_CHARACTERS.lastIndex = 0;
  const found = UNSAFE_CHARACTERS.test(text);
  UNSAFE_CHARACTERS.lastIndex = 0;
  return found;
}

export function isProviderSafeName(name: string): boolean {
  return PROVIDER_SAFE_NAME.test(name);
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareRefs(a: ToolRef, b: ToolRef): number {
  return compare(a.server, b.server) || compare(a.tool, b.tool);
}

/** A name candidate before uniqueness is settled. */
export interface Candidate {
  readonly ref: ToolRef;
  /** The whole sanitised name, not yet bounded. */
  readonly plain: string;
  /** The plain name needed no change at all. */
  readonly clean: boolean;
  /** Too long or empty: the plain name cannot be used. */
  readonly mustHash: boolean;
  /** What the hash suffix is appended to (already short enough). */
  readonly stem: string;
}

/** Options checked and completed, with the per-name arithmetic. */
export class Namer {
  readonly prefix: string;
  readonly separator: string;
  readonly format: ((server: string, tool: string) => string) | undefined;
  readonly passThrough: boolean;
  readonly providerSafe: boolean;
  readonly maxLength: number;

  constructor(options: ToolNamingOptions = {}) {
    const invalid = (message: string) => new McpHostError('INVALID_ARGUMENT', message);
    this.providerSafe = options.providerSafe ?? DEFAULT_TOOL_NAMING.providerSafe;
    this.prefix = options.prefix ?? DEFAULT_TOOL_NAMING.prefix;
    this.separator = options.separator ?? DEFAULT_TOOL_NAMING.separator;
    this.passThrough = options.passThrough ?? false;
    if (typeof this.passThrough !== 'boolean')
      throw invalid('tool naming: passThrough must be true or false');
    if (this.passThrough && options.format !== undefined)
      throw invalid('tool naming: give passThrough or format, not both');
    // Passing names through is the format that keeps the tool's own name.
    this.format = this.passThrough ? passTool : options.format;
    this.maxLength = options.maxLength ?? DEFAULT_TOOL_NAMING.maxLength;
    if (typeof this.prefix !== 'string') throw invalid('tool naming: prefix must be a string');
    if (typeof this.separator !== 'string' || this.separator === '')
      throw invalid('tool naming: separator must be a non-empty string');
    if (this.format !== undefined && typeof this.format !== 'function')
      throw invalid('tool naming: format must be a function (server, tool) => string');
    const ceiling = this.providerSafe ? 64 : Number.MAX_SAFE_INTEGER;
    if (
      !Number.isInteger(this.maxLength) ||
      this.maxLength < MIN_MAX_LENGTH ||
      this.maxLength > ceiling
    )
      throw invalid(
        `tool naming: maxLength must be an integer from ${MIN_MAX_LENGTH} to ${this.providerSafe ? 64 : 'any'}`,
      );
    const fixed = this.prefix + this.separator;
    if (this.providerSafe && fixed !== toProviderSafe(fixed))
      throw invalid(
        'tool naming: with providerSafe, prefix and separator may use only A-Z, a-z, 0-9, _ and -',
      );
    if (!this.providerSafe && hasUnsafeCharacter(fixed))
      throw invalid('tool naming: prefix and separator may not contain control characters');
  }

  clean(text: string): string {
    return this.providerSafe ? toProviderSafe(text) : toControlFree(text);
  }

  /** `prefix + separator + namespace + separator` (the default scheme), or '' with `format`. */
  head(server: string): string {
    if (this.format !== undefined) return '';
    const prefix = this.prefix === '' ? '' : this.prefix + this.separator;
    return prefix + (this.namespace(server) ?? this.clean(server)) + this.separator;
  }

  /**
   * The part of a tool name that stands for its server: the key sanitised; or, when that would
   * leave tool names less than {@link MIN_MAX_LENGTH} characters, the start of it, `_` and 8 hex
   * digits of a hash of the whole key, {@link HASHED_NAMESPACE_LENGTH} characters at most (a
   * 70-character key `very_long…` gives `very_long_serve_1a2b3c4d`). Undefined when even 8 hex
   * digits do not fit (a prefix that leaves no room). Deterministic: the key alone decides.
   */
  namespace(server: string): string | undefined {
    const cleaned = this.clean(server);
    const fixed =
      (this.prefix === '' ? 0 : this.prefix.length + this.separator.length) + this.separator.length;
    const room = this.maxLength - fixed - MIN_MAX_LENGTH;
    if (cleaned.length <= room) return cleaned;
    const length = Math.min(room, HASHED_NAMESPACE_LENGTH);
    if (length < HASH_DIGITS) return undefined;
    const stem = truncate(cleaned, length - HASH_DIGITS - 1);
    for (let attempt = 0; attempt < MAX_NAMESPACE_ATTEMPTS; attempt++) {
      const hash = hash8(server, attempt);
      // The cut may end in part of the separator (`…_` + `_hash` is `__`): cut further.
      for (const joiner of ['_', '-', ''])
        for (let end = stem.length; end >= 0; end--) {
          const kept = stem.slice(0, end);
          const namespace = kept === '' ? hash : kept + joiner + hash;
          if (this.#separatorOnlyAtEnd(namespace)) return namespace;
        }
    }
    return undefined;
  }

  /** `text` followed by the separator holds the separator only there. */
  #separatorOnlyAtEnd(text: string): boolean {
    return (text + this.separator).indexOf(this.separator) === text.length;
  }

  /** Why a server key cannot be a namespace, ignoring other keys; undefined when it can. */
  serverProblem(server: string): Omit<ServerKeyProblem, 'others'> | undefined {
    const cleaned = this.clean(server);
    if (cleaned === '')
      return { server, reason: 'empty', message: 'a server key must be non-empty' };
    if (this.format !== undefined) return undefined;
    const sep = this.separator;
    if (!this.#separatorOnlyAtEnd(cleaned))
      return {
        server,
        reason: 'separator',
        message: server.includes(sep)
          ? `server key ${JSON.stringify(server)} contains the tool-name separator ${JSON.stringify(sep)}, so its tool names would be ambiguous`
          : `server key ${JSON.stringify(server)} becomes ${JSON.stringify(cleaned)} in tool names, which holds or ends with part of the tool-name separator ${JSON.stringify(sep)}, so its tool names would be ambiguous`,
      };
    if (this.namespace(server) === undefined)
      return {
        server,
        reason: 'too-long',
        message: `server key ${JSON.stringify(server)} cannot namespace tools: the prefix and separator leave no room for it within ${this.maxLength} characters, even shortened with a hash`,
      };
    return undefined;
  }

  candidate(ref: ToolRef): Candidate {
    let raw: string;
    let head: string;
    let tail: string;
    if (this.format === undefined) {
      head = this.head(ref.server);
      raw = (this.prefix === '' ? '' : this.prefix + this.separator) + ref.server + this.separator;
      raw += ref.tool;
      tail = this.clean(ref.tool);
    } else {
      const formatted = this.format(ref.server, ref.tool);
      if (typeof formatted !== 'string')
        throw new McpHostError('INVALID_ARGUMENT', 'tool naming: format must return a string', {
          serverName: ref.server,
          tool: ref.tool,
        });
      head = '';
      raw = formatted;
      tail = this.clean(formatted);
    }
    const plain = head + tail;
    const mustHash = plain.length > this.maxLength || plain === '';
    const stem = head + truncate(tail, this.maxLength - HASH_SUFFIX_LENGTH - head.length);
    return { ref, plain, clean: plain === raw && !mustHash, mustHash, stem };
  }

  hashed(candidate: Candidate, attempt: number): string {
    return `${candidate.stem}_${hash8(JSON.stringify([candidate.ref.server, candidate.ref.tool]), attempt)}`;
  }
}

function passTool(_server: string, tool: string): string {
  return tool;
}

/** The first `length` code units of `text`, never ending in half a surrogate pair. */
function truncate(text: string, length: number): string {
  if (text.length <= length) return text;
  const cut = text.slice(0, Math.max(0, length));
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
