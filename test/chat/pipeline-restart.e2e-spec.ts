import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { eventually, newGate } from '../support/async';
import { freePort } from '../support/free-port';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TEST_SECRET_KEY } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { newCorp } from './support/way-factories';

const ROOT = join(__dirname, '../..');
const REPLY = 'Hello from Ava, your order is on its way.';

/** A real app process (src/main.ts compiled on load, as in cli.e2e-spec.ts) on a given database. */
interface AppProcess {
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<void>;
}

/**
 * Issue 6, acceptance 3: an AI reply survives the app being killed in the middle. The app runs as a real child
 * process; a customer's message is injected, the model server holds its answer until the process was SIGKILLed,
 * the app is started again on the same database and the model released: exactly one reply reaches the (simulated)
 * platform and the reply state ends `sent`. A redelivered message id gets no second reply.
 */
describe('inbound pipeline: exactly one reply across a SIGKILL and a restart (acceptance 3)', () => {
  let model: LocalPeer;
  let gate = newGate();
  let database: string;
  let databaseUrl: string;
  let dataDir: string;
  let client: { clientId: string; clientSecret: string };
  let corpId: string;
  const running: AppProcess[] = [];

  async function sql<T = Record<string, any>>(text: string, values: unknown[] = []): Promise<T[]> {
    const connection = new Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      return (await connection.query(text, values)).rows as T[];
    } finally {
      await connection.end();
    }
  }

  async function startApp(): Promise<AppProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        // The key the setup app sealed the corp's secret with (issue 19: secrets sealed at rest).
        ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        CHAT_LLM_BASE_URL: `${model.url}/v1`,
        CHAT_LLM_MODEL: 'local-model',
        CHAT_AI_REPLY_HEARTBEAT_MS: '200',
        CHAT_AI_REPLY_STALE_MS: '1500',
        CHAT_AI_REPLY_SWEEP_INTERVAL_MS: '300',
      },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const app = { baseUrl: `http://127.0.0.1:${port}`, child, exited };
    running.push(app);
    for (let waited = 0; ; waited += 250) {
      if (await request(app.baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 120_000 || child.exitCode !== null) throw new Error('the app did not start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return app;
  }

  const api = async (app: AppProcess) => {
    const token = (await builtInToken(app.baseUrl, client)).access_token;
    return (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).auth(token, { type: 'bearer' });
  };
  const S = () => `/api/acme/console/simulator/corps/${corpId}`;

  beforeAll(async () => {
    model = await startLocalPeer(async () => {
      await gate.promise;
      return { body: chatCompletion(REPLY) };
    });
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-pipeline-restart-'));
    // Set up tenant, client, corp, staff user and digital staff on an in-process app, then close it.
    const setup = await startTestApp({}, { dropDatabaseOnClose: false });
    database = setup.database;
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    try {
      await newTenant(setup, 'acme');
      client = await newClient(setup, { tenantId: 'acme' });
      const token = (await builtInToken(setup.baseUrl, client)).access_token;
      const call = (path: string, body: object) => request(setup.baseUrl).post(path).auth(token, { type: 'bearer' }).send(body).expect(200);
      const corp = await newCorp(setup, token, 'acme', 'Acme Retail');
      corpId = corp.id;
      const workChatCorpId = corp.workChatCorpId;
      await call('/api/acme/console/workChat/user', { workChatCorpId, workChatUserId: 'zhangsan', name: 'Zhang San' });
      const staffId = (await call('/api/acme/v1/chat/staff', { name: 'Ava', persona: 'You are Ava.' })).body.id;
      await call('/api/acme/v1/chat/staff/bind', { staffId, corpName: 'Acme Retail', workChatUserIds: ['zhangsan'] });
      // Without a chat model (CHAT_LLM_* unset), an operator's immediate intervention is refused at request time.
      const nobody = (await call(`/api/acme/console/simulator/corps/${corpId}/customers`, { name: 'Nobody', userId: 'zhangsan' })).body;
      const refused = await request(setup.baseUrl).post(`/api/acme/console/workChat/zhangsan/contact/external/${nobody.contact.id}/ai-intervene`).auth(token, { type: 'bearer' }).expect(400);
      expect(refused.body).toMatchObject({ status: 400, detail: 'no chat model configured: set CHAT_LLM_BASE_URL and CHAT_LLM_MODEL' });
    } finally {
      await setup.close();
    }
  }, 120_000);

  afterAll(async () => {
    gate.release();
    for (const app of running) {
      if (app.child.exitCode === null && app.child.signalCode === null) {
        app.child.kill('SIGTERM');
        await app.exited;
      }
    }
    await model?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (database) {
      const admin = new Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  }, 60_000);

  it('the reply held by the model when the app is killed is sent exactly once by the restarted app', async () => {
    const first = await startApp();
    const firstApi = await api(first);
    const customer = (await firstApi('post', `${S()}/customers`).send({ name: 'Mia', userId: 'zhangsan' }).expect(200)).body;
    await firstApi('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'Where is my order?', msgId: 'msg-restart-1' }).expect(200);
    await eventually('the model asked', async () => (model.requests.length >= 1 ? true : undefined), { timeoutMs: 60_000 });
    const [composing] = await sql('SELECT status, attempts FROM chat_ai_reply');
    expect(composing).toEqual({ status: 'composing', attempts: 1 });

    first.child.kill('SIGKILL');
    await first.exited;

    const second = await startApp();
    const secondApi = await api(second);
    // The sweep of the new process takes the stale reply over and asks the model again.
    await eventually('the model asked again', async () => (model.requests.length >= 2 ? true : undefined), { timeoutMs: 60_000 });
    gate.release();
    const outbound = () => secondApi('get', `${S()}/messages?direction=outbound&externalUserId=${customer.externalUserId}`).expect(200);
    await eventually('the reply delivered', async () => ((await outbound()).body.length >= 1 ? true : undefined), { timeoutMs: 60_000 });
    expect(await sql('SELECT status, attempts, reply_message_id IS NOT NULL AS has_reply FROM chat_ai_reply')).toEqual([{ status: 'sent', attempts: 2, has_reply: true }]);
    await eventually('the reply marked sent', async () => ((await sql(`SELECT 1 FROM chat_message WHERE sender = 'ai' AND status = 'sent'`)).length === 1 ? true : undefined));
    expect((await outbound()).body).toEqual([expect.objectContaining({ direction: 'outbound', content: REPLY })]);

    // The platform redelivers the same message id: stored once, answered once.
    const modelCalls = model.requests.length;
    await secondApi('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'Where is my order?', msgId: 'msg-restart-1' }).expect(200);
    // Let a further sweep pass run: nothing open is left to take over.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await sql(`SELECT count(*)::int AS n FROM chat_message WHERE direction = 'in'`)).toEqual([{ n: 1 }]);
    expect(await sql(`SELECT count(*)::int AS n FROM chat_message WHERE sender = 'ai'`)).toEqual([{ n: 1 }]);
    expect(await sql('SELECT count(*)::int AS n FROM chat_ai_reply')).toEqual([{ n: 1 }]);
    expect(model.requests.length).toBe(modelCalls);
    expect((await outbound()).body).toHaveLength(1);
  }, 300_000);
});
