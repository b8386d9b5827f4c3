import type { JsonObject } from '../jsonrpc/message.js';
import { TASKS_EXTENSION } from '../protocol/methods.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { skillsCapability } from './gateway-skills.js';
import type { GatewaySource } from './gateway-source.js';

/**
 * The capabilities the gateway always declares: lists that change, and say so; resource
 * subscriptions, completions and log messages (passed on from the servers that offer them).
 */
const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
  completions: {},
  logging: {},
};

/**
 * The capabilities declared to a client now: CAPABILITIES, the skills extension when a server of
 * the source declared it (see `skillsCapability`), and to a modern client the tasks extension when
 * a modern server of the source offers tasks (legacy clients are offered none).
 */
export function gatewayCapabilities(
  source: GatewaySource,
  era: 'legacy' | 'modern',
): ServerCapabilities {
  const extensions: Record<string, JsonObject> = { ...skillsCapability(source) };
  if (era === 'modern' && source.supportsTasks()) extensions[TASKS_EXTENSION] = {};
  return Object.keys(extensions).length === 0 ? CAPABILITIES : { ...CAPABILITIES, extensions };
}
