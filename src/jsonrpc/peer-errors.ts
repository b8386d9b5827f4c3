import { JsonRpcError, JsonRpcErrorCode } from '../errors/json-rpc-error.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { preview } from '../errors/redact.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { JsonRpcErrorObject, RequestId } from './message.js';

/** The errors one peer raises, each naming the server, the method and the request. */
export class PeerErrors {
  readonly #serverName: string | undefined;

  constructor(serverName: string | undefined) {
    this.#serverName = serverName;
  }

  aborted(method: string, requestId: number | undefined, signal: AbortSignal): McpHostError {
    return new McpHostError('ABORTED', `request '${method}' was cancelled by the caller`, {
      serverName: this.#serverName,
      method,
      requestId,
      cause: signal.reason,
    });
  }

  timedOut(
    method: string,
    requestId: number,
    kind: 'idle' | 'total',
    timeoutMs: number,
  ): McpHostError {
    const what =
      kind === 'idle'
        ? `got no response within ${timeoutMs} ms`
        : `exceeded its total time limit of ${timeoutMs} ms`;
    return new McpHostError('REQUEST_TIMEOUT', `request '${method}' ${what}`, {
      serverName: this.#serverName,
      method,
      requestId,
      details: { kind, timeoutMs },
    });
  }

  closed(method?: string, requestId?: number): McpHostError {
    const what =
      method === undefined
        ? 'the connection closed'
        : `request '${method}' failed: the connection closed`;
    return new McpHostError('CONNECTION_CLOSED', `${what}`, {
      serverName: this.#serverName,
      method,
      requestId,
    });
  }

  notStarted(method: string): McpHostError {
    return new McpHostError(
      'NOT_CONNECTED',
      `cannot send '${method}': the connection is not started`,
      {
        serverName: this.#serverName,
        method,
      },
    );
  }

  fromResponse(method: string, error: JsonRpcErrorObject): JsonRpcError {
    return new JsonRpcError(error.code, error.message, {
      data: error.data,
      serverName: this.#serverName,
      method,
    });
  }

  malformedResponse(method: string, requestId: number, what: string): McpHostError {
    return new McpHostError(
      'INVALID_MESSAGE',
      `the response to '${method}' is malformed (${what})`,
      {
        serverName: this.#serverName,
        method,
        requestId,
      },
    );
  }

  invalidMessage(what: string): McpHostError {
    return new McpHostError('INVALID_MESSAGE', `received ${what}; ignored`, {
      serverName: this.#serverName,
    });
  }

  /**
   * A response nobody waits for, dropped: `late` for an id we used whose request is settled (a
   * duplicate, or an answer after a timeout or cancel), else an id we never used. `suppressed`
   * more were dropped since the last report.
   */
  droppedResponse(id: unknown, late: boolean, suppressed: number): McpHostError {
    const shown =
      typeof id === 'number' ? String(id) : preview(JSON.stringify(id) ?? String(id), 40);
    const why = late
      ? 'its request was already settled (a duplicate, or an answer after a timeout or cancel)'
      : 'no request of ours has that id';
    const more = suppressed > 0 ? ` (${suppressed} more since the last report)` : '';
    return new McpHostError('INVALID_MESSAGE', `dropped a response to id ${shown}: ${why}${more}`, {
      serverName: this.#serverName,
      requestId: late && typeof id === 'number' ? id : undefined,
      details: { late, suppressed },
    });
  }

  cancelledByPeer(requestId: RequestId): McpHostError {
    return new McpHostError(
      'ABORTED',
      `request ${String(requestId)} was cancelled by the other side`,
      {
        serverName: this.#serverName,
      },
    );
  }

  prefix(message: string): string {
    return `${message}`;
  }
}

/** What a request handler's failure looks like on the wire. */
export function toWireError(error: unknown): JsonRpcErrorObject {
  if (error instanceof JsonRpcError) return error.toWire();
  return { code: JsonRpcErrorCode.InternalError, message: toMcpHostError(error).message };
}
