/** What the SchemaValidator tests share: a default validator, compile-or-fail helpers and a counting HTTP server (a fetched $ref must never reach it). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSchemaValidator } from '../../src/schema/schema-validator.js';
import { type CompiledSchema, type ValidationResult } from '../../src/schema/schema-check.js';

export const validator = createSchemaValidator();

export async function compiled(schema: unknown, on = validator): Promise<CompiledSchema> {
  const check = await on.compile(schema);
  if (!check.ok) throw new Error(`expected a usable schema, got ${check.code}: ${check.problem}`);
  return check;
}

export async function problem(schema: unknown, on = validator) {
  const check = await on.compile(schema);
  if (check.ok) throw new Error('expected a problem, the schema compiled');
  return check;
}

export function failure(result: ValidationResult): { errors: readonly string[]; message: string } {
  if (result.valid) throw new Error('expected the value to be invalid');
  return result;
}

export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** A loopback HTTP server that counts the requests it gets; `await using` closes it. */
export async function countingServer() {
  const server = createServer((request, response) => {
    counter.requests++;
    response.setHeader('content-type', 'application/schema+json');
    response.end(JSON.stringify({ type: 'string' }));
  });
  const counter = { requests: 0 };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get requests() {
      return counter.requests;
    },
    server,
    async [Symbol.asyncDispose]() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** The listening-socket handles, after letting closed ones finish closing (a few loop turns). */
export async function serverHandlesOnceSettled(): Promise<string[]> {
  const handles = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPServerWrap');
  for (let turn = 0; turn < 50 && handles().length > 0; turn++)
    await new Promise((resolve) => setImmediate(resolve));
  return handles();
}
