import type { EventSourceMessage } from 'eventsource-parser';
import { EventSourceParserStream } from 'eventsource-parser/stream';

/** The SSE events of a response, as they come, each with the `retry` the stream gave so far. */
export async function* sseEvents(
  response: Response,
): AsyncGenerator<EventSourceMessage & { retryMs: number | undefined }> {
  let retryMs: number | undefined;
  const reader = response
    .body!.pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream({ onRetry: (ms) => (retryMs = ms) }))
    .getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      yield { ...value, retryMs };
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
