import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { eventually } from '../support/async';
import { waitForRun } from '../support/evaluation-runs';
import { freePort } from '../support/free-port';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { TEST_SECRET_KEY } from '../support/test-app';

const ROOT = resolve(__dirname, '..', '..');
const API_KEY = 'eval-api-key-0123456789abcdef';

/** A span as OTLP/HTTP JSON carries it (ids in hex). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;
const SPAN_KIND_CONSUMER = 5;

/** Every span the receiver got. */
function spansOf(receiver: LocalPeer): OtlpSpan[] {
  return receiver.requests
    .filter((entry) => entry.path === '/v1/traces')
    .flatMap((entry) => ((entry.body as { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] }).resourceSpans ?? []))
    .flatMap((resource) => resource.scopeSpans ?? [])
    .flatMap((scope) => scope.spans ?? []);
}

/** The value of attribute `key` of `span`, as text. */
function attribute(span: OtlpSpan, key: string): string | undefined {
  const found = span.attributes?.find((entry) => entry.key === key)?.value;
  return found?.stringValue ?? (found?.intValue === undefined ? undefined : String(found.intValue));
}

/**
 * Traces (issue 15 item 2, acceptance 2): the app, started as `npm start` does with OTEL_EXPORTER_OTLP_ENDPOINT
 * pointing at an OTLP/HTTP receiver of the test, exports one trace per evaluation run that links the
 * `POST /api/runs` request, the run's job and the call to the target; without the variable nothing is exported.
 */
describe('traces (issue 15 item 2)', () => {
  let receiver: LocalPeer;
  let target: LocalPeer;
  let database: string;
  let dataDir: string;
  let app: { baseUrl: string; child: ChildProcess; exited: Promise<void> } | undefined;
  const serverUrl = () => process.env.ATRIUM_TEST_DATABASE_URL!;

  async function startApp(env: Record<string, string>): Promise<{ baseUrl: string; child: ChildProcess; exited: Promise<void> }> {
    const port = await freePort();
    const url = new URL(serverUrl());
    url.pathname = `/${database}`;
    const child = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATABASE_URL: url.toString(), DATA_DIR: dataDir, ATRIUM_SECRET_KEY: TEST_SECRET_KEY, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production', DEPLOY_EXEC_SANDBOX: 'off', EVAL_API_KEYS: API_KEY, ...env },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const started = { baseUrl: `http://127.0.0.1:${port}`, child, exited };
    for (let waited = 0; ; waited += 250) {
      if (await request(started.baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 120_000 || child.exitCode !== null) throw new Error('the app did not start');
      await new Promise((done) => setTimeout(done, 250));
    }
    return started;
  }

  async function stopApp(): Promise<void> {
    if (!app || app.child.exitCode !== null) return;
    app.child.kill('SIGTERM');
    await Promise.race([app.exited, new Promise((done) => setTimeout(done, 20_000))]);
    if (app.child.exitCode === null) app.child.kill('SIGKILL');
  }

  /** Runs a one-case scenario against the target and waits for it to complete. @returns the run */
  async function evaluate(baseUrl: string): Promise<{ id: string }> {
    const api = (path: string) => request(baseUrl).post(path).set('X-API-Key', API_KEY);
    const createdTarget = await api('/api/targets').send({ name: 'echo', kind: 'http', http: { url: `${target.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const scenario = await api('/api/scenarios').send({ name: 'traced', cases: [{ id: 'hello', input: 'hello', rules: [{ type: 'contains', value: 'hello' }] }] }).expect(201);
    const created = await api('/api/runs').send({ scenario_id: scenario.body.id, target_id: createdTarget.body.id }).expect(201);
    const run = await waitForRun(baseUrl, API_KEY, created.body.id, { timeoutMs: 60_000 });
    expect(run.status).toBe('completed');
    return run;
  }

  beforeAll(async () => {
    receiver = await startLocalPeer(() => ({ body: {} }));
    target = await startLocalPeer(({ body }) => ({ body: { reply: `echo: ${(body as { message?: string }).message}` } }));
    database = `atrium_e2e_traces_${process.pid}_${Date.now().toString(36)}`;
    const admin = new Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-traces-'));
  }, 60_000);
  afterAll(async () => {
    await stopApp();
    await receiver?.close();
    await target?.close();
    const admin = new Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('links POST /api/runs, the run job and the target call in one trace, exported over OTLP/HTTP', async () => {
    app = await startApp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_SERVICE_NAME: 'atrium-under-test' });
    try {
    const run = await evaluate(app.baseUrl);
    const linked = await eventually(
      'the request, job and target spans of one trace',
      async () => {
        const spans = spansOf(receiver);
        const post = spans.find((span) => span.kind === SPAN_KIND_SERVER && span.name === 'POST /api/runs' && attribute(span, 'http.route') === '/api/runs');
        if (!post) return undefined;
        const inTrace = spans.filter((span) => span.traceId === post.traceId);
        const job = inTrace.find((span) => span.kind === SPAN_KIND_CONSUMER && span.name === 'job evaluation.run');
        const call = inTrace.find((span) => span.kind === SPAN_KIND_CLIENT && (attribute(span, 'http.url') ?? attribute(span, 'url.full') ?? '').startsWith(`${target.url}/chat`));
        return job && call ? { post, job, call, inTrace } : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    // Parent links: the job descends from the request (through its enqueue), the target call from the job.
    const byId = new Map(linked.inTrace.map((span) => [span.spanId, span]));
    const ancestors = (span: OtlpSpan) => {
      const chain: string[] = [];
      for (let current = span.parentSpanId ? byId.get(span.parentSpanId) : undefined; current; current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined) chain.push(current.spanId);
      return chain;
    };
    expect(ancestors(linked.job)).toContain(linked.post.spanId);
    expect(ancestors(linked.call)).toContain(linked.job.spanId);
    expect(attribute(linked.job, 'messaging.destination.name')).toBe('evaluation.run');
    // The target saw the trace too (W3C traceparent on the call).
    const traceparent = target.requests.at(-1)?.headers.traceparent;
    expect(String(traceparent)).toContain(linked.post.traceId);
    expect(run.id).toBeTruthy();
    // Route templates only in span names too: the run's own GETs are named by the template.
    expect(spansOf(receiver).some((span) => span.name === 'GET /api/runs/:id')).toBe(true);
    expect(spansOf(receiver).filter((span) => span.kind === SPAN_KIND_SERVER && span.name.includes(run.id))).toEqual([]);
    } finally {
      await stopApp();
    }
  }, 180_000);

  it('exports nothing and adds no trace headers without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const before = receiver.requests.length;
    app = await startApp({});
    try {
      await evaluate(app.baseUrl);
      await new Promise((done) => setTimeout(done, 1000));
      expect(receiver.requests.length).toBe(before);
      expect(target.requests.at(-1)?.headers.traceparent).toBeUndefined();
    } finally {
      await stopApp();
    }
  }, 180_000);
});
