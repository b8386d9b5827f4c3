import { McpHostError } from '../../errors/mcp-host-error.js';

/**
 * The URL of an HTTP transport, checked once at construction: parseable, `http:` or `https:`,
 * and without user info (fetching refuses such URLs on every request; credentials belong in the
 * `auth` option). `where` prefixes the message (`server 'x': `).
 */
export function endpointUrl(url: string | URL, where: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new McpHostError('INVALID_ARGUMENT', `${where}invalid URL`, { cause: error });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `${where}the URL must be http: or https:, not ${parsed.protocol}`,
    );
  if (parsed.username !== '' || parsed.password !== '')
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `${where}the URL must not carry credentials (user:password@); give them with the auth option`,
    );
  return parsed;
}
