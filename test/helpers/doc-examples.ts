/**
 * The fenced examples of a Markdown document, run for real: `codeBlockAfter` finds one by the
 * heading it follows, `startExample` runs it with tsx inside the repository (so `mcp-host/...`
 * resolves to the built package through its exports) in a Node process of its own, with stdin and
 * stdout to talk to it, and `exampleVariables` lists the environment variables a document says its
 * examples read (its table rows that start with `MCP_...`): the only places a test may put its own
 * URLs and credentials.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The `index`-th fenced block of `lang` after `heading` (a whole heading line). */
export function codeBlockAfter(markdown: string, heading: string, index = 0, lang = 'ts'): string {
  const at = markdown.search(
    new RegExp(`^${heading.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
  );
  if (at === -1) throw new Error(`no heading ${heading}`);
  const blocks = [
    ...markdown.slice(at).matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g')),
  ];
  const block = blocks[index]?.[1];
  if (block === undefined) throw new Error(`no ${lang} block ${index} after ${heading}`);
  return block;
}

/** The `MCP_*` variables the document's table of example variables names. */
export function exampleVariables(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^\| `(MCP_[A-Z_]+)`/gm)].map((match) => match[1]!));
}

/** The `process.env.X` names an example reads. */
export function variablesRead(code: string): string[] {
  return [...new Set([...code.matchAll(/process\.env\.([A-Z_]+)/g)].map((match) => match[1]!))];
}

export interface RunningExample extends AsyncDisposable {
  /** Lines printed on stdout so far. */
  readonly lines: string[];
  /** The first stdout line matching `pattern` (rejects if the example exits first). */
  line(pattern: RegExp): Promise<string>;
  /** Writes a line on its stdin. */
  write(line: string): void;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Lines read from a child's stream, and a wait for the first matching one (rejects on `exit`). */
export function watchLines(
  input: NodeJS.ReadableStream,
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>,
): { lines: string[]; line(pattern: RegExp): Promise<string> } {
  const lines: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  createInterface({ input }).on('line', (text) => {
    lines.push(text);
    for (const waiter of waiters.splice(0))
      if (waiter.pattern.test(text)) waiter.resolve(text);
      else waiters.push(waiter);
  });
  return {
    lines,
    line: (pattern) =>
      new Promise<string>((resolve, reject) => {
        const seen = lines.find((text) => pattern.test(text));
        if (seen !== undefined) resolve(seen);
        else waiters.push({ pattern, resolve });
        void exit.then((done) =>
          reject(
            new Error(`exited (${done.code}) before ${pattern}:\n${done.stdout}${done.stderr}`),
          ),
        );
      }),
  };
}

let examples = 0;

/** Runs `code` (TypeScript, top-level await) with `env` added to this process's environment. */
export function startExample(code: string, env: NodeJS.ProcessEnv = {}): RunningExample {
  const file = `${repoRoot}test/.docs-example-${process.pid}-${examples++}.mts`;
  writeFileSync(file, code);
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot,
    env: { ...process.env, NODE_OPTIONS: '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exit = once(child, 'exit').then(([exitCode]) => {
    rmSync(file, { force: true });
    return { code: exitCode as number | null, stdout, stderr };
  });
  return {
    ...watchLines(child.stdout, exit),
    write: (line) => child.stdin.write(`${line}\n`),
    exit,
    async [Symbol.asyncDispose]() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      child.stdin.end();
      await exit;
    },
  };
}
