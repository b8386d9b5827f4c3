/**
 * Claude Code, `.mcp.json`: `{ "mcpServers": { name: { type, command, args, env, url, headers,
 * oauth } } }` with `type` `stdio` (the default), `http` or `sse`.
 *
 * Variables (grammars.ts, `claudeCodeGrammar`): `${VAR}` and `${VAR:-default}` in `command`,
 * `args`, `env`, `url` and `headers` only; other strings are literal. Claude Code counts an empty
 * variable as set, also for `:-`, so its `${VAR:-default}` is the canonical `${VAR-default}`.
 *
 * `oauth`: `clientId`, `scopes` (a space-separated string, or an array) and
 * `authServerMetadataUrl` map to the model; `callbackPort` and other keys are kept in `extra`.
 * `headersHelper` (a command printing headers) is kept in `extra` with a warning.
 *
 * Writing: stdio, http and sse. Left out with an error: websocket and disabled servers,
 * `${input:…}`, literal text Claude Code would expand. With a warning: `cwd`, `envFile`, OAuth
 * `clientSecret` (Claude Code keeps it in its credential store) and `redirectUri`, host settings;
 * a canonical `${VAR:-default}` is written as Claude Code's `${VAR:-default}`, which keeps an
 * empty VAR.
 */
import { aboutServer } from '../../errors/mcp-host-error.js';
import type { McpConfig } from '../model.js';
import { claudeCodeGrammar } from './grammars.js';
import { readMapDocument } from './read-document.js';
import { readOAuthEntry, type TemplateField } from './server-entry.js';
import { writeMcpServersJson, type ServerWriter } from './server-writer.js';
import type { DialectModule, DialectReadOptions, DialectDocument } from './types.js';

const LABEL = 'Claude Code';
const EXPANDED: readonly TemplateField[] = ['command', 'args', 'env', 'url', 'headers'];
const grammar = (field: TemplateField) =>
  EXPANDED.includes(field) ? claudeCodeGrammar : undefined;

export const claudeCode: DialectModule = {
  dialect: 'claude-code',
  format: 'json',
  read(document: DialectDocument, file: string, options?: DialectReadOptions) {
    return readMapDocument(document, file, options, {
      dialect: 'claude-code',
      serversKey: 'mcpServers',
      rules: {
        dialect: 'claude-code',
        grammar,
        ownKeys: ['oauth', 'headersHelper'],
        readOwnKey(key, value, path, draft, name, ctx) {
          if (key === 'headersHelper') {
            draft.extra[key] = value;
            ctx.report(
              'warning',
              'unsupported-key',
              aboutServer(name, `"headersHelper" is not run by mcp-host; kept as it is`),
              path,
              name,
            );
            return;
          }
          readOAuthEntry(value, path, draft, name, ctx, {
            key: 'oauth',
            quietKeys: ['callbackPort'],
            readKey(sub, item, at, oauth) {
              if (sub === 'clientId' && typeof item === 'string') {
                const text = ctx.template(item, at, undefined, name);
                if (text !== undefined) oauth.clientId = text;
              } else if (sub === 'authServerMetadataUrl' && typeof item === 'string') {
                const text = ctx.template(item, at, undefined, name);
                if (text !== undefined) oauth.authorizationServer = text;
              } else if (sub === 'scopes' && (typeof item === 'string' || Array.isArray(item))) {
                const scopes =
                  typeof item === 'string' ? item.split(/\s+/).filter(Boolean) : item.map(String);
                oauth.scopes = scopes.map(
                  (scope) => ctx.template(scope, at, undefined, name) ?? scope,
                );
              } else return false;
              return true;
            },
          });
        },
      },
    });
  },
  write(config: McpConfig) {
    return writeMcpServersJson(config, {
      dialect: 'claude-code',
      label: LABEL,
      transports: ['stdio', 'http', 'sse'],
      typeValue: (type) => type,
      grammar,
      stdio: { cwd: false, envFile: false },
      ownSettings: ['oauth'],
      writeOwn: writeOAuth,
    });
  },
};

function writeOAuth(w: ServerWriter, out: Record<string, unknown>): void {
  const oauth = w.server.oauth;
  if (oauth === undefined) return;
  const entry: Record<string, unknown> = {};
  if (oauth.clientId !== undefined)
    entry.clientId = w.template(oauth.clientId, undefined, 'oauth.clientId');
  if (oauth.scopes !== undefined)
    entry.scopes = oauth.scopes
      .map((scope) => w.template(scope, undefined, 'oauth.scopes'))
      .join(' ');
  if (oauth.authorizationServer !== undefined)
    entry.authServerMetadataUrl = w.template(
      oauth.authorizationServer,
      undefined,
      'oauth.authorizationServer',
    );
  if (oauth.clientSecret !== undefined)
    w.report(
      'warning',
      'not-expressible',
      'Claude Code keeps the OAuth client secret out of .mcp.json; left out',
    );
  if (oauth.redirectUri !== undefined)
    w.report(
      'warning',
      'not-expressible',
      'Claude Code has no OAuth "redirectUri" (only "callbackPort"); left out',
    );
  if (Object.keys(entry).length > 0) out.oauth = entry;
}
