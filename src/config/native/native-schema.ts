/**
 * The native format (`mcp.yaml` / `mcp.json`) as a JSON Schema (draft-07): the one source of
 * truth for its keys. The reader (`native.ts`) walks it to check types and ranges and to know the
 * keys of every object (unknown ones are kept with a warning and a "did you mean"); the published
 * `schema/mcp-config.schema.json` is this object printed by `scripts/config-schema.ts` (a test
 * keeps the two equal). Cross-field rules that a schema says poorly (`command` or `url`, not both;
 * the URL's scheme; server names) live in the reader; the schema repeats what editors can use.
 */

/** The subset of JSON Schema the reader understands (plus keywords it leaves to editors). */
export interface SchemaNode {
  $schema?: string;
  $id?: string;
  title?: string;
  description?: string;
  type?: JsonTypeName | JsonTypeName[];
  properties?: Record<string, SchemaNode>;
  /** `false` for objects of known keys (the reader warns instead of failing), or the value schema of a map. */
  additionalProperties?: boolean | SchemaNode;
  propertyNames?: SchemaNode;
  items?: SchemaNode;
  enum?: readonly (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
  anyOf?: SchemaNode[];
  /** Left to editors; the reader checks these rules itself. */
  oneOf?: SchemaNode[];
  allOf?: SchemaNode[];
  if?: SchemaNode;
  then?: SchemaNode;
  not?: SchemaNode;
  required?: string[];
  default?: unknown;
  examples?: unknown[];
}

export type JsonTypeName =
  'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export const NATIVE_SCHEMA_ID = 'https://unpkg.com/mcp-host/schema/mcp-config.schema.json';

const milliseconds = (description: string): SchemaNode => ({
  type: 'integer',
  minimum: 0,
  description,
});

const count = (description: string, minimum = 0): SchemaNode => ({
  type: 'integer',
  minimum,
  description,
});

/** env values and header values: strings; numbers and booleans are taken as their text. */
const stringMap = (description: string, keyPattern?: string): SchemaNode => ({
  type: 'object',
  description,
  ...(keyPattern === undefined ? {} : { propertyNames: { pattern: keyPattern } }),
  additionalProperties: { type: ['string', 'number', 'boolean'] },
});

const stringList = (description: string): SchemaNode => ({
  type: 'array',
  description,
  items: { type: 'string' },
});

const globList = (description: string): SchemaNode => ({
  type: 'array',
  description,
  items: { type: 'string', minLength: 1 },
});

const timeouts: SchemaNode = {
  type: 'object',
  description: 'Timeouts in milliseconds.',
  additionalProperties: false,
  properties: {
    connectMs: milliseconds('Connecting and the handshake.'),
    requestMs: milliseconds('Each request, restarted by progress notifications.'),
    discoverMs: milliseconds('Listing tools, resources and prompts after connecting.'),
  },
};

const retry: SchemaNode = {
  description:
    'Retries of side-effect-free requests over HTTP (capped exponential backoff), or false for none.',
  anyOf: [
    { const: false },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        maxAttempts: count('Attempts in all, the first included.', 1),
        baseDelayMs: milliseconds('Delay before the first retry; doubles each time.'),
        maxDelayMs: milliseconds('Longest delay between two attempts.'),
      },
    },
  ],
};

const restart: SchemaNode = {
  type: 'object',
  description: 'Restarts of a server that crashed or lost its connection.',
  additionalProperties: false,
  properties: {
    enabled: { type: 'boolean', description: 'false: a lost server ends failed.' },
    baseDelayMs: milliseconds('First backoff (default 500).'),
    maxDelayMs: milliseconds('Longest backoff (default 30000).'),
    crashLimit: count('Failures within crashWindowMs that make a crash loop (default 5).', 1),
    crashWindowMs: milliseconds('The crash-loop window (default 180000).'),
  },
};

const toolsTtlMs = milliseconds(
  'How long a tool list is kept when the server does not say it changed (0: until a reconnect).',
);

/** The keys that make the transport (on the server, or nested under `transport:`). */
export const transportProperties: Record<string, SchemaNode> = {
  type: {
    enum: ['stdio', 'http', 'sse', 'websocket'],
    description:
      'stdio, http (Streamable HTTP, falling back to HTTP+SSE by itself), sse (the legacy HTTP+SSE transport) or websocket.',
  },
  command: {
    type: 'string',
    minLength: 1,
    description: 'The program to run (stdio). Not run through a shell.',
  },
  args: {
    type: 'array',
    description: 'Its arguments (stdio).',
    items: { type: ['string', 'number'] },
  },
  env: stringMap(
    'Environment variables added to the allow-listed environment (stdio).',
    '^[^=\\u0000]+$',
  ),
  cwd: { type: 'string', minLength: 1, description: 'Working directory (stdio).' },
  envFile: {
    type: 'string',
    minLength: 1,
    description: 'A dotenv file whose variables are added to env (stdio).',
  },
  url: {
    type: 'string',
    minLength: 1,
    description: 'The endpoint (http, sse, websocket).',
    examples: ['https://mcp.example.com/mcp'],
  },
  headers: stringMap(
    'HTTP headers sent with every request (http, sse, websocket); values are secrets.',
    "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
  ),
};

/** Transport rules for editors: `command` or `url`, and a `type` that agrees (the reader says why). */
const transportRules = (alternative: string[]): Pick<SchemaNode, 'oneOf' | 'allOf'> => ({
  oneOf: [
    { required: ['command'] },
    { required: ['url'] },
    ...alternative.map((key) => ({ required: [key] })),
  ],
  allOf: [
    {
      if: {
        required: ['type'],
        properties: { type: { const: 'stdio' } },
        not: { required: ['transport'] },
      },
      then: { required: ['command'] },
    },
    {
      if: {
        required: ['type'],
        properties: { type: { enum: ['http', 'sse', 'websocket'] } },
        not: { required: ['transport'] },
      },
      then: { required: ['url'] },
    },
  ],
});

const server: SchemaNode = {
  type: 'object',
  description:
    'One MCP server. The transport is stdio when `command` is given and http (websocket for ws:// and wss://) when `url` is; `type` can say so explicitly, and must for sse.',
  additionalProperties: false,
  properties: {
    ...transportProperties,
    transport: {
      type: 'object',
      description:
        'The transport keys nested, as in the A3S design (`transport: { type, command, args, url, headers }`): the same as writing them on the server, which is how mcp-host writes them.',
      additionalProperties: false,
      properties: transportProperties,
      ...transportRules([]),
    },
    enabled: { type: 'boolean', description: 'false: registered but not started (default true).' },
    lazy: { type: 'boolean', description: 'Connect on first use instead of at start.' },
    trusted: {
      type: 'boolean',
      description: 'Believe its tool annotations (read-only, idempotent) when deciding retries.',
    },
    timeouts,
    retry,
    toolsTtlMs,
    tools: {
      type: 'object',
      description:
        'Which of its tools exist: globs (`*`, `?`) over tool names; block wins, an empty allow list allows all.',
      additionalProperties: false,
      properties: {
        allow: globList('Only these tools.'),
        block: globList('Never these tools.'),
      },
    },
    oauth: {
      type: 'object',
      description: 'OAuth 2.1 settings of a remote server.',
      additionalProperties: false,
      properties: {
        clientId: { type: 'string', minLength: 1 },
        clientSecret: { type: 'string', description: 'A secret: masked everywhere.' },
        scopes: stringList('Scopes to ask for.'),
        redirectUri: { type: 'string', minLength: 1 },
        authorizationServer: {
          type: 'string',
          minLength: 1,
          description:
            "The authorization server's issuer URL: used when the server's resource metadata lists several or none; a server whose metadata lists others but not this one is refused.",
        },
        grant: {
          enum: ['authorization_code', 'client_credentials'],
          description:
            'authorization_code (default: a person logs in) or client_credentials (machine to machine, with a configured client).',
        },
        clientMetadataUrl: {
          type: 'string',
          minLength: 1,
          description:
            'A Client ID Metadata Document URL (https), used as the client id where the server supports it.',
        },
        privateKeyFile: {
          type: 'string',
          minLength: 1,
          description:
            'A PEM private key file of the configured client (private_key_jwt); a relative path is relative to the config file.',
        },
        privateKeyAlg: {
          type: 'string',
          minLength: 1,
          description: 'The JWS algorithm of privateKeyFile (default from the key).',
        },
      },
    },
    restart,
    maxInFlight: count('Calls at once (default 128).', 1),
    maxQueue: count('Calls waiting beyond maxInFlight (default 256).'),
    secret: stringList(
      'Keys of env and headers whose values are secrets beyond the automatic ones (masked everywhere).',
    ),
  },
  ...transportRules(['transport']),
};

const defaults: SchemaNode = {
  type: 'object',
  description: 'Host-wide settings; a server setting overrides its default.',
  additionalProperties: false,
  properties: {
    timeouts,
    retry,
    toolsTtlMs,
    restart,
    health: {
      type: 'object',
      description: 'Health checks of connected servers.',
      additionalProperties: false,
      properties: {
        intervalMs: milliseconds('Between two checks (default 30000; 0 turns them off).'),
        timeoutMs: milliseconds('For one check (default 5000).'),
        failuresBeforeRestart: count(
          'Failed checks in a row that restart the server (default 2).',
          1,
        ),
      },
    },
    naming: {
      type: 'object',
      description: 'Exposed tool names: {prefix}{separator}{server}{separator}{tool}.',
      additionalProperties: false,
      properties: {
        prefix: { type: 'string', description: "Default 'mcp'; '' for none." },
        separator: { type: 'string', minLength: 1, description: "Default '__'." },
        providerSafe: {
          type: 'boolean',
          description: 'Keep names within ^[a-zA-Z0-9_-]{1,64}$ (default true).',
        },
        passThrough: {
          type: 'boolean',
          description:
            "Expose tools and prompts under the server's own names, no prefix or namespace (default false); one server only.",
        },
      },
    },
    maxResultBytes: count('Largest tool result passed on, in bytes.', 1),
    pins: {
      description:
        "Tool pinning: 'trust-on-first-use' (default), 'strict' (new tools wait for approval) or false (off).",
      anyOf: [{ enum: ['trust-on-first-use', 'strict'] }, { const: false }],
    },
  },
};

const view: SchemaNode = {
  type: 'object',
  description:
    "A narrower toolset over the same servers and connections, for one agent: `host.view('name')`. Globs (`*`, `?`) with `/` match `server/tool`, others the exposed name; block wins.",
  additionalProperties: false,
  properties: {
    servers: {
      type: 'array',
      description:
        'Only these servers (default: every server); each must be a server of the config. Native tools are in a view with servers only when an allow glob names them.',
      items: { type: 'string', minLength: 1 },
    },
    allow: globList('Only tools these globs match (empty: every tool of its servers).'),
    block: globList('Never tools these globs match.'),
    permissions: {
      type: 'object',
      description:
        "Per-agent permissions inside the view (the key '*' for agents not listed), applied after the host's: both must allow.",
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: {
          allow: globList('Only these tools.'),
          block: globList('Never these tools.'),
        },
      },
    },
    maxResultBytes: count(
      "The view's result budget in bytes; applies when smaller than the host's.",
      1,
    ),
  },
};

const root: SchemaNode = {
  description:
    "A folder servers may work in: a path (relative to this file's folder; `~` is the home directory) or a file:// URI, or { uri | path, name }.",
  anyOf: [
    { type: 'string', minLength: 1 },
    {
      type: 'object',
      additionalProperties: false,
      properties: {
        uri: { type: 'string', minLength: 1, description: 'A file:// URI.' },
        path: {
          type: 'string',
          minLength: 1,
          description: "A path, relative to this file's folder.",
        },
        name: { type: 'string', description: 'A name servers may show.' },
      },
      oneOf: [{ required: ['uri'] }, { required: ['path'] }],
    },
  ],
};

const input: SchemaNode = {
  type: 'object',
  description: 'A value asked for when a `${input:id}` reference needs it.',
  additionalProperties: false,
  required: ['id', 'type'],
  properties: {
    id: { type: 'string', pattern: '^[A-Za-z0-9_.-]+$' },
    type: { enum: ['promptString', 'pickString'] },
    description: { type: 'string' },
    password: { type: 'boolean', description: 'Hide what is typed; the value is a secret.' },
    default: { type: 'string' },
    options: stringList('The choices of a pickString.'),
  },
};

const gateway: SchemaNode = {
  type: 'object',
  description:
    '`mcp-host gateway serve`: where it listens over HTTP and what it offers there (see docs/gateway.md).',
  additionalProperties: false,
  properties: {
    host: {
      type: 'string',
      minLength: 1,
      description: 'The address to listen on (default 127.0.0.1).',
      examples: ['127.0.0.1', '::1'],
    },
    port: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      description: 'The TCP port; naming one makes HTTP the transport (0: a free port).',
    },
    tokenFile: {
      type: 'string',
      minLength: 1,
      description:
        "The bearer token's file (created 0600 when missing); relative to this file's folder, `~` is the home directory.",
    },
    auth: {
      type: 'boolean',
      description: 'Bearer-token authentication (default true); false only on a loopback host.',
    },
    views: {
      type: 'array',
      description: 'The views (names under `views:`) offered at /mcp/<view> (default: every one).',
      items: { type: 'string', minLength: 1 },
    },
    allowedOrigins: {
      type: 'array',
      description: "Origin header values accepted besides the listener's own.",
      items: { type: 'string', pattern: '^https?://[^/]+$' },
      examples: [['http://localhost:3000']],
    },
    allowedHosts: {
      type: 'array',
      description: 'Host header values accepted besides loopback names with the port.',
      items: { type: 'string', minLength: 1 },
    },
    maxSessions: count('Concurrent MCP sessions at most.', 1),
    maxBodyBytes: count('The largest request body, in bytes.', 1),
    sessionIdleMs: count('An idle session ends after this many milliseconds.', 1),
    clients: {
      type: 'object',
      description:
        'Named clients by name, each with its own bearer token (read from tokenFile at start) and optionally one view.',
      propertyNames: { pattern: '^[A-Za-z0-9_-]{1,64}$' },
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        required: ['tokenFile'],
        properties: {
          tokenFile: {
            type: 'string',
            minLength: 1,
            description:
              "The file holding this client's bearer token (mode 0600); relative to this file's folder, `~` is the home directory.",
          },
          view: {
            type: 'string',
            minLength: 1,
            description: 'The view (a name under `views:`) this client is served.',
          },
        },
      },
    },
    perClient: {
      type: 'array',
      description:
        'Servers (remote, with oauth) each named client reaches with its own login (`mcp-host auth login <server> --as <client>`).',
      items: { type: 'string', minLength: 1 },
    },
  },
};

const api: SchemaNode = {
  type: 'object',
  description:
    '`mcp-host api serve`: where the gRPC management API listens and what it allows (see docs/grpc.md).',
  additionalProperties: false,
  properties: {
    socket: {
      type: 'string',
      minLength: 1,
      description:
        "A Unix socket to listen on (made mode 0600); relative to this file's folder, `~` is the home directory. Default, when no port is named: `<state dir>/api.sock`.",
    },
    port: {
      type: 'integer',
      minimum: 0,
      maximum: 65535,
      description: 'A loopback TCP port to listen on, with the bearer token (0: a free port).',
    },
    host: {
      enum: ['127.0.0.1', '::1', 'localhost'],
      description: "The port's loopback address (default 127.0.0.1).",
    },
    tokenFile: {
      type: 'string',
      minLength: 1,
      description:
        "The bearer token's file (created 0600 when missing); relative to this file's folder, `~` is the home directory. Default: `<state dir>/api-token`.",
    },
    allowStdioRegistration: {
      type: 'boolean',
      description:
        'Let RegisterMcpServer add stdio servers: that runs commands on this machine, as this user (default false). Each registration is audited.',
    },
    reflection: {
      type: 'boolean',
      description:
        'Serve gRPC server reflection (grpc.reflection.v1 and v1alpha), so that tools such as grpcurl can list and describe the API; behind the token like every RPC but health (default false).',
    },
  },
};

const state: SchemaNode = {
  type: 'object',
  description:
    'Where mcp-host keeps tool pins and approvals, protocol eras and OAuth tokens (see docs/state.md); one store at most. Without one: OAuth tokens in the default state file, pins in memory.',
  additionalProperties: false,
  properties: {
    file: {
      type: 'string',
      minLength: 1,
      description:
        "A state file (created 0600) for pins, eras and tokens; relative to this file's folder, `~` is the home directory.",
    },
    postgres: {
      type: 'object',
      description:
        'A PostgreSQL store shared by every host and gateway replica that names it: an approval or quarantine on one applies on all.',
      additionalProperties: false,
      required: ['url'],
      properties: {
        url: {
          type: 'string',
          minLength: 1,
          description:
            'The connection string (postgres://user:password@host:5432/db), usually a ${VAR} reference. A secret: masked in every output.',
          examples: ['${MCP_HOST_POSTGRES_URL}'],
        },
        schema: {
          type: 'string',
          pattern: '^[a-z_][a-z0-9_]{0,46}$',
          description: 'The schema mcp-host keeps its tables in (default mcp_host).',
        },
      },
    },
  },
};

export const nativeSchema: SchemaNode = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: NATIVE_SCHEMA_ID,
  title: 'mcp-host configuration (mcp.yaml, mcp.json)',
  description: 'MCP servers by name, and host-wide defaults. See docs/config.md.',
  type: 'object',
  additionalProperties: false,
  properties: {
    $schema: { type: 'string', description: 'This schema, for editors.' },
    servers: {
      type: 'object',
      description: 'Servers by name; the name is the namespace of their tools.',
      additionalProperties: server,
    },
    defaults,
    inputs: { type: 'array', items: input },
    views: {
      type: 'object',
      description: "Named views by name: `host.view('name')`, `mcp-host tools --view name`.",
      additionalProperties: view,
    },
    roots: {
      type: 'array',
      description:
        'The roots every server is told about when it asks (`McpHostOptions.roots`), unless it has its own.',
      items: root,
    },
    gateway,
    api,
    state,
  },
};
