import request from 'supertest';
import { signSessionToken } from '../../src/evaluation/auth/session-token';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';
const PASSWORD = 'admin-password-123';
const SESSION_SECRET = 'eval-session-secret-0123456789abcdefghij';

describe('evaluation platform: credentials and model configurations (evaluation-platform.md, Authentication, rule 5)', () => {
  let testApp: TestApp;
  const api = () => request(testApp.baseUrl);

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_ADMIN_PASSWORD: PASSWORD, EVAL_SESSION_SECRET: SESSION_SECRET, EVAL_SIGN_IN_MAX_FAILURES: '3' });
  });
  afterAll(() => testApp?.close());

  describe('auth', () => {
    it('accepts an API key and refuses a wrong one or none', async () => {
      await api().get('/api/model-configs').set('X-API-Key', API_KEY).expect(200);
      await api().get('/api/model-configs').set('X-API-Key', 'wrong-key-wrong-key-wrong').expect(401);
      const none = await api().get('/api/model-configs').expect(401);
      expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('signs in and accepts the session token; refuses tampered and expired tokens', async () => {
      const session = await api().post('/api/auth/sign-in').send({ password: PASSWORD }).expect(200);
      expect(new Date(session.body.expiresAt).getTime()).toBeGreaterThan(Date.now());
      await api().get('/api/model-configs').set('Authorization', `Bearer ${session.body.token}`).expect(200);

      const [payload, signature] = session.body.token.split('.');
      const tampered = Buffer.from(JSON.stringify({ sub: 'admin', iat: 0, exp: Date.now() + 86_400_000 * 365 })).toString('base64url');
      await api().get('/api/model-configs').set('Authorization', `Bearer ${tampered}.${signature}`).expect(401);
      await api().get('/api/model-configs').set('Authorization', `Bearer ${payload}.${signature}x`).expect(401);

      const expired = signSessionToken('admin', SESSION_SECRET, 60_000, Date.now() - 120_000);
      await api().get('/api/model-configs').set('Authorization', `Bearer ${expired.token}`).expect(401);
      const valid = signSessionToken('admin', SESSION_SECRET, 60_000);
      await api().get('/api/model-configs').set('Authorization', `Bearer ${valid.token}`).expect(200);
    });

    it('rate-limits failed sign-ins per address', async () => {
      for (let attempt = 0; attempt < 3; attempt++) await api().post('/api/auth/sign-in').send({ password: 'not-the-password' }).expect(401);
      await api().post('/api/auth/sign-in').send({ password: 'not-the-password' }).expect(429);
      await api().post('/api/auth/sign-in').send({ password: PASSWORD }).expect(429);
    });
  });

  describe('model configurations', () => {
    const withKey = (test: request.Test) => test.set('X-API-Key', API_KEY);
    const create = (body: object) => withKey(api().post('/api/model-configs')).send({ base_url: 'http://127.0.0.1:9/v1', model: 'm', ...body });

    it('creates, reads, updates and deletes, never returning the API key', async () => {
      const created = await create({ name: 'judge', api_key: 'sk-secret-value', purpose: 'judge' }).expect(201);
      expect(created.body).toMatchObject({ name: 'judge', has_api_key: true, type: 'chat', enabled: true, is_analysis_default: false });
      expect(JSON.stringify(created.body)).not.toContain('sk-secret-value');
      const read = await withKey(api().get(`/api/model-configs/${created.body.id}`)).expect(200);
      expect(JSON.stringify(read.body)).not.toContain('sk-secret-value');
      const updated = await withKey(api().patch(`/api/model-configs/${created.body.id}`)).send({ model: 'm2' }).expect(200);
      expect(updated.body).toMatchObject({ model: 'm2', has_api_key: true });
      const cleared = await withKey(api().patch(`/api/model-configs/${created.body.id}`)).send({ api_key: '' }).expect(200);
      expect(cleared.body.has_api_key).toBe(false);
      await withKey(api().delete(`/api/model-configs/${created.body.id}`)).expect(204);
      await withKey(api().get(`/api/model-configs/${created.body.id}`)).expect(404);
      await create({ name: 'bad', provider: 'azure' }).expect(400);
      await create({ name: 'bad', base_url: 'ftp://x' }).expect(400);
    });

    it('allows only an enabled chat configuration to be the analysis default (rule 5)', async () => {
      await create({ name: 'embedder', type: 'embedding', is_analysis_default: true }).expect(400);
      await create({ name: 'off', enabled: false, is_analysis_default: true }).expect(400);
      const holder = await create({ name: 'analyst', is_analysis_default: true }).expect(201);
      await withKey(api().patch(`/api/model-configs/${holder.body.id}`)).send({ enabled: false }).expect(400);
      const next = await create({ name: 'analyst-2', is_analysis_default: true }).expect(201);
      expect(next.body.is_analysis_default).toBe(true);
      const previous = await withKey(api().get(`/api/model-configs/${holder.body.id}`)).expect(200);
      expect(previous.body.is_analysis_default).toBe(false);
    });

    it('keeps exactly one analysis default under concurrent requests', async () => {
      const ids = await Promise.all(['c1', 'c2', 'c3', 'c4'].map(async (name) => (await create({ name }).expect(201)).body.id as string));
      const responses = await Promise.all(ids.map((id) => withKey(api().patch(`/api/model-configs/${id}`)).send({ is_analysis_default: true })));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      const all = await withKey(api().get('/api/model-configs')).query({ size: 200 }).expect(200);
      const defaults = all.body.content.filter((row: { is_analysis_default: boolean }) => row.is_analysis_default);
      expect(defaults).toHaveLength(1);
      expect(ids).toContain(defaults[0].id);
    });
  });
});
