/**
 * The standard gRPC health service (`grpc.health.v1.Health`): SERVING for the server as a whole
 * (`""`) and for `mcp_host.v1.McpHostService` while the API serves, NOT_SERVING once it is
 * closing. Answers without a token: a probe learns only that the API is up.
 */
import {
  status,
  type sendUnaryData,
  type ServerUnaryCall,
  type ServerWritableStream,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { API_SERVICE_NAME } from './api-proto.js';

type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';

/** The health service's state: what it answers, and its Watch streams. */
export class HealthState {
  #serving = true;
  readonly #watchers = new Map<ServerWritableStream<unknown, unknown>, string>();

  /** The implementation of `grpc.health.v1.Health`. */
  readonly service: UntypedServiceImplementation = {
    Check: (
      call: ServerUnaryCall<{ service?: string }, unknown>,
      callback: sendUnaryData<unknown>,
    ) => {
      const answer = this.#statusOf(call.request.service ?? '');
      if (answer === 'SERVICE_UNKNOWN')
        callback({ code: status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: answer });
    },
    Watch: (call: ServerWritableStream<{ service?: string }, unknown>) => {
      const service = call.request.service ?? '';
      call.write({ status: this.#statusOf(service) });
      const watcher = call as ServerWritableStream<unknown, unknown>;
      this.#watchers.set(watcher, service);
      call.once('cancelled', () => this.#watchers.delete(watcher));
    },
  };

  /** Says NOT_SERVING to every watcher and ends their streams. */
  shutDown(): void {
    this.#serving = false;
    for (const [call, service] of this.#watchers) {
      if (!call.cancelled) {
        call.write({ status: this.#statusOf(service) });
        call.end();
      }
    }
    this.#watchers.clear();
  }

  #statusOf(service: string): ServingStatus {
    if (service !== '' && service !== API_SERVICE_NAME) return 'SERVICE_UNKNOWN';
    return this.#serving ? 'SERVING' : 'NOT_SERVING';
  }
}
