import type { LookupAddress } from 'node:dns';
import { loadConfig } from '../../app.config';
import { toolOutboundSettings } from '../../chat/tool-providers/tool-providers.service';
import { addressRefusal, allowedAddresses, baseUrlProblems, classifyAddress, normaliseAddress, type OutboundPolicy, type Resolver } from './address-policy';
import type { OutboundUseSettings } from './outbound-client';

describe('address classification (address-policy.ts)', () => {
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
    for (const text of ['localhost', 'example.com', '256.1.1.1', '', ':::1', '1.2.3.4.5']) expect(classifyAddress(text)).toBe('invalid');
  });

  it.each([
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['[::ffff:7f00:1]', '127.0.0.1'],
    ['64:ff9b::7f00:1', '127.0.0.1'],
    ['2002:7f00:1::', '127.0.0.1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['FD00:EC2::254', 'fd00:ec2::254'],
  ])('normalises %s to %s (ipaddr.js)', (spelling, canonical) => {
    expect(normaliseAddress(spelling)).toBe(canonical);
  });
});

const PROTECTED = { protectedLocalPorts: [3000, 54329, 5432], protectedEndpoints: [{ host: '10.1.2.3', port: 6543 }, { host: 'db.internal', port: 5432 }], localAddresses: ['192.168.7.7'] };
const policy = (allowPrivateNetworks: boolean, use = 'tool', switchName = 'CHAT_TOOL_ALLOW_PRIVATE_NETWORKS'): OutboundPolicy => ({ use, switchName, allowPrivateNetworks, ...PROTECTED });

describe('addressRefusal', () => {
  it('refuses non-public addresses unless the switch is on; metadata, link-local, multicast, broadcast, unspecified always', () => {
    expect(addressRefusal('8.8.8.8', 80, policy(false))).toBeNull();
    expect(addressRefusal('127.0.0.1', 80, policy(false))).toBe('127.0.0.1 is a loopback address; tool calls to non-public addresses are refused (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false)');
    expect(addressRefusal('10.0.0.1', 80, policy(false))).toMatch(/private address/);
    expect(addressRefusal('::1', 80, policy(false))).toMatch(/loopback address/);
    expect(addressRefusal('127.0.0.1', 80, policy(true))).toBeNull();
    expect(addressRefusal('fd12::1', 80, policy(true))).toBeNull();
    expect(addressRefusal('169.254.169.254', 80, policy(true))).toBe('169.254.169.254 is a metadata address; tool calls never go there');
    expect(addressRefusal('::ffff:169.254.169.254', 80, policy(true))).toBe('169.254.169.254 is a metadata address; tool calls never go there');
    expect(addressRefusal('169.254.1.1', 80, policy(true))).toBe('169.254.1.1 is a link-local address; tool calls never go there');
    expect(addressRefusal('fe80::1', 80, policy(true))).toMatch(/link-local address; tool calls never go there/);
    expect(addressRefusal('0.0.0.0', 80, policy(true))).toBe('0.0.0.0 is an unspecified address; tool calls never go there');
    expect(addressRefusal('::', 80, policy(true))).toMatch(/unspecified address; tool calls never go there/);
    expect(addressRefusal('224.0.0.1', 80, policy(true))).toMatch(/multicast/);
    expect(addressRefusal('255.255.255.255', 80, policy(true))).toMatch(/broadcast/);
    expect(addressRefusal('not-an-ip', 80, policy(true))).toMatch(/invalid/);
  });

  it('refuses this server\'s ports on every local address and the database\'s host:port, whatever the switch', () => {
    for (const address of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1', '192.168.7.7']) {
      expect(addressRefusal(address, 3000, policy(true))).toMatch(/:3000 is a port of this server \(the app or its database\); tool calls never go there$/);
      expect(addressRefusal(address, 54329, policy(true))).toMatch(/is a port of this server/);
    }
    expect(addressRefusal('10.1.2.3', 6543, policy(true))).toBe("10.1.2.3:6543 is the database's address; tool calls never go there");
    // Not local, not the database: the ports are someone else's.
    expect(addressRefusal('192.168.7.8', 3000, policy(true))).toBeNull();
    expect(addressRefusal('10.1.2.3', 6544, policy(true))).toBeNull();
    expect(addressRefusal('127.0.0.1', 3001, policy(true))).toBeNull();
  });
});

/**
 * Acceptance 4 (issue 19): every outbound use × every address spelling, with its verdict under each position of the
 * use's switch. The settings are the real ones, read from the configuration declarations, so a default changed there
 * shows here. DNS is a fake: names resolve as the table says, no network is used.
 */
describe('SSRF table: every outbound use × address spellings × switch', () => {
  const DNS: Record<string, string[]> = {
    'loopback.example': ['127.0.0.1'],
    'rebind.example': ['93.184.216.34', '127.0.0.1'],
    'metadata.example': ['169.254.169.254'],
    'mapped.example': ['::ffff:127.0.0.1'],
    'public.example': ['93.184.216.34', '2606:4700::1111'],
  };
  const resolver: Resolver = async (host) => {
    const answers = DNS[host];
    if (!answers) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return answers.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  /** switched: allowed only with the switch on; never: refused under both; always: allowed under both. */
  const ROWS: [string, string, 'switched' | 'never' | 'always'][] = [
    ['decimal', 'http://2130706433/', 'switched'],
    ['octal', 'http://0177.0.0.1/', 'switched'],
    ['hex', 'http://0x7f.1/', 'switched'],
    ['short', 'http://127.1/', 'switched'],
    ['IPv6 loopback', 'http://[::1]/', 'switched'],
    ['IPv4-mapped', 'http://[::ffff:127.0.0.1]/', 'switched'],
    ['NAT64', 'http://[64:ff9b::7f00:1]/', 'switched'],
    ['6to4', 'http://[2002:7f00:1::]/', 'switched'],
    ['private', 'http://10.0.0.5:8080/', 'switched'],
    ['unique-local', 'http://[fd12::5]/', 'switched'],
    ['name resolving to loopback', 'http://loopback.example/', 'switched'],
    ['name resolving to a mapped loopback', 'http://mapped.example/', 'switched'],
    ['name with a public and a loopback answer', 'http://rebind.example/', 'switched'],
    ['redirect target on loopback (each hop is judged by this function)', 'http://127.0.0.1:8080/next', 'switched'],
    ['metadata', 'http://169.254.169.254/latest/meta-data/', 'never'],
    ['metadata, decimal', 'http://2852039166/', 'never'],
    ['metadata, IPv4-mapped', 'http://[::ffff:a9fe:a9fe]/', 'never'],
    ['metadata, NAT64', 'http://[64:ff9b::a9fe:a9fe]/', 'never'],
    ['metadata, IPv6 (AWS)', 'http://[fd00:ec2::254]/', 'never'],
    ['name resolving to metadata', 'http://metadata.example/', 'never'],
    ['link-local', 'http://169.254.10.10/', 'never'],
    ['unspecified', 'http://0.0.0.0:8080/', 'never'],
    ['unspecified, short', 'http://0/', 'never'],
    ['IPv6 unspecified', 'http://[::]/', 'never'],
    ['broadcast', 'http://255.255.255.255/', 'never'],
    ['multicast', 'http://224.0.0.251/', 'never'],
    ["the app's port on loopback", 'http://127.0.0.1:3000/api/health', 'never'],
    ["the app's port, hex spelling", 'http://0x7f.1:3000/', 'never'],
    ["the app's port by name", 'http://localhost:3000/', 'never'],
    ["the embedded database's port", 'http://[::ffff:127.0.0.1]:54329/', 'never'],
    ["the database's port (DATABASE_URL, local)", 'http://127.0.0.1:5432/', 'never'],
    ["the database's host:port by name", 'http://db.internal:5432/', 'never'],
    ['public name', 'https://public.example/v1', 'always'],
    ['public address', 'http://93.184.216.34/', 'always'],
  ];

  /** Every use, its switch, and its settings from the real declarations with the switch on and off. */
  const USES: { use: string; switchName: string; defaultOn: boolean; settings: (env: Record<string, string>) => OutboundUseSettings }[] = [
    { use: 'tool', switchName: 'CHAT_TOOL_ALLOW_PRIVATE_NETWORKS', defaultOn: false, settings: (env) => toolOutboundSettings(loadConfig(env).chatTools) },
    { use: 'chat model', switchName: 'CHAT_LLM_ALLOW_PRIVATE_NETWORKS', defaultOn: true, settings: (env) => loadConfig(env).chatOutbound.llm },
    { use: 'chat platform', switchName: 'CHAT_PLATFORM_ALLOW_PRIVATE_NETWORKS', defaultOn: true, settings: (env) => loadConfig(env).chatOutbound.platform },
    { use: 'OAuth issuer', switchName: 'CHAT_OAUTH_ALLOW_PRIVATE_NETWORKS', defaultOn: true, settings: (env) => loadConfig(env).chatOutbound.oauth },
    { use: 'evaluation target', switchName: 'EVAL_TARGET_ALLOW_PRIVATE_NETWORKS', defaultOn: true, settings: (env) => loadConfig(env).evaluationOutbound.target },
    { use: 'model', switchName: 'EVAL_MODEL_ALLOW_PRIVATE_NETWORKS', defaultOn: false, settings: (env) => loadConfig(env).evaluationOutbound.model },
    { use: 'webhook', switchName: 'EVAL_WEBHOOK_ALLOW_PRIVATE_NETWORKS', defaultOn: true, settings: (env) => loadConfig(env).evaluationOutbound.webhook },
  ];

  async function verdict(url: string, settings: OutboundUseSettings): Promise<string> {
    try {
      await allowedAddresses(new URL(url), { ...settings, ...PROTECTED }, resolver);
      return 'allowed';
    } catch (error) {
      return `refused: ${(error as Error).message}`;
    }
  }

  for (const use of USES) {
    describe(`${use.use} (${use.switchName}, default ${use.defaultOn})`, () => {
      it('has the documented default', () => {
        expect(use.settings({}).allowPrivateNetworks).toBe(use.defaultOn);
        expect([use.settings({}).use, use.settings({}).switchName]).toEqual([use.use, use.switchName]);
      });

      it.each(ROWS)('%s (%s): %s', async (_label, url, expected) => {
        const on = await verdict(url, use.settings({ [use.switchName]: 'true' }));
        const off = await verdict(url, use.settings({ [use.switchName]: 'false' }));
        if (expected === 'always') expect([on, off]).toEqual(['allowed', 'allowed']);
        if (expected === 'never') {
          expect(on).toMatch(new RegExp(`^refused: .*; ${use.use} calls never go there$`));
          expect(off).toMatch(new RegExp(`^refused: .*; ${use.use} calls never go there$`));
        }
        if (expected === 'switched') {
          expect(on).toBe('allowed');
          expect(off).toMatch(new RegExp(`^refused: .* is a [a-z-]+ address; ${use.use} calls to non-public addresses are refused \\(${use.switchName}=false\\)$`));
        }
      });
    });
  }

  it('reports DNS failures as such, not as a verdict', async () => {
    await expect(allowedAddresses(new URL('http://nowhere.example/'), policy(true), resolver)).rejects.toThrow('Cannot resolve nowhere.example: ENOTFOUND');
    await expect(allowedAddresses(new URL('http://empty.example/'), policy(true), async () => [])).rejects.toThrow('empty.example has no address.');
  });

  it('returns the judged addresses, canonical, for the connection to be pinned to', async () => {
    expect(await allowedAddresses(new URL('http://mapped.example/'), policy(true), resolver)).toEqual([{ address: '::ffff:7f00:1', family: 6 }]);
    expect(await allowedAddresses(new URL('http://0x7f.1:8080/'), policy(true), resolver)).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });
});

describe('baseUrlProblems', () => {
  const tools = (allow: boolean) => policy(allow);
  const hint = { credentialsHint: 'put them in auth (the secret is write-only)' };

  it('accepts public http(s) URLs, with a path', () => {
    expect(baseUrlProblems('https://api.example.com/v1', tools(false))).toEqual([]);
    expect(baseUrlProblems('http://8.8.8.8:8080', tools(false))).toEqual([]);
  });

  it('refuses other schemes, credentials, queries and fragments', () => {
    expect(baseUrlProblems('ftp://example.com', tools(false))).toEqual(['must use http or https, not ftp']);
    expect(baseUrlProblems('https://user:pw@example.com', tools(false), hint)).toEqual(['must not contain credentials; put them in auth (the secret is write-only)']);
    expect(baseUrlProblems('https://example.com/?key=1', tools(false))).toEqual(['must not have a query or fragment']);
    expect(baseUrlProblems('https://example.com/?key=1', tools(false), { allowQuery: true })).toEqual([]);
    expect(baseUrlProblems('https://example.com/#x', tools(false))).toEqual(['must not have a query or fragment']);
    expect(baseUrlProblems('not a url', tools(false))).toEqual(['must be an absolute http or https URL']);
  });

  it('refuses literal non-public addresses and localhost names unless allowed; metadata and own ports always', () => {
    expect(baseUrlProblems('http://127.0.0.1:3001', tools(false))).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1 is a loopback address/)]);
    expect(baseUrlProblems('http://[::1]/', tools(false))).toEqual([expect.stringMatching(/^points at ::1 is a loopback address/)]);
    expect(baseUrlProblems('http://[::ffff:10.0.0.1]/', tools(false))).toEqual([expect.stringMatching(/private address/)]);
    expect(baseUrlProblems('http://0x7f.1/', tools(false))).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1 is a loopback address/)]);
    expect(baseUrlProblems('http://2130706433/', tools(false))).toEqual([expect.stringMatching(/^points at 127\.0\.0\.1/)]);
    expect(baseUrlProblems('http://api.localhost/', tools(false))).toEqual([expect.stringMatching(/loopback name/)]);
    expect(baseUrlProblems('http://LOCALHOST.:8080/', tools(false))).toEqual([expect.stringMatching(/loopback name/)]);
    expect(baseUrlProblems('http://127.0.0.1:3001', tools(true))).toEqual([]);
    expect(baseUrlProblems('http://localhost:3001', tools(true))).toEqual([]);
    expect(baseUrlProblems('http://169.254.169.254/latest', tools(true))).toEqual(['points at 169.254.169.254 is a metadata address; tool calls never go there']);
    expect(baseUrlProblems('http://127.0.0.1:3000', tools(true))).toEqual([expect.stringMatching(/port of this server/)]);
    expect(baseUrlProblems('http://localhost:3000', tools(true))).toEqual([expect.stringMatching(/port of this server/)]);
  });
});
