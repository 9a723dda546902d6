import request from 'supertest';
import { waitForRun as waitForRunToEnd } from '../support/evaluation-runs';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

/** An agent that echoes the message and counts the history it was sent. */
function agentReply(message: string, history: { role: string; content: string }[]): string {
  if (message === 'json please') return '{"ok": true, "items": [1, 2]}';
  if (message === 'forbidden') return "I'm sorry, but I can't help with that.";
  return `Echo: ${message} (history ${history.length})`;
}

/** Factory: a scenario exercising single- and multi-turn cases and every deterministic rule type plus llm-rubric. */
function newScenario(judgeId: string) {
  return {
    name: 'Echo agent checks',
    model_bindings: { judge: judgeId },
    llm_config: { temperature: 0 },
    cases: [
      {
        id: 'greet',
        input: 'Hello there',
        rules: [
          { type: 'contains', value: 'Hello there' },
          { type: 'icontains', value: 'ECHO' },
          { type: 'contains-any', value: ['nope', 'Echo'] },
          { type: 'contains-all', value: ['Echo', 'history 0'] },
          { type: 'equals', value: 'Echo: Hello there (history 0)' },
          { type: 'starts-with', value: 'Echo:' },
          { type: 'regex', value: '^Echo: \\w+' },
          { type: 'word-count', min: 2, max: 10 },
          { type: 'levenshtein', value: 'Echo: Hello there (history 1)', threshold: 2 },
          { type: 'latency', threshold: 10000 },
          { type: 'not-is-refusal' },
          { type: 'not-contains', value: 'error' },
          { type: 'llm-rubric', value: 'The reply greets the user back.' },
        ],
      },
      { id: 'conversation', turns: ['first', 'second', 'third'], rules: [{ type: 'contains-all', value: ['third', 'history 4'] }] },
      { id: 'structured', input: 'json please', rules: [{ type: 'is-json' }, { type: 'json-schema', value: { type: 'object', required: ['ok'], properties: { ok: { const: true } } } }] },
      { id: 'refusal', input: 'forbidden', rules: [{ type: 'is-refusal' }] },
      { id: 'wrong', input: 'anything', rules: [{ type: 'contains', value: 'never-there' }, { type: 'not-starts-with', value: 'Echo' }] },
      { id: 'weighted', input: 'weights', threshold: 0.7, rules: [{ type: 'contains', value: 'weights', weight: 3 }, { type: 'contains', value: 'missing', weight: 1 }] },
    ],
  };
}

describe('runs (evaluation-platform.md: POST/GET /api/runs; issue 3 acceptance 1–2)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let models: LocalPeer;
  const api = (method: 'get' | 'post' | 'patch', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  const waitForRun = (id: string) => waitForRunToEnd(testApp.baseUrl, API_KEY, id);

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => {
      const { message, history } = body as { message: string; history: { role: string; content: string }[] };
      return { body: { reply: agentReply(message, history) } };
    });
    models = await startLocalPeer(({ body }) => {
      const { model, messages } = body as { model: string; messages: { role: string; content: string }[] };
      if (model === 'judge-model') return { body: chatCompletion('{"pass": true, "score": 0.8, "reason": "It greets the user back."}', model) };
      const userTurns = messages.filter((message) => message.role !== 'system');
      const last = userTurns[userTurns.length - 1].content;
      return { body: chatCompletion(agentReply(last, userTurns.slice(0, -1)), model) };
    });
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
  });
  afterAll(async () => {
    await testApp?.close();
    await agent?.close();
    await models?.close();
  });

  it.each(['http', 'openai'])('runs every rule type against a real %s agent', async (kind) => {
    const judge = await api('post', '/api/model-configs').send({ name: 'judge', base_url: `${models.url}/v1`, model: 'judge-model', purpose: 'judge', api_key: 'judge-key-123' }).expect(201);
    const scenario = await api('post', '/api/scenarios').send(newScenario(judge.body.id)).expect(201);
    const targetBody =
      kind === 'http'
        ? { name: 'echo http', kind, http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}', history: '{{history}}', session: '{{session_id}}' }, reply_path: '$.reply' } }
        : { name: 'echo openai', kind, openai: { base_url: `${models.url}/v1`, model: 'agent-model', api_key: 'agent-key-456' } };
    const target = await api('post', '/api/targets').send(targetBody).expect(201);

    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 3, triggered_by: 'cli' }).expect(201);
    expect(created.body).toMatchObject({ status: 'queued', scenario_version: 1, version_label: 'v1', triggered_by: 'cli', campaign_id: null, case_count: 6 });

    const run = await waitForRun(created.body.id);
    expect(run.status).toBe('completed');
    expect(run.summary).toMatchObject({ total_cases: 6, passed_cases: 5, failed_cases: 1, errored_cases: 0, total_rules: 21, passed_rules: 18 });
    expect(run.summary.pass_rate).toBeCloseTo(5 / 6, 3);
    expect(run.summary.latency_p50_ms).toEqual(expect.any(Number));

    const judgeCalls = models.requests.filter((entry) => (entry.body as { model: string }).model === 'judge-model');
    expect(judgeCalls.length).toBeGreaterThan(0);
    expect(judgeCalls[judgeCalls.length - 1].headers.authorization).toBe('Bearer judge-key-123');

    const report = await api('get', `/api/reports/${run.id}`).expect(200);
    expect(report.body.header).toMatchObject({ scenario_name: 'Echo agent checks', version: 'v1', target_name: target.body.name });
    const byCase = Object.fromEntries(report.body.cases.map((item: { case_id: string }) => [item.case_id, item]));
    expect(byCase.greet.rules.map((rule: { type: string; pass: boolean }) => [rule.type, rule.pass])).toEqual([
      ['contains', true], ['icontains', true], ['contains-any', true], ['contains-all', true], ['equals', true], ['starts-with', true], ['regex', true],
      ['word-count', true], ['levenshtein', true], ['latency', true], ['not-is-refusal', true], ['not-contains', true], ['llm-rubric', true],
    ]);
    expect(byCase.greet.rules[12]).toMatchObject({ score: 0.8, reason: 'It greets the user back.' });
    expect(byCase.conversation).toMatchObject({ status: 'passed', output: 'Echo: third (history 4)', input: ['first', 'second', 'third'] });
    expect(byCase.conversation.transcript.map((turn: { message: string }) => turn.message)).toEqual(['first', 'second', 'third']);
    expect(byCase.structured.rules.map((rule: { pass: boolean }) => rule.pass)).toEqual([true, true]);
    expect(byCase.refusal).toMatchObject({ status: 'passed' });
    expect(byCase.wrong).toMatchObject({ status: 'failed' });
    expect(byCase.wrong.rules.map((rule: { pass: boolean }) => rule.pass)).toEqual([false, false]);
    expect(byCase.weighted).toMatchObject({ status: 'passed', score: 0.75 });

    const markdown = await api('get', `/api/reports/${run.id}/markdown`).expect(200);
    expect(markdown.headers['content-disposition']).toMatch(/^attachment; filename="?report-echo-agent-checks-v1-[0-9a-f-]+\.md"?$/);
    expect(markdown.headers['content-type']).toMatch(/^text\/markdown/);
    expect(markdown.text).toContain('| Pass rate | 83.3% |');
    expect(markdown.text).toContain('- **wrong** rule 1 `contains` failed');
    expect(markdown.text).toContain('- **wrong** rule 2 `not-starts-with` failed');

    const list = await api('get', '/api/runs').query({ scenario_id: scenario.body.id }).expect(200);
    expect(list.body.content).toEqual([expect.objectContaining({ id: run.id, scenario_name: 'Echo agent checks', target_name: target.body.name, version_label: 'v1', status: 'completed' })]);
  });

  it('marks a case errored when the target fails, never the run failed', async () => {
    const scenario = await api('post', '/api/scenarios').send({ name: 'Unreachable', cases: [{ id: 'a', input: 'x', rules: [{ type: 'contains', value: 'x' }] }] }).expect(201);
    const target = await api('post', '/api/targets').send({ name: 'down', kind: 'http', http: { url: 'http://127.0.0.1:9/down', body_template: { m: '{{message}}' }, reply_path: '$.reply', timeout_ms: 500 } }).expect(201);
    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201);
    const run = await waitForRun(created.body.id);
    expect(run.status).toBe('completed');
    expect(run.summary).toMatchObject({ total_cases: 1, errored_cases: 1, passed_cases: 0 });
  });

  it('keeps the version it ran with when the scenario changes later (rules 1–2)', async () => {
    const scenario = await api('post', '/api/scenarios').send({ name: 'Versioned', cases: [{ id: 'a', input: 'v', rules: [{ type: 'contains', value: 'v' }] }] }).expect(201);
    const target = await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}', history: '{{history}}' }, reply_path: '$.reply' } }).expect(201);
    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201);
    const run = await waitForRun(created.body.id);
    await api('patch', `/api/scenarios/${scenario.body.id}`).send({ cases: [{ id: 'a', input: 'v', rules: [] }, { id: 'b', input: 'w', rules: [] }] }).expect(200);
    const after = await api('get', `/api/runs/${run.id}`).expect(200);
    expect(after.body).toMatchObject({ scenario_version: 1, version_label: 'v1', case_count: 1, summary: run.summary });
    const second = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201);
    expect(second.body).toMatchObject({ scenario_version: 2, case_count: 2 });
    await waitForRun(second.body.id);
    const oldReport = await api('get', `/api/reports/${run.id}`).expect(200);
    expect(oldReport.body.header.version).toBe('v1');
    expect(oldReport.body.cases.map((item: { case_id: string; rules: unknown[] }) => [item.case_id, item.rules.length])).toEqual([['a', 1]]);

    // Compare (acceptance 3): v1 had case a with one passing rule; v2 has a (no rules, passes) and b (new).
    const comparison = await api('get', '/api/reports/compare').query({ run1: run.id, run2: second.body.id }).expect(200);
    expect(comparison.body.run_a.id).toBe(run.id);
    expect(comparison.body.run_b.id).toBe(second.body.id);
    expect(comparison.body.delta).toEqual({ pass_rate: 0, passed_cases: 1, passed_rules: -1 });
    expect(comparison.body.cases).toEqual([
      { case_id: 'a', status_a: 'passed', status_b: 'passed', score_a: 1, score_b: 1, changed: false },
      { case_id: 'b', status_a: null, status_b: 'passed', score_a: null, score_b: 1, changed: true },
    ]);
    const other = await api('get', '/api/runs').query({ status: 'completed', size: 200 }).expect(200);
    const foreign = other.body.content.find((item: { scenario_id: string }) => item.scenario_id !== scenario.body.id);
    const refused = await api('get', '/api/reports/compare').query({ run1: run.id, run2: foreign.id }).expect(400);
    expect(refused.body.detail).toMatch(/same scenario/);
    await api('get', '/api/reports/compare').query({ run1: run.id }).expect(400);
  });

  it('aggregates the dashboard from the runs so far', async () => {
    const stats = await api('get', '/api/stats/dashboard').query({ days: 7 }).expect(200);
    expect(stats.body.scenarios).toBeGreaterThanOrEqual(4);
    expect(stats.body.runs_by_status.completed).toBeGreaterThanOrEqual(4);
    const today = new Date().toISOString().slice(0, 10);
    expect(stats.body.pass_rate_trend).toEqual([expect.objectContaining({ day: today, runs: stats.body.runs_by_status.completed })]);
    expect(stats.body.pass_rate_trend[0].mean_pass_rate).toBeGreaterThan(0);
    expect(stats.body.slowest_targets.length).toBeGreaterThan(0);
    expect(stats.body.slowest_targets[0]).toEqual({ target_id: expect.any(String), target_name: expect.any(String), runs: expect.any(Number), mean_latency_p95_ms: expect.any(Number) });
    await api('get', '/api/stats/dashboard').query({ days: 0 }).expect(400);
  });

  it('refuses unknown scenarios and targets, and cancels only live runs', async () => {
    await api('post', '/api/runs').send({ scenario_id: '00000000-0000-4000-8000-000000000000', target_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
    await api('post', '/api/runs').send({ scenario_id: 'x', target_id: 'y' }).expect(400);
    const list = await api('get', '/api/runs').query({ status: 'completed' }).expect(200);
    await api('post', `/api/runs/${list.body.content[0].id}/cancel`).expect(409);
  });
});
