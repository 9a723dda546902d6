import { DataSource } from 'typeorm';
import request from 'supertest';
import { JobsService } from '../../src/jobs/jobs.service';
import { RUN_EVALUATION } from '../../src/evaluation/runs/run-jobs';
import { RunLeaseSweeper } from '../../src/evaluation/runs/run-lease.sweeper';
import { eventually } from '../support/async';
import { waitForRun } from '../support/evaluation-runs';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-lease-0123456789abcdef';
const CASES = 12;

/**
 * The run lease and its sweeper (issue 19 acceptance 5; src/evaluation/runs/run-lease.ts): a second job for a run
 * that an execution holds does nothing (the attack: a duplicate job would send every case twice), and a `running`
 * run nobody holds — its instance died and its job is gone — is handed back to the queue by the sweeper and
 * completes.
 */
describe('run lease and sweeper (issue 19 acceptance 5)', () => {
  let target: LocalPeer;
  let app: TestApp;
  const api = (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const messages = () => target.requests.map((entry) => (entry.body as { message: string }).message);

  beforeAll(async () => {
    target = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` }, delayMs: 100 }));
    app = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_RUN_LEASE_MS: '2000', EVAL_RUN_HEARTBEAT_MS: '300', EVAL_RUN_SWEEP_INTERVAL_MS: '60000' });
  });
  afterAll(async () => {
    await app?.close();
    await target?.close();
  });

  async function newRun(prefix: string): Promise<string> {
    const cases = Array.from({ length: CASES }, (_, index) => ({ id: `${prefix}${index}`, input: `${prefix}-${index}`, rules: [] }));
    const scenario = await api('post', '/api/scenarios').send({ name: `Lease ${prefix}`, cases }).expect(201);
    const created = await api('post', '/api/targets').send({ name: `slow ${prefix}`, kind: 'http', max_concurrency: 1, http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    return (await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: created.body.id, concurrency: 1 }).expect(201)).body.id;
  }

  it('a duplicate job for a held run sends nothing: every case reaches the target once', async () => {
    const runId = await newRun('dup');
    const sent = () => messages().filter((message) => message.startsWith('dup-'));
    await eventually('the run under way', async () => (sent().length >= 2 ? true : undefined));
    const jobs = app.app.get(JobsService);
    await jobs.enqueue(RUN_EVALUATION, { runId });
    await jobs.enqueue(RUN_EVALUATION, { runId });
    const run = await waitForRun(app.baseUrl, API_KEY, runId);
    expect(run.status).toBe('completed');
    expect(run.summary.total_cases).toBe(CASES);
    expect(sent()).toHaveLength(CASES);
    expect(new Set(sent()).size).toBe(CASES);
    const [row] = await app.app.get(DataSource).query(`SELECT lease_owner, lease_until FROM eval_run WHERE id = $1`, [runId]);
    expect(row).toEqual({ lease_owner: null, lease_until: null });
  });

  it('the sweeper hands a stranded running run (no live holder, no job) back to the queue, and it completes', async () => {
    const dataSource = app.app.get(DataSource);
    const runId = await newRun('strand');
    const sent = () => messages().filter((message) => message.startsWith('strand-'));
    // Strand it as a killed instance leaves it: the row names a dead owner whose lease already ran out, and no job
    // is queued for it (the live execution loses the run at its next renewal, and its job ends).
    await eventually('the run under way', async () => (sent().length >= 1 ? true : undefined));
    await dataSource.query(`UPDATE eval_run SET lease_owner = 'dead-host:1:0#0', lease_until = now() - interval '1 second' WHERE id = $1`, [runId]);
    // The live execution notices at its next renewal that it lost the run and stops taking cases.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = sent().length;
    expect(before).toBeLessThan(CASES);
    expect((await api('get', `/api/runs/${runId}`).expect(200)).body.status).toBe('running');
    const taken = await app.app.get(RunLeaseSweeper).sweep();
    expect(taken).toEqual([runId]);
    const run = await waitForRun(app.baseUrl, API_KEY, runId);
    expect(run.status).toBe('completed');
    expect(run.summary.total_cases).toBe(CASES);
    expect(new Set(sent()).size).toBe(CASES);
    // At most the one case in flight when the lease was lost is sent twice.
    expect(sent().length).toBeLessThanOrEqual(CASES + 1);
    // A second pass finds nothing to take over.
    expect(await app.app.get(RunLeaseSweeper).sweep()).toEqual([]);
  });
});
