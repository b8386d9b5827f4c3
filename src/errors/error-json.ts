import { redact } from './redact.js';

/** Node's `util.inspect.custom`, without importing node:util (the root entry stays portable). */
export const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

export type InspectFn = (value: unknown, options: object) => string;

/** A JSON-able value with every string redacted; `<unserialisable>` if it cannot be serialised. */
export function redactJson(value: unknown): unknown {
  try {
    return JSON.parse(redact(JSON.stringify(value))) as unknown;
  } catch {
    return '<unserialisable>';
  }
}

/** An error's `toJSON()`: the defined fields, the message redacted again. */
export function errorJson(fields: Record<string, unknown>): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (value !== undefined)
      json[key] = key === 'message' && typeof value === 'string' ? redact(value) : value;
  }
  return json;
}

/** An error's `util.inspect` output, redacted whole (causes and all). */
export function inspectRedacted(error: Error, options: object, inspect: InspectFn): string {
  return redact(inspect(error, { ...options, customInspect: false }));
}
