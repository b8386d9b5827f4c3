import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { addSecret } from '../errors/redact.js';
import { canonicalJson } from '../state/canonical-json.js';
import { sha256Hex } from '../state/sha256.js';
import { createTransport } from './create-transport.js';
import { StreamableHttpTransport } from './http/streamable-http-transport.js';
import { serverIdentity } from './server-identity.js';
import {
  isTransportDefinition,
  maskedDefinition,
  type TransportDefinition,
} from './transport-definition.js';

describe('serverIdentity', () => {
  it('is <name>:<16 hex digits of the SHA-256 of the canonical definition>', async () => {
    const transport: TransportDefinition = { type: 'stdio', command: 'node', args: ['s.js'] };
    const identity = await serverIdentity('fs', transport);
    expect(identity.name).toBe('fs');
    expect(identity.key).toBe(`fs:${(await sha256Hex(canonicalJson(transport))).slice(0, 16)}`);
    expect(identity.key).toMatch(/^fs:[0-9a-f]{16}$/);
  });

  it('does not depend on the order of members, of env or of headers', async () => {
    const a = await serverIdentity('s', {
      type: 'stdio',
      command: 'python',
      args: ['server.py', '--port', '1'],
      env: { A: '1', TOKEN: 'abcd-1234', B: '2' },
      cwd: '/srv',
    });
    const b = await serverIdentity('s', {
      cwd: '/srv',
      env: { B: '2', TOKEN: 'abcd-1234', A: '1' },
      args: ['server.py', '--port', '1'],
      command: 'python',
      type: 'stdio',
    });
    expect(b).toEqual(a);
    const h1 = await serverIdentity('h', {
      type: 'http',
      url: 'https://x/mcp',
      headers: { Authorization: 'Bearer one-token-here', 'X-Tenant': 't' },
    });
    const h2 = await serverIdentity('h', {
      headers: { 'X-Tenant': 't', Authorization: 'Bearer one-token-here' },
      url: 'https://x/mcp',
      type: 'http',
    });
    expect(h2.key).toBe(h1.key);
  });

  it('changes with anything in the definition, secrets included, and with the name', async () => {
    const base = { type: 'http', url: 'https://x/mcp' } as const;
    const keys = await Promise.all([
      serverIdentity('h', base),
      serverIdentity('h', { ...base, headers: { Authorization: 'Bearer token-one-1111' } }),
      serverIdentity('h', { ...base, headers: { Authorization: 'Bearer token-two-2222' } }),
      serverIdentity('h', { ...base, type: 'sse' }),
      serverIdentity('h', { ...base, url: 'https://x/mcp2' }),
      serverIdentity('other', base),
      serverIdentity('s', { type: 'stdio', command: 'node', env: { KEY: 'secret-one' } }),
      serverIdentity('s', { type: 'stdio', command: 'node', env: { KEY: 'secret-two' } }),
      serverIdentity('s', { type: 'stdio', command: 'node', args: ['a', 'b'] }),
      serverIdentity('s', { type: 'stdio', command: 'node', args: ['b', 'a'] }),
    ]).then((ids) => ids.map((id) => id.key));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('reveals nothing but the name in its key', async () => {
    const secret = 'hunter2-very-secret-value';
    const id = await serverIdentity('gh', {
      type: 'http',
      url: `https://user:${secret}@api.example.com/mcp?token=${secret}`,
      headers: { Authorization: `Bearer ${secret}` },
    });
    expect(id.key.startsWith('gh:')).toBe(true);
    expect(id.key).not.toContain(secret);
    expect(id.key).not.toContain('example');
  });

  it.each([
    [{ type: 'stdio', command: 'python', args: ['server.py'] }, 'stdio:python:server.py'],
    [
      {
        type: 'stdio',
        command: '/usr/local/bin/npx',
        args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'],
      },
      'stdio:npx:server-filesystem',
    ],
    [
      { type: 'stdio', command: 'C:\\Python\\python.exe', args: ['-u', 'C:\\srv\\main.py'] },
      'stdio:python.exe:main.py',
    ],
    [{ type: 'stdio', command: 'uvx', args: ['--from', 'x'] }, 'stdio:uvx:x'],
    [{ type: 'stdio', command: 'my-server' }, 'stdio:my-server'],
    [{ type: 'stdio', command: 'node', args: ['--inspect'] }, 'stdio:node'],
    [{ type: 'http', url: 'https://host/path' }, 'http:https://host/path'],
    [{ type: 'sse', url: 'http://127.0.0.1:3000/sse' }, 'sse:http://127.0.0.1:3000/sse'],
    [{ type: 'websocket', url: 'wss://host/ws' }, 'websocket:wss://host/ws'],
  ] as Array<[TransportDefinition, string]>)('shows %j as %s', async (transport, display) => {
    expect((await serverIdentity('x', transport)).display).toBe(display);
  });

  it('masks credentials in the display and never shows env, headers or cwd', async () => {
    const secret = 'pa55-w0rd-not-for-logs';
    const http = await serverIdentity('h', {
      type: 'http',
      url: `https://me:${secret}@host/mcp?api_key=${secret}&page=2`,
      headers: { Authorization: `Bearer ${secret}`, 'X-Api-Key': secret },
    });
    expect(http.display).toBe('http:https://<masked>@host/mcp?api_key=<masked>&page=2');
    const ws = await serverIdentity('w', {
      type: 'websocket',
      url: `wss://host/ws?token=${secret}`,
    });
    expect(ws.display).toBe('websocket:wss://host/ws?token=<masked>');
    const stdio = await serverIdentity('s', {
      type: 'stdio',
      command: 'node',
      args: [`--token=${secret}`, 'server.js', secret],
      env: { API_KEY: secret },
      cwd: `/home/${secret}`,
    });
    expect(stdio.display).toBe('stdio:node:server.js');
    for (const id of [http, ws, stdio]) expect(JSON.stringify(id)).not.toContain(secret);
  });

  it('masks a registered secret or a well-known token format that stands where a name would', async () => {
    const token = `ghp_${'a'.repeat(36)}`;
    const plain = await serverIdentity('s', { type: 'stdio', command: 'server', args: [token] });
    expect(plain.display).toBe('stdio:server:<masked>');
    using _secret = addSecret('registered-secret-42');
    const registered = await serverIdentity('s', {
      type: 'stdio',
      command: 'server',
      args: ['registered-secret-42'],
    });
    expect(registered.display).toBe('stdio:server:<masked>');
  });

  it.each([
    ['an empty name', '', { type: 'stdio', command: 'x' }],
    ['an unknown type', 'x', { type: 'carrier-pigeon', url: 'x' }],
    ['a definition without a JSON form', 'x', { type: 'stdio', command: 'x', env: { A: 1n } }],
  ])('refuses %s with INVALID_ARGUMENT', async (_label, name, transport) => {
    await expect(serverIdentity(name, transport as TransportDefinition)).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
  });

  it('names the server once in the message about an unknown type', async () => {
    const transport = { type: 'carrier-pigeon', url: 'x' } as unknown as TransportDefinition;
    await expect(serverIdentity('p', transport)).rejects.toMatchObject({
      serverName: 'p',
      message: `server 'p': serverIdentity: unknown transport type "carrier-pigeon"`,
    });
  });
});

describe('isTransportDefinition', () => {
  it('tells a definition from a transport or a factory', async () => {
    const transport = await createTransport({ type: 'stdio', command: 'node' });
    expect(isTransportDefinition({ type: 'stdio', command: 'node' })).toBe(true);
    expect(isTransportDefinition(transport)).toBe(false);
    expect(isTransportDefinition(() => transport)).toBe(false);
    expect(isTransportDefinition(null)).toBe(false);
    await transport.close();
  });
});

describe('maskedDefinition', () => {
  it('keeps env and header values out of JSON and inspect, and gives them to whoever reads them', async () => {
    using _secret = addSecret('arg-secret-123');
    const stdio = maskedDefinition({
      type: 'stdio',
      command: 'node',
      args: ['server.js', '--token=arg-secret-123'],
      env: { API_KEY: 'env-secret-123' },
    });
    const remote = maskedDefinition({
      type: 'http',
      url: 'https://example.test/mcp',
      headers: { authorization: 'Bearer header-secret-123' },
    });
    for (const shown of [
      JSON.stringify(stdio),
      inspect(stdio),
      JSON.stringify(remote),
      inspect(remote),
    ]) {
      expect(shown).not.toMatch(/env-secret|arg-secret|header-secret/);
    }
    expect(JSON.parse(JSON.stringify(stdio))).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['server.js', '--token=<masked>'],
      env: { API_KEY: '<masked>' },
    });
    expect(stdio.env?.API_KEY).toBe('env-secret-123');
    expect(remote.headers?.authorization).toBe('Bearer header-secret-123');
    const made = await createTransport(remote);
    expect(made).toBeInstanceOf(StreamableHttpTransport);
    await made.close();
  });
});
