/**
 * A real authorization server (`oidc-provider`) protecting an MCP server built with the official
 * SDK, both on 127.0.0.1, for the CLI's device login and the examples of docs/auth.md: dynamic
 * registration, resource indicators, the device flow and client credentials turned on, the clients
 * given registered beforehand. The MCP server looks each token up in the provider (in-process
 * introspection: present, not expired, issued for this resource; user tokens and client-credentials
 * tokens alike) and answers 401 with `resource_metadata` otherwise.
 *
 * A person is played headlessly: `login(url)` consents to an authorization URL and returns the URL
 * the browser would have been sent back to; `approveDevice(userCode)` / `denyDevice(userCode)`
 * record what the device pages would (the device code's account and grant, through the provider's
 * model API).
 */
import { createHash, createPublicKey, randomBytes, verify, type JsonWebKey } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Provider from 'oidc-provider';
import { approveDeviceCode, denyDeviceCode, followLogin } from './oidc-interactions.js';
import { signingJwk } from './signing-key.js';

export interface OidcWorldOptions {
  /** Clients registered beforehand (oidc-provider client metadata). */
  clients?: Record<string, unknown>[];
  /** The device authorization grant (default on). */
  deviceFlow?: boolean;
  /** How long a device code lives (s; oidc-provider's default is 10 minutes). */
  deviceCodeTtlS?: number;
  /**
   * DPoP (RFC 9449) at the authorization server; the MCP server then takes a DPoP-bound token
   * only as `Authorization: DPoP` with a valid proof by the key it is bound to.
   */
  dpop?: boolean;
}

export interface OidcWorld extends AsyncDisposable {
  readonly issuer: string;
  readonly mcpUrl: string;
  /** Token requests that succeeded, per grant type. */
  readonly grants: Record<string, number>;
  /** The schemes of the tokens the MCP server accepted (`Bearer`, `DPoP`). */
  readonly accepted: string[];
  /** Follows an authorization URL to the redirect URI, consenting; returns that URL. */
  login(url: string | URL): Promise<string>;
  /** Approves a device login as the person would on the verification page. */
  approveDevice(userCode: string): Promise<void>;
  /** Denies it (`access_denied` on the next poll). */
  denyDevice(userCode: string): Promise<void>;
}

interface FoundToken {
  accountId?: string;
  clientId?: string;
  aud?: unknown;
  isExpired: boolean;
  /** The thumbprint of the DPoP key the token is bound to. */
  jkt?: string;
}

const b64 = (text: string) => Buffer.from(text, 'base64url');

/**
 * Whether `proof` (a DPoP header) is a valid ES256 proof for this request and `token`, by the key
 * whose RFC 7638 thumbprint is `jkt`.
 */
function validDpopProof(
  proof: string,
  token: string,
  jkt: string,
  method: string,
  url: string,
): boolean {
  try {
    const [h, p, signature] = proof.split('.');
    const header = JSON.parse(b64(h!).toString()) as {
      typ?: string;
      alg?: string;
      jwk?: JsonWebKey;
    };
    const payload = JSON.parse(b64(p!).toString()) as { htm?: string; htu?: string; ath?: string };
    const jwk = header.jwk;
    if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256' || jwk?.kty !== 'EC') return false;
    const thumbprint = createHash('sha256')
      .update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }))
      .digest('base64url');
    const ath = createHash('sha256').update(token).digest('base64url');
    return (
      thumbprint === jkt &&
      payload.htm === method &&
      payload.htu === url &&
      payload.ath === ath &&
      verify(
        'sha256',
        Buffer.from(`${h}.${p}`),
        { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
        b64(signature!),
      )
    );
  } catch {
    return false;
  }
}

async function listen(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return `http://127.0.0.1:${address.port}`;
}

export async function startOidcWorld(options: OidcWorldOptions = {}): Promise<OidcWorld> {
  const sockets = new Set<Socket>();
  const asServer = createServer();
  const mcpServer = createServer();
  const issuer = await listen(asServer, sockets);
  const mcpOrigin = await listen(mcpServer, sockets);
  const mcpUrl = `${mcpOrigin}/mcp`;
  const grants: Record<string, number> = {};
  const accepted: string[] = [];
  const provider = new Provider(issuer, {
    clients: options.clients ?? [],
    scopes: ['openid', 'offline_access'],
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: {
      keys: [signingJwk()],
    },
    ttl: {
      AccessToken: 3600,
      ClientCredentials: 3600,
      RefreshToken: 86_400,
      Grant: 86_400,
      IdToken: 3600,
      Session: 3600,
      Interaction: 600,
      DeviceCode: options.deviceCodeTtlS ?? 600,
    },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    issueRefreshToken: () => true,
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      deviceFlow: { enabled: options.deviceFlow ?? true },
      ...(options.dpop === true ? { dPoP: { enabled: true } } : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (resource !== mcpUrl) throw new Error(`unknown resource ${resource}`);
          return { scope: 'mcp', accessTokenFormat: 'opaque', accessTokenTTL: 3600 };
        },
      },
    },
  });
  provider.on('grant.success', (ctx) => {
    const grantType = ctx.oidc?.params?.grant_type;
    const type = typeof grantType === 'string' ? grantType : 'unknown';
    grants[type] = (grants[type] ?? 0) + 1;
  });
  const callback = provider.callback();
  asServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/') === true) {
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        const clientId = String(details.params.client_id);
        const grant = new provider.Grant({ accountId: 'user-1', clientId });
        grant.addOIDCScope('openid offline_access');
        grant.addResourceScope(mcpUrl, 'mcp');
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId: 'user-1' }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      })().catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    callback(req, res);
  });

  // oidc-provider's client-credentials tokens are a model of their own.
  const models = provider as unknown as {
    AccessToken: { find(value: string): Promise<FoundToken | undefined> };
    ClientCredentials: { find(value: string): Promise<FoundToken | undefined> };
  };
  const findToken = async (value: string): Promise<FoundToken | undefined> =>
    (await models.AccessToken.find(value)) ?? (await models.ClientCredentials.find(value));

  const prmPath = '/.well-known/oauth-protected-resource/mcp';
  mcpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.url === prmPath) {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            resource: mcpUrl,
            authorization_servers: [issuer],
            scopes_supported: ['mcp'],
          }),
        );
        return;
      }
      const header = req.headers.authorization ?? '';
      const [scheme = '', token = ''] = header.split(' ');
      const found = token === '' ? undefined : await findToken(token);
      const audience = Array.isArray(found?.aud) ? found.aud : [found?.aud];
      // A DPoP-bound token only as DPoP, with a proof by its key; a Bearer one only as Bearer.
      const bound =
        found?.jkt === undefined
          ? scheme === 'Bearer'
          : scheme === 'DPoP' &&
            validDpopProof(String(req.headers.dpop), token, found.jkt, req.method ?? '', mcpUrl);
      if (found === undefined || found.isExpired || !audience.includes(mcpUrl) || !bound) {
        res.statusCode = 401;
        res.setHeader(
          'www-authenticate',
          `Bearer resource_metadata="${mcpOrigin}${prmPath}", scope="mcp"`,
        );
        res.end();
        return;
      }
      accepted.push(scheme);
      const server = new McpServer({ name: 'protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'Who the token was issued to' }, () => ({
        content: [{ type: 'text', text: String(found.accountId ?? found.clientId) }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });

  return {
    issuer,
    mcpUrl,
    grants,
    accepted,
    login: (url) => followLogin(issuer, url),
    approveDevice: (userCode) =>
      approveDeviceCode(provider, userCode, {
        resource: mcpUrl,
        resourceScope: 'mcp',
        oidcScope: 'openid offline_access',
      }),
    denyDevice: (userCode) => denyDeviceCode(provider, userCode),
    async [Symbol.asyncDispose]() {
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        [asServer, mcpServer].map(
          (server) => new Promise<void>((resolve) => server.close(() => resolve())),
        ),
      );
    },
  };
}
