import request from 'supertest';
import { waitForRun } from '../support/evaluation-runs';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';
const CASES = 30;

describe('a run survives a restart (issue 3 acceptance 6)', () => {
  let agent: LocalPeer;
  let first: TestApp | undefined;
  let second: TestApp | undefined;

  beforeAll(async () => {
    // 100 ms per reply, one case at a time: the run takes ~3 s, long enough to stop the app in the middle.
    agent = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` }, delayMs: 100 }));
  });
  afterAll(async () => {
    await second?.close();
    await agent?.close();
  });

  it('completes on a new instance, running no case twice', async () => {
    first = await startTestApp({ EVAL_API_KEYS: API_KEY }, { dropDatabaseOnClose: false });
    const api = (app: TestApp, method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);
    const cases = Array.from({ length: CASES }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `m${index}` }] }));
    const scenario = await api(first, 'post', '/api/scenarios').send({ name: 'Restart', cases }).expect(201);
    const target = await api(first, 'post', '/api/targets').send({ name: 'slow', kind: 'http', max_concurrency: 1, http: { url: agent.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const created = await api(first, 'post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 1 }).expect(201);

    while (agent.requests.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    const database = first.database;
    const closing = Date.now();
    await first.close(); // the app stops mid-run: the case in flight finishes, the job goes back to the queue
    expect(Date.now() - closing).toBeLessThan(4_000);
    first = undefined;
    const sentBeforeRestart = agent.requests.length;
    expect(sentBeforeRestart).toBeLessThan(CASES);

    second = await startTestApp({ EVAL_API_KEYS: API_KEY }, { database, dropDatabaseOnClose: true });
    const run = await waitForRun(second.baseUrl, API_KEY, created.body.id);
    expect(run.status).toBe('completed');
    expect(run.summary).toMatchObject({ total_cases: CASES, passed_cases: CASES });
    const report = await api(second, 'get', `/api/reports/${created.body.id}`).expect(200);
    expect(report.body.cases.map((item: { case_id: string }) => item.case_id)).toEqual(cases.map((item) => item.id));
    // Every case reached the target once, except at most the one in flight when the first instance stopped.
    const messages = agent.requests.map((entry) => (entry.body as { message: string }).message);
    expect(new Set(messages).size).toBe(CASES);
    expect(messages.length).toBeLessThanOrEqual(CASES + 1);
  });

  it('cancels a running run: no new case starts, finished ones keep their results', async () => {
    const app = await startTestApp({ EVAL_API_KEYS: API_KEY });
    try {
      const api = (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);
      const cases = Array.from({ length: CASES }, (_, index) => ({ id: `k${index}`, input: `cancel-${index}`, rules: [] }));
      const scenario = await api('post', '/api/scenarios').send({ name: 'Cancel', cases }).expect(201);
      const target = await api('post', '/api/targets').send({ name: 'slow', kind: 'http', max_concurrency: 1, http: { url: agent.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
      const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 8 }).expect(201);
      const sent = () => agent.requests.filter((entry) => String((entry.body as { message: string }).message).startsWith('cancel-')).length;
      while (sent() < 3) await new Promise((resolve) => setTimeout(resolve, 20));
      const cancelled = await api('post', `/api/runs/${created.body.id}/cancel`).expect(200);
      expect(cancelled.body.status).toBe('cancelled');
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(sent()).toBeLessThan(CASES);
      const report = await api('get', `/api/reports/${created.body.id}`).expect(200);
      expect(report.body.status).toBe('cancelled');
      expect(report.body.cases.length).toBeGreaterThan(0);
      await api('post', `/api/runs/${created.body.id}/cancel`).expect(409);
    } finally {
      await app.close();
    }
  });

  it('never sends more requests at once than the target allows', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const counting = await startLocalPeer(async ({ body }) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 30));
      inFlight--;
      return { body: { reply: `ok ${(body as { message: string }).message}` } };
    });
    const app = await startTestApp({ EVAL_API_KEYS: API_KEY });
    try {
      const api = (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);
      const cases = Array.from({ length: 40 }, (_, index) => ({ id: `p${index}`, input: `p${index}`, rules: [] }));
      const scenario = await api('post', '/api/scenarios').send({ name: 'Cap', cases }).expect(201);
      const target = await api('post', '/api/targets').send({ name: 'capped', kind: 'http', max_concurrency: 3, http: { url: counting.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
      const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 50 }).expect(201);
      const run = await waitForRun(app.baseUrl, API_KEY, created.body.id, { intervalMs: 50 });
      expect(run.status).toBe('completed');
      expect(run.summary.total_cases).toBe(40);
      expect(maxInFlight).toBe(3);
    } finally {
      await app.close();
      await counting.close();
    }
  });
});
