import request from 'supertest';
import { planFingerprint } from '../../src/evaluation/campaigns/plan-fingerprint';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';
import { eventually, newGate } from '../support/async';

const API_KEY = 'eval-api-key-campaigns-0123456789';

/** A promise the agent waits on for messages starting with "wait", released by the test. */
describe('campaigns (issue 4: Campaigns; evaluation-platform.md: POST/GET /api/campaigns)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let gate = newGate();
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /** Factory: an HTTP target calling the local agent. */
  const newTarget = async (name = 'echo agent') =>
    (await api('post', '/api/targets').send({ name, kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' }, max_concurrency: 4 }).expect(201)).body;
  /** Factory: a scenario; by default one case that passes against the echo agent. */
  const newScenario = async (name: string, cases = [{ id: 'c1', input: 'ping', rules: [{ type: 'contains', value: 'ping' }] }]) =>
    (await api('post', '/api/scenarios').send({ name, cases }).expect(201)).body;
  /** Factory: a campaign body with a valid window. */
  const campaignBody = (targetId: string, plan: object[], extra: object = {}) => ({
    name: 'Cycle', target_id: targetId, line: 'production', window_start: '2026-03-01T00:00:00Z', window_end: '2026-04-01T00:00:00Z', plan, ...extra,
  });
  const waitForCampaign = (id: string, status: string) =>
    eventually(`campaign ${id} ${status}`, async () => {
      const campaign = await api('get', `/api/campaigns/${id}`).expect(200);
      return campaign.body.status === status ? campaign.body : undefined;
    });
  const campaignRuns = async (id: string) => (await api('get', '/api/runs').query({ campaign_id: id, size: 200 }).expect(200)).body.content;

  beforeAll(async () => {
    agent = await startLocalPeer(async ({ body }) => {
      const { message } = body as { message: string };
      if (message === 'boom') return { status: 400, body: { error: 'cannot handle boom' } };
      if (message.startsWith('wait')) await gate.promise;
      return { body: { reply: `Echo: ${message}` } };
    });
    testApp = await startTestApp({
      EVAL_API_KEYS: API_KEY,
      EVAL_CAMPAIGN_MAX_PLAN_ENTRIES: '8',
      EVAL_CAMPAIGN_MAX_SEEDS: '3',
      EVAL_EXPLORATION_SESSIONS_PER_WINDOW: '7',
      EVAL_EXPLORATION_TURNS_PER_SESSION: '5',
      EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: '1000',
    });
  });
  afterAll(async () => {
    gate.release();
    await testApp?.close();
    await agent?.close();
  });

  describe('create', () => {
    it('pins the plan at the scenarios\' current versions, fingerprints it, merges the budget and normalises seeds', async () => {
      const target = await newTarget();
      const first = await newScenario('Refunds');
      await api('patch', `/api/scenarios/${first.id}`).send({ cases: [{ id: 'c1', input: 'pong', rules: [{ type: 'contains', value: 'pong' }] }] }).expect(200); // → v2
      const second = await newScenario('Greetings');
      const created = await api('post', '/api/campaigns')
        .send(
          campaignBody(target.id, [{ scenario_id: first.id, repeat_count: 2, concurrency: 3 }, { scenario_id: second.id }], {
            description: 'March cycle',
            seed_personas: [],
            seed_goals: [],
            budget_override: { turns_per_session: 2 },
          }),
        )
        .expect(201);
      expect(created.body).toMatchObject({
        name: 'Cycle', description: 'March cycle', target_id: target.id, target_name: 'echo agent', line: 'production', status: 'draft',
        window_start: '2026-03-01T00:00:00.000Z', window_end: '2026-04-01T00:00:00.000Z',
        seed_personas: null, seed_goals: null, exploration_opted_out: true,
        budget_override: { turns_per_session: 2 },
        effective_budget: { sessions_per_window: 7, turns_per_session: 2, min_session_interval_ms: 1000 },
        analysis_model_config_id: null,
        run_counts: { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 },
        started_at: null, finished_at: null,
      });
      expect(created.body.plan).toEqual([
        { scenario_id: first.id, scenario_version: 2, version_label: 'v2', scenario_name: 'Refunds', repeat_count: 2, concurrency: 3 },
        { scenario_id: second.id, scenario_version: 1, version_label: 'v1', scenario_name: 'Greetings', repeat_count: 1, concurrency: 4 },
      ]);
      expect(created.body.plan_fingerprint).toBe(planFingerprint([{ scenarioId: first.id, scenarioVersion: 2 }, { scenarioId: second.id, scenarioVersion: 1 }]));

      // Same plan in another order → same fingerprint; after a version change → another fingerprint.
      const reordered = await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: second.id }, { scenario_id: first.id }])).expect(201);
      expect(reordered.body.plan_fingerprint).toBe(created.body.plan_fingerprint);
      await api('patch', `/api/scenarios/${second.id}`).send({ cases: [{ id: 'c1', input: 'hi', rules: [{ type: 'contains', value: 'hi' }] }] }).expect(200);
      const bumped = await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: second.id }, { scenario_id: first.id }])).expect(201);
      expect(bumped.body.plan_fingerprint).not.toBe(created.body.plan_fingerprint);

      const read = await api('get', `/api/campaigns/${created.body.id}`).expect(200);
      expect(read.body).toEqual(created.body);
    });

    it('keeps a seed set, the defaults without override, and a known analysis model configuration', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Seeds');
      const config = await api('post', '/api/model-configs').send({ name: 'analyst', base_url: 'http://127.0.0.1:9/v1', model: 'analyst-model', purpose: 'analysis' }).expect(201);
      const created = await api('post', '/api/campaigns')
        .send(campaignBody(target.id, [{ scenario_id: scenario.id }], { seed_personas: [' student ', 'student', 'retiree'], seed_goals: ['refund'], analysis_model_config_id: config.body.id }))
        .expect(201);
      expect(created.body).toMatchObject({
        seed_personas: ['student', 'retiree'], seed_goals: ['refund'], exploration_opted_out: false, budget_override: null,
        effective_budget: { sessions_per_window: 7, turns_per_session: 5, min_session_interval_ms: 1000 },
        analysis_model_config_id: config.body.id,
      });
    });

    it('refuses invalid bodies with a readable reason (400) and unknown references (404)', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Validation');
      const plan = [{ scenario_id: scenario.id }];
      const refused = async (body: object, status = 400) => (await api('post', '/api/campaigns').send(body).expect(status)).body;

      const missingConfig = '3f1d2c4b-5a6e-4f70-8a9b-0c1d2e3f4a5b';
      expect((await refused(campaignBody(target.id, plan, { analysis_model_config_id: missingConfig }))).detail).toBe(
        `The analysis model configuration ${missingConfig} does not exist. Create it with POST /api/model-configs, or leave analysis_model_config_id out to use the analysis default.`,
      );
      expect((await refused(campaignBody(target.id, plan, { window_start: '2026-04-01T00:00:00Z', window_end: '2026-03-01T00:00:00Z' }))).detail).toBe(
        'window_end (2026-03-01T00:00:00.000Z) must be after window_start (2026-04-01T00:00:00.000Z).',
      );
      expect((await refused(campaignBody(target.id, plan, { window_end: '2026-03-01T00:00:00Z' }))).detail).toMatch(/must be after window_start/);
      expect(JSON.stringify((await refused(campaignBody(target.id, plan, { window_start: '2026-03-01T00:00:00' }))).errors)).toContain('window_start must carry a time zone');
      expect(JSON.stringify((await refused(campaignBody(target.id, plan, { window_end: 'next week' }))).errors)).toContain('window_end must be an ISO 8601 date-time');
      expect((await refused(campaignBody(target.id, plan, { seed_personas: ['student'] }))).detail).toMatch(/seed_goals is empty while seed_personas has 1 entry/);
      expect((await refused(campaignBody(target.id, plan, { seed_personas: [], seed_goals: ['refund', 'exchange'] }))).detail).toMatch(/seed_personas is empty while seed_goals has 2 entries/);
      expect((await refused(campaignBody(target.id, plan, { seed_personas: ['a', 'b', 'c', 'd'], seed_goals: ['x'] }))).detail).toMatch(/seed_personas has 4 entries; at most 3/);
      expect(JSON.stringify((await refused(campaignBody(target.id, []))).errors)).toContain('plan must have at least one scenario entry');
      expect((await refused(campaignBody(target.id, Array.from({ length: 9 }, () => ({ scenario_id: scenario.id }))))).detail).toMatch(/The plan has 9 entries; at most 8/);
      expect(JSON.stringify((await refused(campaignBody(target.id, [{ scenario_id: scenario.id, repeat_count: 0 }]))).errors)).toContain('repeat_count');
      expect(JSON.stringify((await refused(campaignBody(target.id, plan, { budget_override: { sessions_per_window: -1 } }))).errors)).toContain('sessions_per_window');
      expect(JSON.stringify((await refused(campaignBody(target.id, plan, { line: 'formal' }))).errors)).toContain('line');

      const unknown = '9b2f6f9e-6a4e-4c1a-9d55-1f7b8c0e2a11';
      expect((await refused(campaignBody(target.id, [{ scenario_id: unknown }]), 404)).detail).toContain(`No scenario ${unknown}`);
      expect((await refused(campaignBody(unknown, plan), 404)).detail).toBe(`No target ${unknown}.`);
    });

    it('does not let POST /api/runs attach a run to a campaign', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Sneaky');
      const campaign = await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: scenario.id }])).expect(201);
      const refused = await api('post', '/api/runs').send({ scenario_id: scenario.id, target_id: target.id, campaign_id: campaign.body.id }).expect(400);
      expect(JSON.stringify(refused.body.errors)).toContain('campaign_id');
      expect(await campaignRuns(campaign.body.id)).toEqual([]);
    });
  });

  describe('list', () => {
    it('filters by status, line, target and window, newest first, paged', async () => {
      const [targetA, targetB] = [await newTarget('list A'), await newTarget('list B')];
      const scenario = await newScenario('Listing');
      const plan = [{ scenario_id: scenario.id }];
      const make = async (targetId: string, line: string, start: string, end: string) =>
        (await api('post', '/api/campaigns').send({ ...campaignBody(targetId, plan), line, window_start: start, window_end: end }).expect(201)).body.id as string;
      const c1 = await make(targetA.id, 'production', '2031-01-01T00:00:00Z', '2031-02-01T00:00:00Z');
      const c2 = await make(targetB.id, 'accelerated', '2031-02-01T00:00:00Z', '2031-03-01T00:00:00Z');
      const c3 = await make(targetB.id, 'production', '2031-01-15T00:00:00Z', '2031-01-20T00:00:00Z');
      await api('post', `/api/campaigns/${c3}/cancel`).expect(200);

      const ids = async (query: Record<string, string | number>) => (await api('get', '/api/campaigns').query(query).expect(200)).body.content.map((item: { id: string }) => item.id);
      const year = { window_from: '2031-01-01T00:00:00Z', window_to: '2032-01-01T00:00:00Z' };
      expect(await ids(year)).toEqual([c3, c2, c1]);
      expect(await ids({ ...year, status: 'cancelled' })).toEqual([c3]);
      expect(await ids({ ...year, status: 'draft', line: 'production' })).toEqual([c1]);
      expect(await ids({ ...year, line: 'accelerated' })).toEqual([c2]);
      expect(await ids({ target_id: targetB.id })).toEqual([c3, c2]);
      expect(await ids({ active_at: '2031-01-17T00:00:00Z' })).toEqual([c3, c1]);
      expect(await ids({ active_at: '2031-02-01T00:00:00Z' })).toEqual([c2]); // the end is exclusive
      expect(await ids({ window_from: '2031-02-01T00:00:00Z', window_to: '2032-01-01T00:00:00Z' })).toEqual([c2]);
      expect(await ids({ window_from: '2031-01-01T00:00:00Z', window_to: '2031-01-16T00:00:00Z' })).toEqual([c3, c1]);
      expect(await ids({ ...year, sort: 'windowStart,asc' })).toEqual([c1, c3, c2]);

      const page = await api('get', '/api/campaigns').query({ ...year, size: 1, page: 1 }).expect(200);
      expect(page.body).toMatchObject({ page: 1, size: 1, totalElements: 3, totalPages: 3 });
      expect(page.body.content.map((item: { id: string }) => item.id)).toEqual([c2]);

      const inverted = await api('get', '/api/campaigns').query({ window_from: '2031-02-01T00:00:00Z', window_to: '2031-01-01T00:00:00Z' }).expect(400);
      expect(inverted.body.detail).toBe('window_to (2031-01-01T00:00:00.000Z) must be after window_from (2031-02-01T00:00:00.000Z).');
      await api('get', '/api/campaigns').query({ status: 'finished' }).expect(400);
      await api('get', '/api/campaigns').query({ sort: 'target,asc' }).expect(400);
    });
  });

  describe('start, completion and report', () => {
    it('creates one run per plan entry with campaign_id, completes when the runs end, and aggregates them in the report', async () => {
      const target = await newTarget();
      const mixed = await newScenario('Mixed', [
        { id: 'a1', input: 'hello', rules: [{ type: 'contains', value: 'hello' }] },
        { id: 'a2', input: 'world', rules: [{ type: 'contains', value: 'never-there' }] },
        { id: 'a3', input: 'boom', rules: [{ type: 'contains', value: 'boom' }] },
      ]);
      const simple = await newScenario('Simple');
      const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: mixed.id, repeat_count: 2, concurrency: 2 }, { scenario_id: simple.id }])).expect(201)).body;

      const draftReport = await api('get', `/api/campaigns/${campaign.id}/report`).expect(200);
      expect(draftReport.body.campaign.id).toBe(campaign.id);
      expect(draftReport.body.results).toMatchObject({ runs: 0, total_cases: 0, pass_rate: 0, latency_p50_ms: null, run_ids: [] });
      expect(draftReport.body.results.scenarios.map((item: { scenario_name: string; runs: number }) => [item.scenario_name, item.runs])).toEqual([['Mixed', 0], ['Simple', 0]]);

      const started = await api('post', `/api/campaigns/${campaign.id}/start`).send({ triggered_by: 'cli' }).expect(200);
      expect(started.body).toMatchObject({ status: 'running', run_counts: { total: 2 } });
      expect(started.body.started_at).toEqual(expect.any(String));
      const runs = await campaignRuns(campaign.id);
      expect(runs).toHaveLength(2);
      expect(runs.map((run: any) => [run.scenario_id, run.scenario_version, run.repeat_count, run.campaign_id, run.triggered_by]).sort()).toEqual(
        [[mixed.id, 1, 2, campaign.id, 'cli'], [simple.id, 1, 1, campaign.id, 'cli']].sort(),
      );

      const completed = await waitForCampaign(campaign.id, 'completed');
      expect(completed.finished_at).toEqual(expect.any(String));
      expect(completed.run_counts).toMatchObject({ total: 2, completed: 2 });

      const report = (await api('get', `/api/campaigns/${campaign.id}/report`).expect(200)).body;
      expect(report.campaign.status).toBe('completed');
      expect(report.results).toMatchObject({ runs: 2, completed_runs: 2, total_cases: 7, passed_cases: 3, failed_cases: 2, errored_cases: 2, pass_rate: 0.4286 });
      expect(report.results.run_ids.sort()).toEqual(runs.map((run: { id: string }) => run.id).sort());
      expect(report.results.latency_p50_ms).toEqual(expect.any(Number));
      expect(report.results.scenarios).toEqual([
        expect.objectContaining({ scenario_id: mixed.id, scenario_name: 'Mixed', scenario_version: 1, runs: 1, completed_runs: 1, total_cases: 6, passed_cases: 2, failed_cases: 2, errored_cases: 2, pass_rate: 0.3333, failed_case_ids: ['a2', 'a3'] }),
        expect.objectContaining({ scenario_id: simple.id, scenario_name: 'Simple', scenario_version: 1, runs: 1, completed_runs: 1, total_cases: 1, passed_cases: 1, failed_cases: 0, errored_cases: 0, pass_rate: 1, failed_case_ids: [] }),
      ]);
    });

    it('completes the campaign when several runs finish at the same moment (executor path, repeated)', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Gated', [{ id: 'g', input: 'wait for it', rules: [{ type: 'contains', value: 'wait' }] }]);
      for (let round = 0; round < 4; round++) {
        gate = newGate();
        const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: scenario.id }, { scenario_id: scenario.id }])).expect(201)).body;
        const before = agent.requests.length;
        await api('post', `/api/campaigns/${campaign.id}/start`).expect(200);
        // Both runs execute at once (two per instance): wait until the agent holds both, then let them end together.
        await eventually('two held requests', async () => (agent.requests.length - before >= 2 ? true : undefined));
        gate.release();
        const completed = await waitForCampaign(campaign.id, 'completed');
        expect(completed.run_counts).toMatchObject({ total: 2, completed: 2 });
        const report = (await api('get', `/api/campaigns/${campaign.id}/report`).expect(200)).body.results;
        expect(report).toMatchObject({ runs: 2, completed_runs: 2, total_cases: 2, passed_cases: 2, pass_rate: 1 });
      }
    });

    it('completes campaigns whose runs are all cancelled at once (cancel path), counting never-run cases as not passed', async () => {
      gate = newGate();
      const target = await newTarget();
      const scenario = await newScenario('Held', [{ id: 'h', input: 'wait here', rules: [{ type: 'contains', value: 'wait' }] }]);
      const campaigns = await Promise.all(
        [0, 1, 2].map(async () => (await api('post', '/api/campaigns').send(campaignBody(target.id, Array.from({ length: 8 }, () => ({ scenario_id: scenario.id })))).expect(201)).body),
      );
      for (const campaign of campaigns) await api('post', `/api/campaigns/${campaign.id}/start`).expect(200);
      const runs = (await Promise.all(campaigns.map((campaign) => campaignRuns(campaign.id)))).flat();
      expect(runs).toHaveLength(24);
      const cancels = await Promise.all(runs.map((run: { id: string }) => api('post', `/api/runs/${run.id}/cancel`)));
      expect(cancels.every((response) => response.status === 200)).toBe(true);
      for (const campaign of campaigns) {
        const completed = await waitForCampaign(campaign.id, 'completed');
        expect(completed.run_counts).toMatchObject({ total: 8, cancelled: 8 });
        // Every case is still held by the agent (or was never sent), so none has a result: all count as not passed.
        const report = (await api('get', `/api/campaigns/${campaign.id}/report`).expect(200)).body.results;
        expect(report).toMatchObject({ runs: 8, completed_runs: 0, total_cases: 8, passed_cases: 0, failed_cases: 0, errored_cases: 0, pass_rate: 0 });
      }
      gate.release(); // cases in flight finish and keep their results (a cancelled run's finished cases count)
    });
  });

  describe('cancel and the 409s', () => {
    it('cancels a running campaign and its live runs; a terminal campaign refuses every move', async () => {
      gate = newGate();
      const target = await newTarget();
      const scenario = await newScenario('To cancel', [{ id: 'w', input: 'wait a bit', rules: [{ type: 'contains', value: 'wait' }] }]);
      const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: scenario.id }, { scenario_id: scenario.id }, { scenario_id: scenario.id }])).expect(201)).body;
      await api('post', `/api/campaigns/${campaign.id}/start`).expect(200);

      const again = await api('post', `/api/campaigns/${campaign.id}/start`).expect(409);
      expect(again.body.detail).toBe('Cannot start a running campaign: start moves draft → running; allowed from running: cancel (running → cancelled).');

      const cancelled = await api('post', `/api/campaigns/${campaign.id}/cancel`).expect(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', run_counts: { total: 3, cancelled: 3, queued: 0, running: 0 } });
      expect(cancelled.body.finished_at).toEqual(expect.any(String));
      gate.release();
      expect((await campaignRuns(campaign.id)).map((run: { status: string }) => run.status)).toEqual(['cancelled', 'cancelled', 'cancelled']);

      expect((await api('post', `/api/campaigns/${campaign.id}/cancel`).expect(409)).body.detail).toBe(
        'Cannot cancel a cancelled campaign: cancel moves draft or running → cancelled; cancelled is terminal, no move is allowed.',
      );
      expect((await api('post', `/api/campaigns/${campaign.id}/start`).expect(409)).body.detail).toMatch(/^Cannot start a cancelled campaign: .*cancelled is terminal/);
      // It stays cancelled once the held runs let go.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await api('get', `/api/campaigns/${campaign.id}`).expect(200)).body.status).toBe('cancelled');
    });

    it('cancels a draft campaign without runs', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Draft only');
      const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: scenario.id }])).expect(201)).body;
      const cancelled = await api('post', `/api/campaigns/${campaign.id}/cancel`).expect(200);
      expect(cancelled.body).toMatchObject({ status: 'cancelled', run_counts: { total: 0 } });
    });

    it('refuses to start or cancel a completed campaign', async () => {
      const target = await newTarget();
      const scenario = await newScenario('Quick');
      const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: scenario.id }])).expect(201)).body;
      await api('post', `/api/campaigns/${campaign.id}/start`).expect(200);
      await waitForCampaign(campaign.id, 'completed');
      expect((await api('post', `/api/campaigns/${campaign.id}/start`).expect(409)).body.detail).toBe(
        'Cannot start a completed campaign: start moves draft → running; completed is terminal, no move is allowed.',
      );
      expect((await api('post', `/api/campaigns/${campaign.id}/cancel`).expect(409)).body.detail).toMatch(/^Cannot cancel a completed campaign: .*completed is terminal/);
    });

    it('refuses to start when a planned scenario changed version or was deleted, or the target is gone, creating no run', async () => {
      const target = await newTarget();
      const changed = await newScenario('Changed');
      const kept = await newScenario('Kept');
      const campaign = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: kept.id }, { scenario_id: changed.id }])).expect(201)).body;
      await api('patch', `/api/scenarios/${changed.id}`).send({ cases: [{ id: 'c1', input: 'pong', rules: [{ type: 'contains', value: 'pong' }] }] }).expect(200);
      const versionConflict = await api('post', `/api/campaigns/${campaign.id}/start`).expect(409);
      expect(versionConflict.body.detail).toBe(
        `The campaign cannot start: its plan no longer matches the scenarios (scenario "Changed" (${changed.id}) is now v2, the plan pins v1). Running it would break its plan fingerprint; create a new campaign from the current scenarios.`,
      );

      const deletedPlan = (await api('post', '/api/campaigns').send(campaignBody(target.id, [{ scenario_id: kept.id }])).expect(201)).body;
      await api('delete', `/api/scenarios/${kept.id}`).expect(204);
      expect((await api('post', `/api/campaigns/${deletedPlan.id}/start`).expect(409)).body.detail).toContain(`scenario "Kept" (${kept.id}) planned at v1 was deleted`);

      const goneTarget = await newTarget('short-lived');
      const other = await newScenario('Other');
      const orphan = (await api('post', '/api/campaigns').send(campaignBody(goneTarget.id, [{ scenario_id: other.id }])).expect(201)).body;
      await api('delete', `/api/targets/${goneTarget.id}`).expect(204);
      expect((await api('post', `/api/campaigns/${orphan.id}/start`).expect(409)).body.detail).toBe(`The campaign cannot start: its target "short-lived" (${goneTarget.id}) was deleted.`);

      for (const id of [campaign.id, deletedPlan.id, orphan.id]) {
        expect((await api('get', `/api/campaigns/${id}`).expect(200)).body).toMatchObject({ status: 'draft', run_counts: { total: 0 } });
        expect(await campaignRuns(id)).toEqual([]);
      }
    });

    it('answers 404 for an unknown campaign on every route', async () => {
      const unknown = '5c0e1f3a-2b4d-4e6f-8a9b-1c2d3e4f5a6b';
      for (const [method, path] of [['get', ''], ['get', '/report'], ['post', '/start'], ['post', '/cancel']] as const) {
        expect((await api(method, `/api/campaigns/${unknown}${path}`).expect(404)).body.detail).toBe(`No campaign ${unknown}.`);
      }
    });
  });
});
