import request from 'supertest';
import { DataSource } from 'typeorm';
import { waitForRun } from '../support/evaluation-runs';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-caps-0123456789abcdef';
const REPLY_CAP = 1000;
const JUDGE_CAP = 500;

/**
 * Issue 19 item 2 for the evaluation wing: a target reply over EVAL_TARGET_REPLY_MAX_CHARS makes its case `errored`
 * naming the variable, and only the reply's marked start is stored; a judge answer over EVAL_JUDGE_ANSWER_MAX_CHARS
 * fails its llm-rubric rule unparsed; a reply within the caps is judged as usual.
 */
describe('stored model and target text is capped (issue 19 item 2)', () => {
  let target: LocalPeer;
  let models: LocalPeer;
  let app: TestApp;
  const api = (method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    target = await startLocalPeer(({ body }) => {
      const message = (body as { message: string }).message;
      return { body: { reply: message === 'huge' ? 'z'.repeat(200_000) : `ok ${message}` } };
    });
    models = await startLocalPeer(({ body }) => {
      const text = JSON.stringify(body);
      // The judge rambles for the case whose reply mentions "ramble".
      if (text.includes('ok ramble')) return { body: chatCompletion(`{"pass": true, "score": 1, "reason": "${'r'.repeat(5000)}"}`, 'judge-model') };
      return { body: chatCompletion('{"pass": true, "score": 0.9, "reason": "Fine."}', 'judge-model') };
    });
    app = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_TARGET_REPLY_MAX_CHARS: String(REPLY_CAP), EVAL_JUDGE_ANSWER_MAX_CHARS: String(JUDGE_CAP) });
  });
  afterAll(async () => {
    await app?.close();
    await target?.close();
    await models?.close();
  });

  it('errors an over-long reply, fails an over-long judge answer, and judges the rest', async () => {
    const judge = await api('post', '/api/model-configs').send({ name: 'judge', base_url: `${models.url}/v1`, model: 'judge-model', purpose: 'judge' }).expect(201);
    const rubric = { type: 'llm-rubric', value: 'The reply is polite.' };
    const cases = [
      { id: 'huge', input: 'huge', rules: [{ type: 'contains', value: 'z' }, rubric] },
      { id: 'ramble', input: 'ramble', rules: [rubric] },
      { id: 'fine', input: 'fine', rules: [rubric] },
    ];
    const scenario = await api('post', '/api/scenarios').send({ name: 'Caps', cases, model_bindings: { judge: judge.body.id } }).expect(201);
    const created = await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const runId = (await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: created.body.id }).expect(201)).body.id;
    const run = await waitForRun(app.baseUrl, API_KEY, runId);
    expect(run.status).toBe('completed');
    expect(run.summary).toMatchObject({ total_cases: 3, passed_cases: 1, failed_cases: 1, errored_cases: 1 });

    const report = await api('get', `/api/reports/${runId}`).expect(200);
    const byCase = Object.fromEntries(report.body.cases.map((item: { case_id: string }) => [item.case_id, item]));
    expect(byCase.huge).toMatchObject({ status: 'errored', output: null });
    expect(byCase.huge.error).toContain(`over EVAL_TARGET_REPLY_MAX_CHARS=${REPLY_CAP}`);
    expect(byCase.ramble.status).toBe('failed');
    expect(byCase.ramble.rules[0]).toMatchObject({ pass: false });
    expect(byCase.ramble.rules[0].reason).toContain(`over EVAL_JUDGE_ANSWER_MAX_CHARS=${JUDGE_CAP}`);
    expect(byCase.fine).toMatchObject({ status: 'passed' });
    expect(byCase.fine.rules[0]).toMatchObject({ pass: true, reason: 'Fine.' });

    // Nothing over the caps is stored: the transcript keeps the huge reply's marked start only.
    const [stored] = await app.app.get(DataSource).query(
      `SELECT max(length(t->>'reply'))::int AS longest_reply, bool_or(t->>'reply' LIKE '%[cut: 200000 characters in all]') AS marked
         FROM eval_case_result r, jsonb_array_elements(r.transcript) t WHERE r.run_id = $1`,
      [runId],
    );
    expect(stored).toEqual({ longest_reply: REPLY_CAP, marked: true });
    const [reasons] = await app.app.get(DataSource).query(`SELECT max(length(coalesce(reason, '')))::int AS longest FROM eval_rule_result`);
    expect(reasons.longest).toBeLessThan(2001);
  });
});
