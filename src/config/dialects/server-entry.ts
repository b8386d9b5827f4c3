/**
 * One server entry of the `mcpServers` / `servers` family (Claude Desktop, Claude Code, VS Code,
 * Cursor) into a normalised ServerConfig. The shared keys are read the same way in every dialect,
 * leniently, so a file copied from one tool to another still loads:
 *
 * - transport: `type` (or `transport`) `stdio` | `http` | `streamable-http` | `sse` | `ws`;
 *   without one, `command` means stdio and `url`, `serverUrl` or `httpUrl` Streamable HTTP (the
 *   client falls back to HTTP+SSE by itself), or WebSocket for a `ws://` / `wss://` URL; `command` may be an array (`["npx", "-y", "x"]`:
 *   the rest goes before `args`);
 * - enable flags: `disabled: true` or `enabled: false`;
 * - tool filters: `disabledTools` / `excludeTools` block, `includeTools` allows (names, escaped as
 *   globs); `alwaysAllow` (an approval list, not a filter) is kept in `extra` with a warning;
 * - anything else the dialect does not read itself: kept in `extra` with an `unknown-key` warning.
 */
import { aboutServer } from '../../errors/mcp-host-error.js';
import type { ConfigDialect, OAuthConfig, ServerConfig, TransportConfig } from '../model.js';
import type { DialectGrammar } from './grammars.js';
import { globOfName, readString, readStringList, readStringMap } from './entry-values.js';
import { closestKey } from '../diagnostics.js';
import { typeName, type ReadContext } from './read-context.js';
import { isRecord, type KeyPath } from '../parse.js';

/** The fields whose strings may hold variables in some dialect. */
export type TemplateField =
  'command' | 'args' | 'env' | 'cwd' | 'envFile' | 'url' | 'headers' | 'oauth';

/** A server being read: the dialect's own keys add to it. */
export interface ServerDraft {
  oauth?: OAuthConfig;
  extra: Record<string, unknown>;
}

export interface EntryRules {
  dialect: ConfigDialect;
  /** The grammar of a field; `undefined` means its strings are literal. */
  grammar(field: TemplateField): DialectGrammar | undefined;
  /** The dialect's own keys (besides the shared ones), for "did you mean". */
  ownKeys: readonly string[];
  /** Reads one of `ownKeys` into the draft. */
  readOwnKey?(
    key: string,
    value: unknown,
    path: KeyPath,
    draft: ServerDraft,
    name: string,
    ctx: ReadContext,
  ): void;
  /** Said (as a warning) about a remote server, e.g. that the tool itself cannot reach one. */
  remoteWarning?: string;
}

export const SHARED_KEYS = [
  'type',
  'transport',
  'command',
  'args',
  'env',
  'cwd',
  'envFile',
  'url',
  'serverUrl',
  'httpUrl',
  'headers',
  'disabled',
  'enabled',
  'disabledTools',
  'excludeTools',
  'includeTools',
  'alwaysAllow',
] as const;

const TYPES: Record<string, TransportConfig['type']> = {
  stdio: 'stdio',
  http: 'http',
  'streamable-http': 'http',
  streamableHttp: 'http',
  streamable_http: 'http',
  sse: 'sse',
  ws: 'websocket',
  websocket: 'websocket',
};

/** Reads one entry; `undefined` when it had an error (reported). */
export function readServerEntry(
  name: string,
  raw: unknown,
  path: KeyPath,
  rules: EntryRules,
  ctx: ReadContext,
): ServerConfig | undefined {
  const errorsBefore = ctx.errorCount(name);
  if (!isRecord(raw)) {
    ctx.report(
      'error',
      'invalid-type',
      aboutServer(name, `expected an object, found ${typeName(raw)}`),
      path,
      name,
    );
    return undefined;
  }
  const draft: ServerDraft = { extra: {} };
  const at = (key: string): KeyPath => [...path, key];
  const template = (value: unknown, keyPath: KeyPath, field: TemplateField): string | undefined => {
    const text = readString(value, keyPath, name, ctx);
    return text === undefined ? undefined : ctx.template(text, keyPath, rules.grammar(field), name);
  };

  let type: TransportConfig['type'] | undefined;
  let command: string | undefined;
  const args: string[] = [];
  let env: Record<string, string> = {};
  let headers: Record<string, string> = {};
  let url: string | undefined;
  let urlKey: string | undefined;
  let cwd: string | undefined;
  let envFile: string | undefined;
  let enabled = true;
  const allow: string[] = [];
  const block: string[] = [];
  const known = [...SHARED_KEYS, ...rules.ownKeys];

  for (const [key, value] of Object.entries(raw)) {
    switch (key) {
      case 'type':
      case 'transport': {
        const text = readString(value, at(key), name, ctx);
        if (text === undefined) break;
        type = TYPES[text];
        if (type === undefined)
          ctx.report(
            'error',
            'invalid-value',
            aboutServer(
              name,
              `unknown transport type "${text}" (expected stdio, http, streamable-http, sse or ws)`,
            ),
            at(key),
            name,
            closestKey(text, Object.keys(TYPES)),
          );
        break;
      }
      case 'command': {
        if (Array.isArray(value)) {
          const [first, ...rest] = readStringList(value, at(key), name, ctx);
          if (first !== undefined) command = template(first, [...at(key), 0], 'command');
          rest.forEach((arg, i) => {
            const text = template(arg, [...at(key), i + 1], 'args');
            if (text !== undefined) args.push(text);
          });
          if (first === undefined)
            ctx.report(
              'error',
              'invalid-value',
              aboutServer(name, `the command array is empty`),
              at(key),
              name,
            );
        } else command = template(value, at(key), 'command');
        break;
      }
      case 'args':
        readStringList(value, at(key), name, ctx).forEach((arg, i) => {
          const text = ctx.template(arg, [...at(key), i], rules.grammar('args'), name);
          if (text !== undefined) args.push(text);
        });
        break;
      case 'env':
        env = readStringMap(value, at(key), name, rules.grammar('env'), ctx);
        break;
      case 'headers':
        headers = readStringMap(value, at(key), name, rules.grammar('headers'), ctx);
        break;
      case 'cwd':
        cwd = template(value, at(key), 'cwd');
        break;
      case 'envFile':
        envFile = template(value, at(key), 'envFile');
        break;
      case 'url':
      case 'serverUrl':
      case 'httpUrl':
        if (urlKey !== undefined)
          ctx.report(
            'error',
            'conflicting-keys',
            aboutServer(name, `both "${urlKey}" and "${key}"`),
            at(key),
            name,
          );
        urlKey = key;
        url = template(value, at(key), 'url');
        break;
      case 'disabled':
      case 'enabled':
        if (typeof value !== 'boolean')
          ctx.report(
            'error',
            'invalid-type',
            `expected true or false, found ${typeName(value)}`,
            at(key),
            name,
          );
        else if (value === (key === 'disabled')) enabled = false;
        break;
      case 'disabledTools':
      case 'excludeTools':
        block.push(...readStringList(value, at(key), name, ctx).map(globOfName));
        break;
      case 'includeTools':
        allow.push(...readStringList(value, at(key), name, ctx).map(globOfName));
        break;
      case 'alwaysAllow':
        draft.extra[key] = value;
        ctx.report(
          'warning',
          'unsupported-key',
          aboutServer(
            name,
            `"alwaysAllow" skips approval in its tool; mcp-host keeps it but does not use it (it is not a tool filter)`,
          ),
          at(key),
          name,
        );
        break;
      default:
        if (rules.ownKeys.includes(key)) rules.readOwnKey?.(key, value, at(key), draft, name, ctx);
        else {
          draft.extra[key] = value;
          const suggestion = closestKey(key, known);
          ctx.report(
            'warning',
            'unknown-key',
            aboutServer(
              name,
              `unknown key "${key}" kept as it is${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`,
            ),
            at(key),
            name,
            suggestion,
          );
        }
    }
  }

  if (type === undefined) {
    if (command !== undefined && urlKey !== undefined)
      ctx.report(
        'error',
        'conflicting-keys',
        aboutServer(name, `both "command" and "${urlKey}"; add "type"`),
        path,
        name,
      );
    else if (command !== undefined || raw.command !== undefined) type = 'stdio';
    else if (urlKey !== undefined)
      type = url !== undefined && /^wss?:\/\//i.test(url) ? 'websocket' : 'http';
    else
      ctx.report(
        'error',
        'missing-key',
        aboutServer(name, `expected "command" (stdio) or "url" (remote)`),
        path,
        name,
      );
  }
  let transport: TransportConfig | undefined;
  if (type === 'stdio') {
    if (command === undefined) {
      if (raw.command === undefined)
        ctx.report(
          'error',
          'missing-key',
          aboutServer(name, `a stdio server needs "command"`),
          path,
          name,
        );
    } else
      transport = {
        type,
        command,
        args,
        env,
        ...(cwd === undefined ? {} : { cwd }),
        ...(envFile === undefined ? {} : { envFile }),
      };
    if (urlKey !== undefined || Object.keys(headers).length > 0)
      ctx.report(
        'warning',
        'ignored-key',
        aboutServer(name, `"url" and "headers" do not apply to stdio`),
        path,
        name,
      );
  } else if (type !== undefined) {
    if (url === undefined) {
      if (urlKey === undefined)
        ctx.report(
          'error',
          'missing-key',
          aboutServer(name, `a ${type} server needs "url"`),
          path,
          name,
        );
    } else transport = { type, url, headers };
    const stdioOnly =
      command !== undefined ||
      cwd !== undefined ||
      envFile !== undefined ||
      args.length > 0 ||
      Object.keys(env).length > 0;
    if (stdioOnly)
      ctx.report(
        'warning',
        'ignored-key',
        aboutServer(name, `"command", "args", "env", "cwd" and "envFile" do not apply to ${type}`),
        path,
        name,
      );
    if (rules.remoteWarning !== undefined && transport !== undefined)
      ctx.report(
        'warning',
        'unsupported-transport',
        aboutServer(name, `${rules.remoteWarning}`),
        path,
        name,
      );
  }
  if (transport === undefined || ctx.errorCount(name) > errorsBefore) return undefined;
  return {
    name,
    transport,
    enabled,
    ...(allow.length + block.length === 0
      ? {}
      : {
          tools: { ...(allow.length > 0 ? { allow } : {}), ...(block.length > 0 ? { block } : {}) },
        }),
    ...(draft.oauth === undefined ? {} : { oauth: draft.oauth }),
    ...(Object.keys(draft.extra).length === 0 ? {} : { extra: draft.extra }),
    source: ctx.location(path),
  };
}

/**
 * A dialect's OAuth object on a server entry (Claude Code `oauth`, Cursor `auth`): it must be an
 * object; each key the dialect maps fills the model's `OAuthConfig`, any other key is kept as it
 * is in `extra` (under the dialect's own key) with a warning.
 */
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
        aboutServer(name, `unknown ${rules.key} key "${sub}" kept as it is`),
        at,
        name,
      );
  }
  draft.oauth = oauth;
  if (Object.keys(rest).length > 0) draft.extra[rules.key] = rest;
}
