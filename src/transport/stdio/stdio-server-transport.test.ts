import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { McpHostError } from '../../errors/mcp-host-error.js';
import type { TransportProblem } from '../../jsonrpc/transport.js';
import { StdioServerTransport } from './stdio-server-transport.js';

function pipes(options: { maxMessageBytes?: number } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioServerTransport({ input, output, ...options });
  const messages: unknown[] = [];
  const problems: TransportProblem[] = [];
  transport.onMessage((message) => void messages.push(message));
  transport.onProblem((problem) => void problems.push(problem));
  const closed = new Promise<McpHostError | undefined>((resolve) =>
    transport.onClose((reason) => resolve(reason)),
  );
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  return { input, output, transport, messages, problems, closed, written: () => written };
}

const nextTick = () => new Promise((resolve) => setImmediate(resolve));

describe('StdioServerTransport', () => {
  it('reads newline-delimited messages (junk and oversized lines skipped) and writes them', async () => {
    const p = pipes({ maxMessageBytes: 100 });
    await p.transport.start();
    p.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\nnot json\n\n');
    p.input.write(`{"jsonrpc":"2.0","id":2,"method":"${'x'.repeat(200)}"}\n[{"a":`);
    p.input.write('1}]\n');
    await nextTick();
    expect(p.messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }, [{ a: 1 }]]);
    expect(p.problems.map((problem) => [problem.discarded, problem.error.code])).toEqual([
      ['junk', 'INVALID_MESSAGE'],
      ['oversized', 'MESSAGE_TOO_LARGE'],
    ]);
    expect(p.transport.discards).toEqual({ junkMessages: 1, oversizedMessages: 1 });

    p.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    p.transport.send({ jsonrpc: '2.0', method: 'notifications/x' });
    await nextTick();
    expect(p.written()).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"notifications/x"}\n',
    );
    await p.transport.close();
    expect(await p.closed).toBeUndefined();
    expect(() => p.transport.send({ jsonrpc: '2.0', method: 'x' })).toThrow(
      expect.objectContaining({ code: 'CONNECTION_CLOSED' }),
    );
    // The streams are not the transport's: still open.
    expect(p.input.destroyed || p.output.destroyed).toBe(false);
  });

  it('is starting until its framing has loaded: a send fails NOT_CONNECTED; a close then wires nothing', async () => {
    const p = pipes();
    const started = p.transport.start();
    expect(p.transport.state).toBe('starting');
    expect(() => p.transport.send({ jsonrpc: '2.0', method: 'x' })).toThrow(
      expect.objectContaining({ code: 'NOT_CONNECTED' }),
    );
    await p.transport.close();
    await started;
    expect(p.transport.state).toBe('closed');
    expect(await p.closed).toBeUndefined();
    p.input.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    await nextTick();
    expect(p.messages).toEqual([]);
    expect(p.input.listenerCount('data')).toBe(0);
  });

  it('closes with CONNECTION_CLOSED when the input ends (the client went away)', async () => {
    const p = pipes();
    await p.transport.start();
    p.input.end('{"jsonrpc":"2.0","id":1,"method":"ping"}');
    expect(await p.closed).toMatchObject({ code: 'CONNECTION_CLOSED' });
    // The last line, cut by the end of the input, is still delivered.
    expect(p.messages).toEqual([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(p.transport.state).toBe('closed');
    await p.transport.close();
  });
});
