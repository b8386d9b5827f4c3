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
import type { McpConfig } from '../model.js';
import { claudeCodeFieldGrammar, claudeCodeReader } from './readers/claude-code-reader.js';
import { writeMcpServersJson, type ServerWriter } from './server-writer.js';
import type { DialectModule } from './types.js';

const LABEL = 'Claude Code';

export const claudeCode: DialectModule = {
  ...claudeCodeReader,
  write(config: McpConfig) {
    return writeMcpServersJson(config, {
      dialect: 'claude-code',
      label: LABEL,
      transports: ['stdio', 'http', 'sse'],
      typeValue: (type) => type,
      grammar: claudeCodeFieldGrammar,
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
