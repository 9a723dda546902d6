import request from 'supertest';
import { waitForRun } from '../support/evaluation-runs';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

/** Creates an echo target, a one-case scenario and a run; waits until it ends. */
async function runOnce(testApp: TestApp, agentUrl: string): Promise<{ id: string; status: string; summary: unknown }> {
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const scenario = await api('post', '/api/scenarios').send({ name: 'Webhook', cases: [{ id: 'a', input: 'ping', rules: [{ type: 'contains', value: 'ping' }] }] }).expect(201);
  const target = await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: agentUrl, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
  const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201);
  return waitForRun(testApp.baseUrl, API_KEY, created.body.id);
}

async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('run-completion webhook (evaluation-platform.md, Events)', () => {
  let agent: LocalPeer;
  let receiver: LocalPeer;

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => ({ body: { reply: `pong to ${(body as { message: string }).message}` } }));
    receiver = await startLocalPeer(() => ({ status: 204, body: null }));
  });
  afterAll(async () => {
    await agent?.close();
    await receiver?.close();
  });

  it('POSTs the exact body with the secret header to a real receiver', async () => {
    const testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_WEBHOOK_URL: `${receiver.url}/hooks/atrium`, EVAL_WEBHOOK_SECRET: 'hook-secret-1' });
    try {
      const run = await runOnce(testApp, `${agent.url}/chat`);
      expect(run.status).toBe('completed');
      await eventually(() => receiver.requests.length === 1);
      const [delivery] = receiver.requests;
      expect(delivery).toMatchObject({ method: 'POST', path: '/hooks/atrium' });
      expect(delivery.headers['content-type']).toBe('application/json');
      expect(delivery.headers['x-webhook-secret']).toBe('hook-secret-1');
      expect(delivery.body).toEqual({ event: 'run_completed', run_id: run.id, status: 'completed', summary: run.summary, report_url: `/api/reports/${run.id}` });
    } finally {
      await testApp.close();
    }
  });

  it('sends no secret header when none is configured', async () => {
    receiver.requests.length = 0;
    const testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_WEBHOOK_URL: receiver.url });
    try {
      await runOnce(testApp, `${agent.url}/chat`);
      await eventually(() => receiver.requests.length === 1);
      expect(receiver.requests[0].headers['x-webhook-secret']).toBeUndefined();
    } finally {
      await testApp.close();
    }
  });

  it('still completes the run and logs a warning when the receiver is unreachable', async () => {
    const logLines: string[] = [];
    const testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_WEBHOOK_URL: 'http://127.0.0.1:9/unreachable' }, { logLines });
    try {
      const run = await runOnce(testApp, `${agent.url}/chat`);
      expect(run.status).toBe('completed');
      await eventually(() => logLines.some((line) => line.includes('Run-completion webhook') && line.includes(run.id)));
      const warning = JSON.parse(logLines.find((line) => line.includes('Run-completion webhook'))!);
      expect(warning.level).toBe(40);
      const after = await request(testApp.baseUrl).get(`/api/runs/${run.id}`).set('X-API-Key', API_KEY).expect(200);
      expect(after.body.status).toBe('completed');
    } finally {
      await testApp.close();
    }
  });
});
