/**
 * `mcp-host watch`: the host's events (server states, tool list changes, tool calls) as one flat
 * record each, for NDJSON (`--format json`, one event per line) or a line for a person. Values
 * are already redacted by the host (errors); arguments are never part of an event.
 */
import type { McpHost } from '../host/mcp-host.js';
import type { ServerStatus } from '../host/slot/server-status.js';
import type { Disposable } from '../internal/disposable.js';

export type WatchEvent =
  | {
      type: 'server';
      time: string;
      server: string;
      state: string;
      pid?: number;
      era?: string;
      toolCount: number;
      restartCount: number;
      nextRetryAt?: string;
      error?: { code: string; message: string };
    }
  | {
      type: 'tools';
      time: string;
      server: string | undefined;
      added: string[];
      removed: string[];
      changed: string[];
    }
  | {
      type: 'call';
      time: string;
      phase: 'started' | 'completed' | 'failed';
      tool: string;
      server: string | undefined;
      durationMs: number;
      outcome?: string;
      error?: { code: string; message: string };
    };

/** Calls `sink` with every host event until the returned Disposable is disposed. */
export function watchHost(
  host: McpHost,
  sink: (event: WatchEvent) => void,
  now: () => Date = () => new Date(),
): Disposable {
  const subscriptions = [
    host.onServerStatus((s) => sink(toServerEvent(s, now(), { nextRetryAt: true }))),
    host.onToolsChanged((e) =>
      sink({
        type: 'tools',
        time: now().toISOString(),
        server: e.server,
        added: e.added,
        removed: e.removed,
        changed: e.changed,
      }),
    ),
    host.onToolCall((e) =>
      sink({
        type: 'call',
        time: now().toISOString(),
        phase: e.phase,
        tool: e.tool,
        server: e.server,
        durationMs: Math.round(e.durationMs),
        ...(e.outcome === undefined ? {} : { outcome: e.outcome }),
        ...(e.error === undefined
          ? {}
          : { error: { code: String(e.error.code), message: e.error.message } }),
      }),
    ),
  ];
  const dispose = (): void => {
    for (const s of subscriptions) s.dispose();
  };
  return { dispose, [Symbol.dispose]: dispose };
}

/** The initial state as events (one `server` event per server), so a watcher starts complete. */
export function snapshotEvents(host: McpHost, now: () => Date = () => new Date()): WatchEvent[] {
  return host.status().map((s) => toServerEvent(s, now(), { nextRetryAt: false }));
}

/** A server status as a `server` event; the snapshot leaves out `nextRetryAt`, as it always has. */
function toServerEvent(
  s: ServerStatus,
  time: Date,
  { nextRetryAt }: { nextRetryAt: boolean },
): WatchEvent {
  return {
    type: 'server',
    time: time.toISOString(),
    server: s.name,
    state: s.state,
    ...(s.pid === undefined ? {} : { pid: s.pid }),
    ...(s.era === undefined ? {} : { era: s.era }),
    toolCount: s.toolCount,
    restartCount: s.restartCount,
    ...(!nextRetryAt || s.nextRetryAt === undefined ? {} : { nextRetryAt: s.nextRetryAt }),
    ...(s.lastError === undefined ? {} : { error: s.lastError }),
  };
}

type Paint = (style: 'green' | 'yellow' | 'red' | 'dim' | 'cyan', text: string) => string;

const STATE_STYLE: Readonly<Record<string, 'green' | 'yellow' | 'red' | 'dim' | 'cyan'>> = {
  ready: 'green',
  connecting: 'cyan',
  degraded: 'yellow',
  restarting: 'yellow',
  idle: 'dim',
  disabled: 'dim',
  closed: 'dim',
  needs_auth: 'yellow',
  failed: 'red',
  crash_loop: 'red',
};

/**
 * One line for a person: `12:00:01.234  server  files  ready  pid 123, 14 tools` (a server's error
 * without its name: the line shows it already).
 */
export function formatWatchEvent(event: WatchEvent, paint: Paint = (_s, t) => t): string {
  const time = paint('dim', event.time.slice(11, 23));
  switch (event.type) {
    case 'server': {
      const details = [
        event.pid === undefined ? undefined : `pid ${event.pid}`,
        event.era,
        event.state === 'ready' || event.state === 'degraded'
          ? `${event.toolCount} tools`
          : undefined,
        event.restartCount > 0 ? `${event.restartCount} restarts` : undefined,
        event.nextRetryAt === undefined ? undefined : `retry at ${event.nextRetryAt.slice(11, 19)}`,
        event.error === undefined ? undefined : `${event.error.code}: ${event.error.message}`,
      ].filter((d) => d !== undefined);
      const state = paint(STATE_STYLE[event.state] ?? 'dim', event.state.padEnd(10));
      return `${time}  server  ${event.server.padEnd(16)} ${state} ${details.join(', ')}`.trimEnd();
    }
    case 'tools': {
      const parts = [
        event.added.length > 0 ? `+${event.added.length}` : undefined,
        event.removed.length > 0 ? `-${event.removed.length}` : undefined,
        event.changed.length > 0 ? `~${event.changed.length}` : undefined,
      ].filter((p) => p !== undefined);
      return `${time}  tools   ${(event.server ?? '(native)').padEnd(16)} ${parts.join(' ')}`;
    }
    case 'call': {
      const phase =
        event.phase === 'started'
          ? paint('cyan', '→')
          : event.phase === 'completed' && event.outcome === 'ok'
            ? paint('green', '✓')
            : paint('red', '✗');
      const tail =
        event.phase === 'started'
          ? ''
          : ` ${event.durationMs} ms ${event.outcome ?? ''}${event.error === undefined ? '' : `: ${event.error.message}`}`;
      return `${time}  call    ${phase} ${event.tool}${tail}`.trimEnd();
    }
  }
}
