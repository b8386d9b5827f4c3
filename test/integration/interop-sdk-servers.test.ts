/**
 * The client against servers built with the official SDKs, over stdio: a legacy-only server (v1
 * SDK), a modern-only server (v2 SDK, 2026-07-28), the same v2 server in dual-era mode (detected
 * as modern), and that dual-era server again with the client pinned to legacy (the v2 SDK's legacy
 * shim). The era is detected, and the same primitives work in every era: tools (structured content, error
 * results), progress, cancellation, server input answered by the test's handlers (legacy:
 * server-to-client requests; modern: multi round-trip requests), resources and templates, prompts
 * and completion, logging, list_changed and resource updates; every message the client sent
 * validates against the schema of its session's revision. The tests themselves are in
 * test/helpers/sdk-interop-suite.ts, shared with the HTTP suite (interop-sdk-http.test.ts).
 */
import { describe } from 'vitest';
import { fixtureClient, mcpFixtures } from '../helpers/mcp-fixtures.js';
import { sdkInteropSuite, type SdkVariant } from '../helpers/sdk-interop-suite.js';

const variants: SdkVariant[] = [
  {
    label: 'legacy v1 SDK server',
    sdk: 'v1',
    script: mcpFixtures.legacySdk,
    args: [],
    era: 'legacy',
    version: '2025-11-25',
    serverName: 'legacy-sdk-server',
  },
  {
    label: 'modern v2 SDK server',
    sdk: 'v2',
    script: mcpFixtures.modernSdk,
    args: [],
    era: 'modern',
    version: '2026-07-28',
    serverName: 'modern-sdk-server',
  },
  {
    label: 'dual-era v2 SDK server (--dual-era)',
    sdk: 'v2',
    script: mcpFixtures.modernSdk,
    args: ['--dual-era'],
    era: 'modern',
    version: '2026-07-28',
    serverName: 'modern-sdk-server',
  },
  {
    // The v2 SDK's legacy shim: MRTR tools send real server-to-client requests.
    label: 'dual-era v2 SDK server with the client pinned to legacy',
    sdk: 'v2',
    script: mcpFixtures.modernSdk,
    args: ['--dual-era'],
    pinned: 'legacy',
    era: 'legacy',
    version: '2025-11-25',
    serverName: 'modern-sdk-server',
  },
];

describe.each(variants)('$label over stdio', (variant) => {
  sdkInteropSuite(variant, (options) => {
    const server = fixtureClient('sdk', variant.script, variant.args, options);
    return {
      client: server.client,
      get transport() {
        return server.processes.at(-1)!.transport;
      },
      get connections() {
        return server.processes.length;
      },
      waitForRecord: (event, matches) => server.processes.at(-1)!.waitForRecord(event, matches),
      [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
    };
  });
});
