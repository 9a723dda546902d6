import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundPolicy } from './address-policy';
import { AddressDecisionCache, guardedHttpRequest, OutboundReplyTooLargeError, OutboundRequestError, type Resolver } from './guarded-http';
import { OutboundClient } from './outbound-client';

const strict: OutboundPolicy = { use: 'tool', switchName: 'CHAT_TOOL_ALLOW_PRIVATE_NETWORKS', allowPrivateNetworks: false };
const loose: OutboundPolicy = { ...strict, allowPrivateNetworks: true };
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
    for (const url of ['http://127.0.0.1/', 'http://[::1]:81/', 'http://[::ffff:169.254.169.254]/', 'http://0x7f000001/', 'http://0/', 'http://0177.0.0.1/', 'http://[64:ff9b::7f00:1]/']) {
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

/** Exchanges with a real peer on 127.0.0.1 (loopback allowed by the policy). */
describe('guardedHttpRequest, with a peer', () => {
  let server: Server;
  let base: string;
  let held = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const path = req.url ?? '/';
      if (path === '/big') {
        // 64 KiB chunks until the client goes away; counts what was written.
        const chunk = Buffer.alloc(64 * 1024, 'a');
        res.writeHead(200, { 'content-type': 'text/plain' });
        const pump = () => {
          while (!res.destroyed && res.write(chunk)) held += chunk.length;
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      } else if (path === '/declared') {
        res.writeHead(200, { 'content-length': String(10 * 1024 * 1024) });
        res.write('x');
      } else if (path === '/drip') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const timer = setInterval(() => res.write('.'), 20);
        res.on('close', () => clearInterval(timer));
      } else if (path === '/to-metadata') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        res.end();
      } else if (path.startsWith('/to-port/')) {
        res.writeHead(307, { location: `http://127.0.0.1:${path.slice('/to-port/'.length)}/ok` });
        res.end();
      } else if (path === '/ok') {
        res.end('fine');
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('aborts a streamed reply as soon as it passes the cap, with a named error naming the cap and its variable', async () => {
    const error = await failure(guardedHttpRequest({ ...request(`${base}/big`, 5000), maxResponseBytes: 100_000, maxResponseBytesName: 'EVAL_TARGET_MAX_RESPONSE_BYTES' }, loose));
    expect(error).toBeInstanceOf(OutboundReplyTooLargeError);
    expect(error.message).toBe(`The reply from ${base}/big is over the cap; the cap is 100000 bytes (EVAL_TARGET_MAX_RESPONSE_BYTES).`);
    expect(error.detail).toBe('the reply is over the byte cap: the cap is 100000 bytes (EVAL_TARGET_MAX_RESPONSE_BYTES)');
    // The peer stops soon after: far less than it would send to a reader that kept going.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(held).toBeLessThan(20 * 1024 * 1024);
  });

  it('refuses a reply whose declared length is over the cap before reading it', async () => {
    const error = await failure(guardedHttpRequest({ ...request(`${base}/declared`), maxResponseBytes: 1024 }, loose));
    expect(error).toBeInstanceOf(OutboundReplyTooLargeError);
    expect(error.message).toMatch(/declares 10485760 bytes; the cap is 1024 bytes\.$/);
  });

  it('puts a slow drip under the one deadline of the whole exchange', async () => {
    const started = Date.now();
    expect(await failure(guardedHttpRequest({ ...request(`${base}/drip`, 300), maxResponseBytes: 1_000_000 }, loose))).toMatchObject({ code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('re-checks every redirect: to metadata refused, to this server\'s own port refused', async () => {
    expect(await failure(guardedHttpRequest(request(`${base}/to-metadata`), loose))).toMatchObject({ code: 'blocked_address', message: 'Refused to call http://169.254.169.254/latest/meta-data/: 169.254.169.254 is a metadata address; tool calls never go there.' });
    // A second server stands in for the app itself: its port is protected, the peer redirects there.
    const app = createServer((_req, res) => res.end('fine'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const appPort = (app.address() as AddressInfo).port;
    try {
      const guarded: OutboundPolicy = { ...loose, protectedLocalPorts: [appPort] };
      expect(await failure(guardedHttpRequest(request(`${base}/to-port/${appPort}`), guarded))).toMatchObject({
        code: 'blocked_address',
        message: `Refused to call http://127.0.0.1:${appPort}/ok: 127.0.0.1:${appPort} is a port of this server (the app or its database); tool calls never go there.`,
      });
      // The same redirect is followed when the port is not protected: the refusal above is the policy's.
      expect((await guardedHttpRequest(request(`${base}/to-port/${appPort}`), loose)).body.toString()).toBe('fine');
    } finally {
      await new Promise((resolve) => app.close(resolve));
    }
  });

  it('returns a 3xx as it is with returnRedirects, and cancels on the caller\'s signal', async () => {
    const reply = await guardedHttpRequest({ ...request(`${base}/to-metadata`), maxRedirects: 0, returnRedirects: true }, loose);
    expect([reply.status, reply.headers.location]).toEqual([302, 'http://169.254.169.254/latest/meta-data/']);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect((await failure(guardedHttpRequest({ ...request(`${base}/drip`, 5000), maxResponseBytes: 1_000_000, signal: controller.signal }, loose))).code).toBe('aborted');
  });

  it('keeps an allowed decision for a name a short while, pinned to the judged address: a rebinding answer cannot move the connection, and is judged once the decision runs out', async () => {
    const port = Number(new URL(base).port);
    // The rebinding answer: 127.0.0.2 at the peer's port is "the database" here (the peer listens on 127.0.0.1 only,
    // so a connection moved there would fail to connect rather than reach the peer).
    const policy: OutboundPolicy = { ...loose, protectedEndpoints: [{ host: '127.0.0.2', port }] };
    let now = 1_000_000;
    const decisions = new AddressDecisionCache(1_000, 256, () => now);
    const answers: string[] = [];
    const rebinding: Resolver = async () => {
      const address = answers.length === 0 ? '127.0.0.1' : '127.0.0.2';
      answers.push(address);
      return [{ address, family: 4 }];
    };
    const url = `http://rebind.example:${port}/ok`;
    expect((await guardedHttpRequest(request(url), policy, rebinding, decisions)).body.toString()).toBe('fine');
    // Within the decision's life: not resolved again, connected to the judged 127.0.0.1 whatever DNS would say now.
    now += 999;
    expect((await guardedHttpRequest(request(url), policy, rebinding, decisions)).body.toString()).toBe('fine');
    expect(answers).toEqual(['127.0.0.1']);
    // Past it: resolved and judged again; the rebinding answer is refused, and a refusal is never kept.
    now += 1;
    for (let attempt = 0; attempt < 2; attempt++) {
      expect(await failure(guardedHttpRequest(request(url), policy, rebinding, decisions))).toMatchObject({ code: 'blocked_address', message: `Refused to call http://rebind.example:${port}/ok: 127.0.0.2:${port} is the database's address; tool calls never go there.` });
    }
    expect(answers).toEqual(['127.0.0.1', '127.0.0.2', '127.0.0.2']);
  });

  it('judges again under a new policy: a kept decision for a literal does not outlive the policy it was made under', async () => {
    const port = Number(new URL(base).port);
    const decisions = new AddressDecisionCache();
    expect((await guardedHttpRequest(request(`${base}/ok`), loose, undefined, decisions)).body.toString()).toBe('fine');
    const guarded: OutboundPolicy = { ...loose, protectedLocalPorts: [port] };
    expect(await failure(guardedHttpRequest(request(`${base}/ok`), guarded, undefined, decisions))).toMatchObject({ code: 'blocked_address' });
    // And a redirect target is judged on every hop, kept decisions or not.
    expect(await failure(guardedHttpRequest(request(`${base}/to-metadata`), loose, undefined, decisions))).toMatchObject({ code: 'blocked_address' });
    expect(await failure(guardedHttpRequest(request(`${base}/to-metadata`), loose, undefined, decisions))).toMatchObject({ code: 'blocked_address' });
  });

  it('keeps names for no time with a TTL of 0 (resolved and judged on every request)', async () => {
    const port = Number(new URL(base).port);
    const decisions = new AddressDecisionCache(0);
    let lookups = 0;
    const resolver: Resolver = async () => {
      lookups++;
      return [{ address: '127.0.0.1', family: 4 }];
    };
    for (let call = 0; call < 3; call++) expect((await guardedHttpRequest(request(`http://peer.example:${port}/ok`), loose, resolver, decisions)).status).toBe(200);
    expect(lookups).toBe(3);
  });

  it('times a kept-decision request out and cancels it like any other', async () => {
    const decisions = new AddressDecisionCache();
    await guardedHttpRequest(request(`${base}/ok`), loose, undefined, decisions);
    const started = Date.now();
    expect(await failure(guardedHttpRequest({ ...request(`${base}/drip`, 150), maxResponseBytes: 1_000_000 }, loose, undefined, decisions))).toMatchObject({ code: 'timeout', message: 'No complete reply within 150 ms.' });
    expect(Date.now() - started).toBeLessThan(1500);
    const controller = new AbortController();
    controller.abort();
    expect(await failure(guardedHttpRequest({ ...request(`${base}/ok`), signal: controller.signal }, loose, undefined, decisions))).toMatchObject({ code: 'aborted' });
  });

  it('serves a fetch whose reply is already capped (OutboundClient.fetch)', async () => {
    const client = new OutboundClient({ ...loose, maxResponseBytes: 50_000, maxResponseBytesName: 'CHAT_LLM_MAX_RESPONSE_BYTES', defaultTimeoutMs: 5000 });
    try {
      const ok = await client.fetch()(`${base}/ok`, { method: 'GET' });
      expect([ok.status, await ok.text()]).toEqual([200, 'fine']);
      await expect(client.fetch()(`${base}/big`)).rejects.toBeInstanceOf(OutboundReplyTooLargeError);
      const manual = await client.fetch()(`${base}/to-metadata`, { redirect: 'manual' });
      expect(manual.status).toBe(302);
    } finally {
      client.close();
    }
  });
});
