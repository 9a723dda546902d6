import { killAppProcess } from '../support/app-process';
import { eventually } from '../support/async';
import { type FaultHarness, startFaultHarness } from '../support/fault-harness';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';

const API_KEY = 'eval-api-key-webhook-faults-0123456789';
/** The smallest EVAL_WEBHOOK_LEASE_MS (it must exceed the 10 s webhook timeout). */
const LEASE_MS = 11_000;

/**
 * Issue 20 item 2 for the run-completion webhook ("no work is stranded", "delivered once"), with the app as a child
 * process on a PostgreSQL the test starts and stops, and a real webhook receiver on 127.0.0.1 counting deliveries
 * per run:
 * - PostgreSQL stopped while the receiver holds its answer: once the database is back the webhook is marked
 *   delivered, and the receiver got it exactly once;
 * - the app killed (SIGKILL) while the receiver holds its answer: the restarted app's webhook sweep sends it again
 *   once the lease ran out (before: the job expired after 60 s with no retry, the webhook was never recorded as
 *   sent and nothing took it up); the receiver gets the call that was in flight at the kill and that one resend.
 */
describe('run-completion webhook across database outages and kills (issue 20 item 2)', () => {
  let harness: FaultHarness;
  let target: LocalPeer;
  let receiver: LocalPeer;
  let env: Record<string, string>;
  let scenarioId: string;
  let targetId: string;
  /** Answer delays the receiver applies to its next requests, in order (ms). */
  const holds: number[] = [];

  const sql: FaultHarness['sql'] = (text, values) => harness.sql(text, values);
  const post = async (path: string, json: unknown) => {
    const response = await fetch(`${harness.app!.baseUrl}${path}`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify(json) });
    expect(response.status).toBe(201);
    return (await response.json()) as { id: string };
  };
  const received = (runId: string) => receiver.requests.filter((request) => (request.body as { run_id?: string }).run_id === runId).length;
  const delivery = async (runId: string) => (await sql<{ attempts: number; delivered: boolean }>('SELECT attempts, delivered_at IS NOT NULL AS delivered FROM eval_run_webhook WHERE run_id = $1', [runId]))[0];

  beforeAll(async () => {
    harness = await startFaultHarness('atrium-webhook-faults');
    target = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` } }));
    receiver = await startLocalPeer(() => ({ body: { ok: true }, delayMs: holds.shift() ?? 0 }));
    env = {
      ...(await harness.createDatabase('atrium_webhook_faults')),
      EVAL_API_KEYS: API_KEY,
      EVAL_WEBHOOK_URL: `${receiver.url}/hook`,
      EVAL_WEBHOOK_LEASE_MS: String(LEASE_MS),
      EVAL_WEBHOOK_SWEEP_INTERVAL_MS: '500',
    };
    await harness.start(env);
    scenarioId = (await post('/api/scenarios', { name: 'Webhook faults', cases: [{ id: 'a', input: 'hello', rules: [{ type: 'contains', value: 'hello' }] }] })).id;
    targetId = (await post('/api/targets', { name: 'echo', kind: 'http', http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } })).id;
  }, 240_000);

  afterAll(async () => {
    await target?.close();
    await receiver?.close();
    await harness?.remove();
  }, 60_000);

  it('PostgreSQL stopped while the receiver holds its answer: delivered once, recorded once the database is back', async () => {
    holds.push(5_000);
    const runId = (await post('/api/runs', { scenario_id: scenarioId, target_id: targetId })).id;
    await eventually('the webhook reached the receiver', async () => (received(runId) >= 1 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
    await harness.cluster.stop();
    await new Promise((resolve) => setTimeout(resolve, 8_000)); // the receiver answers while the database is away
    await harness.cluster.start();
    await eventually('the webhook recorded delivered', async () => ((await delivery(runId).catch(() => undefined))?.delivered ? true : undefined), { timeoutMs: 60_000, intervalMs: 250 });
    // A lease and a few sweeps later: not sent again.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 3_000));
    expect(await delivery(runId)).toEqual({ attempts: 1, delivered: true });
    expect(received(runId)).toBe(1);
    expect(harness.app!.child.exitCode).toBeNull();
  }, 180_000);

  it('the app killed while the receiver holds its answer: sent again by the restarted app after the lease, then no more', async () => {
    holds.push(8_000);
    const runId = (await post('/api/runs', { scenario_id: scenarioId, target_id: targetId })).id;
    await eventually('the webhook reached the receiver', async () => (received(runId) >= 1 ? true : undefined), { timeoutMs: 60_000, intervalMs: 20 });
    await killAppProcess(harness.app);
    const killedAt = Date.now();
    await harness.start(env);
    await eventually('the webhook sent again', async () => (received(runId) >= 2 ? true : undefined), { timeoutMs: 90_000, intervalMs: 100 });
    const resentMs = Date.now() - killedAt;
    expect(resentMs).toBeGreaterThanOrEqual(LEASE_MS - 1_000); // not before the lease ran out
    await eventually('the webhook recorded delivered', async () => ((await delivery(runId))?.delivered ? true : undefined), { timeoutMs: 30_000 });
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS + 3_000));
    expect(await delivery(runId)).toEqual({ attempts: 2, delivered: true });
    expect(received(runId)).toBe(2);
    console.log(`run webhook faults: sent again ${resentMs} ms after the kill (lease ${LEASE_MS} ms, app restart included)`);
  }, 240_000);
});
