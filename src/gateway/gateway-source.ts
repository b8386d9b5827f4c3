import type { HostCallOptions } from '../host/calls/call-pipeline.js';
import type { HostRequestOptions } from '../host/host-resources.js';
import type { HostSkill, HostSkillEntry, SkillServer } from '../host/host-skills.js';
import type { HostTool } from '../host/host-tool.js';
import type { SkillDirectoryPage } from '../client/skills/skill-entry.js';
import type { McpHost } from '../host/mcp-host.js';
import type { HostView } from '../host/views/host-view.js';
import { toDisposable, type Disposable } from '../internal/disposable.js';
import type { JsonObject } from '../jsonrpc/message.js';
import { TASKS_EXTENSION } from '../protocol/methods.js';
import type {
  CallToolResult,
  CreateTaskResult,
  DetailedTask,
  CompleteResult,
  CompletionReference,
  GetPromptResult,
  LoggingLevel,
  LoggingMessageParams,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
} from '../protocol/types.js';
import type { ProtocolEra } from '../protocol/versions.js';
import type { TaskBackend } from './tasks/gateway-tasks.js';

/** States in which a server's tools, resources and prompts are offered. */
const CONNECTED = new Set(['ready', 'degraded']);

/**
 * What a gateway serves: a host, or one view of it (its servers, filters and permissions), and
 * the host's events that say when what it offers may have changed.
 */
export interface GatewaySource extends TaskBackend {
  tools(): HostTool[];
  /** With `options.task`, a backend that declared the tasks extension may answer with a task. */
  callTool(
    name: string,
    args: JsonObject,
    options: HostCallOptions,
  ): Promise<CallToolResult | CreateTaskResult>;
  /** Whether a server of some tool offered declares the tasks extension (and speaks modern). */
  supportsTasks(): boolean;
  resources(): Promise<Array<Resource & { server: string }>>;
  resourceTemplates(): Promise<Array<ResourceTemplate & { server: string }>>;
  readResource(uri: string, options: HostRequestOptions): Promise<ReadResourceResult>;
  prompts(): Promise<Array<Prompt & { server: string; originalName: string }>>;
  getPrompt(
    name: string,
    args: Record<string, string>,
    options: HostRequestOptions,
  ): Promise<GetPromptResult>;
  complete(
    ref: CompletionReference,
    argument: { name: string; value: string },
    context: { arguments?: Record<string, string> },
    options: { signal?: AbortSignal },
  ): Promise<CompleteResult>;
  /** The skills of the source's servers that declared the skills extension. */
  skills(options: { signal?: AbortSignal }): Promise<HostSkill[]>;
  /** The source's servers that declared the skills extension. */
  skillServers(): SkillServer[];
  getSkill(uri: string, options: { signal?: AbortSignal }): Promise<HostSkillEntry>;
  readSkillDirectory(
    uri: string,
    options: { cursor?: string; signal?: AbortSignal },
  ): Promise<SkillDirectoryPage>;
  /** Subscribes on the server owning `uri`; resolves with that server's name. */
  subscribeResource(uri: string, options: { signal?: AbortSignal }): Promise<string>;
  unsubscribeResource(uri: string, options: { server: string }): Promise<void>;
  /** Sets the log level of the source's servers (failures are the host's to log). */
  setLoggingLevel(level: LoggingLevel): Promise<void>;
  onLogMessage(listener: (message: LoggingMessageParams & { server: string }) => void): Disposable;
  onResourceUpdated(listener: (update: { server: string; uri: string }) => void): Disposable;
  /** The tools offered may have changed (the host's or the view's tool events). */
  onToolsChanged(listener: () => void): Disposable;
  /** A server's state changed (it may have connected or gone). */
  onServersChanged(listener: () => void): Disposable;
  /** A connected server's resources or prompts changed. */
  onListsChanged(listener: () => void): Disposable;
  /** The servers connected now, in the host's order. */
  connectedServers(): string[];
  /** The protocol era a server speaks now (undefined when it is not connected). */
  serverEra(name: string): ProtocolEra | undefined;
}

/** The source of a gateway over `host`, or over its view `view` when one is given. */
export function gatewaySource(host: McpHost, view: HostView | undefined): GatewaySource {
  const lens: McpHost | HostView = view ?? host;
  return {
    tools: () => lens.tools(),
    callTool: (name, args, options) => lens.callTool(name, args, options),
    supportsTasks: () => {
      const servers = new Set(
        host
          .status()
          .filter(
            (status) => status.era === 'modern' && status.extensions?.includes(TASKS_EXTENSION),
          )
          .map((status) => status.name),
      );
      return servers.size > 0 && lens.tools().some((tool) => servers.has(tool.server ?? ''));
    },
    // A task is the host's (which remembers its server), whichever view made it.
    getTask: (taskId, options): Promise<DetailedTask> => host.tasks.get(taskId, options),
    updateTask: (taskId, inputResponses, options) =>
      host.tasks.update(taskId, inputResponses, options),
    cancelTask: (taskId, options) => host.tasks.cancel(taskId, options),
    resources: () => lens.resources(),
    resourceTemplates: () => lens.resourceTemplates(),
    readResource: (uri, options) => lens.readResource(uri, options),
    prompts: () => lens.prompts(),
    getPrompt: (name, args, options) => lens.getPrompt(name, args, options),
    complete: (ref, argument, context, options) => lens.complete(ref, argument, context, options),
    skills: (options) => lens.skills(options),
    skillServers: () => lens.skillServers(),
    getSkill: (uri, options) => lens.getSkill(uri, options),
    readSkillDirectory: (uri, options) => lens.readSkillDirectory(uri, options),
    subscribeResource: (uri, options) => lens.subscribeResource(uri, options),
    unsubscribeResource: (uri, options) => lens.unsubscribeResource(uri, options),
    setLoggingLevel: (level) => lens.setLoggingLevel(level),
    onLogMessage: (listener) => lens.onLogMessage(listener),
    onResourceUpdated: (listener) => lens.onResourceUpdated(listener),
    onToolsChanged: (listener) => lens.onToolsChanged(() => listener()),
    onServersChanged: (listener) => host.onServerStatus(() => listener()),
    onListsChanged: (listener) => {
      const subscriptions = [
        host.onResourcesChanged(() => listener()),
        host.onPromptsChanged(() => listener()),
      ];
      return toDisposable(() => subscriptions.forEach((subscription) => subscription.dispose()));
    },
    connectedServers: () =>
      host
        .status()
        .filter((status) => CONNECTED.has(status.state))
        .map((status) => status.name),
    serverEra: (name) => host.status().find((status) => status.name === name)?.era,
  };
}
