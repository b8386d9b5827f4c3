import { McpHostError } from '../errors/mcp-host-error.js';
import type { OversizedLine } from './line-decoder.js';
import type { RequestId } from './message.js';

const idValue = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")`;
const jsonrpc = String.raw`"jsonrpc"\s*:\s*"2\.0"`;

const headId = new RegExp(String.raw`^\s*\{\s*(?:${jsonrpc}\s*,\s*)?"id"\s*:\s*${idValue}\s*[,}]`);
const tailId = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${idValue}\s*(?:,\s*${jsonrpc}\s*)?\}\s*$`);

// A request or notification shows a top-level "method" or "params" key among its first keys (the
// key of the huge value is always in the head) or its last ones.
const scalar = String.raw`(?:-?\d[\d.eE+-]{0,30}|"(?:[^"\\]|\\.){0,256}"|null|true|false)`;
const pair = String.raw`"(?:[^"\\]|\\.){0,64}"\s*:\s*${scalar}`;
const requestHead = new RegExp(String.raw`^\s*\{\s*(?:${pair}\s*,\s*){0,4}"(?:method|params)"\s*:`);
const requestTail = new RegExp(
  String.raw`[,{]\s*"(?:method|params)"\s*:\s*${scalar}(?:\s*,\s*${pair}){0,4}\s*\}\s*$`,
);

// A broken response: its id next to "jsonrpc" (or first) and followed by "result" or "error" in
// the head; or, after a head that starts with "result" or "error" among its first keys, its id
// next to "jsonrpc" as the last keys of the tail (the official SDKs write `{result, jsonrpc, id}`).
const brokenHead = new RegExp(
  String.raw`^\s*\{\s*(?:${jsonrpc}\s*,\s*)?"id"\s*:\s*${idValue}\s*,\s*(?:${jsonrpc}\s*,\s*)?"(?:result|error)"\s*:`,
);
const responseHead = new RegExp(String.raw`^\s*\{\s*(?:${pair}\s*,\s*){0,4}"(?:result|error)"\s*:`);
const brokenTail = new RegExp(
  String.raw`,\s*(?:${jsonrpc}\s*,\s*"id"\s*:\s*${idValue}|"id"\s*:\s*${idValue}\s*,\s*${jsonrpc})\s*\}\s*$`,
);

/** How much of a broken line's start and end is searched for its id. */
const EDGE_CHARS = 1024;

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
  return parseId(match?.[1]);
}

/**
 * Finds the `id` of a response that arrived broken (not valid JSON: cut short, or corrupted
 * inside), so the request it answers can fail at once instead of waiting for its timeout. Stricter
 * than `recoverRequestId`, as a broken line may end anywhere: the id counts only where the line
 * shows itself a response beyond doubt. Either its head has the id as the first key (or right after
 * `"jsonrpc":"2.0"`) followed by `"result"` or `"error"`; or its head has `"result"` or `"error"`
 * among its first keys and the line ends with the id next to `"jsonrpc":"2.0"`, closing the
 * top-level object. Never for a message with a top-level `method` or `params` key in view.
 */
export function recoverBrokenResponseId(text: string): RequestId | undefined {
  const head = text.slice(0, EDGE_CHARS);
  const tail = text.length > EDGE_CHARS ? text.slice(-EDGE_CHARS) : text;
  if (requestHead.test(head) || requestTail.test(tail)) return undefined;
  const inHead = brokenHead.exec(head);
  if (inHead !== null) return parseId(inHead[1]);
  if (!responseHead.test(head)) return undefined;
  const inTail = brokenTail.exec(tail);
  return parseId(inTail?.[1] ?? inTail?.[2]);
}

function parseId(raw: string | undefined): RequestId | undefined {
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'number' || typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The error for a message over `maxMessageBytes`, discarded unparsed (`MESSAGE_TOO_LARGE`), with
 * the request id its edges show (`recoverRequestId`) as its `requestId`.
 */
export function oversizedMessageError(
  info: OversizedLine,
  maxMessageBytes: number,
  serverName: string | undefined,
): McpHostError {
  return new McpHostError(
    'MESSAGE_TOO_LARGE',
    `discarded a ${info.bytes}-byte message, over the ${maxMessageBytes}-byte limit (maxMessageBytes)`,
    {
      serverName,
      requestId: recoverRequestId(info.head, info.tail),
      details: { bytes: info.bytes, maxMessageBytes },
    },
  );
}
