import request from 'supertest';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';
import { eventually, newGate } from '../support/async';

const API_KEY = 'eval-api-key-patrol-0123456789abcd';
const TERMINAL_RUN = ['completed', 'failed', 'cancelled'];

/** A promise the agent waits on, released by the test. */
type Run = { id: string; status: string; scenario_id: string };
type PatrolCampaign = { campaign_id: string; watermark: { sequence: number; previous_sequence: number; previous_patrolled_at: string | null }; new_results: any; new_sessions: any[]; budget: any };

describe('patrol (evaluation-platform.md: GET /api/exploration/patrol, Patrol rules 1–4; issue 4 acceptance 3)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  /** Gates by key: a case whose input is `hold:<key>` waits until the test releases that key. */
  const gates = new Map<string, ReturnType<typeof newGate>>();
  const released = new Set<string>();
  const gate = (key: string) => {
    if (!gates.has(key)) gates.set(key, newGate());
    return gates.get(key)!;
  };
  let targetId: string;
  let fastScenario: { id: string };
  let failingScenario: { id: string };
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /** Gate key of each held scenario. */
  const keyOfScenario = new Map<string, string>();
  /**
   * Factory: a scenario whose case `held` waits on gate `key` (then passes) and whose case `pong` fails at once.
   * Held runs keep their campaign running. The app runs two run jobs at a time, and the runs of one campaign start
   * in no fixed order, so tests end runs by releasing the gate of a run that is `running` (see finishOneRun).
   */
  const heldScenario = async (key: string) => {
    const scenario = (
      await api('post', '/api/scenarios')
        .send({ name: `Held ${key}`, cases: [{ id: 'held', input: `hold:${key}`, rules: [{ type: 'contains', value: 'Echo' }] }, { id: 'pong', input: 'pong', rules: [{ type: 'contains', value: 'nope' }] }] })
        .expect(201)
    ).body;
    keyOfScenario.set(scenario.id, key);
    return scenario as { id: string };
  };
  /** Factory: a campaign with the window around now and the given plan, started unless `start` is false. */
  const newCampaign = async (plan: string[], { line = 'production', seeds = true, budget, start = true }: { line?: string; seeds?: boolean; budget?: object; start?: boolean } = {}) => {
    const now = Date.now();
    const created = await api('post', '/api/campaigns')
      .send({
        name: `Patrolled ${line}`,
        target_id: targetId,
        line,
        window_start: new Date(now - 3_600_000).toISOString(),
        window_end: new Date(now + 3_600_000).toISOString(),
        plan: plan.map((scenarioId) => ({ scenario_id: scenarioId })),
        ...(seeds ? { seed_personas: ['regular'], seed_goals: ['check the order status'] } : {}),
        ...(budget ? { budget_override: budget } : {}),
      })
      .expect(201);
    if (start) await api('post', `/api/campaigns/${created.body.id}/start`).send({}).expect(200);
    return created.body as { id: string };
  };
  const campaignRuns = async (id: string): Promise<Run[]> => (await api('get', '/api/runs').query({ campaign_id: id, size: 200 }).expect(200)).body.content;
  /** Waits until at least `count` runs of the campaign are terminal; returns the terminal runs' ids. */
  const waitForTerminal = (campaignId: string, count: number) =>
    eventually(`${count} terminal runs of ${campaignId}`, async () => {
      const terminal = (await campaignRuns(campaignId)).filter((run) => TERMINAL_RUN.includes(run.status));
      return terminal.length >= count ? terminal.map((run) => run.id) : undefined;
    });
  /** Releases the gate of one `running` run of the campaign whose gate is still closed, waits until it is terminal, returns its id. */
  const finishOneRun = async (campaignId: string) => {
    const run = await eventually(`a running held run of ${campaignId}`, async () =>
      (await campaignRuns(campaignId)).find((item) => item.status === 'running' && !released.has(keyOfScenario.get(item.scenario_id)!)),
    );
    const key = keyOfScenario.get(run.scenario_id)!;
    released.add(key);
    gate(key).release();
    await eventually(`run ${run.id} terminal`, async () => ((await campaignRuns(campaignId)).find((item) => item.id === run.id && TERMINAL_RUN.includes(item.status)) ? true : undefined));
    return run.id;
  };
  const releaseAll = () => {
    for (const [key, entry] of gates) {
      released.add(key);
      entry.release();
    }
  };
  const patrol = async () => (await api('get', '/api/exploration/patrol').expect(200)).body as { patrolled_at: string; campaigns: PatrolCampaign[] };
  const entryOf = (body: { campaigns: PatrolCampaign[] }, campaignId: string) => body.campaigns.find((entry) => entry.campaign_id === campaignId);

  beforeAll(async () => {
    agent = await startLocalPeer(async ({ body }) => {
      const { message } = body as { message: string };
      if (message.startsWith('hold:')) await gate(message.slice('hold:'.length)).promise;
      if (message === 'crash') return { status: 400, body: { error: 'cannot' } };
      return { body: { reply: `Echo: ${message}` } };
    });
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: '0' });
    targetId = (await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply', timeout_ms: 600_000 }, max_concurrency: 50 }).expect(201)).body.id;
    fastScenario = (await api('post', '/api/scenarios').send({ name: 'Fast', cases: [{ id: 'ping', input: 'ping', rules: [{ type: 'contains', value: 'ping' }] }] }).expect(201)).body;
    failingScenario = (await api('post', '/api/scenarios').send({ name: 'Crashing', cases: [{ id: 'crash', input: 'crash', rules: [{ type: 'contains', value: 'x' }] }] }).expect(201)).body;
  });
  afterEach(() => releaseAll()); // no held run of a test blocks the run workers of the next one
  afterAll(async () => {
    releaseAll();
    await testApp?.close();
    await agent?.close();
  });

  it('reports only increments: each call advances the watermark and the next one reports only newer runs and closed sessions', async () => {
    const scenarios = [await heldScenario('inc-a'), await heldScenario('inc-b'), await heldScenario('inc-c')];
    const campaign = await newCampaign(scenarios.map((scenario) => scenario.id), { budget: { sessions_per_window: 2, min_session_interval_ms: 600_000, turns_per_session: 4 } });
    const firstRun = await finishOneRun(campaign.id);
    const firstScenario = (await campaignRuns(campaign.id)).find((run) => run.id === firstRun)!.scenario_id;

    const first = entryOf(await patrol(), campaign.id)!;
    expect(first.watermark).toEqual({ sequence: 1, previous_sequence: 0, previous_patrolled_at: null });
    expect(first.new_results).toMatchObject({ runs: 1, completed_runs: 1, total_cases: 2, passed_cases: 1, failed_cases: 1, errored_cases: 0, pass_rate: 0.5, run_ids: [firstRun] });
    expect(first.new_results.scenarios.map((item: { scenario_id: string; runs: number; failed_case_ids: string[] }) => [item.scenario_id, item.runs, item.failed_case_ids])).toEqual(
      scenarios.map((scenario) => (scenario.id === firstScenario ? [scenario.id, 1, ['pong']] : [scenario.id, 0, []])),
    );
    expect(first.new_sessions).toEqual([]);
    expect(first.budget).toMatchObject({ sessions_per_window: 2, sessions_used: 0, sessions_left: 2, turns_per_session: 4, min_session_interval_ms: 600_000, next_session_in_ms: 0, blocked_by: null });

    const second = await patrol();
    const again = entryOf(second, campaign.id)!;
    expect(again.watermark).toMatchObject({ sequence: 2, previous_sequence: 1 });
    expect(Date.parse(again.watermark.previous_patrolled_at!)).toBeLessThanOrEqual(Date.parse(second.patrolled_at));
    expect(again.new_results).toMatchObject({ runs: 0, total_cases: 0, run_ids: [] });
    expect(again.new_results.scenarios).toHaveLength(3);

    const secondRun = await finishOneRun(campaign.id);
    const session = (await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'regular', goal: 'check the order status' }).expect(201)).body;
    await api('post', `/api/exploration/sessions/${session.id}/messages`).send({ message: 'where is my order?' }).expect(201);
    await api('post', `/api/exploration/sessions/${session.id}/close`).send({ outcome: 'goal_reached' }).expect(200);

    const third = entryOf(await patrol(), campaign.id)!;
    expect(third.watermark).toMatchObject({ sequence: 3, previous_sequence: 2 });
    expect(third.new_results).toMatchObject({ runs: 1, run_ids: [secondRun], passed_cases: 1, failed_cases: 1 });
    expect(third.new_results.scenarios.find((item: { scenario_id: string }) => item.scenario_id === firstScenario).runs).toBe(0);
    expect(third.new_sessions).toHaveLength(1);
    expect(third.new_sessions[0]).toMatchObject({ id: session.id, persona: 'regular', turns_used: 1, outcome: 'goal_reached', experience: { outcome: 'goal_reached', turns: 1 } });
    expect(third.budget).toMatchObject({ sessions_used: 1, sessions_left: 1, blocked_by: 'min_session_interval' });
    expect(third.budget.next_session_in_ms).toBeGreaterThan(500_000);
    expect(third.budget.next_session_in_ms).toBeLessThanOrEqual(600_000);
    expect(Date.parse(third.budget.next_session_allowed_at)).toBe(Date.parse(session.started_at) + 600_000);

    const fourth = entryOf(await patrol(), campaign.id)!;
    expect(fourth.watermark.sequence).toBe(4);
    expect(fourth.new_results.run_ids).toEqual([]);
    expect(fourth.new_sessions).toEqual([]);

    // The last run ends: the campaign completes and, terminal, leaves the patrol (rule 4).
    await finishOneRun(campaign.id);
    await eventually('campaign completed', async () => ((await api('get', `/api/campaigns/${campaign.id}`).expect(200)).body.status === 'completed' ? true : undefined));
    expect(entryOf(await patrol(), campaign.id)).toBeUndefined();
  });

  it('reports failed runs too, with their errored cases', async () => {
    const held = await heldScenario('failing');
    const campaign = await newCampaign([failingScenario.id, held.id]);
    const [crashed] = await waitForTerminal(campaign.id, 1);
    expect((await campaignRuns(campaign.id)).find((run) => run.id === crashed)!.scenario_id).toBe(failingScenario.id);
    const entry = entryOf(await patrol(), campaign.id)!;
    expect(entry.new_results).toMatchObject({ runs: 1, run_ids: [crashed], errored_cases: 1, passed_cases: 0, pass_rate: 0 });
    expect(entry.new_results.scenarios[0]).toMatchObject({ scenario_id: failingScenario.id, failed_case_ids: ['crash'] });
  });

  it('excludes accelerated, draft, terminal and opted-out campaigns (rules 1 and 4)', async () => {
    // First a campaign that completes (while the run workers are free), then campaigns kept running by one held run each.
    const completed = await newCampaign([fastScenario.id]);
    await eventually('campaign completed', async () => ((await api('get', `/api/campaigns/${completed.id}`).expect(200)).body.status === 'completed' ? true : undefined));
    const held = await heldScenario('exclusions');
    const watched = await newCampaign([held.id]);
    const accelerated = await newCampaign([held.id], { line: 'accelerated' });
    const optedOut = await newCampaign([held.id], { seeds: false });
    const draft = await newCampaign([held.id], { start: false });
    const cancelled = await newCampaign([held.id]);
    await api('post', `/api/campaigns/${cancelled.id}/cancel`).send({}).expect(200);
    for (const campaign of [watched, accelerated, optedOut]) expect((await api('get', `/api/campaigns/${campaign.id}`).expect(200)).body.status).toBe('running');

    const body = await patrol();
    const ids = body.campaigns.map((entry) => entry.campaign_id);
    expect(ids).toContain(watched.id);
    for (const excluded of [accelerated.id, optedOut.id, draft.id, cancelled.id, completed.id]) expect(ids).not.toContain(excluded);
    expect(ids).toEqual([...ids].sort()); // listed by campaign id
  });

  it('never reports the same run or session twice, with concurrent patrol calls racing runs that end meanwhile', async () => {
    const keys = Array.from({ length: 8 }, (_, index) => `race-${index}`);
    const racing = [];
    for (const key of keys) racing.push(await heldScenario(key));
    // One more held run keeps the campaign running after the racing runs ended (it would leave the patrol otherwise).
    const tail = await heldScenario('race-tail');
    const campaign = await newCampaign([...racing.map((scenario) => scenario.id), tail.id]);
    const sessions: string[] = [];
    for (let index = 0; index < 4; index++) {
      sessions.push((await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'regular', goal: `goal ${index}` }).expect(201)).body.id);
    }

    const reportedRuns: string[] = [];
    const reportedSessions: string[] = [];
    const sequences: number[] = [];
    const collect = (body: { campaigns: PatrolCampaign[] }) => {
      const entry = entryOf(body, campaign.id);
      if (!entry) throw new Error('the running campaign is missing from the patrol');
      reportedRuns.push(...entry.new_results.run_ids);
      reportedSessions.push(...entry.new_sessions.map((session: { id: string }) => session.id));
      sequences.push(entry.watermark.sequence);
    };
    let stop = false;
    const patroller = async () => {
      while (!stop) collect(await patrol());
    };
    const patrollers = [patroller(), patroller(), patroller()];

    // Runs end and sessions close while three callers keep patrolling.
    for (const [index, key] of keys.entries()) {
      released.add(key);
      gate(key).release();
      if (sessions[index]) await api('post', `/api/exploration/sessions/${sessions[index]}/close`).send({}).expect(200);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const racingRuns = await eventually('racing runs terminal', async () => {
      const runs = (await campaignRuns(campaign.id)).filter((run) => run.scenario_id !== tail.id);
      return runs.every((run) => TERMINAL_RUN.includes(run.status)) ? runs.map((run) => run.id) : undefined;
    });
    stop = true;
    await Promise.all(patrollers);
    // Then two calls at the same moment pick up whatever the loop had not seen yet.
    const [a, b] = await Promise.all([patrol(), patrol()]);
    collect(a);
    collect(b);

    expect(racingRuns).toHaveLength(8);
    expect(new Set(reportedRuns).size).toBe(reportedRuns.length); // no run reported twice
    expect([...reportedRuns].sort()).toEqual([...racingRuns].sort()); // and none lost
    expect(new Set(reportedSessions).size).toBe(reportedSessions.length);
    expect([...reportedSessions].sort()).toEqual([...sessions].sort());
    expect(new Set(sequences).size).toBe(sequences.length); // every call advanced the watermark by its own step
    expect(Math.max(...sequences)).toBe(sequences.length);
  });
});
