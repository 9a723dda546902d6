import request from 'supertest';
import { waitForRun as waitForRunToEnd } from '../support/evaluation-runs';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-judge-answers-0123456789';

/**
 * The judge's answers in each awkward shape (issue 24 acceptance 2), keyed by the tag in the rubric, with the verdict
 * a person reading the answer gives: [shape, answer, rule threshold, case status, judge score or null].
 */
const SHAPES: [string, string, number | undefined, 'passed' | 'failed' | 'errored', number | null][] = [
  ['brace', 'The user wrote {name} in braces, which is fine. {"pass": true, "score": 0.9, "reason": "Greets the user back."}', undefined, 'passed', 0.9],
  ['remark', '{"pass": false, "score": 0.1, "reason": "Does not greet."}\nRemark: I also considered {tone} and {style}.', undefined, 'failed', 0.1],
  ['strings', '{"pass": "true", "score": "0.9", "reason": "Greets, with strings for values."}', undefined, 'passed', 0.9],
  ['fence', 'Here is my verdict:\n```json\n{"pass": true, "score": 0.7, "reason": "Fenced."}\n```', undefined, 'passed', 0.7],
  ['ten', '{"pass": true, "score": 8, "reason": "Eight out of ten."}', 0.7, 'passed', 0.8],
  ['ten-low', '{"pass": true, "score": 3, "reason": "Three out of ten."}', 0.5, 'failed', 0.3],
  ['prose', 'The reply is polite and greets the user, so I would say it passes.', undefined, 'errored', null],
];

describe("judge answers read as a person reads them (issue 24 item 1, acceptance 2)", () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let models: LocalPeer;
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    agent = await startLocalPeer(() => ({ body: { reply: 'Hello! How can I help you today?' } }));
    models = await startLocalPeer(({ body }) => {
      const { model, messages, response_format: format } = body as { model: string; messages: { content: string }[]; response_format?: unknown };
      // This model refuses JSON mode, as many local and older models do.
      if (model === 'no-json-mode' && format !== undefined) return { status: 400, body: { error: { message: 'response_format is not supported by this model', type: 'invalid_request_error' } } };
      const tag = /\[shape ([\w-]+)\]/.exec(messages.map((m) => m.content).join('\n'))?.[1];
      const answer = SHAPES.find(([shape]) => shape === tag)?.[1] ?? 'no canned answer';
      return { body: chatCompletion(answer, model) };
    });
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
  });
  afterAll(async () => {
    await testApp?.close();
    await agent?.close();
    await models?.close();
  });

  async function run(judge: Record<string, unknown>) {
    const config = await api('post', '/api/model-configs').send({ name: 'judge', base_url: `${models.url}/v1`, purpose: 'judge', ...judge }).expect(201);
    const cases = SHAPES.map(([shape, , threshold]) => ({
      id: shape,
      input: 'Hello',
      rules: [{ type: 'llm-rubric', value: `[shape ${shape}] The reply greets the user.`, ...(threshold !== undefined && { threshold }) }],
    }));
    const scenario = await api('post', '/api/scenarios').send({ name: 'Judge shapes', model_bindings: { judge: config.body.id }, cases }).expect(201);
    const target = await api('post', '/api/targets').send({ name: 'greeter', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 2 }).expect(201);
    const ended = await waitForRunToEnd(testApp.baseUrl, API_KEY, created.body.id);
    expect(ended.status).toBe('completed');
    const report = await api('get', `/api/reports/${created.body.id}`).expect(200);
    return { summary: ended.summary, cases: new Map<string, { status: string; error: string | null; rules: { score: number; reason: string; pass: boolean }[] }>(report.body.cases.map((c: { case_id: string }) => [c.case_id, c])) };
  }

  it('each shape gets the verdict its words give; prose only is errored with the reason; a model refusing response_format is asked again without it', async () => {
    const before = models.requests.length;
    const { summary, cases } = await run({ model: 'no-json-mode', supports_response_format: true });
    for (const [shape, , , status, score] of SHAPES) {
      const result = cases.get(shape)!;
      expect([shape, result.status]).toEqual([shape, status]);
      if (score !== null) expect([shape, result.rules[0].score]).toEqual([shape, score]);
    }
    expect(cases.get('prose')!.error).toMatch(/^judge failure \(rule 0\): judge failed: unreadable judge answer: no JSON object in it/);
    expect(cases.get('ten')!.rules[0].reason).toBe('Eight out of ten. (score read on the 0-10 scale)');
    expect(summary).toMatchObject({ total_cases: 7, passed_cases: 4, failed_cases: 2, errored_cases: 1 });
    // Every judge call went first with response_format (configured as supported), was refused, then went without.
    const judgeCalls = models.requests.slice(before).map((entry) => (entry.body as { response_format?: unknown }).response_format !== undefined);
    expect(judgeCalls.filter((sent) => sent)).toHaveLength(SHAPES.length);
    expect(judgeCalls.filter((sent) => !sent)).toHaveLength(SHAPES.length);
  }, 120_000);

  it('a model configuration that does not say it supports response_format never gets it (the default)', async () => {
    const before = models.requests.length;
    const { cases } = await run({ model: 'plain-judge' });
    expect(cases.get('strings')!.status).toBe('passed');
    const sent = models.requests.slice(before).filter((entry) => (entry.body as { response_format?: unknown }).response_format !== undefined);
    expect(sent).toEqual([]);
    expect(models.requests.length - before).toBe(SHAPES.length);
  }, 120_000);

  it('ATTACK: a model configuration with a non-boolean supports_response_format is refused with 400', async () => {
    const response = await api('post', '/api/model-configs').send({ name: 'j', base_url: `${models.url}/v1`, model: 'm', supports_response_format: 'yes' }).expect(400);
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('ATTACK: a scenario with an invalid rule_defaults locale or a bad dialect is refused with 400', async () => {
    const base = { name: 'bad', cases: [{ id: 'a', input: 'x', rules: [{ type: 'icontains', value: 'x' }] }] };
    const badLocale = await api('post', '/api/scenarios').send({ ...base, llm_config: { rule_defaults: { locale: 'not a locale!' } } }).expect(400);
    expect(JSON.stringify(badLocale.body)).toMatch(/rule_defaults: locale must be a BCP 47 language tag/);
    const badDialect = await api('post', '/api/scenarios').send({ ...base, cases: [{ id: 'a', input: 'x', rules: [{ type: 'contains', value: 'x', dialect: 'jest' }] }] }).expect(400);
    expect(JSON.stringify(badDialect.body)).toMatch(/dialect must be one of atrium, promptfoo/);
    await api('post', '/api/scenarios').send({ ...base, llm_config: { rule_defaults: { locale: 'tr', normalize: 'NFKC' } } }).expect(201);
  });
});
