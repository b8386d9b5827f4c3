/**
 * What each local failure code means: when it happens, and whether retrying the same operation can
 * ever help (`permanent: true` means never: fix the cause first). docs/errors.md documents every
 * entry; a test keeps the two in step. The root entry exports it; an error itself carries only
 * its code's permanence (codes.ts).
 */
import { PERMANENT_CODES, type ErrorCode } from './codes.js';

const WHEN: { readonly [K in ErrorCode]: string } = {
  ABORTED: "The caller's AbortSignal fired; the error's `cause` is the signal's reason.",
  REQUEST_TIMEOUT:
    "A request got no response within its idle timeout (`timeoutMs`, reset by progress when allowed) or its hard total cap (`maxTotalTimeoutMs`), or over HTTP within the headers or total deadline of its POST; `details.kind` says which ('idle', 'total', 'headers'). Also an OAuth request past its deadline ('total') and a loopback redirect listener that got no redirect in time ('redirect'). The era's cancellation is sent (never for `initialize`).",
  CONNECTION_CLOSED:
    'The connection closed (locally or by the other side) while the operation was pending, or an operation was attempted after close.',
  NOT_CONNECTED: 'An operation needed an open connection but the transport was never started.',
  CONNECT_FAILED:
    'A network connection could not be opened: refused, unreachable, a DNS or TLS failure, the server answered the WebSocket upgrade with an HTTP status instead of 101 (`details.status`) or without the `mcp` subprotocol, or a legacy HTTP+SSE stream ended before its `endpoint` event.',
  CONNECT_TIMEOUT:
    'A network connection (with its WebSocket handshake, or a legacy HTTP+SSE stream until its `endpoint` event) did not open within `connectTimeoutMs`.',
  KEEPALIVE_TIMEOUT:
    'An open connection did not answer a keep-alive ping within `keepAliveIntervalMs`; the transport closed with this reason and every pending request failed with it.',
  PROCESS_EXITED:
    "A server process exited; carries `exitCode`, `signal` and a redacted tail of the server's stderr.",
  SPAWN_FAILED:
    'A server process could not be started: command not found, permission denied, or a missing working directory. Never retried. Also reported (not thrown) by `openBrowser` when the opener is missing or exits non-zero.',
  MESSAGE_TOO_LARGE:
    'An incoming message exceeded `maxMessageBytes`; it was discarded unparsed. Over stdio the connection is kept and the request it answered fails with this code when its id could be recovered; over WebSocket the frame cannot be skipped, so the connection is closed (1009) with this code as the reason. An OAuth response over `maxResponseBytes` is cut off with this code.',
  INVALID_MESSAGE:
    'Something arrived that is not a valid message: a non-JSON line, JSON that is not JSON-RPC, or a response with both or neither of `result` and `error`; a response that is not valid JSON but shows the id of a pending request fails that request at once. Also reports a response nobody waited for (`onDiscarded`).',
  OUTBOUND_BUFFER_FULL:
    'The other side stopped reading and the bounded outgoing buffer is full; the message was not sent.',
  INVALID_ARGUMENT:
    'The caller passed something unusable: a bad option value, or a message that cannot be serialised as JSON.',
  PROTOCOL_VERSION_UNSUPPORTED:
    "The server and mcp-host share no protocol version: the server answered `initialize` with a version mcp-host does not speak, or listed only unknown versions in `server/discover` or an UnsupportedProtocolVersion (-32022) error. The message names both sides' versions.",
  PROTOCOL_VIOLATION:
    'The server broke the protocol: a malformed handshake or result (such as an `Mcp-Session-Id` that is not visible ASCII, which fails `connect()`), an input request of a kind the client never declared, or `input_required` on a method that does not allow it. Never shown to the user as a question.',
  INPUT_ROUNDS_EXCEEDED:
    'A modern request kept coming back `input_required` past the round limit (`maxInputRounds`, 8 by default).',
  INPUT_DEFERRED:
    "A modern request's input handler chose to answer later (`context.defer()`): the request is paused, not failed; `details.continuation` (the unanswered input requests, the answers already given and the server's `requestState`, as plain JSON) resumes it with `CallOptions.resume`, in this process or another.",
  CAPABILITY_NOT_SUPPORTED:
    'The operation needs a capability the server did not advertise (for example resource subscriptions), or a handler the client was not given.',
  SCHEMA_TOO_DEEP:
    "A tool's JSON Schema is nested deeper than `maxDepth` (64 levels by default); it was not compiled and only that tool is affected.",
  SCHEMA_TOO_LARGE:
    "A tool's JSON Schema is larger than `maxBytes` (256 KiB of JSON by default); it was not compiled and only that tool is affected.",
  SCHEMA_INVALID:
    "A tool's JSON Schema is not valid JSON Schema (or not JSON, or has an invalid or unresolvable local `$ref` or `pattern`); the problem says why, and only that tool is affected.",
  HTTP_STATUS:
    'An HTTP server answered with a non-2xx status (or a redirect that was not followed); `details.status` holds it and the message a redacted preview of the body (at most 1 KiB).',
  HTTP_REQUEST_FAILED:
    'An HTTP request failed after its connection was made (reset, closed mid-response) or for a reason that is not a connect failure; `details.errno` names the cause when known. Refused, DNS and TLS failures are `CONNECT_FAILED`.',
  SESSION_EXPIRED:
    'The server answered 404 to a request that carried its `Mcp-Session-Id`: the session is gone and the client must initialise again.',
  STREAM_INTERRUPTED:
    'A response stream broke before its response arrived and could not be resumed; `details.maybeExecuted` is true (the server may have run the request).',
  SERVER_UNAVAILABLE:
    'A managed server is not connected (`details.state`: disabled, restarting, needs_auth, failed, crash_loop, closed) or stopped answering health checks; the call failed at once instead of waiting for its timeout. `details.lastError` says why it is down.',
  QUEUE_FULL:
    "A server's calls in flight and its queue were both at their limits (`maxInFlight`, `maxQueue`); the call was not queued.",
  TOOL_NOT_FOUND:
    'No tool (MCP or native) has the name given to `host.callTool`, or its server was removed.',
  TASK_NOT_FOUND:
    'A task id (the tasks extension, SEP-2663) that `host.getTask`, `updateTask` or `cancelTask` cannot route (no call of this host created it, or it was forgotten), or that its server does not know (it answered -32602: unknown, or expired after its `ttlMs`). `details.taskId` names it.',
  TOOL_DENIED:
    "A tool call was refused before it was sent: the host's filter hides the tool from this caller, the caller's permissions do not include it, or the approval hook said no (`details.reason`).",
  TOOL_NOT_LOADED:
    'Tool search (`createToolSearch`): the model called a tool of the tool set that no search had loaded (or that was unloaded since). It was not run; it is loaded now, so the same call made again goes through.',
  INTERNAL:
    'An unexpected failure inside mcp-host or a handler it called; the `cause` holds the original error.',
  STATE_LOCK_TIMEOUT:
    "The state file's lock stayed held by another live process for longer than `lockTimeoutMs`, or a lease (`StateStore.lease`) stayed held by someone else for longer than the wait's `timeoutMs`; `details` names the file or the lease and the holder's pid. Nothing was read or written.",
  STATE_CORRUPT:
    "The state file is not JSON or not in the state format, and the store was made with `corruptFile: 'fail'` (by default it is moved aside and the store starts empty). The file is left as it is.",
  STATE_VERSION_UNSUPPORTED:
    'The state file was written by a newer mcp-host (its `version` is higher than this one reads; `details.version`). The file is left untouched: nothing is read from it or written to it. For the PostgreSQL store: the schema was migrated by a newer mcp-host (`details.version`, `details.supportedVersion`); the database is left as it is.',
  STATE_IO_FAILED:
    'The state file, its lock file or its directory could not be read or written (permission denied, not a directory, disk full, read-only file system); `details` names the path, the operation and the errno. For the PostgreSQL store: the server could not be reached or a statement failed; `details` names host, port, database, the operation and the errno or SQLSTATE (never the password).',
  STATE_CLOSED: 'An operation was attempted on a state store after its `close()`.',
  TOOL_QUARANTINED:
    'A call named a tool that tool pinning holds back: its definition changed since it was pinned (or it is new under the `strict` policy, or cannot be pinned). `details` carries the reason and a bounded diff (`summary`, `changes`); approving the change lifts it.',
  CONFIG_INVALID:
    'A config file or value is invalid: a syntax error, a wrong type, a missing or conflicting key. The message names file:line:column and the key path; `details.diagnostics` lists every problem found.',
  CONFIG_VARIABLE_UNSET:
    'A `${VAR}` reference without a default names an environment variable that is unset, or a model spec (`createModel`, `openai:<model>` and the like) needs its provider key variable and it is unset. The message names the file, the key path and the variable (or the spec and the variable), never a value.',
  CONFIG_INPUT_REQUIRED:
    'A `${input:id}` reference needs a value and no input provider could give one (none configured, or it declined).',
  CONFIG_READ_ONLY:
    "A config change was refused: `mcp-host servers enable|disable` was asked to edit the embedded demo config, or a server defined in another tool's file (a foreign dialect), which mcp-host reads but never writes.",
  EGRESS_REFUSED:
    "An OAuth request (discovery, registration, token, device) or a URL to open in the browser was refused before anything was sent or run: the host resolves to a loopback, private, link-local, unspecified or reserved address the policy does not allow, a redirect led to another origin or past the redirect limit, or the URL's scheme or host is not allowed; `details.reason` says which.",
  AUTH_REQUIRED:
    'A server needs an OAuth login that cannot happen on its own: no way to ask the user was given (`details.url` is the authorization URL to open, `details.scopes` what it asks for), or a 403 `insufficient_scope` came back for the same scopes more often than the step-up limit allows (`details.scopes` names them); `details.status` is the HTTP status of the refusal (401, or 403 for a step-up). Log in (or grant the scopes) and retry.',
  AUTH_FAILED:
    'An OAuth step failed or was refused: discovery found no usable metadata, the protected resource metadata names another resource, the authorization server metadata names another issuer, the server does not support PKCE S256, an authorization response had the wrong `state` (or was replayed) or the wrong `iss`, or the authorization server refused a request (`details.error` holds its OAuth error code). The message names the step and the URL, never a token, code or secret.',
  TOOL_ERROR:
    '`mcp-host call` got a result with `isError: true`: the tool ran and reported a failure. The CLI prints the result and reports this code (exit 5); the library returns such a result, it never throws it.',
  AUTH_LOGIN_REQUIRED:
    'An OAuth login is needed: the authorization server refused the refresh token (`invalid_grant`: revoked, expired or already used), so the tokens were cleared (the client registration kept), or there are no tokens, or none that can be refreshed. `details.reason` says which. The host shows the server as `needs_auth`.',
  AUTH_CLIENT_INVALID:
    'The authorization server refused the OAuth client on a token request (`invalid_client`). The tokens are kept; a dynamically registered client is registered again, a configured one must be fixed in the config.',
  AUTH_REFRESH_FAILED:
    'An OAuth token refresh failed without saying the login is over: the network, a timeout, a 5xx or 429 answer (retried with backoff first), or another refusal. The tokens are kept. `details.reason` (`network`, `timeout`, `status`, `rejected`), `details.status`, `details.oauthError` and `details.attempts` say more.',
  SKILL_VERIFICATION_FAILED:
    'A skill (the skills extension, SEP-2640) was not loaded: a file read did not match its entry (`details.check`: `size`, `digest`, `frontmatter`), had no usable content (`content`), was not listed in the entry (`unlisted`), or the entry publishes no digests (`dynamic`, unless allowed). `details` names the skill and the file; nothing after the failing file was read. Fetching the entry again (`skills/get`) can help when the skill changed.',
  SKILL_TOO_LARGE:
    'A skill was not loaded because its entry lists more files or bytes than the limits allow (`maxSkillFiles`, 512; `maxSkillBytes`, 16 MiB by default); checked before any file is read. `details` names the skill, the count and the limit.',
};

/** Every code: whether it is `permanent`, and `when` it happens. */
export const errorCodes = Object.fromEntries(
  (Object.keys(PERMANENT_CODES) as ErrorCode[]).map((code) => [
    code,
    { permanent: PERMANENT_CODES[code], when: WHEN[code] },
  ]),
) as {
  readonly [K in ErrorCode]: {
    readonly permanent: (typeof PERMANENT_CODES)[K];
    readonly when: string;
  };
};
