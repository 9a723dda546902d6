import Ajv from 'ajv';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { ANALYSIS_REPORT_SCHEMA } from '../../src/evaluation/analysis/analysis-report.schema';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';
import { eventually, newGate } from '../support/async';

const API_KEY = 'eval-api-key-analysis-0123456789';
const MODEL_KEY = 'sk-analysis-secret-key-42';
const FOREIGN_RUN = randomUUID();
const FOREIGN_SCENARIO = randomUUID();

interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
}

/** The kind of analysis call, from the first line of its system prompt. */
const taskOf = (body: ChatBody) => body.messages[0].content.split('\n')[0];
const userJson = (body: ChatBody) => JSON.parse(body.messages[1].content);

describe('campaign analysis and cycle comparison (issue 4, acceptance 1 and 2)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let model: LocalPeer;
  /** Which service cycle the agent is in: its answers get better for refunds and worse for orders in cycle 2. */
  let cycle = 1;
  /** The `broken-model` answers synthesis with prose (not JSON) while this is true. */
  let brokenSynthesis = true;
  let brokenGate = newGate();
  let downCalls = 0;
  const synthesisAnswers = new Map<string, number>();
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const validateReport = new Ajv({ allErrors: true, strict: false }).compile(ANALYSIS_REPORT_SCHEMA);

  /** The scripted analysis model: tells diagnosis, synthesis and narration apart by the task line of the prompt. */
  async function answer(body: ChatBody): Promise<string> {
    const task = taskOf(body);
    const input = userJson(body);
    if (task === 'Task: scenario diagnosis') {
      if (body.model === 'broken-model') await brokenGate.promise;
      if (body.model === 'down-model') {
        // First attempt: a server error; second: slower than EVAL_ANALYSIS_MODEL_TIMEOUT_MS.
        downCalls++;
        if (downCalls === 1) throw Object.assign(new Error('upstream down'), { status: 503 });
        await new Promise((resolve) => setTimeout(resolve, 2_500));
      }
      const cases = input.failure_sample.cases as { case_id: string }[];
      return JSON.stringify({
        summary: `${input.scenario.scenario_name}: ${input.failure_sample.total_failed_or_errored_results} failed results.`,
        findings: cases.map((item) => ({ title: `Case ${item.case_id} fails`, severity: 'medium', description: 'The reply misses the expected text.', case_ids: [item.case_id], extra_field: 'dropped' })),
      });
    }
    if (task === 'Task: campaign synthesis') {
      const name = input.campaign.name as string;
      const count = (synthesisAnswers.get(name) ?? 0) + 1;
      synthesisAnswers.set(name, count);
      if (body.model === 'broken-model' && brokenSynthesis) return 'I am sorry, I cannot write JSON today.';
      const scenario = (scenarioName: string) => (input.scenarios as { scenario_id: string; scenario_name: string; run_ids: string[] }[]).find((item) => item.scenario_name === scenarioName)!;
      if (name === 'Cycle 1') {
        const refunds = scenario('Refunds');
        const orders = scenario('Orders');
        const report = {
          summary: 'Refund replies miss the approval; order replies are curt.',
          problems: [
            {
              id: 'refund-window',
              title: 'Refund approval missing',
              severity: 'high',
              description: 'Half of the refund requests get no approval.',
              evidence: [
                { run_id: refunds.run_ids[0], scenario_id: refunds.scenario_id, case_id: 'refund-3', note: 'no approval given' },
                { run_id: FOREIGN_RUN, note: 'a run of another campaign' },
                { scenario_id: FOREIGN_SCENARIO, case_id: 'refund-4', note: 'wrong scenario, right case' },
              ],
              scenario_ids: [refunds.scenario_id, FOREIGN_SCENARIO],
            },
            { id: 'order-tone', title: 'Order replies are curt', severity: 'low', description: 'Terse.', evidence: [{ scenario_id: orders.scenario_id, note: 'short replies' }], scenario_ids: [orders.scenario_id] },
            { id: 'greet', title: 'Greeting is missing', severity: 'medium', description: 'No hello.', evidence: [{ note: 'every reply' }] },
          ],
          recommendations: [
            { id: 'R1', title: 'State the refund approval', description: 'Say "refund approved".', problem_ids: ['refund-window'], priority: 'high' },
            { id: 'R2', title: 'Warmer order replies', description: 'Add a sentence.', problem_ids: ['order-tone', 'ghost-problem'], priority: 'low' },
          ],
        };
        // The first answer lacks `recommendations`: it must be retried with the validation errors.
        return JSON.stringify(count === 1 ? { summary: report.summary, problems: report.problems } : report);
      }
      if (name === 'Cycle 2') {
        const orders = scenario('Orders');
        return JSON.stringify({
          summary: 'Refunds are fixed; order lookup broke.',
          problems: [
            { id: 'order-tone', title: 'Order replies still curt', severity: 'low', description: 'Terse.', evidence: [{ scenario_id: orders.scenario_id, note: 'short' }], scenario_ids: [orders.scenario_id] },
            { id: 'p-greet', title: 'greeting is MISSING!', severity: 'medium', description: 'No hello.', evidence: [{ note: 'every reply' }] },
            { id: 'order-lookup', title: 'Order lookup fails', severity: 'medium', description: 'order-2 is not found.', evidence: [{ run_id: orders.run_ids[0], case_id: 'order-2', note: 'not found' }], scenario_ids: [orders.scenario_id] },
          ],
          recommendations: [{ id: 'R3', title: 'Fix order lookup', description: 'Check the order index.', problem_ids: ['order-lookup'], priority: 'medium' }],
        });
      }
      return JSON.stringify({ summary: `${name} looks fine.`, problems: [], recommendations: [] });
    }
    if (task === 'Task: cycle comparison narration') return 'Refunds recovered completely while order lookup regressed; overall the agent improved.';
    throw new Error(`unexpected task ${task}`);
  }

  const newScenario = async (name: string, cases: object[]) => (await api('post', '/api/scenarios').send({ name, cases }).expect(201)).body;
  const campaignBody = (name: string, targetId: string, plan: object[], extra: object = {}) => ({
    name, target_id: targetId, line: 'production', window_start: '2026-03-01T00:00:00Z', window_end: '2026-04-01T00:00:00Z', plan, ...extra,
  });
  /** Creates, starts and waits for a campaign to complete. */
  const completedCampaign = async (body: object) => {
    const created = await api('post', '/api/campaigns').send(body).expect(201);
    await api('post', `/api/campaigns/${created.body.id}/start`).send({}).expect(200);
    return eventually(`campaign ${created.body.id} completed`, async () => {
      const campaign = await api('get', `/api/campaigns/${created.body.id}`).expect(200);
      return campaign.body.status === 'completed' ? campaign.body : undefined;
    });
  };
  const waitForAnalysis = (campaignId: string, statuses = ['completed', 'failed']) =>
    eventually(`analysis of ${campaignId}`, async () => {
      const analysis = await api('get', `/api/campaigns/${campaignId}/analysis`).expect(200);
      return statuses.includes(analysis.body.status) ? analysis.body : undefined;
    });
  const modelRequests = (task: string, campaignName?: string) =>
    model.requests.map((entry) => entry.body as ChatBody).filter((body) => taskOf(body) === task && (!campaignName || userJson(body).campaign?.name === campaignName || userJson(body).current?.name === campaignName));

  let target: { id: string };
  let refunds: { id: string };
  let orders: { id: string };
  let greetings: { id: string };
  let first: { id: string };
  let second: { id: string };

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => {
      const message = (body as { message: string }).message;
      const [kind, number] = message.split('-');
      if (kind === 'refund') return { body: { reply: cycle === 2 || Number(number) <= 2 ? 'Your refund approved.' : 'Please wait.' } };
      if (kind === 'order') return { body: { reply: cycle === 2 && number === '2' ? 'No idea.' : 'Your order found.' } };
      return { body: { reply: `Hello! ${message}` } };
    });
    model = await startLocalPeer(async ({ path, body }) => {
      if (path !== '/v1/chat/completions') return { status: 404, body: { error: 'not found' } };
      try {
        return { body: chatCompletion(await answer(body as ChatBody), (body as ChatBody).model) };
      } catch (error) {
        return { status: (error as { status?: number }).status ?? 500, body: { error: { message: (error as Error).message } } };
      }
    });
    testApp = await startTestApp({
      EVAL_API_KEYS: API_KEY,
      EVAL_ANALYSIS_FAILURE_SAMPLE_CAP: '1',
      EVAL_ANALYSIS_MAX_ATTEMPTS: '2',
      EVAL_ANALYSIS_RETRY_DELAY_MS: '10',
      EVAL_ANALYSIS_MODEL_TIMEOUT_MS: '2000',
    });
    target = (await api('post', '/api/targets').send({ name: 'support bot', kind: 'http', http: { url: agent.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' }, max_concurrency: 4 }).expect(201)).body;
    const rule = (value: string) => [{ type: 'contains', value }];
    refunds = await newScenario('Refunds', [1, 2, 3, 4].map((n) => ({ id: `refund-${n}`, input: `refund-${n}`, rules: rule('refund approved') })));
    orders = await newScenario('Orders', [1, 2].map((n) => ({ id: `order-${n}`, input: `order-${n}`, rules: rule('order found') })));
    greetings = await newScenario('Greetings', [{ id: 'hello', input: 'hi', rules: rule('Hello') }]);
  });
  afterAll(async () => {
    brokenGate.release();
    await testApp?.close();
    await agent?.close();
    await model?.close();
  });

  describe('start refusals (400 with the reason) and reads before any analysis', () => {
    it('400 when no analysis model can be resolved', async () => {
      const campaign = await completedCampaign(campaignBody('No model', target.id, [{ scenario_id: greetings.id }]));
      const refused = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(400);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(refused.body.detail).toBe(
        'No analysis model: set analysis_model_config_id on the campaign or mark a model configuration as the analysis default (is_analysis_default).',
      );
      // Still never analysed: the refused start stored nothing.
      const none = await api('get', `/api/campaigns/${campaign.id}/analysis`).expect(404);
      expect(none.body.detail).toBe(`Campaign ${campaign.id} has not been analysed yet; POST /api/campaigns/${campaign.id}/analysis starts its analysis.`);
      const noComparison = await api('get', `/api/campaigns/${campaign.id}/cycle-comparison`).expect(404);
      expect(noComparison.body.detail).toMatch(/No cycle comparison for campaign .* yet: it has not been analysed yet/);
    });

    it('400 when the campaign\'s own analysis model is disabled or was deleted', async () => {
      const own = (await api('post', '/api/model-configs').send({ name: 'own analyst', base_url: `${model.url}/v1`, model: 'own-model', purpose: 'analysis' }).expect(201)).body;
      const campaign = await completedCampaign(campaignBody('Own model', target.id, [{ scenario_id: greetings.id }], { analysis_model_config_id: own.id }));
      await api('patch', `/api/model-configs/${own.id}`).send({ enabled: false }).expect(200);
      const disabled = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(400);
      expect(disabled.body.detail).toBe(`The campaign's analysis model configuration "own analyst" (${own.id}) is disabled; enable it or choose another.`);
      await api('delete', `/api/model-configs/${own.id}`).expect((res) => expect([200, 204]).toContain(res.status));
      const deleted = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(400);
      expect(deleted.body.detail).toMatch(new RegExp(`analysis model configuration ${own.id} no longer exists`));
    });

    it('400 on a campaign that has not finished; 404 on an unknown campaign', async () => {
      await api('post', '/api/model-configs').send({ name: 'analyst', base_url: `${model.url}/v1`, model: 'analysis-model', api_key: MODEL_KEY, purpose: 'analysis', is_analysis_default: true }).expect(201);
      const draft = await api('post', '/api/campaigns').send(campaignBody('Draft', target.id, [{ scenario_id: greetings.id }])).expect(201);
      const refused = await api('post', `/api/campaigns/${draft.body.id}/analysis`).expect(400);
      expect(refused.body.detail).toBe(`Campaign ${draft.body.id} is draft; only a finished campaign (completed or cancelled) can be analysed.`);
      const unknown = randomUUID();
      expect((await api('post', `/api/campaigns/${unknown}/analysis`).expect(404)).body.detail).toBe(`No campaign ${unknown}.`);
      expect((await api('get', `/api/campaigns/${unknown}/analysis`).expect(404)).body.detail).toBe(`No campaign ${unknown}.`);
      expect((await api('get', `/api/campaigns/${unknown}/cycle-comparison`).expect(404)).body.detail).toBe(`No campaign ${unknown}.`);
    });
  });

  describe('two cycles of the same plan', () => {
    const plan = () => [{ scenario_id: refunds.id }, { scenario_id: orders.id }];

    it('cycle 1: the campaign completes, the analysis completes with a schema-valid report without foreign references', async () => {
      first = await completedCampaign(campaignBody('Cycle 1', target.id, plan()));
      const started = await api('post', `/api/campaigns/${first.id}/analysis`).expect(202);
      expect(started.body).toMatchObject({ campaign_id: first.id, status: 'generating', generation: 1, report: null, error: null });
      expect(started.body.model_config).toEqual({ id: expect.any(String), name: 'analyst', provider: 'openai_compatible', base_url: `${model.url}/v1`, model: 'analysis-model', type: 'chat', purpose: 'analysis' });

      const analysis = await waitForAnalysis(first.id);
      expect(analysis.error).toBeNull();
      expect(analysis.status).toBe('completed');
      expect(analysis.progress).toEqual({ phase: 'done', scenarios_total: 2, scenarios_diagnosed: 2 });
      expect(JSON.stringify(analysis)).not.toContain(MODEL_KEY);
      expect(validateReport(analysis.report)).toBe(true);

      // Phase 1: one diagnosis per scenario, with at most EVAL_ANALYSIS_FAILURE_SAMPLE_CAP (1) failures each.
      const diagnoses = modelRequests('Task: scenario diagnosis', 'Cycle 1');
      expect(diagnoses).toHaveLength(2);
      expect(diagnoses.every((body) => body.response_format?.type === 'json_object')).toBe(true);
      const refundSample = userJson(diagnoses.find((body) => userJson(body).scenario.scenario_name === 'Refunds')!);
      expect(refundSample.scenario).toMatchObject({ total_cases: 4, passed_cases: 2, pass_rate: 0.5 });
      expect(refundSample.failure_sample).toMatchObject({ shown: 1, total_failed_or_errored_results: 2 });
      expect(refundSample.failure_sample.cases[0]).toMatchObject({ case_id: 'refund-3', status: 'failed', input: 'refund-3', output: 'Please wait.', error: null });
      expect(refundSample.failure_sample.cases[0].failed_rules).toEqual([{ type: 'contains', reason: expect.stringContaining('refund approved') }]);
      expect(analysis.diagnoses.map((item: { scenario_name: string; sampled_failures: number; total_failures: number }) => [item.scenario_name, item.sampled_failures, item.total_failures])).toEqual([
        ['Refunds', 1, 2],
        ['Orders', 0, 0],
      ]);
      expect(analysis.diagnoses[0].findings[0]).toEqual({ title: 'Case refund-3 fails', severity: 'medium', description: 'The reply misses the expected text.', case_ids: ['refund-3'] });

      // Phase 2: the first answer lacked `recommendations`; the retry carried the validation error.
      const syntheses = modelRequests('Task: campaign synthesis', 'Cycle 1');
      expect(syntheses).toHaveLength(2);
      expect(syntheses[1].messages.at(-1)!.content).toContain("/ must have required property 'recommendations'");
      expect(analysis.model_calls).toBe(4);
      expect(analysis.attempts).toBe(1);

      // Foreign references are gone; the campaign's own remain.
      const runs = (await api('get', '/api/runs').query({ campaign_id: first.id }).expect(200)).body.content as { id: string; scenario_id: string }[];
      const refundRun = runs.find((run) => run.scenario_id === refunds.id)!;
      const problem = analysis.report.problems.find((item: { id: string }) => item.id === 'refund-window');
      expect(problem.evidence).toEqual([
        { run_id: refundRun.id, scenario_id: refunds.id, case_id: 'refund-3', note: 'no approval given' },
        { case_id: 'refund-4', note: 'wrong scenario, right case' },
      ]);
      expect(problem.scenario_ids).toEqual([refunds.id]);
      expect(analysis.report.recommendations.find((item: { id: string }) => item.id === 'R2').problem_ids).toEqual(['order-tone']);
      expect(JSON.stringify(analysis.report)).not.toContain(FOREIGN_RUN);
      expect(JSON.stringify(analysis.report)).not.toContain(FOREIGN_SCENARIO);
      expect(analysis.removed_references).toEqual(
        expect.arrayContaining([
          { path: '/problems/0/evidence/1/run_id', kind: 'run', value: FOREIGN_RUN },
          { path: '/problems/0/evidence/1', kind: 'evidence', value: 'a run of another campaign' },
          { path: '/problems/0/evidence/2/scenario_id', kind: 'scenario', value: FOREIGN_SCENARIO },
          { path: '/problems/0/scenario_ids/1', kind: 'scenario', value: FOREIGN_SCENARIO },
          { path: '/recommendations/1/problem_ids/1', kind: 'problem', value: 'ghost-problem' },
        ]),
      );
      expect(analysis.removed_references).toHaveLength(5);

      // No earlier campaign of this plan: the comparison says so.
      const comparison = await api('get', `/api/campaigns/${first.id}/cycle-comparison`).expect(200);
      expect(comparison.body).toMatchObject({ campaign_id: first.id, baseline_campaign_id: null, status: 'no_baseline', metrics: null, trend: null, narration: null });
      expect(comparison.body.message).toMatch(/^No baseline: /);
      expect(modelRequests('Task: cycle comparison narration')).toHaveLength(0);
    });

    it('cycle 2: the comparison pairs it with cycle 1 and holds the right deltas, problem evolution, tracking and trend', async () => {
      cycle = 2;
      second = await completedCampaign(campaignBody('Cycle 2', target.id, plan().reverse()));
      expect(second).toMatchObject({ plan_fingerprint: (first as unknown as { plan_fingerprint: string }).plan_fingerprint });
      await api('post', `/api/campaigns/${second.id}/analysis`).expect(202);
      const analysis = await waitForAnalysis(second.id);
      expect(analysis.status).toBe('completed');
      expect(validateReport(analysis.report)).toBe(true);
      // The synthesis was shown the baseline's problems, so it could keep their ids.
      const synthesis = userJson(modelRequests('Task: campaign synthesis', 'Cycle 2')[0]);
      expect(synthesis.earlier_problems.map((item: { id: string }) => item.id)).toEqual(['refund-window', 'order-tone', 'greet']);

      const comparison = (await api('get', `/api/campaigns/${second.id}/cycle-comparison`).expect(200)).body;
      expect(comparison).toMatchObject({ campaign_id: second.id, baseline_campaign_id: first.id, status: 'completed', narration_error: null });
      // Cycle 1: refunds 2/4, orders 2/2 (4/6). Cycle 2: refunds 4/4, orders 1/2 (5/6).
      expect(comparison.metrics.overall.pass_rate).toEqual({ current: 0.8333, baseline: 0.6667, delta: 0.1666 });
      expect(comparison.metrics.overall.passed_cases).toEqual({ current: 5, baseline: 4, delta: 1 });
      expect(comparison.metrics.overall.total_cases).toEqual({ current: 6, baseline: 6, delta: 0 });
      const byScenario = Object.fromEntries(comparison.metrics.scenarios.map((item: { scenario_name: string }) => [item.scenario_name, item]));
      expect(byScenario.Refunds).toMatchObject({ scenario_id: refunds.id, pass_rate: { current: 1, baseline: 0.5, delta: 0.5 }, passed_cases: { current: 4, baseline: 2, delta: 2 }, missing_in_current: false });
      expect(byScenario.Orders).toMatchObject({ scenario_id: orders.id, pass_rate: { current: 0.5, baseline: 1, delta: -0.5 }, passed_cases: { current: 1, baseline: 2, delta: -1 } });
      expect(typeof byScenario.Refunds.latency_p50_ms.current).toBe('number');
      // The deltas agree with the campaign reports of both cycles.
      const reportOf = async (id: string) => (await api('get', `/api/campaigns/${id}/report`).expect(200)).body;
      const [now, before] = await Promise.all([reportOf(second.id), reportOf(first.id)]);
      expect([now.results.pass_rate, before.results.pass_rate]).toEqual([comparison.metrics.overall.pass_rate.current, comparison.metrics.overall.pass_rate.baseline]);

      expect(comparison.problem_evolution.resolved).toEqual([{ id: 'refund-window', title: 'Refund approval missing', severity: 'high' }]);
      expect(comparison.problem_evolution.persisting).toEqual([
        { id: 'order-tone', title: 'Order replies still curt', severity: 'low', baseline_id: 'order-tone', baseline_title: 'Order replies are curt', baseline_severity: 'low', matched_by: 'id', severity_change: 'same' },
        { id: 'p-greet', title: 'greeting is MISSING!', severity: 'medium', baseline_id: 'greet', baseline_title: 'Greeting is missing', baseline_severity: 'medium', matched_by: 'title', severity_change: 'same' },
      ]);
      expect(comparison.problem_evolution.new).toEqual([{ id: 'order-lookup', title: 'Order lookup fails', severity: 'medium' }]);

      expect(comparison.recommendation_tracking.map((item: { recommendation_id: string; followed_by_improvement: boolean }) => [item.recommendation_id, item.followed_by_improvement])).toEqual([
        ['R1', true],
        ['R2', false],
      ]);
      expect(comparison.recommendation_tracking[0]).toMatchObject({ resolved_problem_ids: ['refund-window'], improved_scenario_ids: [refunds.id] });
      expect(comparison.recommendation_tracking[1].why).toMatch(/problem order-tone persists; the pass rate of its scenarios did not rise: "Orders" \(-0\.5\)/);

      expect(comparison.trend).toBe('improving');
      expect(comparison.trend_reason).toMatch(/^Improving: the overall pass rate changed by \+0\.1666/);
      expect(comparison.trend_rule).toMatch(/regressing when the overall pass rate fell by 0\.02 or more/);
      expect(comparison.narration).toBe('Refunds recovered completely while order lookup regressed; overall the agent improved.');
      const narration = modelRequests('Task: cycle comparison narration', 'Cycle 2');
      expect(narration).toHaveLength(1);
      expect(userJson(narration[0]).comparison.trend).toBe('improving');
      // The key was used to call the model and never shown.
      expect(model.requests.some((entry) => entry.headers.authorization === `Bearer ${MODEL_KEY}`)).toBe(true);
    });
  });

  describe('invalid model answers, conflicts and restarts', () => {
    it('retries an invalid answer, then ends failed with the reason; 409 while generating; a restart reuses the record and completes', async () => {
      const broken = (await api('post', '/api/model-configs').send({ name: 'broken analyst', base_url: `${model.url}/v1`, model: 'broken-model', purpose: 'analysis' }).expect(201)).body;
      const campaign = await completedCampaign(campaignBody('Accelerated', target.id, [{ scenario_id: greetings.id }], { line: 'accelerated', analysis_model_config_id: broken.id }));
      const started = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(202);
      expect(started.body.model_config.name).toBe('broken analyst');
      await eventually('the gated diagnosis', async () => (modelRequests('Task: scenario diagnosis', 'Accelerated').length > 0 ? true : undefined));
      const conflict = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(409);
      expect(conflict.body.detail).toBe(`The analysis of campaign ${campaign.id} is already generating; wait until it is completed or failed, then start it again.`);
      const generating = await api('get', `/api/campaigns/${campaign.id}/analysis`).expect(200);
      expect(generating.body).toMatchObject({ status: 'generating', progress: { phase: 'diagnosis', scenarios_total: 1, scenarios_diagnosed: 0 } });
      brokenGate.release();

      const failed = await waitForAnalysis(campaign.id);
      expect(failed.status).toBe('failed');
      expect(failed.error).toBe('The synthesis of the report failed after 2 attempts; last: the answer was invalid: the answer is not one JSON object');
      expect(failed.report).toBeNull();
      expect(failed.diagnoses).toHaveLength(1);
      const attempts = modelRequests('Task: campaign synthesis', 'Accelerated');
      expect(attempts).toHaveLength(2);
      expect(attempts[1].messages.slice(-2)).toEqual([
        { role: 'assistant', content: 'I am sorry, I cannot write JSON today.' },
        { role: 'user', content: expect.stringContaining('the answer is not one JSON object') },
      ]);
      const noComparison = await api('get', `/api/campaigns/${campaign.id}/cycle-comparison`).expect(404);
      expect(noComparison.body.detail).toBe(`Campaign ${campaign.id} is on the accelerated line; cycle comparisons are made for production-line campaigns only.`);

      brokenSynthesis = false;
      const restarted = await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(202);
      expect(restarted.body).toMatchObject({ status: 'generating', generation: 2, error: null, report: null, diagnoses: [], attempts: 0, model_calls: 0 });
      const completed = await waitForAnalysis(campaign.id);
      expect(completed).toMatchObject({ status: 'completed', generation: 2, error: null, report: { summary: 'Accelerated looks fine.', problems: [], recommendations: [] } });
      // Still one record per campaign: the restart updated it.
      expect((await api('get', `/api/campaigns/${campaign.id}/analysis`).expect(200)).body.generation).toBe(2);
      await api('get', `/api/campaigns/${campaign.id}/cycle-comparison`).expect(404);
    });

    it('retries failed model calls (server error, then timeout) and ends failed with the reason', async () => {
      const down = (await api('post', '/api/model-configs').send({ name: 'down analyst', base_url: `${model.url}/v1`, model: 'down-model', purpose: 'analysis' }).expect(201)).body;
      const campaign = await completedCampaign(campaignBody('Down', target.id, [{ scenario_id: greetings.id }], { analysis_model_config_id: down.id }));
      await api('post', `/api/campaigns/${campaign.id}/analysis`).expect(202);
      const failed = await waitForAnalysis(campaign.id);
      expect(failed).toMatchObject({ status: 'failed', model_calls: 2, diagnoses: [], report: null });
      expect(failed.error).toBe('The diagnosis of scenario "Greetings" failed after 2 attempts; last: the model did not answer within 2000 ms');
      expect(downCalls).toBe(2);
      // The cycle comparison is made only from a completed analysis.
      expect((await api('get', `/api/campaigns/${campaign.id}/cycle-comparison`).expect(404)).body.detail).toMatch(/its analysis failed \(restart the analysis\)/);
    });

    it('a restart of a completed production analysis replaces its cycle comparison', async () => {
      const before = (await api('get', `/api/campaigns/${second.id}/cycle-comparison`).expect(200)).body;
      await api('post', `/api/campaigns/${second.id}/analysis`).expect(202);
      const analysis = await waitForAnalysis(second.id);
      expect(analysis).toMatchObject({ status: 'completed', generation: 2 });
      const after = (await api('get', `/api/campaigns/${second.id}/cycle-comparison`).expect(200)).body;
      expect(after.baseline_campaign_id).toBe(first.id);
      expect(after.metrics).toEqual(before.metrics);
      expect(Date.parse(after.created_at)).toBeGreaterThan(Date.parse(before.created_at));
    });
  });
});
