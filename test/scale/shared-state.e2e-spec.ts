import { Client } from 'pg';
import request from 'supertest';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { eventually } from '../support/async';
import { startTestApp, TEST_OWNER_TOKEN, type TestApp } from '../support/test-app';

const PASSWORD = 'scale-out-admin-password';
/** Both instances sit behind one public URL (one token issuer), as behind a load balancer. */
const PUBLIC_URL = 'http://atrium.example.test';

/**
 * Per-process state with two instances on one database (issue 20 item 5): signing secrets shared through the
 * database (never generated per instance), a rotated owner token taken up by the other instance at once, and the
 * cache-invalidation listener reconnecting by itself after its connection was cut.
 */
describe('state shared by instances on one database (issue 20 item 5)', () => {
  let first: TestApp;
  let second: TestApp | undefined;
  const admin = () => new Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });

  beforeAll(async () => {
    // No EVAL_SESSION_SECRET: the first instance generates the shared one. Each instance has its own DATA_DIR.
    first = await startTestApp({ EVAL_ADMIN_PASSWORD: PASSWORD, CHAT_AUTH_TENANT_CACHE_TTL_MS: '60000', CHAT_PUBLIC_URL: PUBLIC_URL }, { dropDatabaseOnClose: false });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('shares the evaluation session secret and the chat signing key: tokens from one instance work on the other', async () => {
    second = await startTestApp({ EVAL_ADMIN_PASSWORD: PASSWORD, CHAT_AUTH_TENANT_CACHE_TTL_MS: '60000', CHAT_PUBLIC_URL: PUBLIC_URL, DEPLOY_OWNER_TOKEN: 'rotated-owner-token-0123456789abcdef' }, { database: first.database, dropDatabaseOnClose: true });
    expect(second.dataDir).not.toBe(first.dataDir);
    const session = await request(first.baseUrl).post('/api/auth/sign-in').send({ password: PASSWORD }).expect(200);
    await request(second.baseUrl).get('/api/model-configs').set('Authorization', `Bearer ${session.body.token}`).expect(200);

    await newTenant(first, 'acme');
    const client = await newClient(first, { tenantId: 'acme' });
    const token = (await builtInToken(first.baseUrl, client)).access_token;
    await request(second.baseUrl).get('/api/acme/v1/chat/staff').auth(token, { type: 'bearer' }).expect(200);
    // Stored once, sealed (never in clear).
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${first.database}`;
    const connection = new Client({ connectionString: url.toString() });
    await connection.connect();
    try {
      const rows = (await connection.query(`SELECT name, sealed_value FROM core_shared_secret ORDER BY name`)).rows as { name: string; sealed_value: string }[];
      // The oidc-provider cookie key too (issue 13's operator flow): per-instance keys would break its sessions.
      expect(rows.map((row) => row.name)).toEqual(['chat-oauth-cookie-key', 'chat-oauth-signing-key', 'eval-session-secret']);
      for (const row of rows) expect(row.sealed_value).toMatch(/^v1:/);
    } finally {
      await connection.end();
    }
  });

  it('takes up an owner token rotated by another instance at once, and refuses the old one (attack: the old token after rotation)', async () => {
    // `second` started with a new DEPLOY_OWNER_TOKEN: `first` follows without a restart.
    await eventually('the first instance accepts the rotated token', async () => {
      const response = await request(first.baseUrl).get('/api/admin/tokens').set('Authorization', 'Bearer rotated-owner-token-0123456789abcdef');
      return response.status === 200 ? true : undefined;
    }, { timeoutMs: 1_000, intervalMs: 20 });
    await request(first.baseUrl).get('/api/admin/tokens').set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).expect(401);
    await request(second!.baseUrl).get('/api/admin/tokens').set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).expect(401);
  });

  it('reconnects the invalidation listener after its connection is cut, and invalidates again', async () => {
    const client = await newClient(first, { tenantId: 'acme' });
    const token = (await builtInToken(first.baseUrl, client)).access_token;
    const probe = () => request(second!.baseUrl).get('/api/acme/v1/chat/staff').auth(token, { type: 'bearer' });
    await probe().expect(200); // warms the second instance's tenant cache
    const connection = admin();
    await connection.connect();
    try {
      const listeners = async () =>
        (await connection.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'atrium-cluster-events'`, [first.database])).rows as { pid: number }[];
      const before = await listeners();
      expect(before).toHaveLength(2); // one per instance
      await connection.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'atrium-cluster-events'`, [first.database]);
      await eventually('both listeners back', async () => {
        const now = await listeners();
        return now.length === 2 && now.every((row) => !before.some((old) => old.pid === row.pid)) ? true : undefined;
      }, { timeoutMs: 15_000, intervalMs: 100 });
    } finally {
      await connection.end();
    }
    const platformAdmin = await newClient(first, { platformAdmin: true });
    const adminToken = (await builtInToken(first.baseUrl, platformAdmin)).access_token;
    await request(first.baseUrl).patch('/api/platform/tenants/acme').auth(adminToken, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
    const disabledAt = Date.now();
    await eventually('the second instance refuses the disabled tenant', async () => ((await probe()).status === 403 ? true : undefined), { timeoutMs: 1_000, intervalMs: 20 });
    console.log(`[shared-state] after a listener reconnect, the tenant disabled on one instance was refused by the other after ${Date.now() - disabledAt} ms`);
  });
});
