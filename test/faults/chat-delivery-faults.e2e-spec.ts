import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { killAppProcess } from '../support/app-process';
import { eventually } from '../support/async';
import { type FaultHarness, startFaultHarness } from '../support/fault-harness';
import { addFakeStaff, type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';

const ROOT = join(__dirname, '../..');
const CORP_ID = 'wwfaultdelivery';
const CORP_SECRET = 'fault-delivery-secret-0123456789';
const SEND = '/cgi-bin/externalcontact/add_msg_template';
const LEASE_MS = 3_000;
/** How long the fake platform holds its answer to the send under test (ms). */
const HOLD_MS = 4_000;

/**
 * Issue 20 item 2 for outbound chat messages ("no work is stranded", "delivered once"), with the app as a child
 * process in `CHAT_PLATFORM_MODE=http` against a fake platform on 127.0.0.1 that counts the messages it accepted, on
 * a PostgreSQL the test starts and stops itself:
 * - PostgreSQL stopped while the platform holds its answer to a send: once the database is back the message is `sent`
 *   and the platform accepted it exactly once (before: the `sent` write failed, the message was marked failed or its
 *   job retried and sent it again);
 * - the app killed (SIGKILL) while the platform holds its answer: the restarted app's delivery sweep hands the message
 *   on within CHAT_DELIVERY_LEASE_MS (before: the queue's 5-minute job expiry) and it ends `sent`; the send that was
 *   in flight at the kill is the one sent again (the platform takes no idempotency key), and nothing more.
 */
describe('chat message delivery across database outages and kills (issue 20 item 2)', () => {
  let harness: FaultHarness;
  let fake: FakeChatPlatform;
  let env: Record<string, string>;
  let token: string;
  let contactId: string;

  const sql: FaultHarness['sql'] = (text, values) => harness.sql(text, values);
  const api = async (path: string, init: { method?: string; json?: unknown; bearer?: string; basic?: string; form?: FormData | URLSearchParams } = {}) => {
    const headers: Record<string, string> = {};
    if (init.bearer) headers.authorization = `Bearer ${init.bearer}`;
    if (init.basic) headers.authorization = `Basic ${init.basic}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${harness.app!.baseUrl}${path}`, { method: init.method ?? 'POST', headers, body: init.json !== undefined ? JSON.stringify(init.json) : init.form });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };
  const sendText = async (content: string): Promise<string> => {
    const form = new FormData();
    form.set('request', JSON.stringify({ msgType: 'text', msgBody: { content } }));
    const response = await api(`/api/acme/console/workChat/zhangsan/contact/${contactId}/message/send`, { bearer: token, form });
    expect(response.status).toBe(200);
    return response.body.id;
  };
  const accepted = (content: string) => fake.corp(CORP_ID).messages.filter((message) => (message.body.text as { content?: string } | undefined)?.content === content).length;
  const row = async (id: string) => (await sql<{ status: string; delivery_attempts: number; failure_reason: string | null }>('SELECT status, delivery_attempts, failure_reason FROM chat_message WHERE id = $1', [id]))[0];

  beforeAll(async () => {
    harness = await startFaultHarness('atrium-delivery-faults');
    fake = await startFakeChatPlatform({ corps: [{ corpId: CORP_ID, secret: CORP_SECRET }] });
    addFakeStaff(fake, CORP_ID, { userid: 'zhangsan' });
    fake.corp(CORP_ID).customers.set('wm-fault-1', { external_userid: 'wm-fault-1', name: 'Amy', type: 1, gender: 1, follow: new Map([['zhangsan', { remark_mobiles: [], createtime: 1_700_000_000, tag_id: [], add_way: 1 }]]) } as never);
  }, 120_000);

  afterAll(async () => {
    await fake?.close();
    await harness?.remove();
  }, 60_000);

  it('sets up a tenant whose corp delivers through the fake platform', async () => {
    const mainJs = harness.build();
    env = {
      ...(await harness.createDatabase('atrium_delivery_faults')),
      CHAT_PLATFORM_MODE: 'http',
      CHAT_PLATFORM_BASE_URL: `${fake.url}/`,
      CHAT_PLATFORM_HTTP_TIMEOUT_MS: '20000',
      CHAT_PLATFORM_HTTP_RETRIES: '0',
      CHAT_DELIVERY_LEASE_MS: String(LEASE_MS),
      CHAT_DELIVERY_SWEEP_INTERVAL_MS: '500',
    };
    await harness.start(env);
    const cli = execFileSync(process.execPath, [join(dirname(mainJs), 'cli', 'chat', 'main.js'), 'client', 'create', '--platform-admin', '--json'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_PATH: join(ROOT, 'node_modules'), LOG_LEVEL: 'warn', ...env },
      encoding: 'utf8',
    });
    const admin = JSON.parse(cli) as { clientId: string; clientSecret: string };
    const tokenOf = async (client: { clientId: string; clientSecret: string }) => {
      const response = await api('/oauth/token', { basic: Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64'), form: new URLSearchParams({ grant_type: 'client_credentials' }) });
      expect(response.status).toBe(200);
      return response.body.access_token as string;
    };
    const adminToken = await tokenOf(admin);
    expect((await api('/api/platform/tenants', { bearer: adminToken, json: { id: 'acme', name: 'Acme' } })).status).toBe(201);
    const client = await api('/api/platform/clients', { bearer: adminToken, json: { tenantId: 'acme' } });
    expect(client.status).toBe(201);
    token = await tokenOf(client.body);
    const corp = await api('/api/acme/console/workChat/corps', { bearer: token, json: { corpName: 'Fault Corp', workChatCorpId: CORP_ID, secret: CORP_SECRET } });
    expect(corp.status).toBe(200);
    await sql(`INSERT INTO chat_work_user (tenant_id, corp_id, work_chat_user_id, name, online, created_at, updated_at) VALUES ('acme', $1, 'zhangsan', 'Zhang San', true, now(), now())`, [corp.body.id]);
    [{ id: contactId }] = await sql<{ id: string }>(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, add_way, ai_enabled, profile, created_at, updated_at)
       VALUES ('acme', $1, 'wm-fault-1', 'zhangsan', 'Amy', '[]'::jsonb, 1, false, '{}'::jsonb, now(), now()) RETURNING id`,
      [corp.body.id],
    );
    // The happy path first: sent once.
    const id = await sendText('hello');
    await eventually('hello sent', async () => ((await row(id)).status === 'sent' ? true : undefined), { timeoutMs: 30_000 });
    expect(accepted('hello')).toBe(1);
  }, 240_000);

  it('PostgreSQL stopped while the platform holds its answer: sent, and accepted exactly once', async () => {
    fake.failNext(SEND, { delayMs: HOLD_MS });
    const calls = fake.callsTo(SEND);
    const id = await sendText('through the outage');
    await eventually('the send reached the platform', async () => (fake.callsTo(SEND) > calls ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
    await harness.cluster.stop();
    // The platform answers (accepted) while the database is away; it stays away a little longer.
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS + 3_000));
    expect(accepted('through the outage')).toBe(1);
    await harness.cluster.start();
    await eventually('the message recorded sent', async () => ((await row(id).catch(() => undefined))?.status === 'sent' ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    // A lease and a few sweeps later: nothing was sent again.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 2_000));
    expect(await row(id)).toEqual({ status: 'sent', delivery_attempts: 1, failure_reason: null });
    expect(accepted('through the outage')).toBe(1);
    expect(fake.callsTo(SEND)).toBe(calls + 1);
    expect(harness.app!.child.exitCode).toBeNull();
  }, 180_000);

  it('the app killed while the platform holds its answer: picked up within the lease after restart, sent', async () => {
    fake.failNext(SEND, { delayMs: HOLD_MS });
    const calls = fake.callsTo(SEND);
    const id = await sendText('through the kill');
    await eventually('the send reached the platform', async () => (fake.callsTo(SEND) > calls ? true : undefined), { timeoutMs: 30_000, intervalMs: 20 });
    await killAppProcess(harness.app);
    const killedAt = Date.now();
    await harness.start(env);
    await eventually('the message sent again by the restarted app', async () => ((await row(id)).status === 'sent' ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    const pickedUpMs = Date.now() - killedAt;
    // The queue's job expiry is 300 s: only the sweep can have handed it on this soon.
    expect(pickedUpMs).toBeLessThan(60_000);
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 2_000));
    // The send in flight at the kill reached the platform, which acted on it (HOLD_MS later); the restarted app sent
    // it once more: two sends, two accepted, and no third.
    expect(await row(id)).toEqual({ status: 'sent', delivery_attempts: 2, failure_reason: null });
    expect(fake.callsTo(SEND)).toBe(calls + 2);
    expect(accepted('through the kill')).toBe(2);
    console.log(`chat delivery faults: picked up and sent ${pickedUpMs} ms after the kill (lease ${LEASE_MS} ms, app restart included)`);
  }, 180_000);
});
