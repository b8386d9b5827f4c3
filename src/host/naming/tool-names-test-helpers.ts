/**
 * Shared by the tool-names tests (tool-names.test.ts, tool-names-hostile.test.ts):
 * a shuffle and small wrappers around assignNames.
 */
import { assignNames, type NameAssignment } from './name-assignment.js';
import { type ToolNamingOptions, type ToolRef } from './namer.js';

export const HASHED = /_[0-9a-f]{8}$/;

export function shuffled<T>(items: readonly T[], next: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}

export function entries(assignment: NameAssignment): [string, ToolRef][] {
  return [...assignment.names].map(([name, ref]) => [name, { ...ref }]);
}

export function assign(
  server: string,
  tools: string[],
  options?: ToolNamingOptions,
): NameAssignment {
  return assignNames(
    tools.map((tool) => ({ server, tool })),
    options,
  );
}

/** No lone surrogate (String#isWellFormed is ES2024, beyond this project's lib). */
export function wellFormed(text: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

export function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}
