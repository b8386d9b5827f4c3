import type WebSocket from 'ws';

/** The chunks of a frame as ws delivers it (a Buffer, an array of them, or an ArrayBuffer). */
function toBuffers(data: WebSocket.RawData): Buffer[] {
  if (Array.isArray(data)) return data;
  if (Buffer.isBuffer(data)) return [data];
  return [Buffer.from(data)];
}

/** A frame's payload as text (invalid UTF-8 becomes U+FFFD, which no JSON parse accepts). */
export function frameText(data: WebSocket.RawData): string {
  return Buffer.isBuffer(data)
    ? data.toString('utf8')
    : Buffer.concat(toBuffers(data)).toString('utf8');
}

export function frameBytes(data: WebSocket.RawData): number {
  return toBuffers(data).reduce((sum, chunk) => sum + chunk.length, 0);
}
