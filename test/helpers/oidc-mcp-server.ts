/**
 * A real authorization server (`oidc-provider` with dynamic registration and resource indicators)
 * protecting an MCP server built with the official SDK, both on 127.0.0.1. The MCP server checks
 * each bearer token by looking it up in the provider (in-process introspection: present, not
 * expired, issued for this resource) and answers 401 with `resource_metadata` otherwise; it serves
 * its Protected Resource Metadata. Logins are consented automatically: `login(url)` drives the
 * authorization URL with fetch (cookies kept, redirects followed by hand) and returns the URL the
 * browser would have been sent back to.
 *
 * With `stepUp`, the resource's scopes are `mcp:a` and `mcp:b`: a 401 asks for `mcp:a` only, and
 * the tool `b` needs `mcp:b` too (403 `insufficient_scope` naming both otherwise). A login grants
 * the scopes the authorization request asked for.
 *
 * With `dpop`, oidc-provider's DPoP feature is on (it advertises ES256, so the client asks for
 * DPoP-bound tokens), and the MCP server takes a bound token only as `Authorization: DPoP` with a
 * valid proof (signature, `htm`, `ath`) of the key the token is bound to (`jkt`).
 */
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import Provider from 'oidc-provider';
import { followLogin } from './oidc-interactions.js';
import { signingJwk } from './signing-key.js';

export interface OidcMcpServer extends AsyncDisposable {
  readonly issuer: string;
  readonly mcpUrl: string;
  /** Token requests per grant type. */
  readonly grants: Record<string, number>;
  /** Requests the MCP server refused with 401. */
  readonly unauthorized: number;
  /** Requests the MCP server refused with 403 `insufficient_scope`. */
  readonly forbidden: number;
  /** The thumbprints of the DPoP keys of the proofs the MCP server accepted. */
  readonly dpopKeys: Set<string>;
  /** Scopes the MCP server never counts as granted (one that keeps refusing after a step-up). */
  readonly withheld: Set<string>;
  /** Authorization requests seen (logins). */
  readonly logins: number;
  /** Dynamic client registrations made. */
  readonly registrations: number;
  /**
   * While set, the token endpoint never answers: a request waits until the client gives up (or
   * the hang is released), then is dropped unanswered and unprocessed (no token spent).
   */
  hangTokenEndpoint: boolean;
  /** Token requests that arrived while the token endpoint hung. */
  readonly hungTokenRequests: number;
  /** The account the next login logs in as (default `user-1`): the `whoami` tool answers it. */
  account: string;
  /** The requests the MCP server accepted: the account and the token of each. */
  readonly accepted: ReadonlyArray<{ account: string; token: string }>;
  /** Follows an authorization URL to the redirect URI, consenting; returns that URL. */
  login(url: string | URL): Promise<string>;
  /** Revokes a refresh token (`invalid_grant` on its next use). */
  revokeRefreshToken(token: string): Promise<void>;
  /** Revokes an access token (the MCP server refuses it with 401 from now on). */
  revokeAccessToken(token: string): Promise<void>;
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

const b64 = (text: string): Buffer => Buffer.from(text, 'base64url');

/**
 * The JWK thumbprint (RFC 7638) of the key of the request's DPoP proof, when the proof is valid
 * for this request and `token`: signed by that key (ES256), `htm` the method, `ath` the token's
 * hash. Undefined otherwise.
 */
function dpopProofKey(req: IncomingMessage, token: string): string | undefined {
  const proof = req.headers.dpop;
  if (typeof proof !== 'string') return undefined;
  const [header = '', payload = '', signature = ''] = proof.split('.');
  try {
    const h = JSON.parse(b64(header).toString('utf8')) as {
      typ?: string;
      alg?: string;
      jwk?: { kty: string; crv: string; x: string; y: string };
    };
    const p = JSON.parse(b64(payload).toString('utf8')) as { htm?: string; ath?: string };
    if (h.typ !== 'dpop+jwt' || h.alg !== 'ES256' || h.jwk === undefined) return undefined;
    if (p.htm !== req.method) return undefined;
    if (p.ath !== createHash('sha256').update(token).digest('base64url')) return undefined;
    const { kty, crv, x, y } = h.jwk;
    const key = createPublicKey({ key: { kty, crv, x, y }, format: 'jwk' });
    const data = Buffer.from(`${header}.${payload}`);
    if (!verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, b64(signature)))
      return undefined;
    return createHash('sha256').update(JSON.stringify({ crv, kty, x, y })).digest('base64url');
  } catch {
    return undefined;
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

/** Whether a JSON-RPC body (or batch) calls the tool `name`. */
function isToolCall(body: unknown, name: string): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    const m = message as { method?: unknown; params?: { name?: unknown } } | null;
    return m?.method === 'tools/call' && m.params?.name === name;
  });
}

export async function startOidcMcpServer(
  options: { accessTokenTtlS?: number; stepUp?: boolean; dpop?: boolean } = {},
): Promise<OidcMcpServer> {
  const sockets = new Set<Socket>();
  const asServer = createServer();
  const mcpServer = createServer();
  const issuer = await listen(asServer, sockets);
  const mcpOrigin = await listen(mcpServer, sockets);
  const mcpUrl = `${mcpOrigin}/mcp`;
  const grants: Record<string, number> = {};
  let logins = 0;
  let registrations = 0;
  let hungTokenRequests = 0;
  let hang: { promise: Promise<void>; release: () => void } | undefined;
  const setHang = (on: boolean): void => {
    if (on) {
      if (hang !== undefined) return;
      let release = (): void => {};
      const promise = new Promise<void>((resolve) => (release = resolve));
      hang = { promise, release };
    } else {
      hang?.release();
      hang = undefined;
    }
  };
  let unauthorized = 0;
  let forbidden = 0;
  let account = 'user-1';
  const accepted: Array<{ account: string; token: string }> = [];
  const withheld = new Set<string>();
  const dpopKeys = new Set<string>();
  const resourceScopes = options.stepUp === true ? 'mcp:a mcp:b' : 'mcp';
  const challengeScope = options.stepUp === true ? 'mcp:a' : 'mcp';
  const provider = new Provider(issuer, {
    scopes: ['openid', 'offline_access'],
    cookies: { keys: [randomBytes(32).toString('hex')] },
    jwks: {
      keys: [signingJwk()],
    },
    ttl: { AccessToken: 3600, RefreshToken: 86_400, Grant: 86_400, IdToken: 3600, Session: 3600 },
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    issueRefreshToken: () => true,
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      ...(options.dpop === true ? { dPoP: { enabled: true } } : {}),
      resourceIndicators: {
        enabled: true,
        defaultResource: () => mcpUrl,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: resourceScopes,
          accessTokenFormat: 'opaque',
          accessTokenTTL: options.accessTokenTtlS ?? 3600,
        }),
      },
    },
  });
  provider.on('grant.success', (ctx: { oidc?: { params?: { grant_type?: string } } }) => {
    const type = ctx.oidc?.params?.grant_type ?? 'unknown';
    grants[type] = (grants[type] ?? 0) + 1;
  });
  provider.on('authorization.accepted', () => void logins++);
  provider.on('registration_create.success', () => void registrations++);
  provider.use(async (ctx, next) => {
    if (hang === undefined || ctx.path !== '/token') return next();
    hungTokenRequests++;
    const closed = new Promise<void>((resolve) => ctx.req.socket.once('close', resolve));
    await Promise.race([hang.promise, closed]);
    // Never processed: the socket is destroyed without an answer.
    ctx.respond = false;
    ctx.req.socket.destroy();
  });
  const callback = provider.callback();
  asServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/') === true) {
      void (async () => {
        const details = await provider.interactionDetails(req, res);
        const clientId = String(details.params.client_id);
        const accountId = account;
        const grant = new provider.Grant({ accountId, clientId });
        grant.addOIDCScope('openid offline_access');
        const scope = details.params.scope;
        const asked = (typeof scope === 'string' ? scope : '')
          .split(' ')
          .filter((scope) => resourceScopes.split(' ').includes(scope));
        grant.addResourceScope(mcpUrl, asked.length > 0 ? asked.join(' ') : challengeScope);
        const grantId = await grant.save();
        await provider.interactionFinished(
          req,
          res,
          { login: { accountId }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      })().catch(() => {
        res.statusCode = 500;
        res.end();
      });
      return;
    }
    void callback(req, res);
  });

  const prmPath = '/.well-known/oauth-protected-resource/mcp';
  mcpServer.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      if (req.url === prmPath) {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            resource: mcpUrl,
            authorization_servers: [issuer],
            scopes_supported: resourceScopes.split(' '),
          }),
        );
        return;
      }
      const header = req.headers.authorization ?? '';
      const [scheme, token = ''] = header.split(' ');
      const found = token === '' ? undefined : await provider.AccessToken.find(token);
      const proven =
        found?.jkt === undefined
          ? scheme === 'Bearer'
          : scheme === 'DPoP' && dpopProofKey(req, token) === found.jkt;
      if (found === undefined || found.isExpired || found.aud !== mcpUrl || !proven) {
        unauthorized++;
        res.statusCode = 401;
        res.setHeader(
          'www-authenticate',
          `Bearer resource_metadata="${mcpOrigin}${prmPath}", scope="${challengeScope}"`,
        );
        res.end();
        return;
      }
      if (found.jkt !== undefined) dpopKeys.add(found.jkt);
      accepted.push({ account: String(found.accountId), token });
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const granted = String(found.scope ?? '')
        .split(' ')
        .filter((scope) => !withheld.has(scope));
      if (
        options.stepUp === true &&
        isToolCall(body, 'b') &&
        !(granted.includes('mcp:a') && granted.includes('mcp:b'))
      ) {
        forbidden++;
        res.statusCode = 403;
        res.setHeader(
          'www-authenticate',
          `Bearer error="insufficient_scope", scope="mcp:a mcp:b", resource_metadata="${mcpOrigin}${prmPath}"`,
        );
        res.end();
        return;
      }
      const server = new McpServer({ name: 'protected', version: '1.0.0' });
      server.registerTool('whoami', { description: 'The account behind the token' }, () => ({
        content: [{ type: 'text', text: String(found.accountId) }],
      }));
      server.registerTool('b', { description: 'Needs the scope mcp:b' }, () => ({
        content: [{ type: 'text', text: `b with ${granted.join(' ')}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.statusCode = 500;
      res.end();
    });
  });

  return {
    issuer,
    mcpUrl,
    grants,
    get unauthorized() {
      return unauthorized;
    },
    withheld,
    dpopKeys,
    accepted,
    get account() {
      return account;
    },
    set account(name: string) {
      account = name;
    },
    get forbidden() {
      return forbidden;
    },
    get logins() {
      return logins;
    },
    get registrations() {
      return registrations;
    },
    get hungTokenRequests() {
      return hungTokenRequests;
    },
    get hangTokenEndpoint() {
      return hang !== undefined;
    },
    set hangTokenEndpoint(on: boolean) {
      setHang(on);
    },
    login: (url) => followLogin(issuer, url),
    async revokeRefreshToken(token) {
      await (await provider.RefreshToken.find(token))?.destroy();
    },
    async revokeAccessToken(token) {
      await (await provider.AccessToken.find(token))?.destroy();
    },
    async [Symbol.asyncDispose]() {
      setHang(false);
      for (const socket of sockets) socket.destroy();
      await Promise.all(
        [asServer, mcpServer].map(
          (server) => new Promise<void>((resolve) => server.close(() => resolve())),
        ),
      );
    },
  };
}
