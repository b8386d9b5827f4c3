import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcError } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { CliError, ExitCode } from './exit-codes.js';
import { Output, type OutputOptions } from './output.js';

function capture(stream: PassThrough): () => string {
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return () => text;
}

function output(options: Partial<OutputOptions> & { tty?: boolean } = {}) {
  const stdout = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const stderr = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const out = capture(stdout);
  const err = capture(stderr);
  const o = new Output({
    format: 'table',
    color: true,
    verbose: false,
    quiet: false,
    stdout,
    stderr,
    ...options,
  });
  return { o, out, err };
}

describe('Output', () => {
  it('aligns table columns, cuts long cells and marks empty ones', () => {
    const { o, out } = output();
    o.table(
      [
        { a: 'x', b: 'long value here', c: undefined },
        { a: 'longer', b: 'y', c: 3 },
      ],
      [
        { header: 'A', value: (r) => r.a },
        { header: 'B', value: (r) => r.b, maxWidth: 8 },
        { header: 'C', value: (r) => r.c },
      ],
    );
    expect(out()).toBe(
      ['A       B         C', 'x       long va…  -', 'longer  y         3', ''].join('\n'),
    );
  });

  it('prints no colour and no progress when not a TTY', () => {
    const { o, out, err } = output({ tty: false });
    o.progress('connecting');
    o.table([{ s: 'ready' }], [{ header: 'S', value: (r) => r.s, style: () => 'green' }]);
    expect(out()).not.toContain('\x1b[');
    expect(err()).toBe('');
  });

  it('colours and shows progress on a TTY, not with color: false', () => {
    const tty = output({ tty: true });
    tty.o.progress('connecting');
    tty.o.line(tty.o.style('green', 'ok'));
    expect(tty.err()).toContain('connecting');
    expect(tty.out()).toContain('\x1b[');
    const plain = output({ tty: true, color: false });
    plain.o.line(plain.o.style('green', 'ok'));
    expect(plain.out()).toBe('ok\n');
  });

  it('JSON mode: one {"result"} line on stdout, errors as one {"error"} line on stderr', () => {
    const { o, out, err } = output({ format: 'json' });
    o.result({ a: 1 }, () => o.line('not this'));
    expect(out()).toBe('{"result":{"a":1}}\n');
    expect(() => o.result(2, () => {})).toThrow(/second result/);
    o.error(new McpHostError('SPAWN_FAILED', 'no such command', { serverName: 'x' }));
    o.error(new CliError('INVALID_ARGUMENT', 'bad option'));
    expect(
      err()
        .trim()
        .split('\n')
        .map((line): unknown => JSON.parse(line)),
    ).toEqual([
      { error: { code: 'SPAWN_FAILED', message: "server 'x': no such command", server: 'x' } },
      { error: { code: 'INVALID_ARGUMENT', message: 'bad option', server: null } },
    ]);
  });

  it('text mode: `error: message`, a server named once (by the message, not a tag too)', () => {
    const { o, err } = output();
    o.error(new McpHostError('SPAWN_FAILED', 'no such command', { serverName: 'x' }));
    o.error(new CliError('TOOL_ERROR', "tool 'fail' returned an error", { serverName: 'x' }));
    o.error(new JsonRpcError(-32602, 'unknown resource', { serverName: 's' }));
    o.error(new Error('plain'));
    expect(err().split('\n')).toEqual([
      "error: server 'x': no such command",
      "error: server 'x': tool 'fail' returned an error",
      "error: server 's': unknown resource",
      'error: plain',
      '',
    ]);
  });

  it('--quiet hides notices and warnings, not errors', () => {
    const { o, err } = output({ quiet: true });
    o.notice('n');
    o.warn('w');
    o.error(new CliError('INVALID_ARGUMENT', 'e', { exitCode: ExitCode.usage }));
    expect(err()).toBe('error: e\n');
  });
});
