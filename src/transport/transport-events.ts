import { aboutServer, type McpHostError } from '../errors/mcp-host-error.js';
import { Emitter } from '../internal/emitter.js';
import type { Logger } from '../internal/logger.js';
import type { TransportProblem } from '../jsonrpc/transport.js';

/**
 * The three events every transport has, made once: a listener that throws is logged, never
 * allowed to break the read loop, and `closed()` fires the close event once and drops every
 * listener (so nothing fires after close and nothing is retained).
 */
export class TransportEvents {
  readonly message: Emitter<unknown>;
  readonly problem: Emitter<TransportProblem>;
  readonly close: Emitter<McpHostError | undefined>;
  /** For other emitters of the same transport (stderr lines, say). */
  readonly reportListenerError: (error: unknown) => void;

  constructor(logger: Logger, serverName: string | undefined) {
    const message = aboutServer(serverName, 'an event listener threw');
    this.reportListenerError = (error) => logger.error(message, { error: String(error) });
    this.message = new Emitter(this.reportListenerError);
    this.problem = new Emitter(this.reportListenerError);
    this.close = new Emitter(this.reportListenerError);
  }

  /**
   * Reports a non-fatal problem, tied to one request when its id is known, and saying what was
   * discarded when the problem is a message thrown away.
   */
  reportProblem(
    error: McpHostError,
    requestId?: string | number,
    discarded?: TransportProblem['discarded'],
  ): void {
    const problem: TransportProblem = requestId === undefined ? { error } : { error, requestId };
    if (discarded !== undefined) problem.discarded = discarded;
    this.problem.fire(problem);
  }

  /** Fires `close` with the reason, once, and drops every listener. */
  closed(reason: McpHostError | undefined): void {
    this.close.fire(reason);
    this.close.clear();
    this.message.clear();
    this.problem.clear();
  }
}
