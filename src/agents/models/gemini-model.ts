/**
 * A Gemini model over `fetch`, streaming (`:streamGenerateContent?alt=sse`). Tools are
 * `functionDeclarations`; calls come back as `functionCall` parts, answered with
 * `functionResponse` parts (media of a result as `inlineData` parts inside it). Gemini gives no
 * call ids: the client makes them, and keeps a call's `thoughtSignature` in its `metadata` to send
 * back with it, as the API asks.
 */
import { randomUUID } from 'node:crypto';
import { isObject } from '../../protocol/guards.js';
import type { AgentTool } from '../agent-toolset.js';
import { partsText, type ModelResultPart, type ModelToolResult } from '../model-result.js';
import type {
  ModelClient,
  ModelEvent,
  ModelMessage,
  ModelRequest,
  ModelToolCall,
  ModelUsage,
} from './model-client.js';
import {
  joinUrl,
  postSse,
  registerKey,
  systemText,
  streamedError,
  truncatedStream,
  type ModelClientOptions,
  type ModelLabel,
  pushTurn,
} from './model-http.js';

/** Gemini's public API (v1beta), the default base URL. */
export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com/v1beta';

type GeminiPart = Record<string, unknown>;

/** A Gemini API model (`streamGenerateContent`, server-sent events). */
export function geminiModel(options: ModelClientOptions): ModelClient {
  const { apiKey } = options;
  registerKey(apiKey);
  const label: ModelLabel = { provider: 'gemini', model: options.model };
  const url = joinUrl(
    options.baseUrl ?? GEMINI_BASE_URL,
    `models/${encodeURIComponent(options.model)}:streamGenerateContent?alt=sse`,
  );
  return {
    provider: 'gemini',
    model: options.model,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      const system = systemText(request.messages);
      const body = {
        contents: geminiContents(request.messages),
        ...(system === '' ? {} : { systemInstruction: { parts: [{ text: system }] } }),
        ...(request.tools.length === 0
          ? {}
          : { tools: [{ functionDeclarations: request.tools.map(declaration) }] }),
        ...(request.maxOutputTokens === undefined
          ? {}
          : { generationConfig: { maxOutputTokens: request.maxOutputTokens } }),
      };
      const headers: Record<string, string> =
        apiKey === undefined || apiKey === '' ? {} : { 'x-goog-api-key': apiKey };
      let finish: string | undefined;
      let usage: ModelUsage | undefined;
      let calls = 0;
      for await (const { data } of postSse(label, options, url, headers, body, request.signal)) {
        if (!isObject(data)) continue;
        if (data.error !== undefined) throw streamedError(label, data);
        if (isObject(data.usageMetadata)) usage = usageOf(data.usageMetadata);
        const candidate = Array.isArray(data.candidates)
          ? (data.candidates[0] as unknown)
          : undefined;
        if (!isObject(candidate)) continue;
        const content = isObject(candidate.content) ? candidate.content : {};
        const parts = Array.isArray(content.parts) ? (content.parts as unknown[]) : [];
        for (const part of parts) {
          if (!isObject(part)) continue;
          if (typeof part.text === 'string' && part.thought !== true && part.text !== '') {
            yield { type: 'text-delta', text: part.text };
          }
          if (isObject(part.functionCall)) {
            calls++;
            yield { type: 'tool-call', call: toolCall(part.functionCall, part.thoughtSignature) };
          }
        }
        if (typeof candidate.finishReason === 'string') finish = candidate.finishReason;
      }
      if (finish === undefined) throw truncatedStream(label);
      yield {
        type: 'done',
        stopReason:
          finish === 'MAX_TOKENS'
            ? 'length'
            : finish === 'STOP'
              ? calls > 0
                ? 'tool-calls'
                : 'stop'
              : 'other',
        ...(usage === undefined ? {} : { usage }),
      };
    },
  };
}

function toolCall(call: Record<string, unknown>, signature: unknown): ModelToolCall {
  const providerId = typeof call.id === 'string' && call.id !== '' ? call.id : undefined;
  const metadata: Record<string, unknown> = {
    ...(providerId === undefined ? {} : { id: providerId }),
    ...(typeof signature === 'string' ? { thoughtSignature: signature } : {}),
  };
  return {
    id: providerId ?? `call_${randomUUID()}`,
    name: typeof call.name === 'string' ? call.name : '',
    arguments: isObject(call.args) ? call.args : {},
    ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
  };
}

function usageOf(usage: Record<string, unknown>): ModelUsage {
  return {
    ...(typeof usage.promptTokenCount === 'number' ? { inputTokens: usage.promptTokenCount } : {}),
    ...(typeof usage.candidatesTokenCount === 'number'
      ? { outputTokens: usage.candidatesTokenCount }
      : {}),
  };
}

function declaration(tool: AgentTool): Record<string, unknown> {
  return {
    name: tool.name,
    ...(tool.description === '' ? {} : { description: tool.description }),
    parameters: tool.inputSchema,
  };
}

/** The conversation (less its system text) as Gemini contents. */
function geminiContents(messages: readonly ModelMessage[]): Array<Record<string, unknown>> {
  const turns: Array<{ role: 'user' | 'model'; items: GeminiPart[] }> = [];
  const push = (role: 'user' | 'model', parts: GeminiPart[]): void => pushTurn(turns, role, parts);
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        push('user', message.parts.map(userPart));
        break;
      case 'assistant':
        push('model', [
          ...(message.text === '' ? [] : [{ text: message.text }]),
          ...message.toolCalls.map(callPart),
        ]);
        break;
      case 'tool':
        push(
          'user',
          message.results.map(({ call, result }) => responsePart(call, result)),
        );
        break;
    }
  }
  return turns.map(({ role, items }) => ({ role, parts: items }));
}

function userPart(part: ModelResultPart): GeminiPart {
  const media = inlineData(part);
  return media ?? { text: partsText([part]) };
}

/** Media as an `inlineData` part (images, audio, files: Gemini takes them all inline). */
function inlineData(part: ModelResultPart): GeminiPart | undefined {
  switch (part.type) {
    case 'image':
    case 'audio':
    case 'file':
      return { inlineData: { mimeType: part.mimeType, data: part.data } };
    case 'text':
    case 'link':
      return undefined;
  }
}

function callPart(call: ModelToolCall): GeminiPart {
  const metadata = call.metadata ?? {};
  const args =
    typeof call.arguments === 'string' ? safeParse(call.arguments) : (call.arguments ?? {});
  return {
    functionCall: {
      name: call.name,
      args: isObject(args) ? args : {},
      ...(typeof metadata.id === 'string' ? { id: metadata.id } : {}),
    },
    ...(typeof metadata.thoughtSignature === 'string'
      ? { thoughtSignature: metadata.thoughtSignature }
      : {}),
  };
}

/** A result as a `functionResponse`: its text as `output` (or `error`), media as inner parts. */
function responsePart(call: ModelToolCall, result: ModelToolResult): GeminiPart {
  const media = result.parts.flatMap((part) => inlineData(part) ?? []);
  const text = partsText(
    result.parts.filter(
      (part) => inlineData(part) === undefined && (part.type !== 'text' || part.text !== ''),
    ),
  );
  const id = call.metadata?.id;
  return {
    functionResponse: {
      name: call.name,
      ...(typeof id === 'string' ? { id } : {}),
      response: result.isError ? { error: text } : { output: text },
      ...(media.length === 0 ? {} : { parts: media }),
    },
  };
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
