/**
 * The client against servers built with the official SDKs, over Streamable HTTP on 127.0.0.1: the
 * same primitive tests as the stdio interop suite (test/helpers/sdk-interop-suite.ts), over each
 * HTTP mode the SDKs offer. v1 (`@modelcontextprotocol/sdk`, legacy only) with sessions, without
 * (a fresh server and transport per request) and with JSON responses. v2
 * (`@modelcontextprotocol/server`, 2026-07-28) through `createMcpHandler`, stateless by design, in
 * its auto (JSON or SSE) and JSON response modes, detected as modern; and its two legacy legs,
 * reached by a client pinned to legacy: the sessionful `WebStandardStreamableHTTPServerTransport`
 * and the handler's stateless legacy fallback. Each server is a child process listening on a free
 * port (see test/fixtures/mcp/README.md, HTTP modes); what a mode cannot do (a stateless server
 * cannot send server-to-client requests, a JSON-response server drops mid-call notifications) is
 * a skipped test whose title says why.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { McpClient } from '../../src/index.js';
import { StreamableHttpTransport } from '../../src/http.js';
import { startHttpServer, type HttpServerProcess } from '../helpers/http-fixture-server.js';
import { mcpFixtures } from '../helpers/mcp-fixtures.js';
import { RecordingTransport } from '../helpers/recording-transport.js';
import { sdkInteropSuite, type SdkVariant } from '../helpers/sdk-interop-suite.js';

const STATELESS_INPUT =
  'a stateless server serves each request with a fresh instance and cannot wait for the answer to a server-to-client request';
const STATELESS_LEVEL =
  'logging/setLevel is forgotten with the fresh instance that served it, and v1 sends log messages on the GET stream a stateless server does not have';
const STATELESS_NOTIFY =
  'a stateless server has no GET stream (405), so a list change or resource update made during one request has no stream to go out on';
const JSON_DROPS = 'in JSON response mode the SDK drops notifications sent before the result';

const legacy = {
  http: true,
  sdk: 'v1',
  script: mcpFixtures.legacySdk,
  era: 'legacy',
  version: '2025-11-25',
  serverName: 'legacy-sdk-server',
} as const;
const modern = {
  http: true,
  sdk: 'v2',
  script: mcpFixtures.modernSdk,
  era: 'modern',
  version: '2026-07-28',
  serverName: 'modern-sdk-server',
} as const;

const variants: SdkVariant[] = [
  { ...legacy, label: 'legacy v1 SDK server, stateful (sessions)', args: ['--http=stateful'] },
  {
    ...legacy,
    label: 'legacy v1 SDK server, stateless',
    args: ['--http=stateless'],
    unsupported: {
      serverInput: STATELESS_INPUT,
      logging: STATELESS_LEVEL,
      listChanged: STATELESS_NOTIFY,
      resourceUpdates: STATELESS_NOTIFY,
    },
  },
  {
    ...legacy,
    label: 'legacy v1 SDK server, JSON responses (sessions)',
    args: ['--http=json'],
    unsupported: { progress: JSON_DROPS },
  },
  { ...modern, label: 'modern v2 SDK server, stateless (auto)', args: ['--http=stateless'] },
  {
    ...modern,
    label: 'modern v2 SDK server, JSON responses',
    args: ['--http=json'],
    unsupported: { progress: JSON_DROPS, logging: JSON_DROPS },
  },
  {
    ...modern,
    label: 'modern v2 SDK server, stateful legacy leg, client pinned to legacy',
    args: ['--http=stateful'],
    pinned: 'legacy',
    era: 'legacy',
    version: '2025-11-25',
  },
  {
    ...modern,
    label:
      "dual-era v2 SDK server, stateless, client pinned to legacy (the SDK's stateless legacy fallback)",
    args: ['--http=stateless', '--dual-era'],
    pinned: 'legacy',
    era: 'legacy',
    version: '2025-11-25',
    unsupported: {
      serverInput: STATELESS_INPUT,
      logging: STATELESS_LEVEL,
      listChanged: STATELESS_NOTIFY,
    },
  },
];

for (const variant of variants) {
  describe(`${variant.label} over Streamable HTTP`, () => {
    let server: HttpServerProcess;
    beforeAll(async () => {
      server = await startHttpServer(variant.script, variant.args);
    });
    afterAll(async () => {
      await server?.[Symbol.asyncDispose]();
    });

    sdkInteropSuite(variant, (options) => {
      const transports: RecordingTransport[] = [];
      const client = new McpClient({
        serverName: 'sdk',
        transport: () => {
          const transport = new RecordingTransport(
            new StreamableHttpTransport({ serverName: 'sdk', url: server.url }),
          );
          transports.push(transport);
          return transport;
        },
        ...options,
      });
      return {
        client,
        get transport() {
          return transports.at(-1)!;
        },
        get connections() {
          return transports.length;
        },
        waitForRecord: (event, matches) => server.waitForRecord(event, matches),
        [Symbol.asyncDispose]: () => client.close(),
      };
    });
  });
}
