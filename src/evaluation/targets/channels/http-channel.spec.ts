import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ChannelError } from './channel';
import { createHttpChannel, type HttpChannelConfig, validateHttpChannelConfig } from './http-channel';
import { sendWithRetry } from './retry';
import { OutboundClient } from '../../../common/outbound/outbound-client';

/** The targets' outbound client as the app builds it, loopback allowed (the peers here run on 127.0.0.1). */
const TARGETS = new OutboundClient({
  use: 'evaluation target',
  switchName: 'EVAL_TARGET_ALLOW_PRIVATE_NETWORKS',
  allowPrivateNetworks: true,
  maxResponseBytes: 1024 * 1024,
  maxResponseBytesName: 'EVAL_TARGET_MAX_RESPONSE_BYTES',
  defaultTimeoutMs: 30_000,
});
const channelOf = (config: HttpChannelConfig) => createHttpChannel(config, TARGETS);
afterAll(() => TARGETS.close());

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 with a free port; counts the requests it got. */
async function serve(handler: Handler): Promise<{ url: string; hits: () => number; close: () => Promise<void> }> {
  let hits = 0;
  const server = createServer((request, response) => {
    hits++;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => handler(request, Buffer.concat(chunks).toString('utf8'), response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/agent`,
    hits: () => hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

async function failure(promise: Promise<unknown>): Promise<ChannelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ChannelError) return error;
    throw error;
  }
  throw new Error('expected a ChannelError');
}

const SECRET = 'sk-test-0123456789abcdef';
const request = {
  message: 'what is "2+2"?',
  history: [
    { role: 'user' as const, content: 'hello' },
    { role: 'assistant' as const, content: 'hi, how can I help?' },
  ],
  sessionId: 'case-42',
};

describe('http channel', () => {
  const servers: Array<{ close: () => Promise<void> }> = [];
  const start = async (handler: Handler) => {
    const server = await serve(handler);
    servers.push(server);
    return server;
  };
  const config = (url: string, extra: Partial<HttpChannelConfig> = {}): HttpChannelConfig => ({
    url,
    headers: { Authorization: `Bearer ${SECRET}`, 'X-Tenant': 'acme' },
    bodyTemplate: { input: '{{message}}', messages: '{{history}}', session: '{{session_id}}', context: 'past: {{history}}' },
    replyPath: '$.reply',
    ...extra,
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('posts the rendered template with the configured headers and reads the reply path', async () => {
    let seen: { method?: string; headers?: IncomingMessage['headers']; body?: unknown } = {};
    const agent = await start((req, body, res) => {
      seen = { method: req.method, headers: req.headers, body: JSON.parse(body) };
      const token = String(req.headers.authorization).split(' ')[1];
      json(res, 200, { reply: `echo: ${JSON.parse(body).input}`, debug: { authorization: req.headers.authorization, note: `token ${token}` } });
    });
    const reply = await channelOf(config(agent.url)).send(request);

    expect(reply.output).toBe('echo: what is "2+2"?');
    expect(reply.latencyMs).toEqual(expect.any(Number));
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
    expect(seen.method).toBe('POST');
    expect(seen.headers).toMatchObject({ authorization: `Bearer ${SECRET}`, 'x-tenant': 'acme', 'content-type': 'application/json' });
    expect(seen.body).toEqual({
      input: request.message,
      messages: request.history,
      session: 'case-42',
      context: `past: ${JSON.stringify(request.history)}`,
    });
    // The agent echoed the key back, whole and bare; the stored raw body must keep neither.
    expect(reply.raw).toEqual({ reply: 'echo: what is "2+2"?', debug: { authorization: '[redacted]', note: 'token [redacted]' } });
  });

  it('uses PUT when configured and stringifies a number reply', async () => {
    const agent = await start((req, _body, res) => json(res, 200, { data: { answer: 4, method: req.method } }));
    const reply = await channelOf(config(agent.url, { method: 'PUT', replyPath: '$.data.answer' })).send(request);
    expect(reply.output).toBe('4');
    expect(reply.raw).toEqual({ data: { answer: 4, method: 'PUT' } });
  });

  it('honours Retry-After on 429, then succeeds', async () => {
    const agent = await start((_req, _body, res) => {
      if (agent.hits() === 1) json(res, 429, { error: 'rate limited' }, { 'retry-after': '2' });
      else json(res, 200, { reply: 'after the wait' });
    });
    const waits: number[] = [];
    const reply = await sendWithRetry(channelOf(config(agent.url)), request, {
      attempts: 3,
      baseDelayMs: 10,
      maxDelayMs: 5_000,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(reply.output).toBe('after the wait');
    expect(waits).toEqual([2_000]);
    expect(agent.hits()).toBe(2);
  });

  it('reports a 429 as retryable with the requested delay', async () => {
    const agent = await start((_req, _body, res) => json(res, 429, { error: 'rate limited' }, { 'retry-after': '3' }));
    const error = await failure(channelOf(config(agent.url)).send(request));
    expect(error).toMatchObject({ status: 429, retryable: true, retryAfterMs: 3_000 });
    expect(error.message).toBe('target answered HTTP 429: {"error":"rate limited"}');
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    const agent = await start((_req, _body, res) => {
      if (agent.hits() === 1) json(res, 500, { error: 'boom' });
      else json(res, 200, { reply: 'recovered' });
    });
    const reply = await sendWithRetry(channelOf(config(agent.url)), request, { attempts: 3, baseDelayMs: 10, maxDelayMs: 50 });
    expect(reply.output).toBe('recovered');
    expect(agent.hits()).toBe(2);
  });

  it('times out a hanging agent as a retryable error', async () => {
    const agent = await start(() => {
      // never answers
    });
    const started = Date.now();
    const error = await failure(channelOf(config(agent.url, { timeoutMs: 200 })).send(request));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ message: 'no reply within 200 ms', retryable: true });

    const again = await failure(
      sendWithRetry(channelOf(config(agent.url, { timeoutMs: 100 })), request, { attempts: 2, baseDelayMs: 10, maxDelayMs: 10 }),
    );
    expect(again.message).toBe('no reply within 100 ms');
    expect(agent.hits()).toBe(3);
  });

  it('fails at once when the reply has no text at the reply path', async () => {
    const agent = await start((_req, _body, res) => json(res, 200, { answer: 'elsewhere' }));
    const error = await failure(sendWithRetry(channelOf(config(agent.url)), request, { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 }));
    expect(error).toMatchObject({ retryable: false, message: "reply path $.reply matched nothing in the target's reply" });
    expect(agent.hits()).toBe(1);
  });

  it('fails at once on a reply that is not JSON', async () => {
    const agent = await start((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login</html>');
    });
    const error = await failure(channelOf(config(agent.url)).send(request));
    expect(error).toMatchObject({ retryable: false, status: 200, message: 'target reply (HTTP 200) is not JSON' });
  });

  it('fails at once on 401 and keeps header values out of the message', async () => {
    const agent = await start((req, _body, res) => json(res, 401, { error: `bad key ${req.headers.authorization}` }));
    const error = await failure(sendWithRetry(channelOf(config(agent.url)), request, { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 }));
    expect(error).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toContain('HTTP 401');
    expect(error.message).not.toContain(SECRET);
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(agent.hits()).toBe(1);
  });

  it('does not follow redirects, so headers never reach another host', async () => {
    const elsewhere = await start((_req, _body, res) => json(res, 200, { reply: 'should not be reached' }));
    const agent = await start((_req, _body, res) => {
      res.writeHead(307, { location: elsewhere.url });
      res.end();
    });
    const error = await failure(channelOf(config(agent.url)).send(request));
    expect(error).toMatchObject({ status: 307, retryable: false, message: 'target answered HTTP 307 (redirects are not followed)' });
    expect(elsewhere.hits()).toBe(0);
  });

  it('reports an unreachable agent as a retryable network error', async () => {
    const agent = await start((_req, _body, res) => json(res, 200, {}));
    await agent.close();
    const error = await failure(channelOf(config(agent.url)).send(request));
    expect(error).toMatchObject({ retryable: true, message: 'could not reach the target (ECONNREFUSED)' });
  });

  it('stops when the caller cancels', async () => {
    const agent = await start(() => {
      // never answers
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const error = await failure(
      sendWithRetry(channelOf(config(agent.url)), { ...request, signal: controller.signal }, { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 }),
    );
    expect(error).toMatchObject({ retryable: false, message: 'the request was cancelled' });
    expect(agent.hits()).toBe(1);
  });
});

describe('validateHttpChannelConfig', () => {
  const valid = { url: 'https://agent.example.com/chat', headers: { 'X-Key': 'secret-value' }, bodyTemplate: { q: '{{message}}' }, replyPath: '$.reply' };

  it('accepts a usable config', () => {
    expect(validateHttpChannelConfig(valid)).toEqual([]);
    expect(validateHttpChannelConfig({ ...valid, method: 'PUT', timeoutMs: 5_000 })).toEqual([]);
  });

  it('lists every problem without quoting header values', () => {
    const problems = validateHttpChannelConfig({
      url: 'ftp://agent.example.com',
      method: 'GET',
      headers: { 'Bad Name': 'x', 'X-Key': 'secret-value\r\nInjected: 1' },
      bodyTemplate: { q: 'no placeholder' },
      replyPath: 'reply',
      timeoutMs: 0,
    });
    expect(problems).toEqual([
      'url must use http or https',
      'method must be POST or PUT',
      'header name "Bad Name" is not valid',
      'header X-Key must be a single-line string',
      'bodyTemplate must contain {{message}}',
      expect.stringMatching(/^replyPath must be a JSONPath/),
      'timeoutMs must be an integer between 1 and 600000',
    ]);
    expect(problems.join()).not.toContain('secret-value');
  });

  it('refuses missing fields, non-URLs and embedded credentials', () => {
    expect(validateHttpChannelConfig(null)).toEqual(['http channel config must be an object']);
    expect(validateHttpChannelConfig({})).toEqual(['url is required', 'bodyTemplate is required', expect.stringMatching(/^replyPath/)]);
    expect(validateHttpChannelConfig({ ...valid, url: 'not a url' })).toEqual(['url must be an absolute URL']);
    expect(validateHttpChannelConfig({ ...valid, url: 'https://user:pw@agent.example.com' })).toEqual(['url must not embed credentials']);
  });

  it('makes createHttpChannel throw on an invalid config', () => {
    expect(() => channelOf({ ...valid, url: 'file:///etc/passwd' })).toThrow('invalid http channel config: url must use http or https');
  });
});
