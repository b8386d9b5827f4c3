/** What the StreamableHttpTransport tests share: messages, a recording transport, request counts. */
import type { TestHttpServer } from '../../../test/helpers/http-test-server.js';
import type { TransportProblem } from '../../jsonrpc/transport.js';
import type { StreamableHttpTransportOptions } from './http-options.js';
import { StreamableHttpTransport } from './streamable-http-transport.js';

export const request = (id: number, method = 'tools/list') => ({
  jsonrpc: '2.0' as const,
  id,
  method,
});
export const notification = (method = 'notifications/initialized') => ({
  jsonrpc: '2.0' as const,
  method,
});
export const result = (id: number, value: unknown = {}) => ({ jsonrpc: '2.0', id, result: value });

/** A started transport that records what it delivers, with a way to await the nth event. */
export async function open(
  server: TestHttpServer,
  options: Partial<StreamableHttpTransportOptions> = {},
) {
  const transport = new StreamableHttpTransport({
    url: server.url,
    openGetStream: false,
    ...options,
  });
  const messages: unknown[] = [];
  const problems: TransportProblem[] = [];
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  transport.onMessage((m) => (messages.push(m), wake()));
  transport.onProblem((p) => (problems.push(p), wake()));
  await transport.start();
  const until = async (check: () => boolean) => {
    while (!check()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return Object.assign(transport, { messages, problems, until });
}

/** Resolves when the server has seen `count` requests (on its request events, no polling). */
export function requestsSeen(server: TestHttpServer, count: number): Promise<void> {
  return server.requestsSeen(count);
}
