import { toDisposable, type Disposable } from '../internal/disposable.js';

/** What a masked value is replaced with, everywhere. */
export const MASK = '<masked>';

/** Secrets shorter than this are not registered: masking "a" or "1" would mangle every message. */
export const MIN_SECRET_LENGTH = 4;

/**
 * Shapes that look like credentials even when nobody registered them. Each pattern keeps its
 * first group (the label) and masks the rest of the match.
 *
 * Each comes with `mayMatch`, a cheap test that every match passes (text the pattern cannot match
 * fails it): most text masked is a plain message, and a pattern is compiled on its first use (up
 * to half a millisecond each, about 1 ms for all, in every process that writes one error). The
 * case-insensitive patterns are tested against the lowered text: under `i` without `u`, only
 * ASCII letters match ASCII letters, and lowering keeps those.
 */
interface CredentialPattern {
  readonly pattern: RegExp;
  readonly mayMatch: (text: string, lower: string) => boolean;
}

const credentialPatterns: readonly CredentialPattern[] = [
  {
    // Authorization-style headers, in "Name: value", "name=value" and JSON forms.
    pattern:
      /((?:^|[\s"'{,;])(?:proxy-)?(?:authorization|x-api-key|api-key|x-auth-token|cookie|set-cookie|mcp-session-id)["']?\s*[:=]\s*["']?)[^"'\r\n,}]+/gim,
    mayMatch: (text, lower) =>
      (text.includes(':') || text.includes('=')) &&
      ['authorization', 'api-key', 'x-auth-token', 'cookie', 'mcp-session-id'].some((name) =>
        lower.includes(name),
      ),
  },
  {
    // Bearer and Basic credentials wherever they stand (not a challenge's `realm="…"`
    // auth-param).
    pattern: /(\b(?:bearer|basic)\s+)(?![A-Za-z0-9._~+/-]+=\s*")[A-Za-z0-9._~+/=-]{4,}/gi,
    mayMatch: (_text, lower) => lower.includes('bearer') || lower.includes('basic'),
  },
  {
    // User info in URLs: scheme://user:password@host or scheme://token@host.
    pattern: /(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s:@]+(?::[^/\s@]*)?(?=@)/gi,
    mayMatch: (text) => text.includes('://') && text.includes('@'),
  },
  {
    // Query parameters that carry credentials.
    pattern:
      /([?&;](?:access_token|refresh_token|id_token|token|api[_-]?key|apikey|key|secret|client_secret|password|passwd|pwd|auth|code|sig|signature|session|sessionid|session_id|x-amz-signature|x-amz-credential)=)[^&#\s"'<>]+/gi,
    mayMatch: (text) => text.includes('='),
  },
  {
    // NAME=value assignments whose name says secret (env dumps, argv echoes).
    pattern:
      /(\b[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|APIKEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?)[A-Z0-9_]*=)[^\s"']+/g,
    mayMatch: (text) => text.includes('='),
  },
  {
    // "some_token": "value" in JSON.
    pattern:
      /("[^"\s]*(?:token|secret|password|passwd|api[_-]?key|apikey|authorization|credential)[^"\s]*"\s*:\s*")[^"]*/gi,
    mayMatch: (text) => text.includes('"') && text.includes(':'),
  },
];

/** Well-known token formats, masked whole. */
const tokenPattern =
  /\b(?:sk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})/g;
/** What every match of `tokenPattern` contains (it is case-sensitive). */
const TOKEN_MARKS = ['sk-', 'gh', 'github_pat_', 'glpat-', 'xox', 'AKIA', 'AIza', 'eyJ'];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Masks secrets in text. Values registered with `addSecret` are masked wherever they appear (also
 * JSON- and URL-encoded), so a secret that a server echoes back is caught too; on top of that,
 * credential-looking headers, URL user info, query tokens and well-known token formats are masked
 * without registration. Every error message, log line and stderr tail goes through one.
 */
export class Redactor {
  readonly #secrets = new Map<string, number>();
  #pattern: RegExp | null | undefined;

  /** Registers a secret value; disposing the result unregisters it (reference-counted). */
  addSecret(value: string): Disposable {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH)
      return toDisposable(() => {});
    const forms = new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]);
    for (const form of forms) this.#secrets.set(form, (this.#secrets.get(form) ?? 0) + 1);
    this.#pattern = undefined;
    return toDisposable(() => {
      for (const form of forms) {
        const count = (this.#secrets.get(form) ?? 1) - 1;
        if (count <= 0) this.#secrets.delete(form);
        else this.#secrets.set(form, count);
      }
      this.#pattern = undefined;
    });
  }

  /** Length of the longest registered secret form. */
  get maxSecretLength(): number {
    let max = 0;
    for (const value of this.#secrets.keys()) max = Math.max(max, value.length);
    return max;
  }

  get secretCount(): number {
    return this.#secrets.size;
  }

  redact(text: string): string {
    if (text.length === 0) return text;
    let out = text;
    const secrets = this.#secretPattern();
    if (secrets !== null) out = out.replace(secrets, MASK);
    const lower = out.toLowerCase();
    for (const { pattern, mayMatch } of credentialPatterns)
      if (mayMatch(out, lower)) out = out.replace(pattern, `$1${MASK}`);
    return TOKEN_MARKS.some((mark) => out.includes(mark)) ? out.replace(tokenPattern, MASK) : out;
  }

  #secretPattern(): RegExp | null {
    if (this.#pattern === undefined) {
      const values = [...this.#secrets.keys()].sort((a, b) => b.length - a.length);
      this.#pattern =
        values.length === 0 ? null : new RegExp(values.map(escapeRegExp).join('|'), 'g');
    }
    return this.#pattern;
  }
}

/**
 * The process-wide redactor. Configuration registers every secret here (env values marked secret,
 * header values, tokens), and every error and log line of mcp-host is passed through it.
 */
export const redactor = new Redactor();

/** Shorthand for `redactor.redact(text)`. */
export function redact(text: string): string {
  return redactor.redact(text);
}

/** Registers a secret with the process-wide redactor. */
export function addSecret(value: string): Disposable {
  return redactor.addSecret(value);
}

/** Shortens text to at most `maxChars`, marking the cut. */
export function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}

/** A short, redacted, single-line preview of untrusted text, for error messages and logs. */
export function preview(text: string, maxChars = 120): string {
  // Redact a window wide enough that any secret starting inside the kept part is seen whole.
  const window = text.slice(0, maxChars * 2 + redactor.maxSecretLength + 256);
  // eslint-disable-next-line no-control-regex
  const oneLine = window.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return truncate(redact(oneLine), maxChars);
}
