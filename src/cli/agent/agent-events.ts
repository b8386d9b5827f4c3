/**
 * How `mcp-host agent` shows a run's events: as plain JSON objects, one NDJSON line each with
 * `--format json` (no functions, no class instances, no media bytes: a tool result is its text,
 * an error its `{ code, message, server }`), and as one short line each for a person on a
 * terminal (`→ fs/list_directory {"path":"/tmp"}`, `✓ fs/list_directory 12 ms`). The `done`
 * event is neither: the command prints the result itself.
 */
import type { AgentEvent } from '../../agents/loop/agent.js';
import type { AgentPending } from '../../agents/loop/agent-continuation.js';
import { preview } from '../../errors/redact.js';
import { errorJsonOf } from '../exit-codes.js';

/** Colours a piece of a line (identity when colours are off). */
type Paint = (style: 'dim' | 'red' | 'green' | 'cyan', text: string) => string;

/** `server/tool` of an exposed tool name, when the host knows its server (else the name). */
export type ToolLabel = (exposedName: string) => { server?: string; tool: string };

/** An agent event as the NDJSON line shows it (see the module comment). */
export type AgentEventJson =
  | { type: 'step-start'; step: number }
  | { type: 'text-delta'; step: number; text: string }
  | {
      type: 'tool-call-started';
      step: number;
      id: string;
      name: string;
      server: string | null;
      tool: string;
      args: unknown;
    }
  | {
      type: 'tool-call-finished';
      step: number;
      id: string;
      name: string;
      server: string | null;
      tool: string;
      durationMs: number;
      isError: boolean;
      text: string;
      error: { code: string; message: string; server: string | null } | null;
    }
  | { type: 'input-required'; step: number; pending: AgentPending };

/** The JSON form of `event`, or undefined for `done` (the result line stands for it). */
export function agentEventJson(event: AgentEvent, label: ToolLabel): AgentEventJson | undefined {
  switch (event.type) {
    case 'step-start':
      return { type: event.type, step: event.step };
    case 'text-delta':
      return { type: event.type, step: event.step, text: event.text };
    case 'tool-call-started': {
      const { server, tool } = label(event.name);
      return {
        type: event.type,
        step: event.step,
        id: event.id,
        name: event.name,
        server: server ?? null,
        tool,
        args: parsedArguments(event.args),
      };
    }
    case 'tool-call-finished': {
      const { server, tool } = label(event.name);
      return {
        type: event.type,
        step: event.step,
        id: event.id,
        name: event.name,
        server: server ?? null,
        tool,
        durationMs: Math.round(event.durationMs),
        isError: event.result.isError,
        text: event.result.text,
        error: event.result.error === undefined ? null : errorJsonOf(event.result.error),
      };
    }
    case 'input-required':
      return { type: event.type, step: event.step, pending: event.pending };
    case 'done':
      return undefined;
  }
}

/**
 * The line a person sees for a tool call starting or finishing, or undefined for the other
 * events (text and steps show as the progress line, and the answer on stdout).
 */
export function formatAgentEvent(
  event: AgentEvent,
  label: ToolLabel,
  paint: Paint = (_s, t) => t,
): string | undefined {
  if (event.type === 'input-required') {
    const { pending } = event;
    const asker = pending.serverName === undefined ? pending.tool : `${pending.serverName}`;
    const message = typeof pending.request.message === 'string' ? pending.request.message : '';
    return `${paint('cyan', '?')} ${asker} asks: ${preview(message, 160)} ${paint('dim', '(paused)')}`;
  }
  if (event.type !== 'tool-call-started' && event.type !== 'tool-call-finished') return undefined;
  const { server, tool } = label(event.name);
  const name = server === undefined ? tool : `${server}/${tool}`;
  if (event.type === 'tool-call-started') {
    const args = argumentsText(event.args);
    return `${paint('cyan', '→')} ${name}${args === '' ? '' : ` ${paint('dim', args)}`}`;
  }
  const took = paint('dim', formatDuration(event.durationMs));
  if (!event.result.isError) return `${paint('green', '✓')} ${name} ${took}`;
  const error = event.result.error;
  const why =
    error === undefined
      ? preview(event.result.text, 160)
      : `${error.code}: ${preview(error.message, 160)}`;
  return `${paint('red', '✗')} ${name} ${took}: ${why}`;
}

/** `840 ms`, `1.2 s`, `75 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  return `${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
}

/** The model's arguments as an object when they are a JSON object's text, else as sent. */
function parsedArguments(args: unknown): unknown {
  if (typeof args !== 'string') return args;
  try {
    return JSON.parse(args) as unknown;
  } catch {
    return args;
  }
}

/** The arguments on one short line (`{}` shows as nothing). */
function argumentsText(args: unknown): string {
  const parsed = parsedArguments(args);
  const text = typeof parsed === 'string' ? parsed : (JSON.stringify(parsed) ?? '');
  return text === '{}' ? '' : preview(text, 100);
}
