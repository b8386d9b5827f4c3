/**
 * A dialect's OAuth object on a server entry (Claude Code `oauth`, Cursor `auth`): it must be an
 * object; each key the dialect maps fills the model's `OAuthConfig`, any other key is kept as it
 * is in `extra` (under the dialect's own key) with a warning.
 */
import type { OAuthConfig } from '../model.js';
import { isRecord, typeName, type KeyPath, type ReadContext } from './read-context.js';
import type { ServerDraft } from './server-entry.js';

export interface OAuthEntryRules {
  /** The key as the dialect spells it (`oauth`, `auth`): named in warnings, used in `extra`. */
  key: string;
  /** Reads one mapped key into `oauth`; `false` when the dialect does not map this key. */
  readKey(sub: string, item: unknown, at: KeyPath, oauth: OAuthConfig): boolean;
  /** Unmapped keys kept in `extra` without a warning (ones the dialect knows but we do not use). */
  quietKeys?: readonly string[];
}

/** Reads `value`, the dialect's OAuth object, into `draft.oauth` (and `draft.extra`). */
export function readOAuthEntry(
  value: unknown,
  path: KeyPath,
  draft: ServerDraft,
  name: string,
  ctx: ReadContext,
  rules: OAuthEntryRules,
): void {
  if (!isRecord(value)) {
    ctx.report('error', 'invalid-type', `expected an object, found ${typeName(value)}`, path, name);
    return;
  }
  const oauth: OAuthConfig = {};
  const rest: Record<string, unknown> = {};
  for (const [sub, item] of Object.entries(value)) {
    const at = [...path, sub];
    if (rules.readKey(sub, item, at, oauth)) continue;
    rest[sub] = item;
    if (!(rules.quietKeys ?? []).includes(sub))
      ctx.report(
        'warning',
        'unknown-key',
        `server "${name}": unknown ${rules.key} key "${sub}" kept as it is`,
        at,
        name,
      );
  }
  draft.oauth = oauth;
  if (Object.keys(rest).length > 0) draft.extra[rules.key] = rest;
}
