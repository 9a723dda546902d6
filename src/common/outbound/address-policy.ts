import ipaddr from 'ipaddr.js';
import type { LookupAddress } from 'node:dns';

/**
 * The address policy of every outbound HTTP call (issue 19 item 1; DESIGN.md, Trust boundaries: "address policy per
 * connection, with DNS pinned and every redirect re-checked"). Every address a call would connect to — literal hosts,
 * every DNS answer, every redirect target — is judged here before any connection. Pure functions; DNS is injected.
 *
 * Verdicts ({@link addressRefusal}):
 * - cloud metadata endpoints (169.254.169.254, 169.254.170.2, 100.100.100.200, 168.63.129.16, fd00:ec2::254),
 *   link-local, multicast, broadcast and unspecified (0.0.0.0, ::) addresses are refused always;
 * - this server's own ports (the app's, the embedded database's) on a local address, and the database's host:port
 *   (DATABASE_URL), are refused always;
 * - loopback, private (RFC 1918, unique-local), shared CGNAT, site-local, documentation, benchmarking and other
 *   reserved ranges are refused unless the use's switch (e.g. CHAT_TOOL_ALLOW_PRIVATE_NETWORKS) is on;
 * - public addresses are allowed.
 * Every spelling is normalised with ipaddr.js first: decimal (2130706433), octal (0177.0.0.1), hex (0x7f.1), short
 * (127.1) IPv4; IPv4-mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) IPv6 addresses are judged by
 * the IPv4 address they carry.
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
const ALWAYS_REFUSED: ReadonlySet<AddressCategory> = new Set(['metadata', 'link-local', 'multicast', 'broadcast', 'unspecified', 'invalid']);

/** Cloud instance metadata endpoints (AWS/GCP/Azure/OpenStack, AWS ECS, Alibaba, Azure wire server, AWS IPv6). */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', '168.63.129.16', 'fd00:ec2::254']);

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
].map(([base, bits, category]) => [base as string, bits as number, category as AddressCategory]);

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

const PARSED_V4 = IPV4_RANGES.map(([base, bits, category]) => [ipaddr.IPv4.parse(base), bits, category] as const);
const PARSED_V6 = IPV6_RANGES.map(([base, bits, category]) => [ipaddr.IPv6.parse(base), bits, category] as const);

/**
 * The canonical text of an IP address in any spelling ipaddr.js reads (with or without `[]` and a `%zone`); an
 * IPv6 address carrying an IPv4 one (mapped, NAT64, 6to4) gives that IPv4 address.
 * @returns e.g. `127.0.0.1` for `0x7f.1`, `2002:7f00:1::` or `[::ffff:127.0.0.1]`; null when it is not an IP address
 */
export function normaliseAddress(input: string): string | null {
  const parsed = parseAddress(input);
  if (!parsed) return null;
  const embedded = parsed.kind() === 'ipv6' ? embeddedIpv4(parsed as ipaddr.IPv6) : null;
  return (embedded ?? parsed).toString();
}

/**
 * Classifies an IP address in any spelling (see {@link normaliseAddress}).
 * @returns its category; 'invalid' when it is not an IP address
 */
export function classifyAddress(input: string): AddressCategory {
  const parsed = parseAddress(input);
  if (!parsed) return 'invalid';
  const address = parsed.kind() === 'ipv6' ? (embeddedIpv4(parsed as ipaddr.IPv6) ?? parsed) : parsed;
  if (METADATA.has(address.toString())) return 'metadata';
  if (address.kind() === 'ipv4') {
    for (const [base, bits, category] of PARSED_V4) if ((address as ipaddr.IPv4).match(base, bits)) return category;
  } else {
    for (const [base, bits, category] of PARSED_V6) if ((address as ipaddr.IPv6).match(base, bits)) return category;
  }
  return 'public';
}

/** Whether an address is one of this machine's: loopback, unspecified, or one of `localAddresses`. */
export function isLocalAddress(input: string, localAddresses: readonly string[] = []): boolean {
  const category = classifyAddress(input);
  if (category === 'loopback' || category === 'unspecified') return true;
  const address = normaliseAddress(input);
  return address !== null && localAddresses.some((local) => normaliseAddress(local) === address);
}

/** Who calls out and under which rules: one per use (tool providers, evaluation targets, models, webhooks …). */
export interface OutboundPolicy {
  /** Noun for messages: `tool`, `evaluation target`, `model`, `webhook`, `chat platform`. */
  use: string;
  /** The variable that allows loopback and private networks for this use, named in refusals. */
  switchName: string;
  /** That variable's value. */
  allowPrivateNetworks: boolean;
  /** Ports refused on any local address (the app's own, the embedded database's). */
  protectedLocalPorts?: readonly number[];
  /** host:port pairs refused everywhere (the database's, from DATABASE_URL); hosts are IP literals or names. */
  protectedEndpoints?: readonly { host: string; port: number }[];
  /** This machine's interface addresses (os.networkInterfaces()), counted as local for protectedLocalPorts. */
  localAddresses?: readonly string[];
}

/**
 * Why a call may not connect to `address`:`port` under `policy`, or null when it may (see the module comment).
 * @param address an IP address in any spelling
 * @param port the TCP port the connection would use
 */
export function addressRefusal(address: string, port: number, policy: OutboundPolicy): string | null {
  const category = classifyAddress(address);
  const shown = normaliseAddress(address) ?? address;
  if (ALWAYS_REFUSED.has(category)) return `${shown} is a${/^[aeiou]/.test(category) ? 'n' : ''} ${category} address; ${policy.use} calls never go there`;
  if ((policy.protectedLocalPorts ?? []).includes(port) && isLocalAddress(shown, policy.localAddresses)) {
    return `${shown}:${port} is a port of this server (the app or its database); ${policy.use} calls never go there`;
  }
  if ((policy.protectedEndpoints ?? []).some((endpoint) => endpoint.port === port && normaliseAddress(endpoint.host) === shown)) {
    return `${shown}:${port} is the database's address; ${policy.use} calls never go there`;
  }
  if (category === 'public' || policy.allowPrivateNetworks) return null;
  return `${shown} is a ${category} address; ${policy.use} calls to non-public addresses are refused (${policy.switchName}=false)`;
}

/**
 * Why a call may not go to a host name at all, before it is resolved: a protected endpoint named by its host name
 * (DATABASE_URL=postgres://db:5432 protects http://db:5432), or a `localhost` name when private networks are off.
 * @returns the reason, or null
 */
export function hostNameRefusal(hostname: string, port: number, policy: OutboundPolicy): string | null {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if ((policy.protectedEndpoints ?? []).some((endpoint) => endpoint.port === port && endpoint.host.toLowerCase().replace(/\.$/, '') === name)) {
    return `${name}:${port} is the database's address; ${policy.use} calls never go there`;
  }
  if (/(^|\.)localhost$/.test(name) && (policy.protectedLocalPorts ?? []).includes(port)) {
    return `${name}:${port} is a port of this server (the app or its database); ${policy.use} calls never go there`;
  }
  return null;
}

/** Resolves a host name to all its addresses (node:dns `lookup` with `all: true`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** Why a URL's addresses were refused. */
export class OutboundAddressRefusedError extends Error {
  override readonly name = 'OutboundAddressRefusedError';
}

/** Why a host name could not be resolved. */
export class OutboundDnsError extends Error {
  override readonly name = 'OutboundDnsError';
}

/**
 * The addresses one hop to `url` may connect to: a literal host (any spelling) is judged as it is; a name is resolved
 * and EVERY answer judged — one refused answer refuses the hop. The caller connects only to the returned addresses
 * (pinned), so a second DNS answer cannot move the connection.
 * @param resolve DNS resolution (injected; tests pass a fake)
 * @returns the allowed addresses, canonical, at least one
 * @throws OutboundAddressRefusedError naming the first refused address; OutboundDnsError when resolution fails or is empty
 */
export async function allowedAddresses(url: URL, policy: OutboundPolicy, resolve: Resolver): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const literal = normaliseAddress(host);
  let addresses: LookupAddress[];
  if (literal !== null) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    const named = hostNameRefusal(host, port, policy);
    if (named) throw new OutboundAddressRefusedError(named);
    try {
      addresses = await resolve(host);
    } catch (error) {
      throw new OutboundDnsError(`Cannot resolve ${host}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
    if (addresses.length === 0) throw new OutboundDnsError(`${host} has no address.`);
  }
  for (const { address } of addresses) {
    const reason = addressRefusal(address, port, policy);
    if (reason) throw new OutboundAddressRefusedError(reason);
  }
  // Connect to the canonical form of what was judged (a mapped ::ffff:127.0.0.1 answer is dialled as judged).
  return addresses.map(({ address, family }) => ({ address: parseAddress(address)?.toString() ?? address, family }));
}

/**
 * Write-time check of a base URL a user stores (tool providers, evaluation targets, model configurations): http(s),
 * no credentials, and — when the host is an IP literal or a `localhost` name — an address the policy allows. Names
 * are resolved and checked again when called (DNS answers change): a call reuses a name's judged addresses for at
 * most a second, pinned to them (AddressDecisionCache in guarded-http.ts).
 * @param options.allowQuery false refuses a query or fragment (tool providers append paths)
 * @returns readable problems, empty when the URL may be stored
 */
export function baseUrlProblems(text: string, policy: OutboundPolicy, options: { allowQuery?: boolean; credentialsHint?: string } = {}): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return ['must be an absolute http or https URL'];
  }
  const problems: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') problems.push(`must use http or https, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) problems.push(`must not contain credentials${options.credentialsHint ? `; ${options.credentialsHint}` : ''}`);
  if (!options.allowQuery && (url.search || url.hash || text.includes('?') || text.includes('#'))) problems.push('must not have a query or fragment');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  if (!host) problems.push('must name a host');
  else if (normaliseAddress(host) !== null) {
    const reason = addressRefusal(host, port, policy);
    if (reason) problems.push(`points at ${reason}`);
  } else if (hostNameRefusal(host, port, policy)) {
    problems.push(`points at ${hostNameRefusal(host, port, policy)}`);
  } else if (/(^|\.)localhost\.?$/i.test(host) && !policy.allowPrivateNetworks) {
    problems.push(`points at ${host}, a loopback name; ${policy.use} calls to non-public addresses are refused (${policy.switchName}=false)`);
  }
  return problems;
}

function parseAddress(input: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const text = input.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  // ipaddr.js reads the classic inet_aton forms (2130706433, 0177.0.0.1, 0x7f.1, 127.1), as the WHATWG URL parser does.
  if (ipaddr.IPv4.isValid(text)) return ipaddr.IPv4.parse(text);
  if (ipaddr.IPv6.isValid(text)) return ipaddr.IPv6.parse(text);
  return null;
}

/** The IPv4 address an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4 (2002::/16) IPv6 address carries, else null. */
function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return fromWords(parts[6], parts[7]);
  if (parts[0] === 0x2002) return fromWords(parts[1], parts[2]);
  return null;
}
