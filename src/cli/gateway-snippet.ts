/**
 * `mcp-host config print --for <client> --gateway`: the entry a user pastes into an MCP client
 * (Claude Desktop, Claude Code, VS Code, Cursor) to use mcp-host's gateway as its one server.
 * The entry is a one-server config written by that client's own dialect writer (config/dialects),
 * so its format is the one `config print` and `config import` already know:
 *
 * - over stdio, the command that starts the gateway, with `--config <absolute path>` for each
 *   config file read, then `gateway serve` (and `--view`);
 * - over HTTP (`--transport http`, or a `gateway:` section naming a port), the URL and, with
 *   authentication on, the `Authorization` header. The token itself is printed only when asked
 *   (`reveal`); otherwise the header reads it at use through the client's own mechanism: an
 *   environment variable in Claude Code (`${VAR}`) and Cursor (`${env:VAR}`), a password input
 *   in VS Code (asked once, kept by VS Code). Claude Desktop's file holds stdio servers only.
 */
import { readFile } from 'node:fs/promises';
import { dialects } from '../config/dialects/registry.js';
import { DEFAULT_GATEWAY_HOST, type GatewaySettings } from '../config/gateway-settings.js';
import type { ConfigDialect, InputConfig, McpConfig, TransportConfig } from '../config/model.js';
import { McpHostError } from '../errors/mcp-host-error.js';

/** The clients `--gateway` prints an entry for. */
export const GATEWAY_CLIENTS = ['claude-desktop', 'claude-code', 'vscode', 'cursor'] as const;

export type GatewayClient = (typeof GATEWAY_CLIENTS)[number];

/** The name of the gateway's entry in the client's config. */
export const GATEWAY_ENTRY_NAME = 'mcp-host';

/** The environment variable Claude Code and Cursor read the token from. */
export const GATEWAY_TOKEN_VARIABLE = 'MCP_HOST_GATEWAY_TOKEN';

/** The VS Code input that asks for the token. */
export const GATEWAY_TOKEN_INPUT = 'mcp-host-gateway-token';

export function isGatewayClient(dialect: string): dialect is GatewayClient {
  return (GATEWAY_CLIENTS as readonly string[]).includes(dialect);
}

export interface GatewaySnippetOptions {
  /** Where the gateway listens (`resolveGatewaySettings`). */
  settings: GatewaySettings;
  /** The config files the gateway is to read, absolute, in merge order. */
  configFiles: readonly string[];
  /** How this mcp-host is started: the program and the arguments before mcp-host's own. */
  launcher: { command: string; args: readonly string[] };
  /** Serve only this view: `--view` over stdio, `/mcp/<view>` over HTTP. */
  view?: string;
  /** Put the token itself in the entry (read from `settings.tokenFile`). */
  reveal?: boolean;
}

export interface GatewaySnippet {
  client: GatewayClient;
  transport: 'stdio' | 'http';
  /** The text to paste, in the client's format. */
  text: string;
  /** The gateway's URL (http only). */
  url?: string;
  /** Where the token is (http with authentication only). */
  tokenFile?: string;
  /** Where the text goes and how the token reaches the client, for people (stderr). */
  notes: string[];
}

/** Where each client keeps the entry. */
const PLACES: Record<GatewayClient, string> = {
  'claude-desktop': 'claude_desktop_config.json ("mcpServers")',
  'claude-code': '.mcp.json in the project ("mcpServers")',
  vscode: '.vscode/mcp.json ("servers")',
  cursor: '.cursor/mcp.json or ~/.cursor/mcp.json ("mcpServers")',
};

/**
 * The gateway's entry for `client`. Rejects with INVALID_ARGUMENT when the client cannot hold it
 * (Claude Desktop over HTTP), when an HTTP gateway's port is not fixed, or (with `reveal`) when
 * the token file cannot be read.
 */
export async function gatewaySnippet(
  client: GatewayClient,
  options: GatewaySnippetOptions,
): Promise<GatewaySnippet> {
  const { settings } = options;
  const notes = [`paste it into ${PLACES[client]}`];
  let transport: TransportConfig;
  let inputs: InputConfig[] | undefined;
  let url: string | undefined;
  let tokenFile: string | undefined;
  if (settings.transport === 'stdio') {
    transport = {
      type: 'stdio',
      command: escapeTemplate(options.launcher.command),
      args: [
        ...options.launcher.args,
        ...options.configFiles.flatMap((file) => ['--config', file]),
        'gateway',
        'serve',
        ...(options.view === undefined ? [] : ['--view', options.view]),
      ].map(escapeTemplate),
      env: {},
    };
  } else {
    if (client === 'claude-desktop')
      throw new McpHostError(
        'INVALID_ARGUMENT',
        "Claude Desktop's config file holds stdio servers only: print the stdio entry (without --transport http), or add the URL under Settings > Connectors",
      );
    if (settings.port === undefined || settings.port === 0)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        'an HTTP gateway without a fixed port has a new URL at each start: set gateway.port in the config, or give --port',
      );
    url = `http://${urlHost(settings.host)}:${settings.port}/mcp${options.view === undefined ? '' : `/${encodeURIComponent(options.view)}`}`;
    const headers: Record<string, string> = {};
    if (settings.auth) {
      tokenFile = settings.tokenFile;
      if (options.reveal === true) {
        headers.Authorization = `Bearer ${escapeTemplate(await readToken(tokenFile))}`;
        notes.push('the entry holds the token: keep the file private');
      } else if (client === 'vscode') {
        headers.Authorization = `Bearer \${input:${GATEWAY_TOKEN_INPUT}}`;
        inputs = [
          {
            id: GATEWAY_TOKEN_INPUT,
            type: 'promptString',
            description: `The mcp-host gateway's token (the content of ${tokenFile})`,
            password: true,
          },
        ];
        notes.push(
          `VS Code asks for the token once: paste the content of ${tokenFile} (written by the gateway on its first start)`,
        );
      } else {
        headers.Authorization = `Bearer \${${GATEWAY_TOKEN_VARIABLE}}`;
        notes.push(
          `the token is in ${tokenFile} (written by the gateway on its first start); ${client === 'claude-code' ? 'Claude Code' : 'Cursor'} reads it from ${GATEWAY_TOKEN_VARIABLE}: export ${GATEWAY_TOKEN_VARIABLE}="$(cat '${tokenFile}')" before starting it (or --show-secrets puts the token in the entry)`,
        );
      }
    }
    transport = { type: 'http', url, headers };
    notes.push(
      `start the gateway first: mcp-host ${configArgs(options)}gateway serve --transport http --port ${settings.port}${settings.host === DEFAULT_GATEWAY_HOST ? '' : ` --host ${settings.host}`}${settings.auth ? '' : ' --no-auth'}`,
    );
  }
  const config: McpConfig = {
    servers: [
      {
        name: GATEWAY_ENTRY_NAME,
        transport,
        enabled: true,
        source: { file: '<gateway>', dialect: client, path: [] },
      },
    ],
    ...(inputs === undefined ? {} : { inputs }),
    files: [],
  };
  const written = dialects[client as ConfigDialect].write(config);
  const error = written.diagnostics.find((d) => d.severity === 'error');
  if (error !== undefined)
    throw new McpHostError('INVALID_ARGUMENT', `the ${client} entry: ${error.message}`);
  if (client === 'claude-code') {
    const entry = (JSON.parse(written.text) as { mcpServers: Record<string, unknown> }).mcpServers[
      GATEWAY_ENTRY_NAME
    ];
    notes.push(
      `or add it with: claude mcp add-json ${GATEWAY_ENTRY_NAME} '${JSON.stringify(entry).replace(/'/g, "'\\''")}'`,
    );
  }
  return {
    client,
    transport: settings.transport,
    text: written.text,
    ...(url === undefined ? {} : { url }),
    ...(tokenFile === undefined ? {} : { tokenFile }),
    notes,
  };
}

/** How a client reaches `host`: a wildcard address is this machine; IPv6 in brackets. */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** `--config <file> ...` as a shell line would give them (the files quoted when needed). */
function configArgs(options: GatewaySnippetOptions): string {
  const quote = (text: string) => (/^[\w./:@%+=-]+$/.test(text) ? text : `'${text}'`);
  return options.configFiles.map((file) => `--config ${quote(file)} `).join('');
}

/** A literal `${` in the token, escaped for the canonical template grammar. */
function escapeTemplate(text: string): string {
  return text.replace(/\$\{/g, '$${');
}

async function readToken(file: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    throw new McpHostError(
      'INVALID_ARGUMENT',
      code === 'ENOENT'
        ? `no token yet at ${file}: the gateway writes it on its first start over HTTP`
        : `cannot read the token file ${file} (${code ?? 'read failed'})`,
      { cause },
    );
  }
  const token = text.trim();
  if (token === '' || /\s/.test(token))
    throw new McpHostError('INVALID_ARGUMENT', `the token file ${file} holds no single token`);
  return token;
}
