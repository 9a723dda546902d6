import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { run } from '../../src/cli/eval/main';
import { startTestApp, TestApp } from '../support/test-app';

const ENV_KEY_1 = 'eval-env-key-one-0123456789abcdef';
const ENV_KEY_2 = 'eval-env-key-two-0123456789abcdef';
const PASSWORD = 'admin-password-keys-123';

/**
 * Issue 19 item 6 (third bullet): named evaluation API keys, created, listed and revoked through the API and
 * `atrium-eval api-key`; stored hashed and shown once; EVAL_API_KEYS seeds `env-1`… idempotently; the principal and
 * the logs name the key; a revoked key is refused from the next request on.
 */
describe('named evaluation API keys (issue 19 item 6)', () => {
  let testApp: TestApp;
  let db: DataSource;
  const logLines: string[] = [];
  const api = () => request(testApp.baseUrl);
  const asKey = (test: request.Test, key: string) => test.set('X-API-Key', key);

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: `${ENV_KEY_1},${ENV_KEY_2}`, EVAL_ADMIN_PASSWORD: PASSWORD }, { logLines });
    db = testApp.app.get<DataSource>(getDataSourceToken());
  });
  afterAll(() => testApp?.close());

  it('seeds EVAL_API_KEYS as env-1, env-2 with the admin right, stored only as SHA-256', async () => {
    const listed = await asKey(api().get('/api/auth/api-keys'), ENV_KEY_1).expect(200);
    expect(listed.body.content.map((key: { name: string; admin: boolean; source: string }) => [key.name, key.admin, key.source]).sort()).toEqual([
      ['env-1', true, 'env'],
      ['env-2', true, 'env'],
    ]);
    const dump = JSON.stringify(await db.query('SELECT * FROM eval_api_key'));
    expect(dump).not.toContain(ENV_KEY_1);
    expect(dump).not.toContain(ENV_KEY_2);
    expect(JSON.stringify(listed.body)).not.toMatch(/key_hash|keyHash/);
  });

  it('creates a key shown once; it works at once, acts under its own name, and is never listed with its value', async () => {
    const created = await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'nightly-ci' }).expect(201);
    expect(created.body).toMatchObject({ name: 'nightly-ci', admin: false, source: 'api', created_by: 'api-key:env-1', revoked_at: null });
    expect(created.body.key).toMatch(/^atrk_[A-Za-z0-9_-]{43}$/);
    const key: string = created.body.key;

    await asKey(api().get('/api/model-configs'), key).expect(200);
    const listed = await asKey(api().get('/api/auth/api-keys'), ENV_KEY_2).expect(200);
    expect(JSON.stringify(listed.body)).not.toContain(key);
    expect(JSON.stringify(await db.query('SELECT * FROM eval_api_key'))).not.toContain(key);
    const row = listed.body.content.find((entry: { name: string }) => entry.name === 'nightly-ci');
    expect(row.last_used_at).not.toBeNull();
  });

  it('refuses key management to a key without the admin right (403), and names that key in the log', async () => {
    const plain = (await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'plain-runner' }).expect(201)).body.key;
    const refused = await asKey(api().post('/api/auth/api-keys'), plain).send({ name: 'escalated' }).expect(403);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    await asKey(api().get('/api/auth/api-keys'), plain).expect(403);
    await asKey(api().delete('/api/auth/api-keys/env-1'), plain).expect(403);
    const line = logLines.map((text) => JSON.parse(text)).find((entry) => entry.req?.url === '/api/auth/api-keys' && entry.res?.statusCode === 403);
    expect(line?.principal).toBe('api-key:plain-runner');
  });

  it('lets a session and an admin key manage keys', async () => {
    const session = (await api().post('/api/auth/sign-in').send({ password: PASSWORD }).expect(200)).body.token;
    const admin = await api().post('/api/auth/api-keys').set('Authorization', `Bearer ${session}`).send({ name: 'ops', admin: true }).expect(201);
    expect(admin.body.created_by).toBe('admin');
    await asKey(api().post('/api/auth/api-keys'), admin.body.key).send({ name: 'made-by-ops' }).expect(201);
  });

  it('refuses a revoked key from the very next request', async () => {
    const key = (await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'short-lived' }).expect(201)).body.key;
    await asKey(api().get('/api/model-configs'), key).expect(200);
    const revoked = await asKey(api().delete('/api/auth/api-keys/short-lived'), ENV_KEY_1).expect(200);
    expect(revoked.body).toMatchObject({ name: 'short-lived', revoked_by: 'api-key:env-1' });
    expect(revoked.body.revoked_at).not.toBeNull();
    await asKey(api().get('/api/model-configs'), key).expect(401);
    // Revoking again changes nothing; the revoked key is listed only on request.
    expect((await asKey(api().delete('/api/auth/api-keys/short-lived'), ENV_KEY_1).expect(200)).body.revoked_at).toBe(revoked.body.revoked_at);
    const live = await asKey(api().get('/api/auth/api-keys'), ENV_KEY_1).expect(200);
    expect(live.body.content.map((entry: { name: string }) => entry.name)).not.toContain('short-lived');
    const all = await asKey(api().get('/api/auth/api-keys?include_revoked=true'), ENV_KEY_1).expect(200);
    expect(all.body.content.map((entry: { name: string }) => entry.name)).toContain('short-lived');
  });

  it('refuses bad, reserved and taken names, and unknown keys to revoke', async () => {
    for (const name of ['Bad Name', '', 'x'.repeat(65), '../etc']) await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name }).expect(400);
    await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'env-3' }).expect(400);
    await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'dup' }).expect(201);
    await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'dup' }).expect(409);
    await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'short-lived' }).expect(409); // revoked names stay taken
    await asKey(api().post('/api/auth/api-keys'), ENV_KEY_1).send({ name: 'ok', admin: 'yes' }).expect(400);
    await asKey(api().delete('/api/auth/api-keys/no-such-key'), ENV_KEY_1).expect(404);
  });

  it('atrium-eval api-key create, list and revoke', async () => {
    let stdout = '';
    let stderr = '';
    const cli = (...args: string[]) =>
      run(['node', 'atrium-eval', 'api-key', ...args], { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), env: { EVAL_API_URL: testApp.baseUrl, EVAL_API_KEY: ENV_KEY_2 } });

    expect(await cli('create', 'from-cli')).toBe(0);
    const key = stdout.trim();
    expect(key).toMatch(/^atrk_/);
    expect(stderr).toContain('shown only now');
    await asKey(api().get('/api/model-configs'), key).expect(200);

    stdout = '';
    expect(await cli('list')).toBe(0);
    expect(stdout).toContain('from-cli');
    expect(stdout).not.toContain(key);

    stdout = '';
    expect(await cli('revoke', 'from-cli', '--json')).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ name: 'from-cli', revoked_by: 'api-key:env-2' });
    await asKey(api().get('/api/model-configs'), key).expect(401);

    stderr = '';
    expect(await cli('revoke', 'nothing-here')).toBe(2);
    expect(stderr).toMatch(/404/);
  });

  it('re-seeds idempotently at restart: a revoked env key stays revoked, a changed one is live, a removed one is revoked', async () => {
    await asKey(api().delete('/api/auth/api-keys/env-2'), ENV_KEY_1).expect(200);
    await asKey(api().get('/api/model-configs'), ENV_KEY_2).expect(401);
    const before: { count: string }[] = await db.query('SELECT count(*) AS count FROM eval_api_key');

    // Same list again, on a second instance of the same database: nothing changes.
    const again = await startTestApp({ EVAL_API_KEYS: `${ENV_KEY_1},${ENV_KEY_2}`, EVAL_ADMIN_PASSWORD: PASSWORD }, { database: testApp.database });
    try {
      await asKey(request(again.baseUrl).get('/api/model-configs'), ENV_KEY_2).expect(401);
      await asKey(request(again.baseUrl).get('/api/model-configs'), ENV_KEY_1).expect(200);
      expect(await db.query('SELECT count(*) AS count FROM eval_api_key')).toEqual(before);
    } finally {
      await again.close();
    }

    // The first key dropped, a new one in second place: env-1 is now the old second key's slot holder.
    const changed = 'eval-env-key-three-0123456789abcdef';
    const third = await startTestApp({ EVAL_API_KEYS: changed, EVAL_ADMIN_PASSWORD: PASSWORD }, { database: testApp.database });
    try {
      await asKey(request(third.baseUrl).get('/api/model-configs'), changed).expect(200);
      await asKey(request(third.baseUrl).get('/api/model-configs'), ENV_KEY_1).expect(401);
      await asKey(request(third.baseUrl).get('/api/model-configs'), ENV_KEY_2).expect(401);
      const rows: { name: string; revoked: boolean }[] = await db.query(`SELECT name, revoked_at IS NOT NULL AS revoked FROM eval_api_key WHERE source = 'env' ORDER BY name`);
      expect(rows).toEqual([
        { name: 'env-1', revoked: false },
        { name: 'env-2', revoked: true },
      ]);
    } finally {
      await third.close();
    }
  });
});
