/**
 * What the gateway's end-to-end tests share: a config file of fixture servers, the built CLI's
 * `gateway serve` over HTTP (started until its listening line) or over stdio (started by an
 * official client, v1 `@modelcontextprotocol/sdk` or v2 `@modelcontextprotocol/client` in either
 * era), the gateway's stderr kept as lines (its servers' stderr, hence the fixtures' records, goes
 * there) with a wait for the n-th line holding a text, a counter of notifications, and an SDK
 * transport over an in-memory pair (an in-process gateway). Every one is `AsyncDisposable`;
 * nothing sleeps.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Stream } from 'node:stream';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioClientTransportV2 } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioClientTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JsonRpcMessage } from '../../src/index.js';
import type { Transport } from '../../src/jsonrpc/transport.js';
import { cliEnv, cliPath } from './run-built-cli.js';

/** The first line `gateway serve` prints over HTTP once it listens. */
export const LISTENING = /^mcp-host: gateway listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m;

/** The v2 client's options for the 2026-07-28 era (without them it speaks the legacy era). */
export const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } } as const;

/** The YAML lines of a server run as `node <script> <args>`. */
export const nodeServer = (script: string, ...args: string[]): string[] => [
  `command: ${JSON.stringify(process.execPath)}`,
  `args: ${JSON.stringify([script, ...args])}`,
];

/**
 * Writes `dir/mcp.yaml` with `servers` (name -> YAML lines under it) and `extra` top-level lines
 * (`views:`, `gateway:`); returns its path.
 */
export function gatewayConfig(
  dir: string,
  servers: Record<string, string[]>,
  extra: readonly string[] = [],
): string {
  const file = join(dir, 'mcp.yaml');
  const lines = ['servers:'];
  for (const [name, body] of Object.entries(servers))
    lines.push(`  ${name}:`, ...body.map((line) => `    ${line}`));
  writeFileSync(file, `${[...lines, ...extra].join('\n')}\n`);
  return file;
}

/** The text blocks of a result, joined. */
export const text = (result: object): string =>
  (((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[])
    .map((block) => (block.type === 'text' ? (block.text ?? '') : ''))
    .join('');

/** A process's stderr as lines, with a wait for the n-th line holding a text. */
export class StderrLines {
  readonly lines: string[] = [];
  readonly #waiters = new Set<() => void>();
  #partial = '';

  /** Takes a chunk of the stream. */
  push(chunk: Buffer | string): void {
    const lines = (this.#partial + chunk.toString()).split('\n');
    this.#partial = lines.pop() ?? '';
    this.lines.push(...lines);
    for (const wake of this.#waiters) wake();
  }

  /** The whole text so far. */
  toString(): string {
    return this.lines.join('\n') + (this.#partial === '' ? '' : `\n${this.#partial}`);
  }

  /** The lines holding `text` (every one of them, given several). */
  matching(text: string | readonly string[]): string[] {
    const texts = typeof text === 'string' ? [text] : text;
    return this.lines.filter((line) => texts.every((one) => line.includes(one)));
  }

  /** Resolves with the `count`-th line holding `text` (every one of them, given several). */
  line(text: string | readonly string[], count = 1): Promise<string> {
    return new Promise((resolve) => {
      const check = () => {
        const found = this.matching(text)[count - 1];
        if (found === undefined) return;
        this.#waiters.delete(check);
        resolve(found);
      };
      this.#waiters.add(check);
      check();
    });
  }
}

/** Counts events (a client's notifications of one method), and waits for the n-th. */
export function counter() {
  let count = 0;
  const waiters = new Set<() => void>();
  return {
    get count() {
      return count;
    },
    hit() {
      count++;
      for (const wake of waiters) wake();
    },
    reach(n: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (count < n) return;
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

/** `mcp-host --config <file> gateway serve <args>` over HTTP, running until disposed. */
export interface HttpGatewayProcess extends AsyncDisposable {
  /** Its `/mcp` URL, from its listening line. */
  readonly url: string;
  readonly stderr: StderrLines;
  /** Stops it with SIGTERM; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `mcp-host --config <file> gateway serve <args>` (give `--transport http` or a config
 * with a port) and resolves once it prints where it listens; rejects if it exits first.
 */
export async function startHttpGateway(
  file: string,
  env: Record<string, string | undefined>,
  args: readonly string[] = ['--transport', 'http', '--port', '0'],
): Promise<HttpGatewayProcess> {
  const child = spawn(process.execPath, [cliPath, '--config', file, 'gateway', 'serve', ...args], {
    env: cliEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stderr = new StderrLines();
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      const match = LISTENING.exec(stderr.toString());
      if (match !== null) resolve(match[1]!);
    });
    void exited.then((code) =>
      reject(new Error(`the gateway exited (${code}): ${stderr.toString()}`)),
    );
  });
  const stop = (): Promise<number | null> => {
    child.kill('SIGTERM');
    return exited;
  };
  return {
    url,
    stderr,
    stop,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) await stop();
    },
  };
}

/** The bearer token an HTTP gateway made in `stateDir` (its default token file). */
export const gatewayToken = (stateDir: string): string =>
  readFileSync(join(stateDir, 'gateway-token'), 'utf8').trim();

/** An official client connected to `gateway serve` over stdio, with that gateway's stderr. */
export interface StdioGatewayClient<C> extends AsyncDisposable {
  readonly client: C;
  readonly stderr: StderrLines;
}

/** How to start a stdio gateway. */
export interface StdioGatewayOptions {
  /** The working directory (relative paths of the config). */
  cwd: string;
  /** More arguments after `gateway serve` (`--view <name>`). */
  args?: readonly string[];
  /** More environment (`MCP_HOST_STATE_DIR`). */
  env?: Record<string, string | undefined>;
}

function stdioCommand(file: string, options: StdioGatewayOptions) {
  return {
    command: process.execPath,
    args: [cliPath, '--config', file, 'gateway', 'serve', ...(options.args ?? [])],
    cwd: options.cwd,
    env: cliEnv(options.env) as Record<string, string>,
    stderr: 'pipe' as const,
  };
}

/** The v1 SDK client, connected to `gateway serve` over `file` on stdio (the client starts it). */
export async function stdioGatewayV1(
  file: string,
  options: StdioGatewayOptions,
  client: ClientV1 = new ClientV1({ name: 'gateway-test', version: '1.0.0' }),
): Promise<StdioGatewayClient<ClientV1>> {
  const transport = new StdioClientTransportV1(stdioCommand(file, options));
  const stderr = new StderrLines();
  (transport.stderr as Stream).on('data', (chunk: Buffer) => stderr.push(chunk));
  await client.connect(transport);
  return { client, stderr, [Symbol.asyncDispose]: () => client.close() };
}

/** The v2 client (its era as its options say), connected to `gateway serve` over stdio. */
export async function stdioGatewayV2(
  file: string,
  options: StdioGatewayOptions,
  client: ClientV2 = new ClientV2({ name: 'gateway-test', version: '1.0.0' }),
): Promise<StdioGatewayClient<ClientV2>> {
  const transport = new StdioClientTransportV2(stdioCommand(file, options));
  const stderr = new StderrLines();
  (transport.stderr as Stream).on('data', (chunk: Buffer) => stderr.push(chunk));
  await client.connect(transport);
  return { client, stderr, [Symbol.asyncDispose]: () => client.close() };
}

/**
 * An SDK client transport (v1 and v2 share the shape) over one end of an in-memory pair (the
 * other end given to `gateway.serve`).
 */
export function sdkTransport(end: Transport) {
  const adapter = {
    onmessage: undefined as ((message: unknown) => void) | undefined,
    onclose: undefined as (() => void) | undefined,
    onerror: undefined as ((error: Error) => void) | undefined,
    async start() {
      end.onMessage((message) => adapter.onmessage?.(message));
      end.onClose(() => adapter.onclose?.());
      await end.start();
    },
    send(message: object) {
      end.send(message as JsonRpcMessage);
      return Promise.resolve();
    },
    close: () => end.close(),
  };
  return adapter;
}

/**
 * One raw 2026-07-28 POST to `url`: the era's headers (`MCP-Protocol-Version`, `Mcp-Method`,
 * `Mcp-Name` from the params' `name`, `uri` or `taskId`) and `_meta` (version, client info,
 * capabilities) derived from the request; `headers` and `meta` add to them.
 */
export function modernPost(
  url: string,
  method: string,
  params: Record<string, unknown>,
  options: {
    headers?: Record<string, string>;
    meta?: Record<string, unknown>;
    clientName?: string;
    capabilities?: Record<string, unknown>;
  } = {},
): Promise<Response> {
  const name = params.name ?? params.uri ?? params.taskId;
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...options.headers,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: options.clientName ?? 't', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
          ...options.meta,
        },
      },
    }),
  });
}
