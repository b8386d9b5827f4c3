import { describe, expect, it } from 'vitest';
import { leakGuard } from '../../test/helpers/leak-guard.js';
import { startHttpServer, type TestHttpServer } from '../../test/helpers/http-test-server.js';
import {
  checkClientMetadataDocument,
  clientMetadataDocument,
  clientMetadataFindings,
  MAX_CLIENT_METADATA_DOCUMENT_BYTES,
} from '../auth.js';

/** Serves `body` at /client.json with `type`; anything else 404. */
async function hosting(body: (url: string) => string, type = 'application/json') {
  const server: TestHttpServer = await startHttpServer();
  server.handle((request, res) => {
    if (request.url !== '/client.json') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': type }).end(body(`${server.origin}/client.json`));
  });
  return server;
}

const codes = (check: { findings: Array<{ code: string }> }) =>
  check.findings.map((finding) => finding.code);

describe('clientMetadataDocument', () => {
  it('builds the document for a person login: client_id the URL, loopback redirect, auth none', () => {
    expect(
      clientMetadataDocument({ clientMetadataUrl: 'https://app.example/mcp-client.json' }),
    ).toEqual({
      client_id: 'https://app.example/mcp-client.json',
      client_name: 'mcp-host',
      redirect_uris: ['http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
  });

  it('refuses a URL that cannot be a client id', () => {
    for (const url of ['http://app.example/c.json', 'https://app.example/', 'nonsense'])
      expect(() => clientMetadataDocument({ clientMetadataUrl: url })).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error,
      );
  });

  it('what it builds passes the check', () => {
    const url = 'https://app.example/c.json';
    const document = clientMetadataDocument({ clientMetadataUrl: url });
    expect(clientMetadataFindings(url, { ...document })).toEqual([]);
    // The listener's port does not matter on loopback (RFC 8252 section 7.3).
    expect(
      clientMetadataFindings(
        url,
        { ...document },
        { redirectUri: 'http://127.0.0.1:53117/callback' },
      ),
    ).toEqual([]);
  });
});

describe('checkClientMetadataDocument against a hosted document', () => {
  it('a good document has no findings', async () => {
    await using _guard = leakGuard();
    await using server = await hosting((url) =>
      JSON.stringify(clientMetadataDocument({ clientMetadataUrl: url })),
    );
    const check = await checkClientMetadataDocument(`${server.origin}/client.json`);
    expect(check.findings).toEqual([]);
    expect(check.document).toMatchObject({ client_id: `${server.origin}/client.json` });
    expect(server.requests[0]?.headers.accept).toBe('application/json');
  });

  it('reports every way a bad document would be refused', async () => {
    await using _guard = leakGuard();
    await using server = await hosting(
      () =>
        JSON.stringify({
          client_id: 'https://elsewhere.example/client.json',
          redirect_uris: ['http://app.example/cb', 'javascript:alert(1)'],
          token_endpoint_auth_method: 'client_secret_basic',
          client_secret: 'canary-secret',
        }),
      'text/plain',
    );
    const check = await checkClientMetadataDocument(`${server.origin}/client.json`);
    expect(codes(check).sort()).toEqual(
      [
        'content-type',
        'client-id-mismatch',
        'missing-client-name',
        'has-secret',
        'auth-method',
        'unsafe-redirect-uri',
        'unsafe-redirect-uri',
        'redirect-uri-not-listed',
      ].sort(),
    );
    expect(JSON.stringify(check.findings)).not.toContain('canary-secret');
  });

  it('no redirect URIs; the client_credentials grant wants private_key_jwt and keys', async () => {
    await using _guard = leakGuard();
    await using server = await hosting((url) =>
      JSON.stringify({ client_id: url, client_name: 'x', token_endpoint_auth_method: 'none' }),
    );
    const url = `${server.origin}/client.json`;
    expect(codes(await checkClientMetadataDocument(url))).toEqual(['missing-redirect-uris']);
    expect(codes(await checkClientMetadataDocument(url, { grant: 'client_credentials' }))).toEqual([
      'auth-method',
      'grant-type',
      'auth-method',
    ]);
  });

  it('not JSON, too big, not found, not https', async () => {
    await using _guard = leakGuard();
    await using notJson = await hosting(() => '<html>hello</html>', 'application/json');
    expect(codes(await checkClientMetadataDocument(`${notJson.origin}/client.json`))).toEqual([
      'not-json',
    ]);
    await using big = await hosting((url) =>
      JSON.stringify({ client_id: url, pad: 'x'.repeat(MAX_CLIENT_METADATA_DOCUMENT_BYTES) }),
    );
    expect(codes(await checkClientMetadataDocument(`${big.origin}/client.json`))).toEqual([
      'too-large',
    ]);
    expect(codes(await checkClientMetadataDocument(`${big.origin}/missing.json`))).toEqual([
      'http-status',
    ]);
    // A public http URL is refused as a client id before anything is asked of the network.
    const http = await checkClientMetadataDocument('http://192.0.2.1/client.json', {
      egress: { timeoutMs: 1 },
    });
    expect(codes(http)[0]).toBe('url-not-https');
  });
});
