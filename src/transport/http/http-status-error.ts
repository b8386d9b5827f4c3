import { McpHostError } from '../../errors/mcp-host-error.js';
import { preview } from '../../errors/redact.js';
import { MAX_ERROR_BODY_BYTES, MAX_ERROR_PREVIEW_CHARS } from './http-options.js';
import type { HttpResponse } from './http-response.js';
import { readBodyCapped, utf8 } from './read-body.js';

/**
 * Reads a refused response's body (at most `MAX_ERROR_BODY_BYTES`) and makes the HTTP_STATUS
 * error for it: `details.status`, `details.wwwAuthenticate` when sent, and a redacted preview of
 * the body (at most 1 KiB) in the message. The body's text is returned too, for a caller that
 * looks for a JSON-RPC error in it.
 */
export async function readStatusError(
  response: HttpResponse,
  context: {
    method: string;
    where: string;
    serverName: string | undefined;
    requestId?: string | number;
  },
): Promise<{ error: McpHostError; text: string }> {
  const bytes = await readBodyCapped(response.body, MAX_ERROR_BODY_BYTES, { truncate: true });
  const text = utf8(bytes);
  const wwwAuthenticate = response.header('www-authenticate') ?? undefined;
  const shown = text === '' ? '' : `: ${preview(text, MAX_ERROR_PREVIEW_CHARS)}`;
  const error = new McpHostError(
    'HTTP_STATUS',
    `${context.where}${context.method} got HTTP ${response.status}${shown}`,
    {
      serverName: context.serverName,
      requestId: context.requestId,
      details: {
        status: response.status,
        ...(wwwAuthenticate === undefined
          ? {}
          : { wwwAuthenticate: preview(wwwAuthenticate, 512) }),
      },
    },
  );
  return { error, text };
}
