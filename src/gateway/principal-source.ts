import { skillRootOf } from '../client/skills/skill-entry.js';
import { McpHostError } from '../errors/mcp-host-error.js';
import { toMcpHostError } from '../errors/to-mcp-host-error.js';
import type { McpHost } from '../host/mcp-host.js';
import { candidateServers } from '../host/naming/name-assignment.js';
import { toDisposable } from '../internal/disposable.js';
import { raceSignal } from '../internal/signals.js';
import type { GatewaySource } from './gateway-source.js';
import type { UpstreamLogins } from './login/upstream-logins.js';

/**
 * What one named client (`principal`) is served: the shared servers (`shared`) and its own
 * connections to the per-client servers (`own`, of `ownHost`; `servers`: those its view can show),
 * as one source. A call is routed to
 * the source that lists the tool (prompt, resource); a tool of a per-client server that waits for
 * this client's login is tried once more (a login saved in its token store since is then used);
 * then, when the call's client declared URL-mode elicitation and the gateway serves a callback
 * (`logins`), the client is sent to log in (an `elicitation/create` of mode `url`, live or as an
 * `input_required` round, through the call's input handlers), and the call goes on once the
 * login is done; else it is refused with `AUTH_REQUIRED` naming the way to log in. Never sent
 * with anyone else's credentials.
 */
export function principalSource(
  shared: GatewaySource,
  own: GatewaySource,
  ownHost: McpHost,
  client: { principal: string; servers?: readonly string[] },
  logins?: UpstreamLogins,
): GatewaySource {
  const { principal } = client;
  const inView = (server: string) =>
    client.servers === undefined || client.servers.includes(server);
  const lists = (source: GatewaySource, name: string) =>
    source.tools().some((tool) => tool.name === name);
  /** A URI the client's own servers list (their templates are not matched: such reads go shared). */
  const ownsUri = async (uri: string) =>
    (await own.resources()).some((resource) => resource.uri === uri);
  /** A skill URI (a skill's `SKILL.md`, directory or file) the client's own servers list. */
  const ownsSkill = async (uri: string, signal: AbortSignal | undefined) =>
    (await own.skills({ signal })).some((skill) => {
      const root = skillRootOf(skill.uri);
      return uri === root || uri.startsWith(`${root}/`);
    });
  return {
    tools: () => [...shared.tools(), ...own.tools()],
    callTool: async (name, args, options) => {
      if (lists(own, name)) return own.callTool(name, args, options);
      if (lists(shared, name)) return shared.callTool(name, args, options);
      const waiting = ownHost
        .status()
        .filter((status) => status.state === 'needs_auth' && inView(status.name))
        .map((status) => status.name);
      const [server] = candidateServers(name, waiting);
      if (server === undefined) return shared.callTool(name, args, options);
      const status = await ownHost.connectServer(server).catch(() => undefined);
      if (status?.state === 'ready' || status?.state === 'degraded')
        return own.callTool(name, args, options);
      const ask = options.input?.elicitation?.url;
      if (ask === undefined || logins?.redirectUri === undefined)
        throw new McpHostError(
          'AUTH_REQUIRED',
          `needs a login of the gateway client '${principal}' (each client uses its own credentials, never another's): log in to '${server}' as that client (\`mcp-host auth login ${server} --as ${principal}\`)`,
          { serverName: server, tool: name },
        );
      const login = await logins.start(ownHost, server, principal);
      const signal = options.signal ?? new AbortController().signal;
      const answer = await ask(
        {
          mode: 'url',
          message: `Log in to '${server}' (as the gateway client '${principal}') to use its tools.`,
          url: login.url,
          elicitationId: login.elicitationId,
        },
        { serverName: server, signal },
      );
      if (answer.action !== 'accept')
        throw new McpHostError(
          'AUTH_REQUIRED',
          `needs a login of the gateway client '${principal}', which was ${answer.action === 'decline' ? 'declined' : 'cancelled'}`,
          { serverName: server, tool: name },
        );
      await raceSignal(login.done, options.signal);
      return own.callTool(name, args, options);
    },
    supportsTasks: () => shared.supportsTasks() || own.supportsTasks(),
    // A task is the client's own host's, else the shared one's (each knows the tasks it made).
    getTask: (taskId, options) =>
      ownFirst(
        () => own.getTask(taskId, options),
        () => shared.getTask(taskId, options),
      ),
    updateTask: (taskId, inputResponses, options) =>
      ownFirst(
        () => own.updateTask(taskId, inputResponses, options),
        () => shared.updateTask(taskId, inputResponses, options),
      ),
    cancelTask: (taskId, options) =>
      ownFirst(
        () => own.cancelTask(taskId, options),
        () => shared.cancelTask(taskId, options),
      ),
    resources: async () => [...(await shared.resources()), ...(await own.resources())],
    resourceTemplates: async () => [
      ...(await shared.resourceTemplates()),
      ...(await own.resourceTemplates()),
    ],
    readResource: async (uri, options) =>
      (await ownsUri(uri)) || (await ownsSkill(uri, options.signal))
        ? own.readResource(uri, options)
        : shared.readResource(uri, options),
    prompts: async () => [...(await shared.prompts()), ...(await own.prompts())],
    getPrompt: async (name, args, options) =>
      (await own.prompts()).some((prompt) => prompt.name === name)
        ? own.getPrompt(name, args, options)
        : shared.getPrompt(name, args, options),
    complete: async (ref, argument, context, options) => {
      const mine =
        ref.type === 'ref/prompt'
          ? (await own.prompts()).some((prompt) => prompt.name === ref.name)
          : (await own.resourceTemplates()).some((template) => template.uriTemplate === ref.uri);
      return (mine ? own : shared).complete(ref, argument, context, options);
    },
    skills: async (options) => [...(await shared.skills(options)), ...(await own.skills(options))],
    skillServers: () => [...shared.skillServers(), ...own.skillServers()],
    getSkill: async (uri, options) =>
      (await ownsSkill(uri, options.signal))
        ? own.getSkill(uri, options)
        : shared.getSkill(uri, options),
    readSkillDirectory: async (uri, options) =>
      (await ownsSkill(uri, options.signal))
        ? own.readSkillDirectory(uri, options)
        : shared.readSkillDirectory(uri, options),
    subscribeResource: async (uri, options) =>
      (await ownsUri(uri))
        ? own.subscribeResource(uri, options)
        : shared.subscribeResource(uri, options),
    unsubscribeResource: (uri, options) =>
      (ownHost.status().some((status) => status.name === options.server)
        ? own
        : shared
      ).unsubscribeResource(uri, options),
    setLoggingLevel: async (level) => {
      await Promise.all([shared.setLoggingLevel(level), own.setLoggingLevel(level)]);
    },
    onLogMessage: (listener) => both(shared.onLogMessage(listener), own.onLogMessage(listener)),
    onResourceUpdated: (listener) =>
      both(shared.onResourceUpdated(listener), own.onResourceUpdated(listener)),
    onToolsChanged: (listener) =>
      both(shared.onToolsChanged(listener), own.onToolsChanged(listener)),
    onServersChanged: (listener) =>
      both(shared.onServersChanged(listener), own.onServersChanged(listener)),
    onListsChanged: (listener) =>
      both(shared.onListsChanged(listener), own.onListsChanged(listener)),
    connectedServers: () => [...shared.connectedServers(), ...own.connectedServers()],
    serverEra: (name) => own.serverEra(name) ?? shared.serverEra(name),
  };
}

/** `own()`, or `shared()` when the client's own host does not know the task. */
async function ownFirst<T>(own: () => Promise<T>, shared: () => Promise<T>): Promise<T> {
  try {
    return await own();
  } catch (error) {
    if (toMcpHostError(error).code !== 'TASK_NOT_FOUND') throw error;
    return shared();
  }
}

function both(a: { dispose(): void }, b: { dispose(): void }) {
  return toDisposable(() => {
    a.dispose();
    b.dispose();
  });
}
