import { clientKeyOf, retryAfterSeconds, windowStartOf } from './guess-window.rules';

describe('guess-window rules', () => {
  it('counts IPv4 and IPv4-mapped addresses one by one', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('127.0.0.1')).not.toBe(clientKeyOf('127.0.0.2'));
  });

  it('counts IPv6 addresses per /64, so a host cannot rotate through its own network', () => {
    expect(clientKeyOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe(clientKeyOf('2001:db8:1:2::1'));
    expect(clientKeyOf('2001:db8:1:3::1')).not.toBe(clientKeyOf('2001:db8:1:2::1'));
    expect(clientKeyOf('[fe80::1%eth0]')).toBe('fe80::/64');
  });

  it('keeps unknown and unparsable addresses bounded', () => {
    expect(clientKeyOf(undefined)).toBe('unknown');
    expect(clientKeyOf('x'.repeat(500))).toHaveLength(64);
  });

  it('aligns windows to the epoch and answers the seconds left, at least 1', () => {
    expect(windowStartOf(1_000_123, 60_000)).toBe(960_000);
    expect(retryAfterSeconds(960_000, 60_000)).toBe(60);
    expect(retryAfterSeconds(1_019_001, 60_000)).toBe(1);
    expect(retryAfterSeconds(1_019_999, 60_000)).toBe(1);
    expect(retryAfterSeconds(990_500, 60_000)).toBe(30);
  });
});
