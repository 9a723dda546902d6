import { baseUrlProblems, classifyAddress, refusedAddressReason } from './network-address.rules';

describe('network address classification (network-address.rules.ts)', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.169.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['169.254.1.1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['192.0.2.10', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
  ])('IPv4 %s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fd00:ec2::254', 'metadata'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['64:ff9b:1::1', 'private'],
  ])('IPv6 %s is %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:169.254.169.254]', 'metadata'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::192.168.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:0808:0808::1', 'public'],
  ])('IPv6 %s carrying an IPv4 address is judged by it: %s', (address, category) => {
    expect(classifyAddress(address)).toBe(category);
  });

  it('calls anything that is not an IP address invalid', () => {
    for (const text of ['localhost', 'example.com', '256.1.1.1', '1.2.3', '', ':::1']) expect(classifyAddress(text)).toBe('invalid');
  });

  it('refuses non-public addresses unless private networks are allowed, and metadata, multicast and broadcast always', () => {
    expect(refusedAddressReason('8.8.8.8', false)).toBeNull();
    expect(refusedAddressReason('127.0.0.1', false)).toBe('127.0.0.1 is a loopback address; tool calls to non-public addresses are refused (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false)');
    expect(refusedAddressReason('10.0.0.1', false)).toMatch(/private address/);
    expect(refusedAddressReason('::1', false)).toMatch(/loopback address/);
    expect(refusedAddressReason('0.0.0.0', false)).toMatch(/unspecified address/);
    expect(refusedAddressReason('127.0.0.1', true)).toBeNull();
    expect(refusedAddressReason('fd12::1', true)).toBeNull();
    expect(refusedAddressReason('169.254.169.254', true)).toBe('169.254.169.254 is a metadata address; tool calls never go there');
    expect(refusedAddressReason('::ffff:169.254.169.254', true)).toMatch(/metadata address; tool calls never go there/);
    expect(refusedAddressReason('224.0.0.1', true)).toMatch(/multicast/);
    expect(refusedAddressReason('not-an-ip', true)).toMatch(/invalid/);
  });
});

describe('baseUrlProblems', () => {
  it('accepts public http(s) URLs, with a path', () => {
    expect(baseUrlProblems('https://api.example.com/v1', false)).toEqual([]);
    expect(baseUrlProblems('http://8.8.8.8:8080', false)).toEqual([]);
  });

  it('refuses other schemes, credentials, queries and fragments', () => {
    expect(baseUrlProblems('ftp://example.com', false)).toEqual(['must use http or https, not ftp']);
    expect(baseUrlProblems('https://user:pw@example.com', false)).toEqual(['must not contain credentials; put them in auth (the secret is write-only)']);
    expect(baseUrlProblems('https://example.com/?key=1', false)).toEqual(['must not have a query or fragment']);
    expect(baseUrlProblems('https://example.com/#x', false)).toEqual(['must not have a query or fragment']);
    expect(baseUrlProblems('not a url', false)).toEqual(['must be an absolute http or https URL']);
  });

  it('refuses literal non-public addresses and localhost names unless allowed; metadata always', () => {
    expect(baseUrlProblems('http://127.0.0.1:3000', false)).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1 is a loopback address/)]);
    expect(baseUrlProblems('http://[::1]/', false)).toEqual([expect.stringMatching(/^points at ::1 is a loopback address/)]);
    expect(baseUrlProblems('http://[::ffff:10.0.0.1]/', false)).toEqual([expect.stringMatching(/private address/)]);
    expect(baseUrlProblems('http://0x7f.1/', false)).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1 is a loopback address/)]);
    expect(baseUrlProblems('http://2130706433/', false)).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1/)]);
    expect(baseUrlProblems('http://api.localhost/', false)).toEqual([expect.stringMatching(/loopback name/)]);
    expect(baseUrlProblems('http://LOCALHOST.:8080/', false)).toEqual([expect.stringMatching(/loopback name/)]);
    expect(baseUrlProblems('http://127.0.0.1:3000', true)).toEqual([]);
    expect(baseUrlProblems('http://localhost:3000', true)).toEqual([]);
    expect(baseUrlProblems('http://169.254.169.254/latest', true)).toEqual(['points at 169.254.169.254 is a metadata address; tool calls never go there']);
  });
});
