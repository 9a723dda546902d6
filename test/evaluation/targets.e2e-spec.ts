import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

/** Factory: an http target body. */
function newHttpTarget(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Support bot',
    kind: 'http',
    http: { url: 'http://127.0.0.1:9/chat', headers: { Authorization: 'Bearer agent-secret-123' }, body_template: { message: '{{message}}', history: '{{history}}' }, reply_path: '$.reply' },
    ...overrides,
  };
}

describe('evaluation targets (issue 3: Target; secrets write-only)', () => {
  let testApp: TestApp;
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
  });
  afterAll(() => testApp?.close());

  it('stores an http target and never returns its header values', async () => {
    const created = await api('post', '/api/targets').send(newHttpTarget()).expect(201);
    expect(created.body).toMatchObject({ kind: 'http', secret_fields: ['headers.Authorization'], max_concurrency: 4, channel: { url: 'http://127.0.0.1:9/chat', reply_path: '$.reply' } });
    const read = await api('get', `/api/targets/${created.body.id}`).expect(200);
    const list = await api('get', '/api/targets').expect(200);
    expect(JSON.stringify([created.body, read.body, list.body])).not.toContain('agent-secret-123');

    const edited = await api('patch', `/api/targets/${created.body.id}`)
      .send({ http: { url: 'http://127.0.0.1:9/v2', body_template: { q: '{{message}}' }, reply_path: '$.answer' }, max_concurrency: 10 })
      .expect(200);
    expect(edited.body).toMatchObject({ secret_fields: ['headers.Authorization'], max_concurrency: 10, channel: { url: 'http://127.0.0.1:9/v2' } });
  });

  it('stores an openai target with a write-only key', async () => {
    const created = await api('post', '/api/targets').send({ name: 'LLM agent', kind: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'agent-1', api_key: 'sk-agent-key-999', system_prompt: 'Be kind.' } }).expect(201);
    expect(created.body).toMatchObject({ kind: 'openai', secret_fields: ['api_key'], channel: { model: 'agent-1', system_prompt: 'Be kind.' } });
    expect(JSON.stringify(created.body)).not.toContain('sk-agent-key-999');
  });

  it.each([
    ['a reply path with a script', newHttpTarget({ http: { url: 'http://127.0.0.1:9/', body_template: { m: '{{message}}' }, reply_path: '$[?(@.x)]' } })],
    ['a template without {{message}}', newHttpTarget({ http: { url: 'http://127.0.0.1:9/', body_template: { m: 'static' }, reply_path: '$.reply' } })],
    ['a non-http URL', newHttpTarget({ http: { url: 'file:///etc/passwd', body_template: { m: '{{message}}' }, reply_path: '$.reply' } })],
    ['missing settings for the kind', { name: 'x', kind: 'openai' }],
    ['settings of another kind', { ...newHttpTarget(), kind: 'openai' }],
    ['digital_staff without its settings', { name: 'x', kind: 'digital_staff' }],
    ['a concurrency over the cap', newHttpTarget({ max_concurrency: 1000 })],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await api('post', '/api/targets').send(body).expect(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('deletes and then answers 404', async () => {
    const created = await api('post', '/api/targets').send(newHttpTarget()).expect(201);
    await api('delete', `/api/targets/${created.body.id}`).expect(204);
    await api('get', `/api/targets/${created.body.id}`).expect(404);
  });
});
