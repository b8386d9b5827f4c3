/**
 * Everything the CLI writes. Results go to stdout: a table or text for a person, or exactly one
 * `{"result": ...}` envelope with `--format json`. Errors, notices and the progress line go to
 * stderr (an error in JSON mode is one line `{"error":{"code","message","server"}}`).
 *
 * Colours only when the stream is a TTY and neither `--no-color` nor `NO_COLOR` is set, through
 * Node's own `util.styleText` (20.12+; plain text on older Node 20). Tables are hand-rolled
 * aligned columns: no borders (so they grep and cut well when piped), no dependency; widths count
 * code points, which is right for the names and states shown here.
 */
import { createRequire } from 'node:module';
import type { LogFields, Logger } from '../internal/logger.js';
import { errorJsonOf, errorTextOf } from './exit-codes.js';

export type OutputFormat = 'table' | 'json';
type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';

export interface OutputOptions {
  format: OutputFormat;
  color: boolean;
  verbose: boolean;
  quiet: boolean;
  stdout?: NodeJS.WriteStream | NodeJS.WritableStream;
  stderr?: NodeJS.WriteStream | NodeJS.WritableStream;
}

/** A column of a table: its heading and how to read a cell from a row. */
export interface Column<Row> {
  header: string;
  value: (row: Row) => string | number | undefined | null;
  /** Colour a cell by its text (applied after padding is computed). */
  style?: (text: string) => Style | undefined;
  /** Cut cells longer than this (with `…`). */
  maxWidth?: number;
}

/**
 * `node:util`, not imported: an ES import of it loads all of its lazy parts (`parseArgs`,
 * `MIMEType`, ...). `process.getBuiltinModule` is Node 20.16+; `require` gives the same module.
 */
const util = (process.getBuiltinModule?.('node:util') ??
  createRequire(import.meta.url)('node:util')) as {
  styleText?: (format: Style, text: string, options?: { validateStream?: boolean }) => string;
};
const nodeStyleText = util.styleText;
/**
 * The decision (TTY, --no-color, NO_COLOR, TERM=dumb) is made here per stream, so Node's own
 * check (of process.stdout, on Node versions that have it) is turned off.
 */
const styleText =
  nodeStyleText === undefined
    ? undefined
    : (style: Style, text: string) => nodeStyleText(style, text, { validateStream: false });

/** One of the streams output goes to, with what was decided for it. */
interface OutputStream {
  stream: NodeJS.WritableStream;
  tty: boolean;
  color: boolean;
}

const guarded = new Set<'stdout' | 'stderr'>();

/**
 * The process's stdout or stderr, guarded on first use: a reader of our output that went away
 * (`mcp-host tools | head`) is not a failure (stop writing, still close every server); anything
 * else on our own output is a bug worth seeing. Node creates each stream on first access (about
 * a millisecond for both), so nothing here touches them before they are needed.
 */
export function processStream(name: 'stdout' | 'stderr'): NodeJS.WriteStream {
  const stream = process[name];
  if (!guarded.has(name)) {
    guarded.add(name);
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
    });
  }
  return stream;
}

/** A formatted config diagnostic: `file:line:col: error: …` or `file: error: …`. */
const DIAGNOSTIC_LINE = /^\S+: error: /;

export class Output {
  readonly format: OutputFormat;
  readonly verbose: boolean;
  readonly quiet: boolean;
  readonly #options: OutputOptions;
  #outStream: OutputStream | undefined;
  #errStream: OutputStream | undefined;
  #progressShown = false;
  #resultWritten = false;

  constructor(options: OutputOptions) {
    this.format = options.format;
    this.verbose = options.verbose;
    this.quiet = options.quiet;
    this.#options = options;
  }

  // Each stream is taken (and, for the process's own, guarded) when first written or asked about:
  // the command line creates neither before its first servers are spawned.
  get #out(): OutputStream {
    return (this.#outStream ??= this.#open(this.#options.stdout, 'stdout'));
  }

  get #err(): OutputStream {
    return (this.#errStream ??= this.#open(this.#options.stderr, 'stderr'));
  }

  #open(given: NodeJS.WritableStream | undefined, name: 'stdout' | 'stderr'): OutputStream {
    const stream = given ?? processStream(name);
    const tty = (stream as NodeJS.WriteStream).isTTY === true;
    const colour = this.#options.color && styleText !== undefined && process.env.TERM !== 'dumb';
    return { stream, tty, color: colour && tty };
  }

  /**
   * A logger writing one line per entry on stderr (`mcp-host <level>: <message> {fields}`):
   * warnings and errors always, information unless `--quiet`, debug lines with `--verbose`.
   */
  logger(): Logger {
    const line = (level: string, message: string, fields?: LogFields) => {
      const extra =
        fields === undefined || Object.keys(fields).length === 0
          ? ''
          : ` ${JSON.stringify(fields)}`;
      this.#err.stream.write(`mcp-host ${level}: ${message}${extra}\n`);
    };
    return {
      debug: (message, fields) => {
        if (this.verbose) line('debug', message, fields);
      },
      info: (message, fields) => {
        if (!this.quiet) line('info', message, fields);
      },
      warn: (message, fields) => line('warn', message, fields),
      error: (message, fields) => line('error', message, fields),
    };
  }

  get json(): boolean {
    return this.format === 'json';
  }

  /** Styles text for stdout (a no-op when colours are off). */
  style(style: Style, text: string): string {
    return this.#out.color && styleText !== undefined ? styleText(style, text) : text;
  }

  /** Styles text for stderr (a no-op when colours are off there). */
  styleErr(style: Style, text: string): string {
    return this.#err.color && styleText !== undefined ? styleText(style, text) : text;
  }

  /** Whether stderr is a terminal that shows progress (not with --quiet). */
  get interactive(): boolean {
    return this.#err.tty && !this.quiet;
  }

  /** A line of a command's running report on stderr (the agent's tool calls), as given. */
  report(text: string): void {
    this.clearProgress();
    this.#err.stream.write(`${text}\n`);
  }

  /**
   * The command's result: in JSON mode the one envelope `{"result": data}`; otherwise `human()`
   * is called to print it for a person.
   */
  result(data: unknown, human: () => void): void {
    this.clearProgress();
    if (this.json) {
      if (this.#resultWritten) throw new Error('output: a second result in JSON mode');
      this.#resultWritten = true;
      this.#out.stream.write(`${JSON.stringify({ result: data })}\n`);
    } else human();
  }

  /** A line of text on stdout (table mode). */
  line(text = ''): void {
    this.clearProgress();
    this.#out.stream.write(`${text}\n`);
  }

  /** Aligned columns with a heading row, or `empty` when there are no rows. */
  table<Row>(rows: readonly Row[], columns: readonly Column<Row>[], empty = '(none)'): void {
    if (rows.length === 0) {
      this.line(this.style('dim', empty));
      return;
    }
    const cells = rows.map((row) =>
      columns.map((column) => cut(cellText(column.value(row)), column.maxWidth)),
    );
    const widths = columns.map((column, i) =>
      Math.max(width(column.header), ...cells.map((row) => width(row[i] ?? ''))),
    );
    const render = (texts: string[], styles: (Style | undefined)[]) =>
      texts
        .map((text, i) => {
          const last = i === texts.length - 1;
          const padded = last ? text : text + ' '.repeat((widths[i] ?? 0) - width(text));
          const style = styles[i];
          return style === undefined ? padded : this.style(style, padded);
        })
        .join('  ')
        .trimEnd();
    this.line(
      render(
        columns.map((column) => column.header),
        columns.map(() => 'bold'),
      ),
    );
    for (const row of cells)
      this.line(
        render(
          row,
          row.map((text, i) => columns[i]?.style?.(text)),
        ),
      );
  }

  /**
   * A progress event the caller must see before the result (JSON mode: one JSON line on stderr,
   * even with --quiet; e.g. the URL `auth login` waits on).
   */
  event(data: Record<string, unknown>): void {
    this.clearProgress();
    this.#err.stream.write(`${JSON.stringify(data)}\n`);
  }

  /** A notice on stderr (not with --quiet). */
  notice(text: string): void {
    if (this.quiet) return;
    this.clearProgress();
    this.#err.stream.write(`${this.styleErr('dim', text)}\n`);
  }

  /** A warning on stderr (not with --quiet). */
  warn(text: string): void {
    if (this.quiet) return;
    this.clearProgress();
    this.#err.stream.write(`${this.styleErr('yellow', 'warning:')} ${text}\n`);
  }

  /**
   * A config diagnostic on stderr as formatted (`file:line:col: error: …`, its severity word
   * coloured); a warning not with --quiet.
   */
  diagnostic(text: string, severity: 'error' | 'warning'): void {
    if (this.quiet && severity === 'warning') return;
    this.clearProgress();
    const colour = severity === 'error' ? 'red' : 'yellow';
    const styled = text.replace(`${severity}:`, (word) => this.styleErr(colour, word));
    this.#err.stream.write(`${styled}\n`);
  }

  /** Detail for --verbose, on stderr. */
  debug(text: string): void {
    if (!this.verbose) return;
    this.clearProgress();
    this.#err.stream.write(`${this.styleErr('dim', text)}\n`);
  }

  /**
   * An error on stderr: one JSON line in JSON mode, `error: message` otherwise (a message about a
   * server names it: `error: server 'x': ...`).
   */
  error(error: unknown): void {
    this.clearProgress();
    if (this.json) {
      this.#err.stream.write(`${JSON.stringify({ error: errorJsonOf(error) })}\n`);
      return;
    }
    const text = errorTextOf(error);
    // Config diagnostics (`file:line:col: error: …`) carry their own severity word: not twice.
    if (DIAGNOSTIC_LINE.test(text)) {
      this.diagnostic(text, 'error');
      return;
    }
    this.#err.stream.write(`${this.styleErr('red', 'error:')} ${text}\n`);
  }

  /** A one-line progress message on stderr, rewritten in place; only on a TTY. */
  progress(text: string): void {
    if (!this.interactive) return;
    this.#err.stream.write(`\r\x1b[2K${this.styleErr('cyan', '…')} ${text}`);
    this.#progressShown = true;
  }

  clearProgress(): void {
    if (!this.#progressShown) return;
    this.#progressShown = false;
    this.#err.stream.write('\r\x1b[2K');
  }
}

function cellText(value: string | number | undefined | null): string {
  if (value === undefined || value === null || value === '') return '-';
  return String(value).replace(/\s+/g, ' ');
}

function width(text: string): number {
  return [...text].length;
}

function cut(text: string, max: number | undefined): string {
  if (max === undefined || width(text) <= max) return text;
  return `${[...text].slice(0, max - 1).join('')}…`;
}
