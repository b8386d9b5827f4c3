/**
 * The `mcp-host` program: global options and every command, with its arguments, options and
 * description, in `--help` order. What a command does is in commands/<group>.ts, imported when
 * the command runs (its own chunk in dist/): starting the CLI loads commander and this file, and a
 * command then loads what it uses, no more (`tools` on a JSON config: neither yaml, nor the
 * config writers, nor the other commands).
 */
import { Argument, Command, InvalidArgumentError, Option } from 'commander';
import { delimiter } from 'node:path';
import { action } from './command.js';
import type { AgentCommandOptions } from './commands/agent.js';
import type { ApiServeOptions } from './commands/api.js';
import type { CallCommandOptions } from './commands/call.js';
import type { GatewayServeOptions } from './commands/gateway.js';
import type { ApproveCommandOptions, ToolsCommandOptions } from './commands/tools.js';
import { completionShells, type CompletionShell } from './completion-script.js';
import { importDialects, printDialects } from './dialect-choices.js';
import { parseDuration } from './duration.js';
import { DEFAULT_CLI_CONCURRENCY, parseConcurrency } from './global-options.js';
import { wantsJsonErrors } from './usage-errors.js';

export const CLI_VERSION = '0.1.0';

const agentCommand = () => import('./commands/agent.js');
const apiCommand = () => import('./commands/api.js');
const authCommand = () => import('./commands/auth.js');
const clientMetadataCommand = () => import('./commands/auth-client-metadata.js');
const callCommand = () => import('./commands/call.js');
const completionCommand = () => import('./commands/completion.js');
const configCommand = () => import('./commands/config.js');
const doctorCommand = () => import('./commands/doctor.js');
const gatewayCommand = () => import('./commands/gateway.js');
const promptsCommand = () => import('./commands/prompts.js');
const resourcesCommand = () => import('./commands/resources.js');
const serversCommand = () => import('./commands/servers.js');
const toolsCommand = () => import('./commands/tools.js');
const watchCommand = () => import('./commands/watch.js');

/** Repeatable `--arg <key=value>` values, in order. */
const collect = (value: string, previous: string[] = []) => [...previous, value];

/** A whole number, 1 or more. */
function parseCount(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1)
    throw new InvalidArgumentError(`'${value}' is not a whole number of at least 1`);
  return n;
}

/** A TCP port, 0 (a free one) to 65535. */
function parsePort(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n > 65_535)
    throw new InvalidArgumentError(`'${value}' is not a port (0 for a free one, up to 65535)`);
  return n;
}

/** A whole number of bytes, 0 or more. */
function parseByteCount(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw new InvalidArgumentError(`'${value}' is not a whole number of bytes (0 or more)`);
  return n;
}

export function createProgram(): Command {
  const program = new Command('mcp-host')
    .description('Run, inspect and call Model Context Protocol servers from one config.')
    .version(CLI_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  // In JSON mode a parse error is one JSON line (main.ts writes it): commander's text is held back.
  const text = () => !wantsJsonErrors(program, process.argv.slice(2));
  program.configureOutput({
    outputError: (message, write) => {
      if (text()) write(message);
    },
    writeErr: (message) => {
      if (text()) process.stderr.write(message);
    },
  });
  addGlobalOptions(program);
  addServers(program);
  addTools(program);
  addCall(program);
  addResources(program);
  addPrompts(program);
  addAgent(program);
  addConfig(program);
  addDoctor(program);
  addAuth(program);
  addWatch(program);
  addGateway(program);
  addApi(program);
  addCompletion(program);
  return program;
}

/**
 * The global options, on the program so they are taken before or after the command, each also
 * read from an `MCP_HOST_*` environment variable (the command line wins). Their values are read by
 * global-options.ts (which the quick path, quick/quick-command.ts, reads them with as well).
 */
function addGlobalOptions(program: Command): void {
  program
    .addOption(
      new Option('-c, --config <file>', 'a config file (repeatable; merged in order)')
        .env('MCP_HOST_CONFIG')
        .argParser((value: string, previous: string[] | undefined) => [
          ...(previous ?? []),
          ...value.split(delimiter).filter((part) => part !== ''),
        ]),
    )
    .addOption(
      new Option('--format <format>', 'output format')
        .choices(['table', 'json'])
        .env('MCP_HOST_FORMAT'),
    )
    .addOption(new Option('--json', 'same as --format json').env('MCP_HOST_JSON'))
    .addOption(
      new Option('--timeout <duration>', 'connect and request timeout, e.g. 3s, 500ms')
        .env('MCP_HOST_TIMEOUT')
        .argParser(durationArgument),
    )
    .addOption(
      new Option(
        '--concurrency <n>',
        `servers connecting at once (default ${DEFAULT_CLI_CONCURRENCY})`,
      )
        .env('MCP_HOST_CONCURRENCY')
        .argParser(commanderArgument(parseConcurrency)),
    )
    .addOption(new Option('-v, --verbose', 'more detail on stderr').env('MCP_HOST_VERBOSE'))
    .addOption(new Option('-q, --quiet', 'no notices or progress on stderr').env('MCP_HOST_QUIET'))
    .addOption(new Option('--no-color', 'no colours (also NO_COLOR)').env('MCP_HOST_NO_COLOR'));
}

/** `parseDuration` as a commander argument parser: a bad duration is commander's usage error. */
const durationArgument = commanderArgument(parseDuration);

/** A parser that throws an `Error` as a commander argument parser (its usage error). */
function commanderArgument<T>(parse: (value: string) => T): (value: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

function addServers(program: Command): void {
  const servers = program
    .command('servers')
    .description('the configured servers (default: status)')
    .action(action(async (cli) => (await serversCommand()).status(cli)));
  servers
    .command('list')
    .description('the servers in the config, without connecting (instant)')
    .action(action(async (cli) => (await serversCommand()).list(cli)));
  servers
    .command('status')
    .description('connect every server (within --timeout) and show its state')
    .action(action(async (cli) => (await serversCommand()).status(cli)));
  servers
    .command('enable <name>')
    .description("set `enabled: true` in the server's config file")
    .action(action(async (cli, [name]) => (await serversCommand()).setEnabled(cli, name!, true)));
  servers
    .command('disable <name>')
    .description("set `enabled: false` in the server's config file")
    .action(action(async (cli, [name]) => (await serversCommand()).setEnabled(cli, name!, false)));
  servers
    .command('restart <name>')
    .description('connect a server, restart it and show its status')
    .action(action(async (cli, [name]) => (await serversCommand()).restart(cli, name!)));
}

function addTools(program: Command): void {
  const tools = program
    .command('tools [server]')
    .description('the tools of every server (or one)')
    .option('--view <name>', "only the tools of this view of the config ('views:')")
    .option('--quarantined', 'the tools the pin check holds back, with their pins and changes')
    .action(
      action<ToolsCommandOptions>(async (cli, [server], options) =>
        (await toolsCommand()).tools(cli, server, options),
      ),
    );
  tools
    .command('approve <server> <tool>')
    .description(
      "approve a quarantined tool's changed definition in the configured state store (`state:`), for every host sharing it",
    )
    .option('--pin <pin>', 'only the held definition with this pin (see tools --quarantined)')
    .action(
      action<ApproveCommandOptions>(async (cli, [server, tool], options) =>
        (await toolsCommand()).approve(cli, server!, tool!, options),
      ),
    );
  program
    .command('inspect <target>')
    .description('a server (<server>) or one tool (<server>/<tool>): names, descriptions, schemas')
    .action(action(async (cli, [target]) => (await toolsCommand()).inspect(cli, target!)));
}

function addCall(program: Command): void {
  program
    .command('call <tool> [stdin]')
    .description(
      "call a tool: <server>/<tool> or its exposed name; '-' reads JSON arguments from stdin",
    )
    .option('--args <json>', "the arguments as a JSON object ('-': from stdin)")
    .option('--arg <key=value>', "one argument, typed by the tool's schema (repeatable)", collect)
    .option('--raw', 'print the whole result as JSON, as the server returned it (no budget)')
    .option(
      '--view <name>',
      "call through this view of the config ('views:'): its filters and budget",
    )
    .option(
      '--max-result-bytes <bytes>',
      "the result budget: a longer result is cut (default: none with --raw, else the config's defaults.maxResultBytes, else 1 MiB; 0: no limit)",
      parseByteCount,
    )
    .action(
      action<CallCommandOptions>(async (cli, [target, stdin], options) =>
        (await callCommand()).call(cli, target!, stdin, options),
      ),
    );
}

function addResources(program: Command): void {
  program
    .command('resources [server]')
    .description('the resources of every server (or one)')
    .action(action(async (cli, [server]) => (await resourcesCommand()).resources(cli, server)));
  program
    .command('read <uri>')
    .description('read a resource (routed to the server that lists it; --server to choose)')
    .option('-s, --server <name>', 'the server to read it from')
    .action(
      action<{ server?: string }>(async (cli, [uri], options) =>
        (await resourcesCommand()).read(cli, uri!, options.server),
      ),
    );
}

function addPrompts(program: Command): void {
  program
    .command('prompts [server]')
    .description('the prompts of every server (or one)')
    .action(action(async (cli, [server]) => (await promptsCommand()).prompts(cli, server)));
  program
    .command('prompt <name>')
    .description('get a prompt: <server>/<prompt> or its exposed name')
    .option('--arg <key=value>', 'one argument (repeatable)', collect)
    .action(
      action<{ arg?: string[] }>(async (cli, [name], options) =>
        (await promptsCommand()).prompt(cli, name!, options.arg ?? []),
      ),
    );
}

function addAgent(program: Command): void {
  program
    .command('agent [prompt]')
    .description(
      "run an agent on a prompt with the servers' tools; prints its final answer ('-': the prompt from stdin)",
    )
    .addOption(
      new Option(
        '-m, --model <spec>',
        "openai:<model>, openai-responses:<model>, anthropic:<model> or gemini:<model> (key from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY), or a URL; with --base-url, the server's model name (default 'default')",
      ).env('MCP_HOST_MODEL'),
    )
    .addOption(
      new Option(
        '--base-url <url>',
        "an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (no key needed), or the API URL of --model's provider",
      ).env('MCP_HOST_BASE_URL'),
    )
    .option('--view <name>', "only the tools of this view of the config ('views:')")
    .option('--system <text>', 'the system prompt (default: none)')
    .option(
      '--max-steps <n>',
      'model calls at most (default 20); exit 6 if they end without a final answer',
      parseCount,
    )
    .option(
      '--max-tokens <n>',
      'token budget of the run, as the model reports usage (default: none); exit 6 when it is spent',
      parseCount,
    )
    .option(
      '--tool-search',
      'offer a search tool that loads the tools the model asks for (large catalogues)',
    )
    .option(
      '--allow-sampling',
      "answer servers' sampling requests with the model without asking (on a terminal each is asked)",
    )
    .option(
      '--resume <file>',
      'go on with a paused run: the file its {"pending": ...} was printed to (\'-\': stdin)',
    )
    .option(
      '--answer <json>',
      'with --resume: the answer to its question (an ElicitResult, or the form content alone)',
    )
    .action(
      action<AgentCommandOptions>(async (cli, [prompt], options) =>
        (await agentCommand()).runAgent(cli, prompt, options),
      ),
    );
}

function addConfig(program: Command): void {
  const config = program
    .command('config')
    .description('check, show, import and convert config files');
  config
    .command('validate [files...]')
    .description(
      'check config files (default: --config, else the discovered ones); exit 1 on errors',
    )
    .action(action(async (cli, files) => (await configCommand()).validate(cli, files)));
  config
    .command('show')
    .description('the merged config as mcp.yaml, secrets masked')
    .option('--show-secrets', 'show secret values as written (the output then holds secrets)')
    .action(
      action<{ showSecrets?: boolean }>(async (cli, _args, options) =>
        (await configCommand()).show(cli, options),
      ),
    );
  config
    .command('import [file]')
    .description("another tool's config as mcp.yaml (a backup of an existing one is kept)")
    .addOption(
      new Option('--from <tool>', 'the tool the file comes from')
        .choices(importDialects)
        .makeOptionMandatory(),
    )
    .option('-o, --out <file>', 'where to write (default ./mcp.yaml; a .json name writes JSON)')
    .option('--dry-run', 'print the result instead of writing it (secrets masked)')
    .option('--show-secrets', 'with --dry-run: print secret values as written')
    .option('--allow-partial', 'write the servers that were read although others were left out')
    .action(
      action<{
        from: string;
        out?: string;
        dryRun?: boolean;
        showSecrets?: boolean;
        allowPartial?: boolean;
      }>(async (cli, [file], options) => (await configCommand()).importCommand(cli, file, options)),
    );
  config
    .command('print')
    .description("the merged config in another tool's format")
    .addOption(
      new Option('--for <dialect>', 'the target format')
        .choices(printDialects)
        .makeOptionMandatory(),
    )
    .option('--show-secrets', 'secret values as written (needed for a file to use)')
    .option('--allow-partial', 'exit 0 although servers the format cannot hold were left out')
    .option(
      '--gateway',
      "instead: the client's entry for mcp-host's gateway as its one server (see docs/gateway.md)",
    )
    .addOption(
      new Option('--transport <transport>', 'with --gateway: how the client reaches it').choices([
        'stdio',
        'http',
      ]),
    )
    .option('--port <n>', "with --gateway: the HTTP gateway's port", parsePort)
    .option('--host <address>', "with --gateway: the HTTP gateway's address")
    .option('--view <name>', "with --gateway: only this view of the config ('views:')")
    .action(
      action<{
        for: string;
        showSecrets?: boolean;
        allowPartial?: boolean;
        gateway?: boolean;
        transport?: 'stdio' | 'http';
        port?: number;
        host?: string;
        view?: string;
      }>(async (cli, _args, { for: dialect, showSecrets, allowPartial, ...gateway }) =>
        (await configCommand()).print(cli, dialect, {
          reveal: showSecrets === true,
          allowPartial: allowPartial === true,
          gateway,
        }),
      ),
    );
}

function addDoctor(program: Command): void {
  program
    .command('doctor [servers...]')
    .description(
      'check each server (command, variables, handshake, tools, auth) and say what to fix',
    )
    .action(
      action(async (cli, servers, _options, command) =>
        (await doctorCommand()).doctor(cli, servers, command),
      ),
    );
}

function addAuth(program: Command): void {
  const auth = program
    .command('auth')
    .description('OAuth logins of the servers with `oauth:` (kept in the state file)');
  auth
    .command('login <server>')
    .description(
      'print the authorization URL, open a browser, wait for the redirect (or a pasted redirect URL)',
    )
    .option('--no-browser', 'do not try to open a browser (print the URL only)')
    .option(
      '--device',
      'use the device authorization grant: show a code to enter on any device (no redirect)',
    )
    .option(
      '--wait <duration>',
      'how long to wait for the login (default 5m; with --device, until the code expires)',
      durationArgument,
    )
    .option(
      '--as <client>',
      "log in as the gateway's named client (gateway: clients:), into that client's token store",
    )
    .action(
      action<{ browser?: boolean; wait?: number; device?: boolean; as?: string }>(
        async (cli, [server], options) =>
          (await authCommand()).authLogin(cli, server!, {
            browser: options.browser !== false,
            ...(options.as === undefined ? {} : { as: options.as }),
            ...(options.device === true ? { device: true } : {}),
            ...(options.wait === undefined ? {} : { waitMs: options.wait }),
          }),
      ),
    );
  auth
    .command('logout [server]')
    .description(
      "forget a server's tokens, or every OAuth server's (the client registration stays)",
    )
    .action(action(async (cli, [server]) => (await authCommand()).authLogout(cli, server)));
  auth
    .command('status [server]')
    .description('per OAuth server: tokens held, expiry, scopes, issuer (never a token)')
    .action(action(async (cli, [server]) => (await authCommand()).authStatus(cli, server)));
  auth
    .command('client-metadata <server>')
    .description(
      "print the Client ID Metadata Document to host at the server's oauth.clientMetadataUrl",
    )
    .option('--check', 'fetch the hosted document and list what would be refused (exit 1 if any)')
    .action(
      action<{ check?: boolean }>(async (cli, [server], options) =>
        (await clientMetadataCommand()).authClientMetadata(cli, server!, {
          check: options.check === true,
        }),
      ),
    );
}

function addWatch(program: Command): void {
  program
    .command('watch [servers...]')
    .description(
      'a live view of server states and tool calls until Ctrl-C (NDJSON with --format json)',
    )
    .action(action(async (cli, servers) => (await watchCommand()).watch(cli, servers)));
}

function addGateway(program: Command): void {
  const gateway = program
    .command('gateway')
    .description("the config's servers as one MCP server (see docs/gateway.md)");
  gateway
    .command('serve')
    .description(
      'serve them as one MCP server, on stdio until the client goes away, or over HTTP at /mcp until Ctrl-C (logs on stderr)',
    )
    .option('--view <name>', "serve only this view of the config ('views:')")
    .addOption(
      new Option(
        '--transport <transport>',
        "how clients reach it (default: stdio, or http when the config's gateway: names a port)",
      ).choices(['stdio', 'http']),
    )
    .option('--port <n>', 'HTTP: the port (default 0: a free one, printed)', parsePort)
    .option('--host <address>', 'HTTP: the address to bind (default 127.0.0.1)')
    .option('--no-auth', 'HTTP: no bearer token (loopback addresses only)')
    .addOption(
      new Option(
        '--replica-id <id>',
        'which replica of a fleet this is: the mcp-host-replica header, and a /metrics label (default <hostname>-<pid>)',
      ).env('MCP_HOST_REPLICA_ID'),
    )
    .option(
      '--otel',
      'report traces and metrics to the OpenTelemetry SDK this process registered (needs @opentelemetry/api; docs/observability.md)',
    )
    .action(
      action<GatewayServeOptions>(async (cli, _args, options) =>
        (await gatewayCommand()).serve(cli, options),
      ),
    );
}

function addApi(program: Command): void {
  const api = program
    .command('api')
    .description("the gRPC management API over the config's servers (see docs/grpc.md)");
  api
    .command('serve')
    .description(
      "serve it until Ctrl-C: on the config's api: places, else a Unix socket in the state directory (logs on stderr)",
    )
    .option('--socket <path>', 'listen on this Unix socket (made mode 0600)')
    .option(
      '--port <n>',
      'listen on 127.0.0.1 at this port (0: a free one), with the token',
      parsePort,
    )
    .option(
      '--allow-stdio-registration',
      'let clients register stdio servers (they run commands on this machine)',
    )
    .option('--reflection', 'serve gRPC server reflection (for grpcurl; behind the token)')
    .action(
      action<ApiServeOptions>(async (cli, _args, options) =>
        (await apiCommand()).serveApi(cli, options),
      ),
    );
}

function addCompletion(program: Command): void {
  program
    .command('completion')
    .description('a shell completion script (commands, server and tool names)')
    .addArgument(new Argument('<shell>', 'the shell').choices(completionShells))
    .action(
      action(async (_cli, [shell]) =>
        (await completionCommand()).completion(program, shell as CompletionShell),
      ),
    );
  program
    .command('__complete <what>', { hidden: true })
    .action(action(async (cli, [what]) => (await completionCommand()).complete(cli, what ?? '')));
}
