import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import request from 'supertest';
import { newCallbackKeys, postCallbackBody, signCallback } from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';

const API_KEY = 'bodies-eval-key-0123456789abcdef';
const MIB = 1024 * 1024;
const CALLBACK_MAX_BYTES = 4 * MIB;

/** What a raw HTTP exchange showed: the answer, and how many body bytes each side handled. */
interface RawExchange {
  status: number;
  head: string;
  body: string;
  /** Body bytes the client managed to hand to its socket before the answer and the close. */
  clientBodyBytes: number;
  /** Bytes the server's socket read in all (head and body). */
  serverBytesRead: number;
}

/**
 * Issue 19, item 4: request bodies. Every route has its own JSON body limit (big only where documents need it), JSON
 * is read only after authentication (an unauthenticated 16 MiB body is refused with 401 unread), and a depth limit
 * gives 400 problem+json instead of a stack overflow's 500. Real app over real HTTP; the raw-socket tests count the
 * bytes the server's socket read.
 */
describe('request bodies: per-route limits, read after authentication, depth limit (issue 19 item 4)', () => {
  let testApp: TestApp;
  const serverSockets: Socket[] = [];
  const evalApi = (method: 'post' | 'patch', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY).set('Content-Type', 'application/json');

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, CHAT_CALLBACK_MAX_BYTES: String(CALLBACK_MAX_BYTES), EVAL_ADMIN_PASSWORD: 'bodies-admin-password-123' });
    (testApp.app.getHttpServer() as Server).on('connection', (socket: Socket) => serverSockets.push(socket));
  }, 60_000);

  afterAll(async () => {
    await testApp?.close();
  });

  /**
   * Sends `POST path` announcing `contentLength` bytes of JSON, then streams the body as fast as the socket takes it
   * until the server answers and closes (or everything is sent). Resolves when the connection is closed.
   */
  function rawPost(path: string, contentLength: number, headers: Record<string, string> = {}): Promise<RawExchange> {
    const { port } = new URL(testApp.baseUrl);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1');
      let received = Buffer.alloc(0);
      let answered = false;
      let closed = false;
      let clientBodyBytes = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x20); // JSON white space
      const timer = setTimeout(() => socket.destroy(new Error('no answer within 10 s')), 10_000);
      socket.on('data', (data) => {
        received = Buffer.concat([received, data]);
        if (received.includes('\r\n\r\n')) answered = true;
      });
      socket.on('error', () => undefined); // EPIPE / ECONNRESET once the server closes: expected
      socket.on('close', () => {
        closed = true;
        clearTimeout(timer);
        const text = received.toString('latin1');
        const [head, body = ''] = text.split('\r\n\r\n');
        const mine = serverSockets.find((candidate) => candidate.remotePort === localPort);
        if (!answered) return reject(new Error(`the server closed without answering: ${text.slice(0, 200)}`));
        resolve({ status: Number(head.split(' ')[1]), head, body, clientBodyBytes, serverBytesRead: mine?.bytesRead ?? -1 });
      });
      let localPort: number | undefined;
      socket.on('connect', async () => {
        localPort = socket.localPort;
        const lines = [`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Content-Type: application/json', `Content-Length: ${contentLength}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
        socket.write(`${lines.join('\r\n')}\r\n\r\n`);
        while (!answered && !closed && clientBodyBytes < contentLength) {
          const part = chunk.subarray(0, Math.min(chunk.length, contentLength - clientBodyBytes));
          const flushed = socket.write(part);
          clientBodyBytes += part.length;
          if (!flushed) await new Promise((resume) => { socket.once('drain', resume); socket.once('close', resume); setTimeout(resume, 50); });
        }
      });
    });
  }

  it('refuses an unauthenticated 16 MiB body with 401 before reading it (the server answers mid-upload and closes)', async () => {
    const exchange = await rawPost('/api/scenarios', 16 * MIB);
    console.log(`[bodies] unauthenticated 16 MiB: status ${exchange.status}; client handed ${exchange.clientBodyBytes} body bytes to its socket; server socket read ${exchange.serverBytesRead} bytes`);
    expect(exchange.status).toBe(401);
    expect(exchange.head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(exchange.head).toMatch(/\r\nconnection: close/i);
    expect(JSON.parse(exchange.body)).toMatchObject({ status: 401 });
    // Answered long before the upload could finish, and the server read a small fraction of it.
    expect(exchange.clientBodyBytes).toBeLessThan(16 * MIB);
    expect(exchange.serverBytesRead).toBeGreaterThan(0);
    expect(exchange.serverBytesRead).toBeLessThan(2 * MIB);
  });

  it('refuses an authenticated body over the route limit by its Content-Length, unread (413)', async () => {
    const exchange = await rawPost('/api/targets', 16 * MIB, { 'X-API-Key': API_KEY });
    console.log(`[bodies] authenticated 16 MiB to a 1 MiB route: status ${exchange.status}; server socket read ${exchange.serverBytesRead} bytes`);
    expect(exchange.status).toBe(413);
    expect(exchange.head).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(exchange.serverBytesRead).toBeLessThan(2 * MIB);
  });

  it('gives a normal route a 1 MiB limit: 1 MiB passes to validation, 1 MiB + 1 byte is 413 problem+json', async () => {
    const bodyOf = (bytes: number) => {
      const shell = JSON.stringify({ name: 'padded', kind: 'http', description: '' });
      return shell.replace('"description":""', `"description":"${'x'.repeat(bytes - shell.length)}"`);
    };
    expect(Buffer.byteLength(bodyOf(MIB))).toBe(MIB);
    const atLimit = await evalApi('post', '/api/targets').send(bodyOf(MIB));
    expect(atLimit.status).toBe(400); // read and validated: description is too long
    expect(JSON.stringify(atLimit.body.errors)).toContain('description');
    const over = await evalApi('post', '/api/targets').send(bodyOf(MIB + 1));
    expect(over.status).toBe(413);
    expect(over.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(over.body).toMatchObject({ status: 413, detail: `The JSON body is larger than ${MIB} bytes, the limit of this route.` });
  });

  it('still accepts a big scenario (a document route: HTTP_JSON_BODY_LIMIT_BYTES) and a big update of it', async () => {
    const cases = Array.from({ length: 200 }, (_, index) => ({ id: `case-${index}`, input: `${index} ${'lorem ipsum '.repeat(1400)}`, rules: [{ type: 'contains', value: 'ipsum' }] }));
    const body = JSON.stringify({ name: 'Big scenario', cases });
    expect(Buffer.byteLength(body)).toBeGreaterThan(3 * MIB);
    const created = await evalApi('post', '/api/scenarios').send(body).expect(201);
    expect(created.body.cases).toHaveLength(200);
    const updated = await evalApi('patch', `/api/scenarios/${created.body.id}`).send(JSON.stringify({ cases: [...cases, { id: 'one-more', input: 'x', rules: [] }] })).expect(200);
    expect(updated.body.cases).toHaveLength(201);
  });

  it('answers a 10,000-deep JSON body with 400 problem+json, never 500, on authenticated and public routes', async () => {
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const deepObject = `{"cases":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`;
    for (const [path, body] of [['/api/scenarios', deep], ['/api/scenarios', deepObject], ['/api/targets', deepObject]] as const) {
      const response = await evalApi('post', path).send(body);
      expect({ path, status: response.status, type: response.headers['content-type'] }).toEqual({ path, status: 400, type: expect.stringMatching(/^application\/problem\+json/) });
      expect(response.body.detail).toBe('The JSON body is nested more than 64 levels deep (HTTP_JSON_MAX_DEPTH).');
    }
    // Public routes, and the one whose credential is in the body (read by its strategy, before the guard decides).
    for (const path of ['/api/auth/sign-in', '/api/auth/register']) {
      const response = await request(testApp.baseUrl).post(path).set('Content-Type', 'application/json').send(deepObject);
      expect({ path, status: response.status, detail: response.body.detail }).toEqual({ path, status: 400, detail: 'The JSON body is nested more than 64 levels deep (HTTP_JSON_MAX_DEPTH).' });
    }
    // 64 levels are fine: the body reaches validation.
    const ok = await evalApi('post', '/api/targets').send(`{"name":"d","kind":"http","http":${'['.repeat(63)}${']'.repeat(63)}}`);
    expect(ok.status).toBe(400);
    expect(ok.body.detail).not.toMatch(/nested/);
  });

  it('still reads the registration key from the body (a credential in the body, read by its strategy)', async () => {
    const wrong = await request(testApp.baseUrl).post('/api/auth/register').send({ registrationKey: 'not-the-key', name: 'agent' });
    expect(wrong.status).toBe(401);
    const missing = await request(testApp.baseUrl).post('/api/auth/register').send({ name: 'agent' });
    expect(missing.status).toBe(400);
  });

  it('keeps the chat platform callbacks on their own raw limit (CHAT_CALLBACK_MAX_BYTES), not the JSON one', async () => {
    await newTenant(testApp, 'acme');
    const token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    const keys = newCallbackKeys('wwbodiescorp01');
    await request(testApp.baseUrl)
      .post('/api/acme/console/workChat/corps')
      .auth(token, { type: 'bearer' })
      .send({ corpName: 'Bodies', workChatCorpId: keys.receiverId, secret: 'bodies-corp-secret-01', callbackToken: keys.token, callbackAesKey: keys.aesKey })
      .expect(200);
    const url = `${testApp.baseUrl}/api/acme/v1/workChat/callback/${keys.receiverId}`;
    // 2 MiB of XML: over the 1 MiB JSON default, under the callback limit, so it is read (and refused for its signature).
    const twoMiB = await postCallbackBody(url, signCallback(keys, 'x'), `<xml><Encrypt>${'A'.repeat(2 * MIB)}</Encrypt></xml>`);
    expect(twoMiB.status).toBe(401);
    const tooLarge = await postCallbackBody(url, signCallback(keys, 'x'), `<xml><Encrypt>${'A'.repeat(CALLBACK_MAX_BYTES)}</Encrypt></xml>`);
    expect([tooLarge.status, tooLarge.contentType]).toEqual([413, expect.stringMatching(/^application\/problem\+json/)]);
    expect(JSON.parse(tooLarge.text).detail).toBe(`The callback body is larger than ${CALLBACK_MAX_BYTES} bytes (CHAT_CALLBACK_MAX_BYTES).`);
  });
});
