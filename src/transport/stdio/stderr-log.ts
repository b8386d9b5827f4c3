import { aboutServer } from '../../errors/mcp-host-error.js';
import { redact, truncate } from '../../errors/redact.js';
import type { Emitter } from '../../internal/emitter.js';
import type { Logger } from '../../internal/logger.js';
import { RateLimiter } from '../../internal/rate-limiter.js';

/** Longest stderr line kept whole; the rest of a longer line is cut. */
const MAX_LINE_CHARS = 4096;

/**
 * Turns a server's stderr into lines: each is redacted, offered to the listeners of `lines` (the
 * transport's `onStderrLine`, which exists before this does: made once the process runs), and
 * logged at a bounded rate (a flood costs a counter, not a log line per line).
 */
export class StderrLog {
  readonly #logger: Logger;
  readonly #serverName: string | undefined;
  readonly #limiter = new RateLimiter(20, 50);
  readonly #emitter: Emitter<string>;
  /** UTF-8 across chunk boundaries (a global: no `node:string_decoder` to load). */
  readonly #decoder = new TextDecoder();
  #partial = '';

  constructor(logger: Logger, serverName: string | undefined, lines: Emitter<string>) {
    this.#logger = logger;
    this.#serverName = serverName;
    this.#emitter = lines;
  }

  push(chunk: Buffer): void {
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    this.#partial = truncate(lines.pop() ?? '', MAX_LINE_CHARS);
    for (const line of lines) this.#line(line);
  }

  flush(): void {
    this.#partial += this.#decoder.decode();
    if (this.#partial !== '') this.#line(this.#partial);
    this.#partial = '';
  }

  #line(raw: string): void {
    const wanted = this.#emitter.listenerCount > 0;
    const suppressed = this.#limiter.take();
    if (!wanted && suppressed < 0) return;
    const line = redact(truncate(raw.replace(/\r$/, ''), MAX_LINE_CHARS));
    if (wanted) this.#emitter.fire(line);
    if (suppressed >= 0) {
      const fields =
        suppressed > 0 ? { server: this.#serverName, suppressed } : { server: this.#serverName };
      this.#logger.info(aboutServer(this.#serverName, `stderr: ${line}`), fields);
    }
  }
}
