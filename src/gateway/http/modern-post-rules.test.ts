import { describe, expect, it } from 'vitest';
import type { JsonRpcMessage } from '../../jsonrpc/message.js';
import { checkModernPost, modernErrorStatus } from './modern-post-rules.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MODERN = { 'mcp-protocol-version': '2026-07-28' };
const toolParams = (tool: string) =>
  tool === 'regional'
    ? [
        { header: 'Region', path: ['region'] },
        { header: 'Dry', path: ['opts', 'dry'] },
        { header: 'N', path: ['n'] },
      ]
    : tool === 'plain'
      ? []
      : undefined;

const call = (args: Record<string, unknown>, name = 'regional'): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: args, _meta: META },
});
const callHeaders = (extra: Record<string, string>) => ({
  ...MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'regional',
  ...extra,
});

describe('checkModernPost', () => {
  it('leaves legacy traffic and notifications alone', () => {
    const ping: JsonRpcMessage = { jsonrpc: '2.0', id: 1, method: 'ping' };
    expect(checkModernPost({}, ping, toolParams)).toBeUndefined();
    expect(checkModernPost({ 'mcp-protocol-version': '2025-11-25' }, ping, toolParams)).toBe(
      undefined,
    );
    const note: JsonRpcMessage = {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { _meta: META },
    };
    expect(checkModernPost({}, note, toolParams)).toBeUndefined();
  });

  it('checks each x-mcp-header parameter: present when given (integers and booleans as text), absent when not', () => {
    const ok = callHeaders({
      'mcp-param-region': 'eu',
      'mcp-param-dry': 'true',
      'mcp-param-n': '3',
    });
    expect(checkModernPost(ok, call({ region: 'eu', opts: { dry: true }, n: 3 }), toolParams)).toBe(
      undefined,
    );
    // Absent and null arguments send no header.
    expect(
      checkModernPost(callHeaders({}), call({ region: null, opts: {} }), toolParams),
    ).toBeUndefined();
    const refused = [
      checkModernPost(callHeaders({}), call({ region: 'eu' }), toolParams),
      checkModernPost(callHeaders({ 'mcp-param-region': 'eu' }), call({}), toolParams),
      checkModernPost(callHeaders({ 'mcp-param-n': '3.0' }), call({ n: 3 }), toolParams),
      checkModernPost(
        callHeaders({ 'mcp-param-dry': 'True' }),
        call({ opts: { dry: true } }),
        toolParams,
      ),
    ];
    for (const refusal of refused) expect(refusal).toMatchObject({ status: 400, code: -32020 });
  });

  it('checks no parameter header for a tool without annotations or unknown to the gateway', () => {
    const headers = { ...MODERN, 'mcp-method': 'tools/call' };
    expect(
      checkModernPost(
        { ...headers, 'mcp-name': 'plain' },
        call({ region: 'x' }, 'plain'),
        toolParams,
      ),
    ).toBeUndefined();
    expect(
      checkModernPost(
        { ...headers, 'mcp-name': 'nope' },
        call({ region: 'x' }, 'nope'),
        toolParams,
      ),
    ).toBeUndefined();
  });
});

describe('modernErrorStatus', () => {
  it('maps the era errors to their statuses, and keeps anything else in-band', () => {
    const error = (code: number): JsonRpcMessage => ({
      jsonrpc: '2.0',
      id: 1,
      error: { code, message: 'x' },
    });
    expect(modernErrorStatus(error(-32601))).toBe(404);
    for (const code of [-32700, -32600, -32020, -32021, -32022])
      expect(modernErrorStatus(error(code))).toBe(400);
    for (const code of [-32602, -32603, -32002, 42])
      expect(modernErrorStatus(error(code))).toBe(200);
    expect(modernErrorStatus({ jsonrpc: '2.0', id: 1, result: {} })).toBe(200);
    expect(modernErrorStatus(undefined)).toBe(200);
  });
});
