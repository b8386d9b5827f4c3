/**
 * The identity of a configured server: the key under which state about it is remembered (its
 * protocol era, its tool pins), from a digest of its whole transport definition, and a display
 * name without secrets. Apart from transport-definition.ts, which a client loads before it starts
 * a server, so that the client loads no digest code for it.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import { redact } from '../errors/redact.js';
import { canonicalJson } from '../state/canonical-json.js';
import { sha256Hex } from '../state/sha256.js';
import type { StdioDefinition, TransportDefinition } from './transport-definition.js';

/** Who a configured server is, for state keys and for people. */
export interface ServerIdentity {
  /** The configured name, as given. */
  readonly name: string;
  /**
   * `<name>:<fingerprint>`, the state key. The fingerprint is the first 16 hex digits (64 bits)
   * of the SHA-256 of the canonical JSON (RFC 8785) of the whole transport definition, secrets
   * included: the same definition gives the same key whatever the order of its members, of `env`
   * or of `headers`, and changing anything (the command, an argument, a URL, a token) gives a new
   * key, so state remembered about one server is never applied to another. Nothing but the name
   * can be read from it. It is meant for local state, not for publishing: a low-entropy secret
   * could be guessed from it by someone who knows the rest of the definition.
   */
  readonly key: string;
  /**
   * A short description for logs and messages, with no secrets: `stdio:<command>[:<argument>]`
   * (the basename of the command and of its first argument that is not a flag, such as
   * `stdio:python:server.py` or `stdio:npx:server-filesystem`), or `<type>:<url>` (such as
   * `http:https://host/mcp`) with URL user info and credential-looking query parameters masked.
   * Environment variables, headers and the working directory never appear; everything shown passes
   * through the process-wide redactor, so registered secrets and well-known token formats are
   * masked too.
   */
  readonly display: string;
}

/** Hex digits of the SHA-256 kept in the key. */
const FINGERPRINT_HEX_DIGITS = 16;

/**
 * The identity of the server configured as `name` with this transport. Throws `INVALID_ARGUMENT`
 * for an empty name, an unknown transport type, or a definition that is not JSON data.
 */
export async function serverIdentity(
  name: string,
  transport: TransportDefinition,
): Promise<ServerIdentity> {
  if (typeof name !== 'string' || name === '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      'serverIdentity: the name must be a non-empty string',
    );
  const display = describeTransport(name, transport);
  const fingerprint = (await sha256Hex(canonicalJson(transport))).slice(0, FINGERPRINT_HEX_DIGITS);
  return { name, key: `${name}:${fingerprint}`, display };
}

function describeTransport(name: string, transport: TransportDefinition): string {
  const type = (transport as { type?: unknown } | null)?.type;
  switch (type) {
    case 'stdio': {
      const { command, args = [] } = transport as StdioDefinition;
      const parts = ['stdio', basename(String(command))];
      const first = args.find((arg) => typeof arg === 'string' && !arg.startsWith('-'));
      if (first !== undefined) parts.push(basename(first));
      return redact(parts.join(':'));
    }
    case 'http':
    case 'sse':
    case 'websocket':
      return redact(`${type}:${String((transport as { url: unknown }).url)}`);
    default:
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `serverIdentity: unknown transport type ${JSON.stringify(type) ?? 'undefined'}`,
        { serverName: name },
      );
  }
}

/** The last segment of a POSIX or Windows path (a trailing separator ignored). */
function basename(path: string): string {
  const segments = path.split(/[\\/]+/).filter((segment) => segment !== '');
  return segments.at(-1) ?? path;
}
