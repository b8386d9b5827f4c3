import { preview, truncate } from '../errors/redact.js';

/** The fields of an ajv `ErrorObject` this module reads. */
export interface SchemaErrorLike {
  readonly instancePath: string;
  readonly keyword: string;
  readonly message?: string | undefined;
  readonly params: Readonly<Record<string, unknown>>;
}

/** At most this many reasons are kept per failed validation. */
export const MAX_LISTED_ERRORS = 3;
const maxErrorChars = 200;
const maxValueChars = 80;

/**
 * Turns ajv's errors into at most `MAX_LISTED_ERRORS` short lines, `<JSON pointer> <message>`,
 * e.g. `/items/0/price must be number` (`(root)` for the value itself), with the offending name or
 * the allowed values where ajv leaves them out. Untrusted text (property names, values) is
 * previewed: one line, redacted, bounded.
 */
export function formatSchemaErrors(errors: readonly SchemaErrorLike[]): {
  errors: string[];
  message: string;
} {
  const lines: string[] = [];
  let total = 0;
  for (const error of errors) {
    const line = formatSchemaError(error);
    if (lines.includes(line)) continue;
    total++;
    if (lines.length < MAX_LISTED_ERRORS) lines.push(line);
  }
  if (lines.length === 0) lines.push('(root) does not match the schema');
  const more = total - lines.length;
  return {
    errors: lines,
    message: lines.join('; ') + (more > 0 ? ` (and ${more} more)` : ''),
  };
}

function formatSchemaError(error: SchemaErrorLike): string {
  const where = error.instancePath === '' ? '(root)' : preview(error.instancePath, 100);
  const message = error.message ?? `must pass "${error.keyword}"`;
  return truncate(`${where} ${message}${detail(error)}`, maxErrorChars);
}

function detail({ keyword, params }: SchemaErrorLike): string {
  switch (keyword) {
    case 'additionalProperties':
      return named(params.additionalProperty);
    case 'unevaluatedProperties':
      return named(params.unevaluatedProperty);
    case 'propertyNames':
      return named(params.propertyName);
    case 'enum':
      return ` (${json(params.allowedValues)})`;
    case 'const':
      return ` (${json(params.allowedValue)})`;
    default:
      return '';
  }
}

function named(name: unknown): string {
  return typeof name === 'string' ? ` ('${preview(name, maxValueChars)}')` : '';
}

function json(value: unknown): string {
  try {
    return preview(JSON.stringify(value) ?? String(value), maxValueChars);
  } catch {
    return '…';
  }
}
