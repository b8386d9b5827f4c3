import { preview } from '../../errors/redact.js';
import { toPointer } from './json-schema-node.js';

/** Diagnostics listed per tool and provider; past this, one more says how many were left out. */
export const MAX_DIAGNOSTICS = 100;

/** One change and its reason (the shape of `SchemaDiagnostic`, for any provider name `P`). */
export interface ProviderDiagnostic<P extends string> {
  tool: string;
  provider: P;
  path: string;
  change: string;
  message: string;
}

/**
 * Collects the diagnostics of one normalisation: each names the tool (bounded, redacted), the
 * place (a JSON Pointer into the normalised schema) and the change with its reason.
 */
export class SchemaDiagnostics<P extends string = string> {
  readonly list: ProviderDiagnostic<P>[] = [];
  #omitted = 0;
  readonly #toolLabel: string;

  constructor(
    readonly tool: string,
    readonly provider: P,
  ) {
    this.#toolLabel = preview(tool, 80);
  }

  /** Records that `change` happened at `path` (pointer tokens), `what` saying what and why. */
  add(path: readonly string[], change: string, what: string): void {
    if (this.list.length >= MAX_DIAGNOSTICS) {
      this.#omitted++;
      return;
    }
    const pointer = toPointer(path);
    const where = pointer === '' ? 'the root' : preview(pointer, 120);
    this.list.push({
      tool: this.tool,
      provider: this.provider,
      path: pointer,
      change,
      message: `tool '${this.#toolLabel}' (${this.provider}), at ${where}: ${what}`,
    });
  }

  /** The diagnostics, with a last one counting those left out past `MAX_DIAGNOSTICS`. */
  finish(): ProviderDiagnostic<P>[] {
    if (this.#omitted > 0) {
      this.list.push({
        tool: this.tool,
        provider: this.provider,
        path: '',
        change: 'more-changes',
        message: `tool '${this.#toolLabel}' (${this.provider}): ${this.#omitted} more changes not listed`,
      });
      this.#omitted = 0;
    }
    return this.list;
  }
}
