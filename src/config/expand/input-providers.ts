/**
 * `${input:id}` values (VS Code style `inputs`): an injectable `InputProvider` asked once per id
 * (the `InputResolver` remembers answers for the life of a config, so a reload does not ask
 * again), and three ready-made providers: an environment JSON (`MCP_HOST_INPUTS='{"id":"v"}'`), a
 * callback, and an interactive prompt on a TTY (`password` inputs are not echoed). A provider
 * returns undefined when it has no value; the input's `default` is used then, and without one the
 * server fails with CONFIG_INPUT_REQUIRED. Input values are secrets (see secrets.ts).
 */
import { Writable } from 'node:stream';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { onAbort } from '../../internal/signals.js';
import type { InputConfig } from '../model.js';

/** What a provider knows of why an input is asked for. */
export interface InputContext {
  /** The server whose config references the input. */
  server?: string;
  /** `file: key.path` of the field that references it. */
  where?: string;
  signal?: AbortSignal;
}

/** Gives the value of one input, or undefined when it has none (then the default applies). */
export type InputProvider = (
  input: InputConfig,
  context: InputContext,
) => Promise<string | undefined>;

/** The environment variable `envInputProvider` reads by default. */
export const DEFAULT_INPUTS_VARIABLE = 'MCP_HOST_INPUTS';

export interface InputResolverOptions {
  /** The config's declared inputs (`McpConfig.inputs`). An undeclared id is asked as a password. */
  inputs?: readonly InputConfig[];
  provider?: InputProvider;
}

/** Asks the provider once per input id and remembers the answer (a failure is not remembered). */
export class InputResolver {
  #declared: ReadonlyMap<string, InputConfig>;
  readonly #provider: InputProvider | undefined;
  readonly #values = new Map<string, Promise<string>>();

  constructor(options: InputResolverOptions = {}) {
    this.#declared = new Map((options.inputs ?? []).map((input) => [input.id, input]));
    this.#provider = options.provider;
  }

  resolve(id: string, context: InputContext = {}): Promise<string> {
    let pending = this.#values.get(id);
    if (pending === undefined) {
      pending = this.#ask(id, context);
      this.#values.set(id, pending);
      pending.catch(() => this.#values.delete(id));
    }
    return pending;
  }

  /**
   * Replaces the declared inputs (a reloaded config's `inputs`); answers already given are kept,
   * so a reload does not ask again.
   */
  declare(inputs: readonly InputConfig[]): void {
    this.#declared = new Map(inputs.map((input) => [input.id, input]));
  }

  /** Forgets every answer (the next resolve asks again). */
  clear(): void {
    this.#values.clear();
  }

  async #ask(id: string, context: InputContext): Promise<string> {
    const input = this.#declared.get(id) ?? { id, type: 'promptString', password: true };
    const where = context.where === undefined ? '' : `${context.where}: `;
    let value: string | undefined;
    try {
      value = this.#provider === undefined ? undefined : await this.#provider(input, context);
    } catch (error) {
      if (error instanceof McpHostError) throw error;
      throw new McpHostError(
        'CONFIG_INPUT_REQUIRED',
        `${where}input '${id}': the input provider failed`,
        { serverName: context.server, details: { input: id }, cause: error },
      );
    }
    if (value !== undefined && typeof value !== 'string')
      throw new McpHostError(
        'CONFIG_INVALID',
        `${where}input '${id}': the provider gave a ${typeof value}, not a string`,
        { serverName: context.server, details: { input: id } },
      );
    if (value !== undefined) {
      if (
        input.type === 'pickString' &&
        input.options !== undefined &&
        !input.options.includes(value)
      )
        throw new McpHostError(
          'CONFIG_INVALID',
          `${where}input '${id}': the value given is not one of its ${input.options.length} options`,
          { serverName: context.server, details: { input: id } },
        );
      return value;
    }
    if (input.default !== undefined) return input.default;
    const about = input.description === undefined ? '' : ` (${input.description})`;
    throw new McpHostError(
      'CONFIG_INPUT_REQUIRED',
      `${where}input '${id}'${about} is required and no value was given: set ${DEFAULT_INPUTS_VARIABLE}='{"${id}": "…"}', pass an input provider, or run on a terminal`,
      { serverName: context.server, details: { input: id } },
    );
  }
}

/**
 * Reads inputs from a JSON object of strings in an environment variable (`MCP_HOST_INPUTS` by
 * default), parsed at the first question. A malformed variable fails with CONFIG_INVALID, without
 * quoting it.
 */
export function envInputProvider(
  options: { env?: Readonly<Record<string, string | undefined>>; variable?: string } = {},
): InputProvider {
  const variable = options.variable ?? DEFAULT_INPUTS_VARIABLE;
  let values: Record<string, unknown> | undefined;
  // eslint-disable-next-line @typescript-eslint/require-await -- throws become rejections
  return async (input) => {
    if (values === undefined) {
      const text = (options.env ?? process.env)[variable];
      values = text === undefined || text.trim() === '' ? {} : parseInputsJson(text, variable);
    }
    const value = Object.hasOwn(values, input.id) ? values[input.id] : undefined;
    if (value !== undefined && typeof value !== 'string')
      throw new McpHostError(
        'CONFIG_INVALID',
        `${variable}: the value of input '${input.id}' must be a string`,
        { details: { input: input.id, variable } },
      );
    return value;
  };
}

function parseInputsJson(text: string, variable: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // No cause: JSON.parse quotes the text, and the text is secrets.
    throw new McpHostError('CONFIG_INVALID', `${variable} is not valid JSON`, {
      details: { variable },
    });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new McpHostError('CONFIG_INVALID', `${variable} must be a JSON object of strings`, {
      details: { variable },
    });
  return parsed as Record<string, unknown>;
}

/** Asks a function (sync or async) for each input. */
export function callbackInputProvider(
  callback: (
    input: InputConfig,
    context: InputContext,
  ) => string | undefined | Promise<string | undefined>,
): InputProvider {
  return async (input, context) => callback(input, context);
}

/** Asks each provider in turn; the first value wins. */
export function chainInputProviders(...providers: InputProvider[]): InputProvider {
  return async (input, context) => {
    for (const provider of providers) {
      const value = await provider(input, context);
      if (value !== undefined) return value;
    }
    return undefined;
  };
}

export interface TtyInputProviderOptions {
  /** Where answers are read (default `process.stdin`); not a TTY means "no value". */
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Where questions are written (default `process.stderr`, so stdout stays clean). */
  output?: NodeJS.WritableStream;
}

/**
 * Prompts on a terminal, one question at a time: the description (or id), the options of a
 * `pickString` (answered by number or value) and the default in brackets; an empty answer takes
 * the default. `password` inputs are not echoed. Gives undefined (no value) when the input is not
 * a TTY, so a non-interactive run fails with CONFIG_INPUT_REQUIRED instead of hanging. Ctrl-C
 * fails the input with ABORTED.
 */
export function ttyInputProvider(options: TtyInputProviderOptions = {}): InputProvider {
  let queue: Promise<unknown> = Promise.resolve();
  return (input, context) => {
    const stdin = options.input ?? process.stdin;
    if (stdin.isTTY !== true) return Promise.resolve(undefined);
    const output = options.output ?? process.stderr;
    const asked = queue.then(() => ask(stdin, output, input, context));
    queue = asked.catch(() => undefined);
    return asked;
  };
}

async function ask(
  stdin: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  input: InputConfig,
  context: InputContext,
): Promise<string | undefined> {
  // Loaded here, at the first prompt: most runs never prompt, and readline costs start-up time.
  const { createInterface } = await import('node:readline');
  let muted = false;
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      if (!muted) output.write(chunk);
      callback();
    },
  });
  const rl = createInterface({ input: stdin, output: sink, terminal: true });
  try {
    const label = input.description ?? input.id;
    const server = context.server === undefined ? '' : ` (server '${context.server}')`;
    const choices = input.options?.map((option, i) => `  ${i + 1}) ${option}\n`).join('') ?? '';
    const fallback = input.default === undefined || input.password ? '' : ` [${input.default}]`;
    output.write(`${choices}${label}${server}${fallback}: `);
    muted = input.password === true;
    const signal = context.signal;
    let removeAbort = (): void => {};
    const answer = await new Promise<string | undefined>((resolve, reject) => {
      const cancel = (): void =>
        reject(new McpHostError('ABORTED', `input '${input.id}' cancelled at the prompt`));
      removeAbort = onAbort(signal, cancel);
      if (signal?.aborted === true) return;
      rl.once('close', () => resolve(undefined));
      rl.once('SIGINT', cancel);
      rl.question('', resolve);
    }).finally(() => removeAbort());
    if (muted) output.write('\n');
    muted = true;
    if (answer === undefined || answer === '') return undefined;
    if (input.options !== undefined && /^\d+$/.test(answer)) {
      const picked = input.options[Number(answer) - 1];
      if (picked !== undefined) return picked;
    }
    return answer;
  } finally {
    muted = true;
    rl.close();
  }
}
