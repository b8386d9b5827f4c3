/**
 * Which addresses the OAuth requests (discovery, registration, token, device) may reach. Public
 * addresses always; loopback and private ones only when the MCP server is itself local
 * (`serverIsLocal`) or the user lists them (`allowHosts`); link-local (the cloud metadata address
 * among them), unspecified and reserved ones only when the user lists them.
 */
import { McpHostError } from '../errors/mcp-host-error.js';
import {
  classifyAddress,
  embeddedIpv4,
  inCidr,
  parseAddress,
  type AddressRange,
} from './egress-address.js';

export interface EgressPolicyOptions {
  /**
   * The MCP server's own URL is on a loopback or private address (see `isLocalUrl`), so its
   * authorization server may be too: loopback and private addresses are allowed. Link-local,
   * unspecified and reserved addresses stay refused unless `allowHosts` lists them.
   */
  serverIsLocal?: boolean;
  /**
   * What may be reached whatever its address: host names (exact, case-insensitive: every address
   * they resolve to is allowed), IP addresses and CIDR ranges (`10.0.0.0/8`, `fd00::/8`).
   */
  allowHosts?: readonly string[];
}

/** Why an address was refused. */
export interface AddressRefusal {
  address: string;
  range: AddressRange | 'invalid';
}

interface AllowedRange {
  family: 4 | 6;
  base: bigint;
  bits: number;
}

/** The ranges a local server's authorization server may use. */
const LOCAL_RANGES: ReadonlySet<AddressRange> = new Set(['loopback', 'private']);

/** One policy, its allow-list parsed once. */
export class EgressPolicy {
  readonly #serverIsLocal: boolean;
  readonly #hosts = new Set<string>();
  readonly #ranges: AllowedRange[] = [];

  constructor(options: EgressPolicyOptions = {}) {
    this.#serverIsLocal = options.serverIsLocal === true;
    for (const entry of options.allowHosts ?? []) this.#allow(entry);
  }

  /** Why `address` (which `hostname` resolved to, or the host itself) is refused, or undefined. */
  refusal(hostname: string, address: string): AddressRefusal | undefined {
    if (this.#hosts.has(normaliseHost(hostname))) return undefined;
    const range = classifyAddress(address);
    if (range === undefined) return { address, range: 'invalid' };
    if (range === 'public') return undefined;
    if (this.#serverIsLocal && LOCAL_RANGES.has(range)) return undefined;
    if (this.#inAllowedRange(address)) return undefined;
    return { address, range };
  }

  #inAllowedRange(address: string): boolean {
    const parsed = parseAddress(address);
    if (parsed === undefined) return false;
    const v4 = embeddedIpv4(parsed);
    return this.#ranges.some((range) =>
      range.family === 4
        ? v4 !== undefined && inCidr(v4, range.base, range.bits, 32)
        : parsed.family === 6 && inCidr(parsed.value, range.base, range.bits, 128),
    );
  }

  #allow(entry: string): void {
    const slash = entry.indexOf('/');
    const parsed = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
    if (parsed === undefined) {
      if (slash !== -1 || entry.trim() === '' || /[\s/?#@]/.test(entry))
        throw new McpHostError(
          'INVALID_ARGUMENT',
          `allowHosts entry '${entry}' is not a host name, an IP address or a CIDR range`,
        );
      this.#hosts.add(normaliseHost(entry));
      return;
    }
    const width = parsed.family === 4 ? 32 : 128;
    const bits = slash === -1 ? width : Number(entry.slice(slash + 1));
    if (!Number.isInteger(bits) || bits < 0 || bits > width)
      throw new McpHostError(
        'INVALID_ARGUMENT',
        `allowHosts entry '${entry}' has an invalid prefix length (0-${width})`,
      );
    this.#ranges.push({ family: parsed.family, base: parsed.value, bits });
  }
}

/**
 * Whether a server URL points at this machine or a private network: `localhost` (and names
 * under `.localhost`), or an IP address in a loopback or private range. A name that merely
 * resolves to such an address is not local here (that needs a lookup; say so with
 * `serverIsLocal` yourself).
 */
export function isLocalUrl(url: string | URL): boolean {
  let hostname: string;
  try {
    hostname = new URL(url).hostname;
  } catch {
    return false;
  }
  const host = normaliseHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const range = classifyAddress(host);
  return range !== undefined && LOCAL_RANGES.has(range);
}

/**
 * True for `localhost`, names under `.localhost` and loopback addresses (127.0.0.0/8, `::1`, and
 * IPv4-mapped loopback): the only hosts plain http may reach and a browser may be sent to over http.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = normaliseHost(hostname);
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return classifyAddress(host) === 'loopback';
}

function normaliseHost(hostname: string): string {
  const lower = hostname.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
