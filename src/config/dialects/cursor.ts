/**
 * Cursor, `.cursor/mcp.json` (JSON with comments): `{ "mcpServers": { name: { command, args, env,
 * envFile } | { url, headers, auth } } }`; `type` is optional (`sse` asks for the legacy
 * transport, a bare `url` is Streamable HTTP).
 *
 * Variables (grammars.ts, `cursorGrammar`) in every string of a server: `${env:VAR}` → `${VAR}`;
 * `${workspaceFolder}`, `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}`, `${/}`
 * resolved at read time; anything else (including `${input:…}`, which Cursor does not have) kept
 * as literal text with a warning. `$VAR` is literal.
 *
 * `auth`: `CLIENT_ID`, `CLIENT_SECRET`, `scopes` map to the model's OAuth settings.
 *
 * Writing: stdio, http (`url` only) and sse (`type: "sse"`). Left out with an error: websocket
 * and disabled servers, inputs, defaults other than empty, literal `${…}` text Cursor would read
 * as a variable. With a warning: `cwd`, OAuth `redirectUri` / `authorizationServer`, host settings.
 */
import type { McpConfig } from '../model.js';
import { cursorGrammar } from './grammars.js';
import { cursorReader } from './readers/cursor-reader.js';
import { writeMcpServersJson, type ServerWriter } from './server-writer.js';
import type { DialectModule } from './types.js';

const LABEL = 'Cursor';

export const cursor: DialectModule = {
  ...cursorReader,
  write(config: McpConfig) {
    return writeMcpServersJson(config, {
      dialect: 'cursor',
      label: LABEL,
      transports: ['stdio', 'http', 'sse'],
      typeValue: (type) => (type === 'sse' ? 'sse' : undefined),
      grammar: () => cursorGrammar,
      stdio: { cwd: false, envFile: true },
      ownSettings: ['oauth'],
      writeOwn: writeAuth,
    });
  },
};

function writeAuth(w: ServerWriter, out: Record<string, unknown>): void {
  const oauth = w.server.oauth;
  if (oauth === undefined) return;
  const auth: Record<string, unknown> = {};
  if (oauth.clientId !== undefined)
    auth.CLIENT_ID = w.template(oauth.clientId, cursorGrammar, 'oauth.clientId');
  if (oauth.clientSecret !== undefined)
    auth.CLIENT_SECRET = w.template(oauth.clientSecret, cursorGrammar, 'oauth.clientSecret');
  if (oauth.scopes !== undefined)
    auth.scopes = oauth.scopes.map((scope) => w.template(scope, cursorGrammar, 'oauth.scopes'));
  for (const key of ['redirectUri', 'authorizationServer'] as const)
    if (oauth[key] !== undefined)
      w.report('warning', 'not-expressible', `Cursor has no OAuth "${key}"; left out`);
  if (Object.keys(auth).length > 0) out.auth = auth;
}
