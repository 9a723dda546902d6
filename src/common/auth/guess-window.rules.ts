import ipaddr from 'ipaddr.js';

/**
 * Pure rules of the guessing limits (issue 12 item 5): which client a failure is charged to, which fixed window it
 * falls in, and how long until that window ends.
 */

/** Longest client key kept (the column is varchar(64)); an unparsable address is cut to this. */
export const CLIENT_KEY_MAX_CHARS = 64;

/**
 * The key a client's failures are counted under. IPv4 addresses (also IPv4-mapped IPv6, `::ffff:1.2.3.4`) count
 * one by one; IPv6 addresses count per /64 network, because one host usually holds a whole /64 and could otherwise
 * take a fresh address for every guess.
 * @param address the request's client address (`request.ip`), possibly undefined
 * @returns e.g. `203.0.113.7`, `2001:db8:1:2::/64`, or `unknown` when there is none
 */
export function clientKeyOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return address.slice(0, CLIENT_KEY_MAX_CHARS);
  let parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}

/**
 * Start of the fixed window that `nowMs` falls in: windows are aligned to multiples of `windowMs` since the epoch,
 * so every instance agrees on them without talking to each other.
 * @param nowMs epoch ms
 * @param windowMs window length, ms (≥ 1)
 */
export function windowStartOf(nowMs: number, windowMs: number): number {
  return Math.floor(nowMs / windowMs) * windowMs;
}

/**
 * Seconds a refused client should wait, for `Retry-After`: until its window ends, rounded up, at least 1.
 * @param nowMs epoch ms
 * @param windowMs window length, ms
 */
export function retryAfterSeconds(nowMs: number, windowMs: number): number {
  const end = windowStartOf(nowMs, windowMs) + windowMs;
  return Math.max(1, Math.ceil((end - nowMs) / 1000));
}
