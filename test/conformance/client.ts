/**
 * The client program the official MCP conformance suite drives (see test/conformance/README.md).
 * The tool runs `<command> <serverUrl>`: the server URL is the last argument,
 * `MCP_CONFORMANCE_SCENARIO` names the scenario and `MCP_CONFORMANCE_CONTEXT` (JSON) carries what
 * some scenarios hand the client (tool calls to make, credentials). It does what the scenario
 * expects through our public API only, and exits 0 when everything it did succeeded.
 *
 * `McpClient` comes from the root entry's source (like examples/quickstart.ts: no build needed, and
 * it typechecks on a fresh clone). The Streamable HTTP transport is loaded at run time from the
 * entry it is expected to land in (`mcp-host/http`, i.e. src/http.ts, or the root entry); the
 * specifier is a plain string so the typechecker does not need the module to exist yet. Without
 * it, every scenario fails loudly (exit 3) naming what is missing.
 */
import { idJagAssertion, OAuthProvider, type OAuthProviderOptions } from '../../src/auth.js';
import { McpClient } from '../../src/index.js';
import type {
  ElicitRequestParams,
  ElicitResult,
  JsonObject,
  McpClientOptions,
  Tool,
  Transport,
} from '../../src/index.js';
import type { AuthProvider } from '../../src/http.js';
import { MemoryTokenStore } from '../helpers/memory-token-store.js';

type TransportFactory = (url: string, auth?: AuthProvider) => Transport;

/** Where the HTTP transport may be exported from, in order: the `mcp-host/http` entry, then the root. */
const TRANSPORT_MODULES = ['../../src/http.js', '../../src/index.js'];

function log(message: string): void {
  process.stderr.write(`[conformance-client] ${message}\n`);
}

async function loadHttpTransport(): Promise<TransportFactory> {
  const tried: string[] = [];
  for (const specifier of TRANSPORT_MODULES) {
    let module: Record<string, unknown>;
    try {
      module = (await import(specifier)) as Record<string, unknown>;
    } catch (error) {
      tried.push(`${specifier}: ${error instanceof Error ? error.message : String(error)}`);
      continue;
    }
    const Ctor = module.StreamableHttpTransport;
    if (typeof Ctor === 'function') {
      const Transport = Ctor as new (options: {
        url: string;
        serverName?: string;
        auth?: AuthProvider;
      }) => Transport;
      return (url, auth) =>
        new Transport({ url, serverName: 'conformance', ...(auth === undefined ? {} : { auth }) });
    }
    tried.push(`${specifier}: no StreamableHttpTransport export`);
  }
  log(`the Streamable HTTP transport is not available yet:\n  ${tried.join('\n  ')}`);
  process.exit(3);
}

/** Arguments for a tool from its input schema: defaults, the first enum value, or a plain value per type. */
function argumentsFor(tool: Tool): JsonObject {
  const schema = tool.inputSchema;
  const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const args: JsonObject = {};
  for (const name of required) {
    const property = properties[name] ?? {};
    if (property.default !== undefined) args[name] = property.default;
    else if (Array.isArray(property.enum) && property.enum.length > 0)
      args[name] = property.enum[0];
    else if (property.type === 'number' || property.type === 'integer') args[name] = 1;
    else if (property.type === 'boolean') args[name] = true;
    else if (property.type === 'object') args[name] = {};
    else if (property.type === 'array') args[name] = [];
    else args[name] = 'us-west1';
  }
  return args;
}

/** Accepts an elicitation form with every default the requested schema gives (SEP-1034). */
function acceptWithDefaults(params: ElicitRequestParams): ElicitResult {
  const requested = (params as { requestedSchema?: { properties?: Record<string, JsonObject> } })
    .requestedSchema;
  const content: JsonObject = {};
  for (const [name, property] of Object.entries(requested?.properties ?? {})) {
    if (property.default !== undefined) content[name] = property.default;
    else if (property.type === 'boolean') content[name] = true;
  }
  return { action: 'accept', content };
}

/** The Client ID Metadata Document URL the suite expects (auth/basic-cimd). */
const CLIENT_METADATA_URL = 'https://conformance-test.local/client-metadata.json';

/**
 * Logs in headlessly: the suite's authorization endpoint answers with a redirect to the
 * redirect URI, so following nothing and reading `Location` is the user's browser trip.
 */
async function headlessLogin({ url }: { url: URL }): Promise<string> {
  const response = await fetch(url, { redirect: 'manual' });
  await response.body?.cancel();
  const location = response.headers.get('location');
  if (location === null) throw new Error(`the authorization endpoint answered ${response.status}`);
  return new URL(location, url).href;
}

/** The OAuth provider for an auth/* scenario, from what the suite's context hands the client. */
function authFor(url: string, context: Record<string, unknown>): OAuthProvider {
  const text = (name: string): string | undefined =>
    typeof context[name] === 'string' ? context[name] : undefined;
  const clientId = text('client_id');
  const clientSecret = text('client_secret');
  const pem = text('private_key_pem');
  const workloadJwt = text('valid_jwt');
  const idpTokenEndpoint = text('idp_token_endpoint');
  const idpClientId = text('idp_client_id');
  const idToken = text('idp_id_token');
  // Workload identity (the suite's valid workload JWT), or enterprise-managed authorization (the
  // IdP's ID token exchanged for an ID-JAG): both end in the JWT-bearer grant.
  const assertion: OAuthProviderOptions['assertion'] | undefined =
    workloadJwt !== undefined
      ? () => workloadJwt
      : idpTokenEndpoint !== undefined && idpClientId !== undefined && idToken !== undefined
        ? idJagAssertion({ tokenEndpoint: idpTokenEndpoint, clientId: idpClientId, idToken })
        : undefined;
  const grant: OAuthProviderOptions['grant'] =
    assertion !== undefined
      ? 'jwt_bearer'
      : scenarioName.startsWith('auth/client-credentials')
        ? 'client_credentials'
        : 'authorization_code';
  return new OAuthProvider({
    ...(assertion === undefined ? {} : { assertion }),
    serverUrl: url,
    serverName: 'conformance',
    store: new MemoryTokenStore(),
    grant,
    clientMetadataUrl: CLIENT_METADATA_URL,
    redirectUri: 'http://127.0.0.1:3999/callback',
    onAuthorizationRequired: headlessLogin,
    ...(clientId === undefined
      ? {}
      : {
          client: {
            clientId,
            ...(clientSecret === undefined ? {} : { clientSecret }),
            ...(pem === undefined
              ? {}
              : {
                  privateKey: {
                    pem,
                    ...(text('signing_algorithm') === undefined
                      ? {}
                      : { alg: text('signing_algorithm') }),
                  },
                }),
          },
        }),
  });
}

const scenarioName = process.env.MCP_CONFORMANCE_SCENARIO ?? '';

/**
 * Scenarios whose correct outcome is a refusal (the suite marks them `allowClientError`): the
 * client must stop before a token is asked for or used. For these, a typed refusal (the error
 * codes below) is the expected end and exits 0; the suite's checks still prove it stopped at the
 * right step (for example no token request after a wrong `iss`). Anything else still fails.
 */
const EXPECTED_REFUSALS: Record<string, readonly string[]> = {
  'auth/resource-mismatch': ['AUTH_FAILED'],
  'auth/metadata-issuer-mismatch': ['AUTH_FAILED'],
  'auth/iss-supported-missing': ['AUTH_FAILED'],
  'auth/iss-wrong-issuer': ['AUTH_FAILED'],
  'auth/iss-unexpected': ['AUTH_FAILED'],
  'auth/iss-normalized': ['AUTH_FAILED'],
  // The server answers 403 insufficient_scope forever: the call fails instead of looping.
  'auth/scope-retry-limit': ['AUTH_REQUIRED', 'HTTP_STATUS'],
};

function isExpectedRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    error instanceof Error &&
    typeof code === 'string' &&
    (EXPECTED_REFUSALS[scenarioName]?.includes(code) ?? false)
  );
}

interface Run {
  client: McpClient;
  context: Record<string, unknown>;
}

async function callEveryTool({ client }: Run): Promise<void> {
  const { tools: items, excluded } = await client.listTools();
  for (const { name, reason } of excluded) log(`tool '${name}' excluded: ${reason}`);
  for (const tool of items) {
    const result = await client.callTool(tool.name, argumentsFor(tool));
    log(`${tool.name} -> ${JSON.stringify(result.content).slice(0, 200)}`);
  }
}

/** What each scenario does once connected; anything not named here lists and calls every tool. */
const SCENARIOS: Record<string, (run: Run) => Promise<void>> = {
  async initialize({ client }) {
    await client.listTools();
  },
  async tools_call({ client }) {
    await client.listTools();
    const result = await client.callTool('add_numbers', { a: 5, b: 3 });
    log(`add_numbers -> ${JSON.stringify(result.content)}`);
  },
  'elicitation-sep1034-client-defaults': callEveryTool,
  'sse-retry': callEveryTool,
  async 'request-metadata'({ client }) {
    await client.listTools();
  },
  async 'sep-2322-client-request-state'({ client }) {
    await client.listTools();
    // test_mrtr_unrelated runs while test_mrtr_echo_state waits for its input (see handlers below).
    await client.callTool('test_mrtr_echo_state');
    await client.callTool('test_mrtr_no_state');
    await client.callTool('test_mrtr_no_result_type');
  },
  async 'http-standard-headers'(run) {
    const { client } = run;
    await callEveryTool(run);
    for (const resource of (await client.listResources()).resources) {
      await client.readResource(resource.uri);
    }
    for (const prompt of (await client.listPrompts()).prompts) {
      await client.getPrompt(prompt.name);
    }
  },
  async 'http-custom-headers'({ client, context }) {
    await client.listTools();
    const calls = (context.toolCalls ?? []) as { name: string; arguments?: JsonObject }[];
    if (calls.length === 0) throw new Error('MCP_CONFORMANCE_CONTEXT names no toolCalls');
    for (const call of calls) await client.callTool(call.name, call.arguments ?? {});
  },
  // Calls the tools the listing kept; those with invalid x-mcp-header annotations must be excluded.
  'http-invalid-tool-headers': callEveryTool,
  async 'json-schema-ref-no-deref'({ client }) {
    await client.listTools();
  },
  async 'json-schema-2020-12-preservation'({ client }) {
    const { tools: items } = await client.listTools();
    const echo = items.find((tool) => tool.name === 'json_schema_echo');
    const focal = items.find((tool) => tool.name !== 'json_schema_echo');
    if (echo === undefined || focal === undefined) {
      throw new Error(
        `expected json_schema_echo and one more tool, got ${items.map((t) => t.name).join(', ')}`,
      );
    }
    await client.callTool(echo.name, { schema: focal.inputSchema });
  },
};

/**
 * SEP-2640 (skills), `sep-2640-client-verify-*`: the server lists one skill and serves a SKILL.md
 * that fails one check (digest, size or frontmatter). The client loads it as a host would when the
 * skill is used; the load must fail verification, so the content is never used and the supporting
 * file never read. A load that succeeds is a failure of this client.
 */
async function loadTamperedSkill({ client }: Run): Promise<void> {
  const { skills } = await client.listSkills();
  const entry = skills[0];
  if (entry === undefined) throw new Error('skills/list returned no usable skill');
  try {
    const loaded = await client.loadSkill(entry);
    throw new Error(`skill '${loaded.entry.uri}' loaded although it should fail verification`);
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'SKILL_VERIFICATION_FAILED') throw error;
    log(`refused as the scenario expects: ${(error as Error).message}`);
  }
}

SCENARIOS['sep-2640-client-no-prefetch'] = async ({ client }) => {
  // Listing only: no skill is used, so no skill file may be read.
  const { skills } = await client.listSkills();
  log(`skills: ${skills.map((skill) => skill.frontmatter.name).join(', ')}`);
};
SCENARIOS['sep-2640-client-verify-digest'] = loadTamperedSkill;
SCENARIOS['sep-2640-client-verify-size'] = loadTamperedSkill;
SCENARIOS['sep-2640-client-verify-frontmatter'] = loadTamperedSkill;

async function main(): Promise<number> {
  const url = process.argv.at(-1);
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Record<
    string,
    unknown
  >;
  if (url === undefined || !/^https?:\/\//.test(url)) {
    log(`usage: client <serverUrl> (got ${String(url)})`);
    return 2;
  }
  log(
    `scenario '${scenario}' against ${url} (suite's spec version ${process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? 'unset'})`,
  );
  const httpTransport = await loadHttpTransport();
  const auth = scenario.startsWith('auth/') ? authFor(url, context) : undefined;

  let client: McpClient | undefined = undefined;
  let mrtrUnrelated: Promise<unknown> | undefined;
  const options: McpClientOptions = {
    transport: () => httpTransport(url, auth),
    serverName: 'conformance',
    clientInfo: { name: 'mcp-host-conformance', version: '0.1.0' },
    logger: {
      debug: () => {},
      info: (message) => log(message),
      warn: (message) => log(`warn: ${message}`),
      error: (message) => log(`error: ${message}`),
    },
    handlers: {
      elicitation: {
        form: (params) => {
          if (scenario === 'sep-2322-client-request-state' && mrtrUnrelated === undefined) {
            // Another call while this one's input round is open: it must carry neither the
            // inputResponses nor the requestState of this one.
            mrtrUnrelated = client?.callTool('test_mrtr_unrelated');
          }
          return Promise.resolve(acceptWithDefaults(params));
        },
      },
      // Declared so request-metadata sees every optional capability in `_meta`.
      ...(scenario === 'request-metadata'
        ? {
            roots: () => [],
            sampling: () =>
              Promise.reject(new Error('sampling is not offered in conformance runs')),
          }
        : {}),
    },
  };
  client = new McpClient(options);
  try {
    await client.connect();
    log(`connected: ${client.era ?? '?'} ${client.session?.version ?? '?'}`);
    await (SCENARIOS[scenario] ?? callEveryTool)({ client, context });
    await mrtrUnrelated;
    return 0;
  } finally {
    await client.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (isExpectedRefusal(error)) {
      log(`refused as the scenario expects: ${(error as Error).message}`);
      process.exit(0);
    }
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
