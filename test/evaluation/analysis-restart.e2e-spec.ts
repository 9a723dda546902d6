import { Client } from 'pg';
import request from 'supertest';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';
import { eventually } from '../support/async';

const API_KEY = 'eval-api-key-analysis-restart-0123';
/** Small intervals so a lost analysis is noticed within about a second. */
const ANALYSIS_ENV = {
  EVAL_API_KEYS: API_KEY,
  EVAL_ANALYSIS_HEARTBEAT_MS: '100',
  EVAL_ANALYSIS_STALE_MS: '1500',
  EVAL_ANALYSIS_SWEEP_INTERVAL_MS: '200',
  EVAL_ANALYSIS_RETRY_DELAY_MS: '10',
};
/** How long the scripted model takes for a diagnosis, ms: long enough to stop the app in the middle of one. */
const DIAGNOSIS_DELAY_MS = 700;

/** Runs one SQL statement on the test database `database`. */
async function sql<R>(database: string, text: string, values: unknown[] = []): Promise<{ rows: R[]; rowCount: number }> {
  const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
  url.pathname = `/${database}`;
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    const result = await client.query(text, values);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? 0 };
  } finally {
    await client.end();
  }
}

interface ChatBody {
  messages: { role: string; content: string }[];
}

describe('an analysis survives the app stopping in the middle (issue 4, acceptance 6)', () => {
  let agent: LocalPeer;
  let model: LocalPeer;
  let apps: TestApp[] = [];

  const taskOf = (body: ChatBody) => body.messages[0].content.split('\n')[0];
  /** Scenario names of the diagnosis requests the model received, in order. */
  const diagnosed = () =>
    model.requests
      .map((entry) => entry.body as ChatBody)
      .filter((body) => taskOf(body) === 'Task: scenario diagnosis')
      .map((body) => JSON.parse(body.messages[1].content).scenario.scenario_name as string);

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` } }));
    model = await startLocalPeer(({ body }) => {
      const task = taskOf(body as ChatBody);
      if (task === 'Task: scenario diagnosis') return { body: chatCompletion(JSON.stringify({ summary: 'Fine.', findings: [] })), delayMs: DIAGNOSIS_DELAY_MS };
      return { body: chatCompletion(JSON.stringify({ summary: 'All good.', problems: [], recommendations: [] })) };
    });
  });
  afterEach(async () => {
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    apps = [];
    model.requests.length = 0;
  });
  afterAll(async () => {
    await agent?.close();
    await model?.close();
  });

  /**
   * On a first app: a completed two-scenario campaign whose analysis is stopped while the second scenario's
   * diagnosis is in flight (the first one stored). @returns the database and the campaign id, the app closed
   */
  async function interruptedAnalysis(): Promise<{ database: string; campaignId: string }> {
    const first = await startTestApp(ANALYSIS_ENV, { dropDatabaseOnClose: false });
    const api = (method: 'get' | 'post', path: string) => request(first.baseUrl)[method](path).set('X-API-Key', API_KEY);
    await api('post', '/api/model-configs').send({ name: 'analyst', base_url: `${model.url}/v1`, model: 'm', is_analysis_default: true }).expect(201);
    const target = await api('post', '/api/targets').send({ name: 'agent', kind: 'http', http: { url: agent.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const plan = [];
    for (const name of ['Alpha', 'Beta']) {
      const scenario = await api('post', '/api/scenarios').send({ name, cases: [{ id: `${name}-1`, input: name, rules: [{ type: 'contains', value: 'ok' }] }] }).expect(201);
      plan.push({ scenario_id: scenario.body.id });
    }
    const campaign = await api('post', '/api/campaigns')
      .send({ name: 'Restart', target_id: target.body.id, line: 'production', window_start: '2026-03-01T00:00:00Z', window_end: '2026-04-01T00:00:00Z', plan })
      .expect(201);
    const campaignId: string = campaign.body.id;
    await api('post', `/api/campaigns/${campaignId}/start`).send({}).expect(200);
    await eventually('campaign completed', async () => ((await api('get', `/api/campaigns/${campaignId}`).expect(200)).body.status === 'completed' ? true : undefined));
    await api('post', `/api/campaigns/${campaignId}/analysis`).expect(202);
    // The second diagnosis request is sent only after the first diagnosis was stored.
    await eventually('the second diagnosis in flight', async () => (diagnosed().length >= 2 ? true : undefined), { intervalMs: 10 });
    const closing = Date.now();
    await first.close();
    // The model wait is abandoned at once: shutdown does not wait for the model (it answers after 700 ms).
    expect(Date.now() - closing).toBeLessThan(DIAGNOSIS_DELAY_MS + 3_000);
    const [record] = (await sql<{ status: string; worker_id: string | null; attempts: number; diagnoses: unknown[]; error: string | null }>(first.database, 'SELECT status, worker_id, attempts, diagnoses, error FROM eval_campaign_analysis WHERE campaign_id = $1', [campaignId])).rows;
    expect(record).toMatchObject({ status: 'generating', worker_id: null, attempts: 1, error: 'The analysis was interrupted by shutdown; it resumes when a worker picks it up again.' });
    expect(record.diagnoses).toHaveLength(1);
    return { database: first.database, campaignId };
  }

  const analysisOn = async (app: TestApp, campaignId: string) => {
    return eventually(
      'the analysis ended',
      async () => {
        const analysis = await request(app.baseUrl).get(`/api/campaigns/${campaignId}/analysis`).set('X-API-Key', API_KEY).expect(200);
        return analysis.body.status === 'generating' ? undefined : analysis.body;
      },
      { intervalMs: 100 },
    );
  };

  it('the queue retries the job on the next instance, which resumes after the stored diagnosis and completes', async () => {
    const { database, campaignId } = await interruptedAnalysis();
    // A long stale time keeps the sweep out of it: the queue's retry is what takes the analysis up again.
    const second = await startTestApp({ ...ANALYSIS_ENV, EVAL_ANALYSIS_STALE_MS: '60000' }, { database, dropDatabaseOnClose: true });
    apps.push(second);
    const analysis = await analysisOn(second, campaignId);
    expect(analysis).toMatchObject({ status: 'completed', error: null, attempts: 2, progress: { phase: 'done', scenarios_total: 2, scenarios_diagnosed: 2 } });
    expect(analysis.report).toEqual({ summary: 'All good.', problems: [], recommendations: [] });
    // Alpha was diagnosed once (stored before the stop); Beta's interrupted diagnosis was asked again.
    expect(diagnosed()).toEqual(['Alpha', 'Beta', 'Beta']);
    const comparison = await request(second.baseUrl).get(`/api/campaigns/${campaignId}/cycle-comparison`).set('X-API-Key', API_KEY).expect(200);
    expect(comparison.body.status).toBe('no_baseline');
  });

  it('when the queue lost the job, the sweep of the next instance resumes the stale analysis', async () => {
    const { database, campaignId } = await interruptedAnalysis();
    const deleted = await sql(database, `DELETE FROM pgboss.job WHERE name = 'evaluation.campaign-analysis'`);
    expect(deleted.rowCount).toBeGreaterThan(0);
    const second = await startTestApp(ANALYSIS_ENV, { database, dropDatabaseOnClose: true });
    apps.push(second);
    const analysis = await analysisOn(second, campaignId);
    expect(analysis).toMatchObject({ status: 'completed', error: null, attempts: 2 });
    expect(diagnosed()).toEqual(['Alpha', 'Beta', 'Beta']);
  });

  it('gives up with the reason once EVAL_ANALYSIS_MAX_RUNS worker runs were used (job retried by the queue)', async () => {
    const { database, campaignId } = await interruptedAnalysis();
    // A long stale time keeps the sweep out of it: the queue's retry is what takes the analysis up again.
    const second = await startTestApp({ ...ANALYSIS_ENV, EVAL_ANALYSIS_MAX_RUNS: '1', EVAL_ANALYSIS_STALE_MS: '60000' }, { database, dropDatabaseOnClose: true });
    apps.push(second);
    const analysis = await analysisOn(second, campaignId);
    expect(analysis.status).toBe('failed');
    expect(analysis.error).toBe(
      'The analysis was interrupted 1 time (app restarts, lost workers or errors) and was given up after EVAL_ANALYSIS_MAX_RUNS=1 worker run. ' +
        'Last: The analysis was interrupted by shutdown; it resumes when a worker picks it up again.',
    );
    expect(analysis.finished_at).not.toBeNull();
    expect(diagnosed()).toEqual(['Alpha', 'Beta']);
  });

  it('gives up with the reason when the job is gone and the runs are used up (the sweep)', async () => {
    const { database, campaignId } = await interruptedAnalysis();
    await sql(database, `DELETE FROM pgboss.job WHERE name = 'evaluation.campaign-analysis'`);
    const second = await startTestApp({ ...ANALYSIS_ENV, EVAL_ANALYSIS_MAX_RUNS: '1' }, { database, dropDatabaseOnClose: true });
    apps.push(second);
    const analysis = await analysisOn(second, campaignId);
    expect(analysis.status).toBe('failed');
    expect(analysis.error).toBe(
      'The analysis stopped without finishing: no worker reported on it for 1500 ms (the app stopped or was killed, or the queue abandoned its job), and was given up after EVAL_ANALYSIS_MAX_RUNS=1 worker run. ' +
        'Last: The analysis was interrupted by shutdown; it resumes when a worker picks it up again.',
    );
  });
});
