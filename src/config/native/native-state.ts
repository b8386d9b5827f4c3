/**
 * The native `state:` section, read after the schema checked its keys and types: one store at
 * most (`file` or `postgres`); the connection
 * string of `state.postgres` must follow the template grammar (`${VAR}`), checked here where the
 * line and column are known; it is expanded when a command opens the store
 * (`resolveStateSettings`). Messages never quote it: it holds a password.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { parseTemplate } from '../expand/template.js';
import type { SourceLocation, StateConfig } from '../model.js';
import type { Report } from './native-rules.js';

/** The `state:` section as the model holds it, or undefined when an error fails it. */
export function readNativeState(
  entry: Record<string, unknown>,
  source: SourceLocation,
  report: Report,
): StateConfig | undefined {
  const state = { ...entry, source } as StateConfig;
  if (state.file !== undefined && state.postgres !== undefined) {
    report('error', 'conflicting-keys', 'name one store: `file` or `postgres`, not both', [
      'state',
      'postgres',
    ]);
    return undefined;
  }
  const url = state.postgres?.url;
  if (typeof url === 'string')
    try {
      parseTemplate(url);
    } catch (error) {
      if (!(error instanceof McpHostError)) throw error;
      // The grammar's messages quote at most the reference, never the text around it.
      report('error', 'invalid-template', error.message, ['state', 'postgres', 'url']);
      return undefined;
    }
  return state;
}
