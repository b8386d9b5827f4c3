/**
 * Expansion of one server's templates (the canonical grammar, see template.ts): single pass, no
 * recursion (a value that holds `${X}` after expansion stays as it is), only in the fields that
 * allow it (stdio `command`, `args`, `env` values, `cwd`, `envFile`; `url` and `headers` values;
 * the `oauth` fields), never in keys. A `~` or `~/` at the very start of the written `command`, an
 * argument, `cwd` or `envFile` becomes the home directory (a `~` produced by a variable does not).
 *
 * Problems fail the server, never the config: syntax errors (`CONFIG_INVALID`), then unset
 * variables without a default (`CONFIG_VARIABLE_UNSET`, all of them, each with its key path),
 * then inputs nobody could give (`CONFIG_INPUT_REQUIRED`). Variables are checked before any input
 * is asked for, so a server that cannot start never prompts.
 */
import { homedir } from 'node:os';
import { McpHostError } from '../../errors/mcp-host-error.js';
import { type ErrorCode } from '../../errors/codes.js';
import { formatKeyPath } from '../diagnostics.js';
import type { InputResolver } from './input-providers.js';
import {
  OAUTH_TEXT_FIELDS,
  type OAuthConfig,
  type ServerConfig,
  type SourceLocation,
  type TransportConfig,
} from '../model.js';
import { parseTemplate, type TemplatePart } from './template.js';

/** Where a field sits in the model, relative to the server: `['env', 'TOKEN']`, `['args', 2]`. */
export type FieldPath = readonly (string | number)[];

/** A reference that expansion replaced, with what it gave. */
export interface ExpandedReference {
  kind: 'variable' | 'input';
  /** The variable name or input id. */
  name: string;
  /** What it gave (undefined when the default was used). Never print it. */
  value: string | undefined;
}

/** One expanded field. */
export interface ExpandedField {
  path: FieldPath;
  template: string;
  /** The value after expansion. Never print it. */
  value: string;
  references: ExpandedReference[];
}

export interface ExpandedServer {
  transport: TransportConfig;
  oauth: OAuthConfig | undefined;
  /** Every field that allows expansion, expanded (also those without references). */
  fields: ExpandedField[];
}

export interface ExpandOptions {
  /** The environment variables are read from (`process.env`, usually). */
  env: Readonly<Record<string, string | undefined>>;
  /** Gives `${input:id}` values; without it an input reference fails with CONFIG_INPUT_REQUIRED. */
  inputs?: InputResolver;
  /** What `~` becomes (default `os.homedir()`). */
  homeDir?: string;
}

export type ExpandResult =
  { ok: true; server: ExpandedServer } | { ok: false; error: McpHostError };

interface FieldSlot {
  path: FieldPath;
  template: string;
  tilde: boolean;
}

/** The fields of a server that allow expansion, in a stable order. */
export function expandableFields(server: ServerConfig): FieldSlot[] {
  const slots: FieldSlot[] = [];
  const t = server.transport;
  const add = (path: FieldPath, template: string | undefined, tilde = false): void => {
    if (typeof template === 'string') slots.push({ path, template, tilde });
  };
  if (t.type === 'stdio') {
    add(['command'], t.command, true);
    t.args.forEach((arg, index) => add(['args', index], arg, true));
    for (const [key, value] of Object.entries(t.env)) add(['env', key], value);
    add(['cwd'], t.cwd, true);
    add(['envFile'], t.envFile, true);
  } else {
    add(['url'], t.url);
    for (const [key, value] of Object.entries(t.headers)) add(['headers', key], value);
  }
  const oauth = server.oauth;
  if (oauth !== undefined) {
    for (const key of OAUTH_TEXT_FIELDS) add(['oauth', key], oauth[key]);
    oauth.scopes?.forEach((scope, index) => add(['oauth', 'scopes', index], scope));
  }
  return slots;
}

/** Where a server field was written: `file: key.path` (the server's line when known). */
export function describeField(source: SourceLocation, path: FieldPath): string {
  const line = source.line === undefined ? '' : `:${source.line}:${source.column ?? 1}`;
  return `${source.file}${line}: ${formatKeyPath([...source.path, ...path])}`;
}

/** Expands every allowed field of `server`; never throws for config problems. */
export async function expandServer(
  server: ServerConfig,
  options: ExpandOptions,
): Promise<ExpandResult> {
  const slots = expandableFields(server);

  // 1. Parse everything (syntax errors first: they are mistakes in the file).
  const parsed: { slot: FieldSlot; parts: TemplatePart[] }[] = [];
  const syntax: string[] = [];
  for (const slot of slots) {
    try {
      parsed.push({ slot, parts: parseTemplate(slot.template) });
    } catch (error) {
      if (!(error instanceof McpHostError)) throw error;
      syntax.push(`${describeField(server.source, slot.path)}: ${error.message}`);
    }
  }
  if (syntax.length > 0) return failure(server, 'CONFIG_INVALID', syntax, { problems: syntax });

  // 2. Unset variables without a default, all of them, before any input is asked for.
  const unset: { path: string; field: FieldPath; variable: string }[] = [];
  for (const { slot, parts } of parsed) {
    for (const part of parts) {
      if (part.kind === 'variable' && part.fallback === undefined && !isSet(options.env, part.name))
        unset.push({
          path: describeField(server.source, slot.path),
          field: slot.path,
          variable: part.name,
        });
    }
  }
  if (unset.length > 0) {
    const lines = unset.map(
      (u) => `${u.path}: variable ${u.variable} is not set (and has no default)`,
    );
    return failure(server, 'CONFIG_VARIABLE_UNSET', lines, {
      variables: [...new Set(unset.map((u) => u.variable))],
      file: server.source.file,
      paths: unset.map((u) => u.path),
      // Each reference: the variable and its field (relative to the server), for a locator.
      unset: unset.map((u) => ({ variable: u.variable, field: u.field })),
    });
  }

  // 3. Inputs, one at a time in field order (a prompt per id, remembered by the resolver).
  const inputValues = new Map<string, string>();
  for (const { slot, parts } of parsed) {
    for (const part of parts) {
      if (part.kind !== 'input' || inputValues.has(part.id)) continue;
      const where = describeField(server.source, slot.path);
      if (options.inputs === undefined)
        return failure(
          server,
          'CONFIG_INPUT_REQUIRED',
          [`${where}: input '${part.id}' needs a value and no input provider was given`],
          { input: part.id, file: server.source.file },
        );
      try {
        inputValues.set(
          part.id,
          await options.inputs.resolve(part.id, { server: server.name, where }),
        );
      } catch (error) {
        if (error instanceof McpHostError) return { ok: false, error };
        throw error;
      }
    }
  }

  // 4. Expand (single pass: what a reference gives is never looked at again).
  const homeDir = options.homeDir ?? homedir();
  const fields: ExpandedField[] = parsed.map(({ slot, parts }) => {
    const references: ExpandedReference[] = [];
    let value = '';
    for (const part of parts) {
      switch (part.kind) {
        case 'text':
          value += part.text;
          break;
        case 'input': {
          const given = inputValues.get(part.id) ?? '';
          references.push({ kind: 'input', name: part.id, value: given });
          value += given;
          break;
        }
        case 'variable': {
          const raw = options.env[part.name];
          const useDefault =
            part.fallback !== undefined &&
            (raw === undefined || (part.fallback.ifEmpty && raw === ''));
          references.push({
            kind: 'variable',
            name: part.name,
            value: useDefault ? undefined : raw,
          });
          value += useDefault ? (part.fallback?.text ?? '') : (raw ?? '');
          break;
        }
      }
    }
    // The written template, not the value: `~${USER}` is not `~user` expanded, and a `~` that a
    // variable gave stays.
    if (slot.tilde && /^~(?:[/\\]|$)/.test(slot.template)) value = homeDir + value.slice(1);
    return { path: slot.path, template: slot.template, value, references };
  });

  return { ok: true, server: build(server, fields) };
}

function isSet(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  return typeof env[name] === 'string';
}

function failure(
  server: ServerConfig,
  code: ErrorCode,
  lines: string[],
  details: Record<string, unknown>,
): { ok: false; error: McpHostError } {
  const shown = lines.slice(0, 5);
  if (lines.length > shown.length) shown.push(`… and ${lines.length - shown.length} more`);
  return {
    ok: false,
    error: new McpHostError(code, `not started: ${shown.join('; ')}`, {
      serverName: server.name,
      details,
    }),
  };
}

/** The server's transport and oauth with each field replaced by its expanded value. */
function build(server: ServerConfig, fields: ExpandedField[]): ExpandedServer {
  const value = new Map(fields.map((f) => [f.path.join('\u0000'), f.value]));
  const get = (...path: (string | number)[]): string | undefined => value.get(path.join('\u0000'));
  const t = server.transport;
  let transport: TransportConfig;
  if (t.type === 'stdio') {
    transport = {
      type: 'stdio',
      command: get('command') ?? t.command,
      args: t.args.map((arg, i) => get('args', i) ?? arg),
      env: Object.fromEntries(Object.keys(t.env).map((k) => [k, get('env', k) ?? ''])),
      ...(t.cwd === undefined ? {} : { cwd: get('cwd') ?? t.cwd }),
      ...(t.envFile === undefined ? {} : { envFile: get('envFile') ?? t.envFile }),
    };
  } else {
    transport = {
      type: t.type,
      url: get('url') ?? t.url,
      headers: Object.fromEntries(Object.keys(t.headers).map((k) => [k, get('headers', k) ?? ''])),
    };
  }
  const o = server.oauth;
  let oauth: OAuthConfig | undefined;
  if (o !== undefined) {
    oauth = { ...o };
    for (const key of OAUTH_TEXT_FIELDS) {
      if (o[key] === undefined) continue;
      const expanded = get('oauth', key);
      if (expanded === undefined) delete oauth[key];
      else oauth[key] = expanded;
    }
    if (o.scopes !== undefined)
      oauth.scopes = o.scopes.map((s, i) => get('oauth', 'scopes', i) ?? s);
  }
  return { transport, oauth, fields };
}
