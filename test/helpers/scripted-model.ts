/**
 * A scripted `ModelClient` for the agent loop's tests: each request is recorded and answered by
 * the next turn the test queued (events, or a function of the request that returns or streams
 * them). A request past the script fails loudly, so a loop that asks once too often is caught.
 */
import type {
  ModelClient,
  ModelEvent,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from '../../src/agent.js';
import type { SchemaProvider } from '../../src/agents.js';

/** One scripted reply. */
export type Turn =
  | readonly ModelEvent[]
  | ((
      request: ModelRequest,
    ) => readonly ModelEvent[] | AsyncIterable<ModelEvent> | Promise<readonly ModelEvent[]>);

export class ScriptedModel implements ModelClient {
  readonly model = 'scripted';
  readonly provider: SchemaProvider;
  /** Every request, in order (the messages as they were when sent). */
  readonly requests: ModelRequest[] = [];
  readonly #turns: Turn[];

  constructor(turns: readonly Turn[], provider: SchemaProvider = 'openai') {
    this.#turns = [...turns];
    this.provider = provider;
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    const turn = this.#turns.shift();
    if (turn === undefined) throw new Error(`no turn scripted for request ${this.requests.length}`);
    const events = typeof turn === 'function' ? await turn(request) : turn;
    for await (const event of events as AsyncIterable<ModelEvent> | Iterable<ModelEvent>)
      yield event;
  }
}

/** A final answer (in two deltas, so streaming is exercised). */
export function say(text: string, usage?: ModelUsage): ModelEvent[] {
  const half = Math.floor(text.length / 2);
  return [
    { type: 'text-delta', text: text.slice(0, half) },
    { type: 'text-delta', text: text.slice(half) },
    { type: 'done', stopReason: 'stop', ...(usage === undefined ? {} : { usage }) },
  ];
}

let nextId = 0;

/** A reply that calls tools: `[name, args]` pairs. */
export function callTools(
  calls: ReadonlyArray<readonly [string, unknown]>,
  usage?: ModelUsage,
): ModelEvent[] {
  return [
    ...calls.map(([name, args]): ModelEvent => {
      const call: ModelToolCall = { id: `call_${++nextId}`, name, arguments: JSON.stringify(args) };
      return { type: 'tool-call', call };
    }),
    { type: 'done', stopReason: 'tool-calls', ...(usage === undefined ? {} : { usage }) },
  ];
}

/** The tool results the last `tool` message of `request` carries, in order. */
export function lastResults(request: ModelRequest) {
  for (let i = request.messages.length - 1; i >= 0; i -= 1) {
    const message = request.messages[i]!;
    if (message.role === 'tool') return message.results;
  }
  throw new Error('the request carries no tool results');
}
