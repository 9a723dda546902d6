import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { newCorp } from '../chat/support/way-factories';
import { eventually } from '../support/async';
import { deployArchive, newAgent } from '../support/deploy-factories';
import { waitForRun } from '../support/evaluation-runs';
import { freePort } from '../support/free-port';
import { startLoadBalancer, type LoadBalancer } from '../support/load-balancer';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { rawTarGz } from '../support/raw-tar';
import { startLocalS3, type LocalS3 } from '../support/s3-server';
import { startTestApp, TEST_SECRET_KEY } from '../support/test-app';

const ROOT = join(__dirname, '../..');
const API_KEY = 'eval-api-key-scale-out-0123456789';
const REPLY = 'Thanks, your order ships today.';

/** One app instance: a real process (src/main.ts compiled on load) with its own DATA_DIR. */
interface Instance {
  name: string;
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<void>;
  dataDir: string;
}

/**
 * Issue 20 acceptance 3: three app processes on one PostgreSQL database and one S3 server (s3rver on 127.0.0.1), each
 * with its OWN data folder (nothing shared on disk), behind a round-robin load balancer (http-proxy) the test starts.
 * What one instance writes, the others serve; what one changes, the others see within 1 s; runs and AI replies
 * happen exactly once; a run whose instance is SIGKILLed is finished by another one, no case sent twice beyond those
 * in flight at the kill.
 */
describe('scale-out: 3 instances, one database, one S3 bucket, a load balancer (issue 20 acceptance 3)', () => {
  let s3: LocalS3;
  let balancer: LoadBalancer;
  let model: LocalPeer;
  let target: LocalPeer;
  let database: string;
  let databaseUrl: string;
  let publicUrl: string;
  let corpId: string;
  let chatClient: { clientId: string; clientSecret: string };
  let globexClient: { clientId: string; clientSecret: string };
  let adminClient: { clientId: string; clientSecret: string };
  const instances: Instance[] = [];
  /** Target requests in flight (received, not yet answered). */
  let targetInFlight = 0;
  let targetDelayMs = 20;

  async function sql<T = Record<string, any>>(text: string, values: unknown[] = []): Promise<T[]> {
    const connection = new Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      return (await connection.query(text, values)).rows as T[];
    } finally {
      await connection.end();
    }
  }

  async function startInstance(name: string, port: number): Promise<Instance> {
    const dataDir = mkdtempSync(join(tmpdir(), `atrium-scale-${name}-`));
    const child = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // Every instance names the balancer as its public URL: one token issuer, one site URL.
        CHAT_PUBLIC_URL: publicUrl,
        DEPLOY_PUBLIC_URL: publicUrl,
        ...s3.env,
        EVAL_API_KEYS: API_KEY,
        EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: 'true',
        EVAL_RUN_HEARTBEAT_MS: '300',
        EVAL_RUN_LEASE_MS: '1500',
        EVAL_RUN_SWEEP_INTERVAL_MS: '300',
        CHAT_LLM_BASE_URL: `${model.url}/v1`,
        CHAT_LLM_MODEL: 'local-model',
        CHAT_AI_REPLY_HEARTBEAT_MS: '200',
        CHAT_AI_REPLY_STALE_MS: '1500',
        CHAT_AI_REPLY_SWEEP_INTERVAL_MS: '300',
        // Long enough that only the cross-instance invalidation can explain a change seen within 1 s.
        CHAT_AUTH_TENANT_CACHE_TTL_MS: '60000',
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const instance = { name, baseUrl: `http://127.0.0.1:${port}`, child, exited, dataDir };
    instances.push(instance);
    for (let waited = 0; ; waited += 250) {
      if (await request(instance.baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 180_000 || child.exitCode !== null) throw new Error(`instance ${name} did not start: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return instance;
  }

  const [A, B, C] = [0, 1, 2].map((index) => () => instances[index]);
  const evalApi = (baseUrl: string, method: 'get' | 'post', path: string) => request(baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    s3 = await startLocalS3();
    model = await startLocalPeer(() => ({ body: chatCompletion(REPLY) }));
    target = await startLocalPeer(async ({ body }) => {
      targetInFlight++;
      await new Promise((resolve) => setTimeout(resolve, targetDelayMs));
      targetInFlight--;
      return { body: { reply: `ok ${(body as { message: string }).message}` } };
    });
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    balancer = await startLoadBalancer(ports.map((port) => `http://127.0.0.1:${port}`));
    publicUrl = balancer.url;

    // Migrate the database and create the chat fixtures with an in-process app (same S3 and secret key), then close it.
    const setup = await startTestApp({ ...s3.env, CHAT_PUBLIC_URL: publicUrl }, { dropDatabaseOnClose: false });
    database = setup.database;
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    try {
      await newTenant(setup, 'acme');
      await newTenant(setup, 'globex');
      chatClient = await newClient(setup, { tenantId: 'acme' });
      globexClient = await newClient(setup, { tenantId: 'globex' });
      adminClient = await newClient(setup, { platformAdmin: true });
      const token = (await builtInToken(setup.baseUrl, chatClient)).access_token;
      const call = (path: string, body: object) => request(setup.baseUrl).post(path).auth(token, { type: 'bearer' }).send(body).expect(200);
      const corp = await newCorp(setup, token, 'acme', 'Acme Retail');
      corpId = corp.id;
      await call('/api/acme/console/workChat/user', { workChatCorpId: corp.workChatCorpId, workChatUserId: 'zhangsan', name: 'Zhang San' });
      const staffId = (await call('/api/acme/v1/chat/staff', { name: 'Ava', persona: 'You are Ava.' })).body.id;
      await call('/api/acme/v1/chat/staff/bind', { staffId, corpName: 'Acme Retail', workChatUserIds: ['zhangsan'] });
    } finally {
      await setup.close();
    }
    // The three instances start together (the migration lock and ON CONFLICT seeding are exercised too).
    await Promise.all(['A', 'B', 'C'].map((name, index) => startInstance(name, ports[index])));
  }, 300_000);

  afterAll(async () => {
    for (const instance of instances) {
      if (instance.child.exitCode === null && instance.child.signalCode === null) {
        instance.child.kill('SIGTERM');
        await instance.exited;
      }
      rmSync(instance.dataDir, { recursive: true, force: true });
    }
    await balancer?.close();
    await model?.close();
    await target?.close();
    await s3?.stop();
    if (database) {
      const admin = new Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  }, 120_000);

  it('serves a site deployed through A byte-identical through B, C and the balancer', async () => {
    const files: Record<string, Buffer> = {
      'index.html': Buffer.from('<!doctype html><title>scale</title><h1>Deployed through A</h1>'),
      'css/site.css': Buffer.from('body { color: #123456 }'),
      'img/blob.bin': Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 131 + 17) % 256)),
    };
    const agent = await newAgent(A().baseUrl);
    const deployed = await deployArchive(A().baseUrl, agent.token, rawTarGz(Object.entries(files).map(([name, content]) => ({ name, content }))), { projectName: 'scale', contactId: agent.contactId }).expect(201);
    const sitePath = new URL(deployed.body.url as string).pathname;
    expect(deployed.body.url.startsWith(publicUrl)).toBe(true);
    let compared = 0;
    for (const baseUrl of [B().baseUrl, C().baseUrl, balancer.url, balancer.url, balancer.url]) {
      for (const [name, content] of Object.entries(files)) {
        const response = await request(baseUrl).get(sitePath + name).responseType('blob').expect(200);
        expect(Buffer.compare(response.body as Buffer, content)).toBe(0);
        compared++;
      }
    }
    expect(compared).toBe(15);
  });

  it('downloads through C an evaluation file uploaded through B', async () => {
    const content = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7) % 256));
    const uploaded = await evalApi(B().baseUrl, 'post', '/api/files').attach('file', content, { filename: 'data.bin', contentType: 'application/octet-stream' }).expect(201);
    const downloaded = await evalApi(C().baseUrl, 'get', `/api/files/${uploaded.body.id}/download`).responseType('blob').expect(200);
    expect(Buffer.compare(downloaded.body as Buffer, content)).toBe(0);
    // Nothing of it on any instance's disk: the bytes live in the bucket.
    expect((await sql('SELECT storage_key FROM eval_file WHERE id = $1', [uploaded.body.id]))[0].storage_key).toMatch(/^evaluation-files\//);
  });

  it('refuses on B and C, within 1 s, a chat tenant disabled through A (their caches warm, TTL 60 s)', async () => {
    const token = (await builtInToken(A().baseUrl, globexClient)).access_token;
    const probe = (baseUrl: string) => request(baseUrl).get('/api/globex/v1/chat/staff').auth(token, { type: 'bearer' });
    // A token issued by A verifies on B and C (one shared signing key), and warms their tenant caches.
    for (const instance of [B(), C()]) expect((await probe(instance.baseUrl)).status).toBe(200);
    const admin = (await builtInToken(A().baseUrl, adminClient)).access_token;
    await request(A().baseUrl).patch('/api/platform/tenants/globex').auth(admin, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
    const disabledAt = Date.now();
    const seen = await Promise.all(
      [B(), C()].map(async (instance) => {
        for (;;) {
          const response = await probe(instance.baseUrl);
          if (response.status === 403) return Date.now() - disabledAt;
          expect(response.status).toBe(200);
          if (Date.now() - disabledAt > 5_000) return Number.POSITIVE_INFINITY;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    console.log(`[scale-out] tenant disabled through A: refused on B after ${seen[0]} ms, on C after ${seen[1]} ms`);
    for (const elapsed of seen) expect(elapsed).toBeLessThan(1_000);
  });

  it('answers AI replies exactly once, whichever instance got the messages', async () => {
    const token = (await builtInToken(balancer.url, chatClient)).access_token;
    const S = `/api/acme/console/simulator/corps/${corpId}`;
    const customer = (await request(A().baseUrl).post(`${S}/customers`).auth(token, { type: 'bearer' }).send({ name: 'Mia', userId: 'zhangsan' }).expect(200)).body;
    const MESSAGES = 9;
    for (let i = 0; i < MESSAGES; i++) {
      const via = instances[i % 3].baseUrl;
      await request(via).post(`${S}/messages`).auth(token, { type: 'bearer' }).send({ externalUserId: customer.externalUserId, content: `question ${i}`, msgId: `scale-msg-${i}` }).expect(200);
    }
    // The platform redelivers two of them through other instances: stored once, answered once.
    await request(B().baseUrl).post(`${S}/messages`).auth(token, { type: 'bearer' }).send({ externalUserId: customer.externalUserId, content: 'question 0', msgId: 'scale-msg-0' }).expect(200);
    await request(C().baseUrl).post(`${S}/messages`).auth(token, { type: 'bearer' }).send({ externalUserId: customer.externalUserId, content: 'question 1', msgId: 'scale-msg-1' }).expect(200);
    await eventually('every reply sent', async () => ((await sql(`SELECT count(*)::int AS n FROM chat_ai_reply WHERE status = 'sent'`))[0].n === MESSAGES ? true : undefined), { timeoutMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a few sweep passes on every instance: nothing more happens
    expect(await sql(`SELECT status, count(*)::int AS n FROM chat_ai_reply GROUP BY status`)).toEqual([{ status: 'sent', n: MESSAGES }]);
    expect((await sql(`SELECT count(*)::int AS n FROM chat_message WHERE sender = 'ai'`))[0].n).toBe(MESSAGES);
    expect(model.requests.length).toBe(MESSAGES);
  });

  it('runs every case exactly once, and finishes a run whose instance was SIGKILLed on another, no case sent twice beyond those in flight', async () => {
    const CASES = 60;
    const newRun = async (label: string, concurrency: number) => {
      const cases = Array.from({ length: CASES }, (_, index) => ({ id: `${label}${index}`, input: `${label}-${index}`, rules: [{ type: 'contains', value: `${label}-${index}` }] }));
      const scenario = await evalApi(balancer.url, 'post', '/api/scenarios').send({ name: `Scale ${label}`, cases }).expect(201);
      const created = await evalApi(balancer.url, 'post', '/api/targets').send({ name: `peer ${label}`, kind: 'http', max_concurrency: concurrency, http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
      return (await evalApi(balancer.url, 'post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: created.body.id, concurrency }).expect(201)).body.id as string;
    };
    const sentOf = (label: string) => target.requests.map((entry) => (entry.body as { message: string }).message).filter((message) => message.startsWith(`${label}-`));

    // 1. A plain run on the cluster: every case once.
    targetDelayMs = 20;
    const plain = await newRun('p', 4);
    const plainDone = await waitForRun(balancer.url, API_KEY, plain);
    expect(plainDone.status).toBe('completed');
    expect(sentOf('p')).toHaveLength(CASES);
    expect(new Set(sentOf('p')).size).toBe(CASES);

    // 2. A slow run; the instance holding its lease is killed mid-run.
    targetDelayMs = 150;
    const killed = await newRun('k', 4);
    await eventually('the run under way', async () => (sentOf('k').length >= 12 ? true : undefined), { timeoutMs: 60_000, intervalMs: 10 });
    const [{ lease_owner: owner }] = await sql<{ lease_owner: string }>('SELECT lease_owner FROM eval_run WHERE id = $1', [killed]);
    const victim = instances.find((instance) => owner.split(':')[1] === String(instance.child.pid));
    expect(victim).toBeDefined();
    const inFlightAtKill = targetInFlight;
    const sentAtKill = sentOf('k').length;
    victim!.child.kill('SIGKILL');
    const killedAt = Date.now();
    await victim!.exited;
    // What the dead instance had stored (the lease, 1.5 s, still holds: no other instance has taken the run yet).
    const storedAtKill = new Set((await sql<{ case_id: string }>('SELECT case_id FROM eval_case_result WHERE run_id = $1', [killed])).map((row) => `k-${row.case_id.slice(1)}`));
    // The balancer's health check takes the dead instance out.
    balancer.setUpstreams(instances.filter((instance) => instance !== victim).map((instance) => instance.baseUrl));

    const survivor = instances.find((instance) => instance !== victim)!;
    const done = await waitForRun(survivor.baseUrl, API_KEY, killed, { timeoutMs: 60_000 });
    const finishedMs = Date.now() - killedAt;
    expect(done.status).toBe('completed');
    expect(done.summary).toMatchObject({ total_cases: CASES, passed_cases: CASES });
    const sent = sentOf('k');
    const duplicates = sent.length - new Set(sent).size;
    console.log(
      `[scale-out] SIGKILL of ${victim!.name} (pid ${victim!.child.pid}) after ${sentAtKill} cases sent, ${inFlightAtKill} in flight at the kill; ` +
        `${storedAtKill.size} results stored; run finished by another instance ${finishedMs} ms after the kill; ${sent.length} target requests for ${CASES} cases: ${duplicates} case(s) sent twice`,
    );
    expect(finishedMs).toBeLessThan(60_000);
    expect(new Set(sent).size).toBe(CASES);
    // Sent again: only cases whose result the dead instance had not stored. Those are the cases in flight at the kill,
    // results it held or was storing (group commit: on a loaded machine a few wait behind the statement in flight), and
    // requests it had written that the target had not read yet (at most the run's concurrency, 4).
    const sentTwice = [...new Set(sent.filter((message, index) => sent.indexOf(message) !== index))];
    expect(sentTwice.filter((message) => storedAtKill.has(message))).toEqual([]);
    expect(duplicates).toBeLessThanOrEqual(sentAtKill - storedAtKill.size + 4);
    const report = await evalApi(survivor.baseUrl, 'get', `/api/reports/${killed}`).expect(200);
    expect(report.body.cases).toHaveLength(CASES);
  });
});

