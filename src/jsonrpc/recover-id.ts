import type { RequestId } from './message.js';

const headId = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*[,}]/;
const tailId = /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

/**
 * Finds the top-level `id` of a message that was too large to parse, from its first and last
 * bytes. Only positions that can only be top-level are trusted: the first key after the opening
 * brace (optionally after `"jsonrpc":"2.0"`), or the last key before the closing brace. Returns
 * undefined when neither is there.
 */
export function recoverRequestId(head: string, tail: string): RequestId | undefined {
  const match = headId.exec(head) ?? tailId.exec(tail);
  const raw = match?.[1];
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'number' || typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
