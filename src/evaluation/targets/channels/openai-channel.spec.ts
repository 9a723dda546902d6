import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ChannelError } from './channel';
import { createOpenAiChannel, type OpenAiChannelConfig, validateOpenAiChannelConfig } from './openai-channel';
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
const channelOf = (config: OpenAiChannelConfig) => createOpenAiChannel(config, TARGETS);
afterAll(() => TARGETS.close());

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

/** A real HTTP server on 127.0.0.1 with a free port; counts the requests it got. */
async function serve(handler: Handler): Promise<{ baseUrl: string; hits: () => number; close: () => Promise<void> }> {
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
    baseUrl: `http://127.0.0.1:${port}/v1`,
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

/** A chat.completion body as an OpenAI-compatible endpoint returns it. */
function completion(model: string, content: string | null): unknown {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_760_000_000,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
  };
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

const API_KEY = 'sk-openai-test-9876543210';
const request = {
  message: 'and in French?',
  history: [
    { role: 'user' as const, content: 'say hello' },
    { role: 'assistant' as const, content: 'hello' },
  ],
  sessionId: 'case-1',
};

describe('openai channel', () => {
  const servers: Array<{ close: () => Promise<void> }> = [];
  const start = async (handler: Handler) => {
    const server = await serve(handler);
    servers.push(server);
    return server;
  };
  const config = (baseUrl: string, extra: Partial<OpenAiChannelConfig> = {}): OpenAiChannelConfig => ({
    baseUrl,
    model: 'agent-model-1',
    apiKey: API_KEY,
    ...extra,
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('sends model, system prompt, history and message with the key, and reads the reply', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: Record<string, unknown> } = {};
    const server = await start((req, body, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body: JSON.parse(body) };
      json(res, 200, completion('agent-model-1', 'bonjour'));
    });
    const reply = await channelOf(config(server.baseUrl, { systemPrompt: 'You are terse.', temperature: 0.2 })).send(request);

    expect(reply.output).toBe('bonjour');
    expect(reply.latencyMs).toBeGreaterThanOrEqual(0);
    expect(reply.raw).toMatchObject({ id: 'chatcmpl-1', model: 'agent-model-1', usage: { total_tokens: 15 } });
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/v1/chat/completions');
    expect(seen.headers?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(seen.body).toEqual({
      model: 'agent-model-1',
      temperature: 0.2,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'say hello' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'and in French?' },
      ],
    });
  });

  it('sends no Authorization, system message, temperature or environment identifiers when not configured', async () => {
    process.env.OPENAI_ORG_ID = 'org-from-env';
    process.env.OPENAI_PROJECT_ID = 'proj-from-env';
    let seen: { headers?: IncomingMessage['headers']; body?: Record<string, unknown> } = {};
    const server = await start((req, body, res) => {
      seen = { headers: req.headers, body: JSON.parse(body) };
      json(res, 200, completion('agent-model-1', 'hi'));
    });
    try {
      const reply = await channelOf(config(server.baseUrl, { apiKey: undefined })).send({ ...request, history: [] });
      expect(reply.output).toBe('hi');
    } finally {
      delete process.env.OPENAI_ORG_ID;
      delete process.env.OPENAI_PROJECT_ID;
    }
    expect(seen.headers?.authorization).toBeUndefined();
    expect(seen.headers?.['openai-organization']).toBeUndefined();
    expect(seen.headers?.['openai-project']).toBeUndefined();
    expect(seen.body).toEqual({ model: 'agent-model-1', messages: [{ role: 'user', content: 'and in French?' }] });
  });

  it('leaves retries to sendWithRetry, which honours Retry-After on 429', async () => {
    const server = await start((_req, _body, res) => {
      if (server.hits() === 1) json(res, 429, { error: { message: 'slow down', type: 'rate_limit' } }, { 'retry-after': '1' });
      else json(res, 200, completion('agent-model-1', 'done'));
    });
    const waits: number[] = [];
    const reply = await sendWithRetry(channelOf(config(server.baseUrl)), request, {
      attempts: 3,
      baseDelayMs: 10,
      maxDelayMs: 5_000,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(reply.output).toBe('done');
    expect(waits).toEqual([1_000]);
    expect(server.hits()).toBe(2);
  });

  it('reports a 500 as retryable without retrying inside the SDK', async () => {
    const server = await start((_req, _body, res) => json(res, 500, { error: { message: 'upstream exploded' } }));
    const error = await failure(channelOf(config(server.baseUrl)).send(request));
    expect(error).toMatchObject({ status: 500, retryable: true, message: 'target answered HTTP 500: upstream exploded' });
    expect(server.hits()).toBe(1);
  });

  it('fails at once on 401 and redacts an echoed key', async () => {
    const server = await start((req, _body, res) => json(res, 401, { error: { message: `Incorrect API key: ${req.headers.authorization}` } }));
    const error = await failure(sendWithRetry(channelOf(config(server.baseUrl)), request, { attempts: 3, baseDelayMs: 10, maxDelayMs: 10 }));
    expect(error).toMatchObject({ status: 401, retryable: false, message: 'target answered HTTP 401: Incorrect API key: Bearer [redacted]' });
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(server.hits()).toBe(1);
  });

  it('times out a hanging endpoint as a retryable error', async () => {
    const server = await start(() => {
      // never answers
    });
    const started = Date.now();
    const error = await failure(channelOf(config(server.baseUrl, { timeoutMs: 200 })).send(request));
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error).toMatchObject({ retryable: true, message: 'no reply within 200 ms' });
  });

  it('fails at once on a reply without text content', async () => {
    const server = await start((_req, _body, res) => json(res, 200, completion('agent-model-1', null)));
    const error = await failure(channelOf(config(server.baseUrl)).send(request));
    expect(error).toMatchObject({ retryable: false, message: 'target reply has no choices[0].message.content text' });
  });

  it('reports an unreachable endpoint as a retryable network error', async () => {
    const server = await start((_req, _body, res) => json(res, 200, {}));
    await server.close();
    const error = await failure(channelOf(config(server.baseUrl)).send(request));
    expect(error).toMatchObject({ retryable: true, message: 'could not reach the target (ECONNREFUSED)' });
  });
});

describe('validateOpenAiChannelConfig', () => {
  it('accepts a usable config', () => {
    expect(validateOpenAiChannelConfig({ baseUrl: 'https://llm.example.com/v1', model: 'm' })).toEqual([]);
    expect(validateOpenAiChannelConfig({ baseUrl: 'http://127.0.0.1:8080/v1', model: 'm', apiKey: 'k', systemPrompt: '', temperature: 2, timeoutMs: 1 })).toEqual([]);
  });

  it('lists every problem without quoting the key', () => {
    const problems = validateOpenAiChannelConfig({ baseUrl: 'ws://llm', model: ' ', apiKey: 'sk-line\nbreak', systemPrompt: 3, temperature: 2.5, timeoutMs: 1.5 });
    expect(problems).toEqual([
      'baseUrl must use http or https',
      'model is required',
      'apiKey must be a non-empty single-line string',
      'systemPrompt must be a string',
      'temperature must be a number between 0 and 2',
      'timeoutMs must be an integer between 1 and 600000',
    ]);
    expect(problems.join()).not.toContain('sk-line');
    expect(validateOpenAiChannelConfig('x')).toEqual(['openai channel config must be an object']);
  });

  it('makes createOpenAiChannel throw on an invalid config', () => {
    expect(() => channelOf({ baseUrl: '', model: 'm' })).toThrow('invalid openai channel config: baseUrl is required');
  });
});
