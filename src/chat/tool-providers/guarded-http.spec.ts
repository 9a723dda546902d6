import { guardedHttpRequest, OutboundRequestError, type Resolver } from './guarded-http';
import { refusedAddressReason } from './network-address.rules';

const strict = (address: string) => refusedAddressReason(address, false);
const request = (url: string, timeoutMs = 1000) => ({ url, method: 'GET', headers: {}, timeoutMs, maxResponseBytes: 1024, maxRedirects: 1 });

async function failure(promise: Promise<unknown>): Promise<OutboundRequestError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof OutboundRequestError) return error;
    throw error;
  }
  throw new Error('the request succeeded');
}

/** Checks made before any connection (no network is touched: every case fails before connecting). */
describe('guardedHttpRequest, before connecting', () => {
  it('checks EVERY resolved address: one refused answer refuses the call', async () => {
    const asked: string[] = [];
    const resolver: Resolver = async (host) => {
      asked.push(host);
      return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
    };
    const error = await failure(guardedHttpRequest(request('http://tools.example.com:8080/x?secret=1'), strict, resolver));
    expect(asked).toEqual(['tools.example.com']);
    expect(error.code).toBe('blocked_address');
    expect(error.message).toBe('Refused to call http://tools.example.com:8080/x: 10.0.0.7 is a private address; tool calls to non-public addresses are refused (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS=false).');
  });

  it('checks literal addresses without resolving them (IPv4, IPv6, mapped, odd IPv4 spellings)', async () => {
    const resolver: Resolver = async () => {
      throw new Error('literal hosts are not resolved');
    };
    for (const url of ['http://127.0.0.1/', 'http://[::1]:81/', 'http://[::ffff:169.254.169.254]/', 'http://0x7f000001/', 'http://0/']) {
      expect({ url, code: (await failure(guardedHttpRequest(request(url), strict, resolver))).code }).toEqual({ url, code: 'blocked_address' });
    }
  });

  it('refuses other schemes and URLs with credentials', async () => {
    expect((await failure(guardedHttpRequest(request('file:///etc/passwd'), strict))).code).toBe('invalid_url');
    expect((await failure(guardedHttpRequest(request('http://user:pw@example.com/'), strict))).code).toBe('invalid_url');
    expect((await failure(guardedHttpRequest(request('not a url'), strict))).code).toBe('invalid_url');
  });

  it('reports DNS failures and names without addresses', async () => {
    const failing: Resolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    };
    expect(await failure(guardedHttpRequest(request('http://nowhere.invalid/'), strict, failing))).toMatchObject({ code: 'dns_error', message: 'Cannot resolve nowhere.invalid: ENOTFOUND' });
    expect((await failure(guardedHttpRequest(request('http://empty.example/'), strict, async () => []))).code).toBe('dns_error');
  });

  it('counts DNS time against the deadline', async () => {
    const hanging: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    expect(await failure(guardedHttpRequest(request('http://slow-dns.example/', 50), strict, hanging))).toMatchObject({ code: 'timeout', message: 'No complete reply within 50 ms.' });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
