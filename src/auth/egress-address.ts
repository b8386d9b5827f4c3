/**
 * What an IP address is, as the egress policy of the OAuth requests sees it: the range it belongs
 * to (public, loopback, private, link-local, unspecified, reserved) whatever its spelling. IPv6
 * forms that carry an IPv4 address (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, translated
 * `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by the IPv4 address they
 * carry, so `[::ffff:7f00:1]` is loopback like `127.0.0.1`. Hostnames in URLs reach here already
 * normalised by the URL parser (`0x7f.1` and `2130706433` are `127.0.0.1` there); anything that is
 * not an IP address in canonical dotted or colon form is not an address here (`undefined`).
 */
import { isIP } from 'node:net';

/**
 * The ranges: `loopback` (127/8, ::1), `private` (RFC 1918, CGNAT 100.64/10, unique-local
 * fc00::/7, site-local fec0::/10, local-use NAT64 64:ff9b:1::/48), `link-local` (169.254/16 with
 * the cloud metadata address, fe80::/10), `unspecified` (0/8, ::), `reserved` (multicast,
 * broadcast, documentation, benchmarking, IETF, discard and Teredo ranges), else `public`.
 */
export type AddressRange =
  'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved';

/** An IP address as a number: 32 bits for IPv4, 128 for IPv6. */
export interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

/** The range `address` (an IP address, IPv6 with or without brackets and zone) belongs to. */
export function classifyAddress(address: string): AddressRange | undefined {
  const parsed = parseAddress(address);
  if (parsed === undefined) return undefined;
  const v4 = embeddedIpv4(parsed);
  if (v4 !== undefined) return classifyIpv4(v4);
  return parsed.family === 4 ? classifyIpv4(parsed.value) : classifyIpv6(parsed.value);
}

/** `address` as a number, or undefined when it is not an IP address. */
export function parseAddress(address: string): ParsedAddress | undefined {
  let text = address;
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  const family = isIP(text);
  if (family === 4) return { family: 4, value: ipv4Value(text) };
  if (family === 6) return { family: 6, value: ipv6Value(text) };
  return undefined;
}

/**
 * The IPv4 address an IPv6 one carries (mapped, compatible, translated, NAT64, 6to4), or the
 * IPv4 address itself; undefined for any other IPv6 address.
 */
export function embeddedIpv4(address: ParsedAddress): bigint | undefined {
  if (address.family === 4) return address.value;
  const value = address.value;
  const high96 = value >> 32n;
  const low32 = value & 0xffff_ffffn;
  // ::ffff:a.b.c.d (mapped) and ::ffff:0:a.b.c.d (SIIT translated).
  if (high96 === 0xffffn || high96 === 0xffff_0000n) return low32;
  // ::a.b.c.d (the deprecated compatible form), but not :: and ::1 themselves.
  if (high96 === 0n && low32 > 1n) return low32;
  // 64:ff9b::/96, the well-known NAT64 prefix: the gateway connects to the IPv4 address.
  if (high96 === 0x0064_ff9b_0000_0000_0000_0000n) return low32;
  // 2002::/16, 6to4: bits 16-48 are the relay's IPv4 address.
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffff_ffffn;
  return undefined;
}

interface Cidr {
  base: bigint;
  bits: number;
  range: AddressRange;
}

function cidr4(text: string, range: AddressRange): Cidr {
  const [base, bits] = text.split('/') as [string, string];
  return { base: ipv4Value(base), bits: Number(bits), range };
}

function cidr6(text: string, range: AddressRange): Cidr {
  const [base, bits] = text.split('/') as [string, string];
  return { base: ipv6Value(base), bits: Number(bits), range };
}

const IPV4_RANGES: readonly Cidr[] = [
  cidr4('0.0.0.0/8', 'unspecified'),
  cidr4('10.0.0.0/8', 'private'),
  cidr4('100.64.0.0/10', 'private'),
  cidr4('127.0.0.0/8', 'loopback'),
  cidr4('169.254.0.0/16', 'link-local'),
  cidr4('172.16.0.0/12', 'private'),
  cidr4('192.0.0.0/24', 'reserved'),
  cidr4('192.0.2.0/24', 'reserved'),
  cidr4('192.168.0.0/16', 'private'),
  cidr4('198.18.0.0/15', 'reserved'),
  cidr4('198.51.100.0/24', 'reserved'),
  cidr4('203.0.113.0/24', 'reserved'),
  cidr4('224.0.0.0/4', 'reserved'),
  cidr4('240.0.0.0/4', 'reserved'),
];

const IPV6_RANGES: readonly Cidr[] = [
  cidr6('::/128', 'unspecified'),
  cidr6('::1/128', 'loopback'),
  cidr6('64:ff9b:1::/48', 'private'),
  cidr6('100::/64', 'reserved'),
  cidr6('2001::/32', 'reserved'),
  cidr6('2001:db8::/32', 'reserved'),
  cidr6('fc00::/7', 'private'),
  cidr6('fe80::/10', 'link-local'),
  cidr6('fec0::/10', 'private'),
  cidr6('ff00::/8', 'reserved'),
];

function classifyIpv4(value: bigint): AddressRange {
  for (const range of IPV4_RANGES)
    if (inCidr(value, range.base, range.bits, 32)) return range.range;
  return 'public';
}

function classifyIpv6(value: bigint): AddressRange {
  for (const range of IPV6_RANGES)
    if (inCidr(value, range.base, range.bits, 128)) return range.range;
  return 'public';
}

/** Whether `value` lies in `base/bits` (both `width` bits wide). */
export function inCidr(value: bigint, base: bigint, bits: number, width: 32 | 128): boolean {
  const shift = BigInt(width - bits);
  return value >> shift === base >> shift;
}

function ipv4Value(text: string): bigint {
  let value = 0n;
  for (const part of text.split('.')) value = (value << 8n) | BigInt(Number(part));
  return value;
}

/** A valid IPv6 address (as `net.isIP` says) as its 128-bit value. */
function ipv6Value(text: string): bigint {
  let body = text;
  const lastColon = body.lastIndexOf(':');
  if (body.includes('.', lastColon)) {
    // A trailing dotted IPv4 part stands for the last two groups.
    const v4 = Number(ipv4Value(body.slice(lastColon + 1)));
    body = `${body.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const groups = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const gap = body.indexOf('::');
  let words: number[];
  if (gap === -1) {
    words = groups(body);
  } else {
    const head = groups(body.slice(0, gap));
    const rest = groups(body.slice(gap + 2));
    words = [...head, ...new Array<number>(8 - head.length - rest.length).fill(0), ...rest];
  }
  let value = 0n;
  for (const word of words) value = (value << 16n) | BigInt(word);
  return value;
}
