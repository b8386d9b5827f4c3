/**
 * A server's question for a person (elicitation), asked on a terminal: the message, then each
 * field of the form in turn (text, numbers, yes/no, a choice by number or value, several choices
 * separated by commas), checked against the field's schema and asked again until it fits; or, for
 * a URL elicitation, the URL to open. `!decline` at any prompt declines, end of input (Ctrl-D)
 * cancels.
 */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { isObject } from '../../protocol/guards.js';
import type { ElicitRequestParams, ElicitResult } from '../../protocol/types.js';

/** Where the prompts go and the answers come from. */
export interface PromptIo {
  input: Readable;
  output: Writable;
}

type Value = string | number | boolean | string[];

/** One field of the form, as the prompt reads it. */
interface Field {
  name: string;
  label: string;
  required: boolean;
  schema: Record<string, unknown>;
  /** The choices (value and label), for enum fields. */
  choices: { value: string; label: string }[] | undefined;
  multiple: boolean;
}

const DECLINE = '!decline';

/** Asks `params` on the terminal and returns the person's answer. */
export async function promptElicitation(
  serverName: string | undefined,
  params: ElicitRequestParams,
  io: PromptIo,
): Promise<ElicitResult> {
  const lines = createInterface({ input: io.input, terminal: false });
  // Lines are queued as they come, so that answers typed (or piped) ahead are not lost.
  const queued: string[] = [];
  let waiting: ((line: string | undefined) => void) | undefined;
  let ended = false;
  lines.on('line', (line) => {
    const resolve = waiting;
    waiting = undefined;
    if (resolve === undefined) queued.push(line);
    else resolve(line);
  });
  lines.once('close', () => {
    ended = true;
    waiting?.(undefined);
  });
  const ask = (query: string): Promise<string | undefined> => {
    io.output.write(query);
    const next = queued.shift();
    if (next !== undefined || ended) return Promise.resolve(next?.trim());
    return new Promise((resolve) => (waiting = (line) => resolve(line?.trim())));
  };
  const say = (text: string): void => void io.output.write(`${text}\n`);
  try {
    say(
      `\n${serverName === undefined ? 'A server' : `Server '${serverName}'`} asks: ${params.message}`,
    );
    say(`(type ${DECLINE} to decline, Ctrl-D to cancel)`);
    if (params.mode === 'url') {
      say(`Open this URL: ${String(params.url)}`);
      const answer = await ask('Press Enter when done: ');
      if (answer === undefined) return { action: 'cancel' };
      return answer === DECLINE ? { action: 'decline' } : { action: 'accept' };
    }
    const content: Record<string, Value> = {};
    for (const field of fieldsOf(params.requestedSchema)) {
      for (;;) {
        const answer = await ask(question(field));
        if (answer === undefined) return { action: 'cancel' };
        if (answer === DECLINE) return { action: 'decline' };
        const parsed = parseValue(field, answer);
        if (parsed === undefined) break; // optional and left empty
        if ('problem' in parsed) {
          say(`  ${parsed.problem}`);
          continue;
        }
        content[field.name] = parsed.value;
        break;
      }
    }
    return { action: 'accept', content };
  } finally {
    lines.close();
  }
}

function fieldsOf(requested: unknown): Field[] {
  if (!isObject(requested) || !isObject(requested.properties)) return [];
  const required = Array.isArray(requested.required) ? requested.required : [];
  return Object.entries(requested.properties).flatMap(([name, schema]) => {
    if (!isObject(schema)) return [];
    const title = typeof schema.title === 'string' ? schema.title : name;
    const described = typeof schema.description === 'string' ? ` (${schema.description})` : '';
    const items = isObject(schema.items) ? schema.items : undefined;
    const multiple = schema.type === 'array';
    return [
      {
        name,
        label: `${title}${described}`,
        required: required.includes(name),
        schema,
        choices: choicesOf(multiple ? items : schema),
        multiple,
      },
    ];
  });
}

/** An enum's choices, titled (`oneOf`/`anyOf` of `{ const, title }`, `enumNames`) or not. */
function choicesOf(schema: Record<string, unknown> | undefined): Field['choices'] {
  if (schema === undefined) return undefined;
  const titled = Array.isArray(schema.oneOf) ? schema.oneOf : schema.anyOf;
  if (Array.isArray(titled))
    return titled.filter(isObject).map((option) => ({
      value: String(option.const),
      label: typeof option.title === 'string' ? option.title : String(option.const),
    }));
  if (!Array.isArray(schema.enum)) return undefined;
  const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
  return schema.enum.map((value, index) => ({
    value: String(value),
    label: typeof names[index] === 'string' ? names[index] : String(value),
  }));
}

function question(field: Field): string {
  const { schema, choices } = field;
  let hint = '';
  if (choices !== undefined) {
    const list = choices.map((choice, index) => `${index + 1}) ${choice.label}`).join('  ');
    hint = ` [${list}${field.multiple ? '; several: 1,3' : ''}]`;
  } else if (schema.type === 'boolean') hint = ' [y/n]';
  else if (schema.type === 'number' || schema.type === 'integer') hint = ` [${schema.type}]`;
  const fallback =
    schema.default === undefined ? '' : ` (default ${JSON.stringify(schema.default)})`;
  return `  ${field.label}${field.required ? '' : ' (optional)'}${hint}${fallback}: `;
}

/** The field's value from what was typed; undefined: left empty (optional, no default). */
function parseValue(
  field: Field,
  typed: string,
): { value: Value } | { problem: string } | undefined {
  const { schema } = field;
  if (typed === '') {
    if (schema.default !== undefined) return { value: schema.default as Value };
    return field.required ? { problem: 'an answer is required' } : undefined;
  }
  if (field.choices !== undefined) {
    const picked = (field.multiple ? typed.split(',') : [typed]).map((part) =>
      pick(field.choices!, part.trim()),
    );
    if (picked.some((choice) => choice === undefined))
      return { problem: 'choose by number or by value from the list' };
    const values = picked as string[];
    return { value: field.multiple ? values : values[0]! };
  }
  switch (schema.type) {
    case 'boolean': {
      const answer = typed.toLowerCase();
      if (['y', 'yes', 'true'].includes(answer)) return { value: true };
      if (['n', 'no', 'false'].includes(answer)) return { value: false };
      return { problem: 'answer y or n' };
    }
    case 'number':
    case 'integer': {
      const value = Number(typed);
      if (!Number.isFinite(value) || (schema.type === 'integer' && !Number.isInteger(value)))
        return { problem: `a ${schema.type} is needed` };
      if (typeof schema.minimum === 'number' && value < schema.minimum)
        return { problem: `at least ${schema.minimum}` };
      if (typeof schema.maximum === 'number' && value > schema.maximum)
        return { problem: `at most ${schema.maximum}` };
      return { value };
    }
    default: {
      if (typeof schema.minLength === 'number' && typed.length < schema.minLength)
        return { problem: `at least ${schema.minLength} characters` };
      if (typeof schema.maxLength === 'number' && typed.length > schema.maxLength)
        return { problem: `at most ${schema.maxLength} characters` };
      return { value: typed };
    }
  }
}

function pick(choices: NonNullable<Field['choices']>, typed: string): string | undefined {
  const index = /^\d+$/.test(typed) ? Number(typed) - 1 : -1;
  return choices[index]?.value ?? choices.find((choice) => choice.value === typed)?.value;
}
