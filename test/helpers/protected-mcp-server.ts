/**
 * An MCP server protected by OAuth, on 127.0.0.1: the scripted MCP server serves its protected
 * resource metadata (naming the scripted authorization server of `oauth-fixture.ts`, on another
 * port) and answers 401 with a `WWW-Authenticate` challenge unless the request carries a Bearer
 * token that authorization server issued (and the test has not revoked).
 */
import { startOAuthFixture, type OAuthFixture, type OAuthFixtureOptions } from './oauth-fixture.js';
import { startScriptedMcpServer, type ScriptedMcpServer } from './scripted-mcp-http-server.js';

export interface ProtectedMcpServer extends AsyncDisposable {
  mcp: ScriptedMcpServer;
  oauth: OAuthFixture;
  /** The access tokens the server accepts (the issued ones, unless removed). */
  accepted: Set<string>;
}

export async function startProtectedMcpServer(
  options: OAuthFixtureOptions = {},
): Promise<ProtectedMcpServer> {
  const accepted = new Set<string>();
  const oauth = await startOAuthFixture({
    ...options,
    accessToken: (n, body) => {
      const token = options.accessToken?.(n, body) ?? `access-${n}-canary`;
      accepted.add(token);
      return token;
    },
  });
  let prm = '';
  const mcp = await startScriptedMcpServer({
    guard: (request, res) => {
      // Its own resource metadata, as a real server has it (RFC 9728, path-aware).
      if (request.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            resource: prm.replace('/.well-known/oauth-protected-resource', ''),
            authorization_servers: options.prmAuthorizationServers?.(oauth.issuer) ?? [
              oauth.issuer,
            ],
            scopes_supported: ['read'],
          }),
        );
        return true;
      }
      if (request.url !== '/mcp') {
        res.writeHead(404).end();
        return true;
      }
      const header = request.headers.authorization;
      const token = header?.startsWith('Bearer ') === true ? header.slice(7) : undefined;
      if (token !== undefined && accepted.has(token)) return false;
      res
        .writeHead(401, {
          'www-authenticate': `Bearer resource_metadata="${prm}", scope="read"`,
        })
        .end();
      return true;
    },
  });
  prm = `${mcp.origin}/.well-known/oauth-protected-resource/mcp`;
  return {
    mcp,
    oauth,
    accepted,
    async [Symbol.asyncDispose]() {
      await mcp[Symbol.asyncDispose]();
      await oauth[Symbol.asyncDispose]();
    },
  };
}
