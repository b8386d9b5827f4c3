/**
 * A model client from a spec string, as the CLI's `--model` and `--base-url` give it:
 * `openai:<model>`, `openai-responses:<model>`, `anthropic:<model>`, `gemini:<model>`, or a bare
 * `http(s)://` URL (an OpenAI-compatible server). Each provider's key comes from its environment
 * variable unless given; a missing key fails before any request is sent.
 */
import { McpHostError } from '../../errors/mcp-host-error.js';
import { anthropicModel } from './anthropic-model.js';
import { geminiModel } from './gemini-model.js';
import type { ModelClient } from './model-client.js';
import type { ModelClientOptions } from './model-http.js';
import { openaiChatModel } from './openai-chat-model.js';
import { openaiResponsesModel } from './openai-responses-model.js';

/** How `createModel` builds the client. */
export interface CreateModelOptions extends Omit<
  ModelClientOptions,
  'model' | 'baseUrl' | 'apiKey'
> {
  /** The API's base URL: overrides the provider's (and a URL spec's). */
  baseUrl?: string;
  /** The API key: overrides the provider's environment variable. */
  apiKey?: string;
  /** Where keys are read from (default `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

const KEY_VARIABLES = {
  openai: 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  gemini: 'GEMINI_API_KEY',
} as const;

type Provider = keyof typeof KEY_VARIABLES;

/**
 * The client `spec` names. `openai:<model>` is Chat Completions (the API every
 * OpenAI-compatible server speaks), `openai-responses:<model>` the Responses API. A bare URL is
 * an OpenAI-compatible server at that base URL, keyless unless `apiKey` is given; its model name
 * is the URL's fragment (`http://127.0.0.1:11434/v1#llama3.2`), else `default`. With `baseUrl`
 * a key is optional (sent when set). Throws `INVALID_ARGUMENT` for a spec it cannot read and
 * `CONFIG_VARIABLE_UNSET`, naming the variable, when a provider's key is needed and missing.
 */
export function createModel(spec: string, options: CreateModelOptions = {}): ModelClient {
  const { env = process.env, baseUrl, apiKey, ...rest } = options;
  if (/^https?:\/\//i.test(spec)) {
    let url: URL;
    try {
      url = new URL(spec);
    } catch (error) {
      throw new McpHostError('INVALID_ARGUMENT', `model '${spec}' is not a valid URL`, {
        cause: error,
      });
    }
    const model = decodeURIComponent(url.hash.slice(1)) || 'default';
    url.hash = '';
    return openaiChatModel({
      ...rest,
      model,
      baseUrl: baseUrl ?? url.href,
      ...(apiKey === undefined ? {} : { apiKey }),
    });
  }
  const colon = spec.indexOf(':');
  const provider = spec.slice(0, colon);
  const model = spec.slice(colon + 1);
  if (colon <= 0 || model === '' || !(provider in KEY_VARIABLES)) {
    throw new McpHostError(
      'INVALID_ARGUMENT',
      `model '${spec}' is not a model spec: use openai:<model>, openai-responses:<model>, anthropic:<model>, gemini:<model> or an http(s):// URL`,
    );
  }
  const variable = KEY_VARIABLES[provider as Provider];
  const key = apiKey ?? nonEmpty(env[variable]);
  if (key === undefined && baseUrl === undefined) {
    throw new McpHostError(
      'CONFIG_VARIABLE_UNSET',
      `model '${spec}' needs an API key: set ${variable} (or give a base URL for a server that needs none)`,
      { details: { variable } },
    );
  }
  const clientOptions: ModelClientOptions = {
    ...rest,
    model,
    ...(baseUrl === undefined ? {} : { baseUrl }),
    ...(key === undefined ? {} : { apiKey: key }),
  };
  switch (provider as Provider) {
    case 'openai':
      return openaiChatModel(clientOptions);
    case 'openai-responses':
      return openaiResponsesModel(clientOptions);
    case 'anthropic':
      return anthropicModel(clientOptions);
    case 'gemini':
      return geminiModel(clientOptions);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
