import { isIP } from 'node:net';

/**
 * Address classification for outbound tool API calls (issue 6, "Configuration resources": tool calls are made "never
 * to loopback or private addresses unless allowed by configuration"). Every address a call would connect to —
 * literal hosts, every DNS answer, every redirect target — is classified here before any connection. Pure functions,
 * no I/O (DNS is resolved by the caller).
 *
 * Policy ({@link refusedAddressReason}):
 * - `public` addresses are always allowed;
 * - loopback, private (RFC 1918), shared CGNAT, link-local, unique-local, site-local, unspecified, documentation,
 *   benchmarking and other reserved ranges are refused unless CHAT_TOOL_ALLOW_PRIVATE_NETWORKS is true;
 * - cloud metadata endpoints (169.254.169.254, 169.254.170.2, 100.100.100.200, 168.63.129.16, fd00:ec2::254),
 *   multicast and broadcast are refused always: no tool API lives there.
 * IPv4-mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::/96`) and 6to4 (`2002::/16`) IPv6 addresses are judged by the IPv4
 * address they carry.
 */

/** What kind of address an IP is. */
export type AddressCategory =
  | 'public'
  | 'loopback'
  | 'private'
  | 'shared'
  | 'link-local'
  | 'unique-local'
  | 'site-local'
  | 'unspecified'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'metadata'
  | 'multicast'
  | 'broadcast'
  | 'invalid';

/** Categories refused whatever the configuration. */
const ALWAYS_REFUSED: ReadonlySet<AddressCategory> = new Set(['metadata', 'multicast', 'broadcast', 'invalid']);

/** Cloud instance metadata endpoints (AWS/GCP/Azure/OpenStack, AWS ECS, Alibaba, Azure wire server, AWS IPv6). */
const METADATA_V4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16']);
const METADATA_V6 = new Set([parseIpv6('fd00:ec2::254')]);

/** IPv4 ranges other than public, most specific first where they overlap. */
const IPV4_RANGES: [string, number, AddressCategory][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** IPv6 ranges other than public (embedded-IPv4 forms are handled before these). */
const IPV6_RANGES: [string, number, AddressCategory][] = [
  ['::1', 128, 'loopback'],
  ['::', 128, 'unspecified'],
  ['::', 96, 'reserved'],
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'reserved'],
  ['2001:db8::', 32, 'documentation'],
  ['2001::', 23, 'reserved'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

/**
 * Classifies an IP address (IPv4 dotted quad or IPv6, with or without `[]` and a `%zone`).
 * @returns its category; 'invalid' when it is not an IP address
 */
export function classifyAddress(input: string): AddressCategory {
  const address = input.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return classifyIpv4(parseIpv4(address));
  if (family !== 6) return 'invalid';
  const value = parseIpv6(address);
  const embedded = embeddedIpv4(value);
  if (embedded !== null) return classifyIpv4(embedded);
  if (METADATA_V6.has(value)) return 'metadata';
  for (const [base, bits, category] of IPV6_RANGES) if (inRange(value, parseIpv6(base), bits, 128)) return category;
  return 'public';
}

/**
 * Why a call may not connect to this address, or null when it may.
 * @param address an IP address (see {@link classifyAddress})
 * @param allowPrivateNetworks CHAT_TOOL_ALLOW_PRIVATE_NETWORKS
 */
export function refusedAddressReason(address: string, allowPrivateNetworks: boolean): string | null {
  const category = classifyAddress(address);
  if (category === 'public') return null;
  if (ALWAYS_REFUSED.has(category)) return `${address} is a ${category} address; tool calls never go there`;
  if (allowPrivateNetworks) return null;
  return `${address} is a ${category} address; tool calls to non-public addresses are refused (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false)`;
}

function classifyIpv4(value: number): AddressCategory {
  if (METADATA_V4.has(formatIpv4(value))) return 'metadata';
  for (const [base, bits, category] of IPV4_RANGES) if (inRange(BigInt(value), BigInt(parseIpv4(base)), bits, 32)) return category;
  return 'public';
}

/** The IPv4 address an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address carries, else null. */
function embeddedIpv4(value: bigint): number | null {
  if (value >> 32n === 0xffffn) return Number(value & 0xffffffffn);
  if (value >> 32n === 0x0064ff9b0000000000000000n) return Number(value & 0xffffffffn);
  if (value >> 112n === 0x2002n) return Number((value >> 80n) & 0xffffffffn);
  return null;
}

function inRange(value: bigint, base: bigint, bits: number, width: number): boolean {
  const shift = BigInt(width - bits);
  return value >> shift === base >> shift;
}

function parseIpv4(address: string): number {
  return address.split('.').reduce((total, part) => total * 256 + Number(part), 0);
}

function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
}

/** Parses a valid IPv6 address (`::` compression and a trailing dotted quad allowed) into a 128-bit integer. */
function parseIpv6(address: string): bigint {
  let text = address.toLowerCase();
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad) {
    const v4 = parseIpv4(quad[1]);
    text = `${text.slice(0, -quad[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array<string>(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((total, group) => (total << 16n) + BigInt(parseInt(group || '0', 16)), 0n);
}

/**
 * Checks a tool provider's base URL when it is written: http(s), no credentials (they belong in the provider's auth),
 * no query or fragment, and — when the host is an IP literal or a `localhost` name — an address the policy allows.
 * Host names are resolved and checked again on every call (DNS answers change).
 * @returns readable problems, empty when the URL may be stored
 */
export function baseUrlProblems(text: string, allowPrivateNetworks: boolean): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return ['must be an absolute http or https URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) problems.push('must not contain credentials; put them in auth (the secret is write-only)');
  if (url.search || url.hash || text.includes('?') || text.includes('#')) problems.push('must not have a query or fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) problems.push('must name a host');
  else if (isIP(host)) {
    const reason = refusedAddressReason(host, allowPrivateNetworks);
    if (reason) problems.push(`points at ${reason}`);
  } else if (/(^|\.)localhost\.?$/i.test(host) && !allowPrivateNetworks) {
    problems.push(`points at ${host}, a loopback name; tool calls to non-public addresses are refused (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false)`);
  }
  return problems;
}
