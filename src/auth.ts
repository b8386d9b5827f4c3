/**
 * OAuth 2.1 for remote MCP servers (Node only). Egress safety of every OAuth request, the
 * loopback redirect listener and opening the browser without a shell.
 */
export {
  createEgressFetch,
  DEFAULT_EGRESS_FETCH_OPTIONS,
  type EgressFetch,
  type EgressFetchOptions,
  type EgressLookup,
  type LookupAddress,
} from './auth/egress-fetch.js';
export { isLocalUrl, type EgressPolicyOptions } from './auth/egress-policy.js';
export {
  startLoopbackListener,
  DEFAULT_LOOPBACK_LISTENER_OPTIONS,
  type LoopbackListener,
  type LoopbackListenerOptions,
} from './auth/loopback-listener.js';
export {
  openBrowser,
  checkBrowserUrl,
  browserCommand,
  DEFAULT_OPEN_BROWSER_WAIT_MS,
  type OpenBrowserOptions,
  type OpenBrowserResult,
} from './auth/open-browser.js';
