import type { RequestId } from './message.js';

const headId =
  /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*[,}]/;
const tailId =
  /[,{]\s*"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*$/;

// A request or notification shows a top-level "method" or "params" key among its first keys (the
// key of the huge value is always in the head) or its last ones.
const scalar = String.raw`(?:-?\d[\d.eE+-]{0,30}|"(?:[^"\\]|\\.){0,256}"|null|true|false)`;
const pair = String.raw`"(?:[^"\\]|\\.){0,64}"\s*:\s*${scalar}`;
const requestHead = new RegExp(String.raw`^\s*\{\s*(?:${pair}\s*,\s*){0,4}"(?:method|params)"\s*:`);
const requestTail = new RegExp(
  String.raw`[,{]\s*"(?:method|params)"\s*:\s*${scalar}(?:\s*,\s*${pair}){0,4}\s*\}\s*$`,
);

/**
 * Finds the top-level `id` of a response that was too large to parse, from its first and last
 * bytes: the id of the request it answers. Only positions that can only be top-level are trusted:
 * the first key after the opening brace (optionally after `"jsonrpc":"2.0"`), or the last key
 * before the closing brace. Returns undefined when neither is there, and for a message that shows
 * itself to be a request or notification (a top-level `method` or `params` key among its first or
 * last keys): the other side's request ids are its own and must not fail one of ours.
 */
export function recoverRequestId(head: string, tail: string): RequestId | undefined {
  if (requestHead.test(head) || requestTail.test(tail)) return undefined;
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
