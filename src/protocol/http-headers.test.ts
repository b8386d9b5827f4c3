import { describe, expect, it } from 'vitest';
import {
  decodeHeaderValue,
  encodeHeaderValue,
  headerAnnotations,
  mcpRequestHeaders,
} from './http-headers.js';

describe('encodeHeaderValue', () => {
  // The spec's own encoding table (2026-07-28, Streamable HTTP, Value Encoding).
  it.each([
    ['us-west1', 'us-west1'],
    ['us west 1', 'us west 1'],
    ['', ''],
    ['Hello, 世界', '=?base64?SGVsbG8sIOS4lueVjA==?='],
    [' padded ', '=?base64?IHBhZGRlZCA=?='],
    ['line1\nline2', '=?base64?bGluZTEKbGluZTI=?='],
    ['=?base64?literal?=', '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?='],
    ['\tindented', '=?base64?CWluZGVudGVk?='],
  ])('%j → %j', (value, encoded) => {
    expect(encodeHeaderValue(value)).toBe(encoded);
  });

  it('round-trips a long non-ASCII value', () => {
    const value = 'ü'.repeat(100_000);
    const encoded = encodeHeaderValue(value);
    expect(Buffer.from(encoded.slice(9, -2), 'base64').toString('utf8')).toBe(value);
  });
});

const schema = (properties: Record<string, unknown>): unknown => ({ type: 'object', properties });

describe('decodeHeaderValue', () => {
  it('reads back what encodeHeaderValue sends, without surrounding whitespace', () => {
    for (const value of ['eu', 'a b', ' padded ', 'héllo 🌍', '=?base64?x?='])
      expect(decodeHeaderValue(`  ${encodeHeaderValue(value)}\t`)).toBe(value);
  });

  it('takes a value without the whole sentinel literally, and refuses bad base64 or UTF-8', () => {
    expect(decodeHeaderValue('SGVsbG8=')).toBe('SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8=')).toBe('=?base64?SGVsbG8=');
    expect(decodeHeaderValue('=?base64?SGVsbG8?=')).toBeUndefined(); // no padding
    expect(decodeHeaderValue('=?base64?SGVs!!bG8=?=')).toBeUndefined();
    expect(decodeHeaderValue('=?base64?/w==?=')).toBeUndefined(); // 0xff is not UTF-8
  });
});

describe('headerAnnotations', () => {
  it('collects annotated string, integer and boolean properties, nested through properties', () => {
    const verdict = headerAnnotations(
      schema({
        region: { type: 'string', 'x-mcp-header': 'Region' },
        n: { type: 'integer', 'x-mcp-header': 'N' },
        opts: {
          type: 'object',
          properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } },
        },
        plain: { type: 'number' },
      }),
    );
    expect(verdict).toEqual({
      ok: true,
      params: [
        { header: 'Region', path: ['region'] },
        { header: 'N', path: ['n'] },
        { header: 'Dry-Run', path: ['opts', 'dry'] },
      ],
    });
  });

  it.each([
    ['empty', schema({ v: { type: 'string', 'x-mcp-header': '' } }), /empty/],
    ['space', schema({ v: { type: 'string', 'x-mcp-header': 'My Region' } }), /token/],
    ['colon', schema({ v: { type: 'string', 'x-mcp-header': 'A:B' } }), /token/],
    ['non-ASCII', schema({ v: { type: 'string', 'x-mcp-header': 'Région' } }), /token/],
    ['tab', schema({ v: { type: 'string', 'x-mcp-header': 'A\tB' } }), /A\\tB/],
    ['number', schema({ v: { type: 'number', 'x-mcp-header': 'V' } }), /number/],
    ['object', schema({ v: { type: 'object', 'x-mcp-header': 'V' } }), /object/],
    ['null', schema({ v: { type: 'null', 'x-mcp-header': 'V' } }), /null/],
    ['untyped', schema({ v: { 'x-mcp-header': 'V' } }), /unspecified/],
    [
      'duplicate ignoring case',
      schema({
        a: { type: 'string', 'x-mcp-header': 'MyField' },
        b: { type: 'string', 'x-mcp-header': 'myfield' },
      }),
      /twice/,
    ],
    [
      'under items',
      schema({
        list: { type: 'array', items: { type: 'string', 'x-mcp-header': 'V' } },
      }),
      /not reachable/,
    ],
    [
      'under anyOf',
      { type: 'object', anyOf: [schema({ v: { type: 'string', 'x-mcp-header': 'V' } })] },
      /not reachable/,
    ],
    [
      'under $defs',
      { type: 'object', $defs: { d: { type: 'string', 'x-mcp-header': 'V' } } },
      /not reachable/,
    ],
    ['on the root', { type: 'string', 'x-mcp-header': 'V' }, /root/],
  ])('rejects %s', (_, inputSchema, reason) => {
    const verdict = headerAnnotations(inputSchema);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.problem).toMatch(reason);
  });

  it('accepts a schema with no annotations', () => {
    expect(headerAnnotations(schema({ q: { type: 'string' } }))).toEqual({ ok: true, params: [] });
  });
});

describe('mcpRequestHeaders', () => {
  const none = (): undefined => undefined;

  it('mirrors the method of requests and notifications, and nothing for responses', () => {
    expect(mcpRequestHeaders({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, none)).toEqual({
      'mcp-method': 'tools/list',
    });
    expect(
      mcpRequestHeaders({ jsonrpc: '2.0', method: 'notifications/initialized' }, none),
    ).toEqual({ 'mcp-method': 'notifications/initialized' });
    expect(mcpRequestHeaders({ jsonrpc: '2.0', id: 1, result: {} }, none)).toBeUndefined();
  });

  it('names the tool, the prompt and the resource, encoded when needed', () => {
    const name = (method: string, params: object): string | undefined =>
      mcpRequestHeaders({ jsonrpc: '2.0', id: 1, method, params }, none)?.['mcp-name'];
    expect(name('tools/call', { name: 'my-tool', arguments: {} })).toBe('my-tool');
    expect(name('prompts/get', { name: 'p' })).toBe('p');
    expect(name('resources/read', { uri: 'file:///a%20b.txt' })).toBe('file:///a%20b.txt');
    expect(name('resources/read', { uri: 'file:///é' })).toBe('=?base64?ZmlsZTovLy/DqQ==?=');
    expect(name('resources/list', {})).toBeUndefined();
  });

  it('mirrors annotated tool arguments, omitting absent and null values', () => {
    const params = [
      { header: 'Region', path: ['region'] },
      { header: 'Priority', path: ['priority'] },
      { header: 'Verbose', path: ['verbose'] },
      { header: 'Deep', path: ['opts', 'deep'] },
      { header: 'Missing', path: ['missing'] },
      { header: 'Greeting', path: ['greeting'] },
    ];
    const headers = mcpRequestHeaders(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 't',
          arguments: {
            region: 'us-west1',
            priority: 42,
            verbose: false,
            opts: { deep: true },
            greeting: 'Hello, 世界',
            missing: null,
          },
        },
      },
      (tool) => (tool === 't' ? params : undefined),
    );
    expect(headers).toEqual({
      'mcp-method': 'tools/call',
      'mcp-name': 't',
      'mcp-param-region': 'us-west1',
      'mcp-param-priority': '42',
      'mcp-param-verbose': 'false',
      'mcp-param-deep': 'true',
      'mcp-param-greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
  });
});
