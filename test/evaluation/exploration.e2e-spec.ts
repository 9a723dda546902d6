import request from 'supertest';
import { chatCompletion, LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';
import { newGate } from '../support/async';

const API_KEY = 'eval-api-key-exploration-0123456789';
const REPLY_TIMEOUT_MS = 300;
const MAX_DRIVE_TURNS = 5;
const MESSAGE_MAX_CHARS = 200;
const PROBLEM = /^application\/problem\+json/;

/** A promise the agent waits on (for the campaign runs that must keep their campaign running), released by the test. */
type ChatMessage = { role: string; content: string };

/**
 * The scripted virtual user (an OpenAI-compatible model answering from a script): what it writes depends on the persona
 * in the system prompt and on how many messages it already sent (its own messages are `assistant` turns).
 */
function virtualUser(messages: ChatMessage[]): string {
  const system = messages[0].content;
  const sent = messages.filter((message) => message.role === 'assistant').length;
  if (system.includes('Persona: finisher')) return sent === 0 ? 'Hi, I need to rebook my flight.' : 'Great, that works for me.\n[[DONE]]';
  if (system.includes('Persona: quitter')) return sent === 0 ? 'Hello?' : '[[GIVE_UP]]';
  if (system.includes('Persona: mute')) return '   ';
  if (system.includes('Persona: crasher')) return 'fail on purpose';
  return `Tell me more (${sent})`; // "chatty": never stops by itself
}

describe('exploration sessions (evaluation-platform.md: Exploration session, Errors, Limits; issue 4: Exploration, acceptance 2)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let models: LocalPeer;
  const gate = newGate();
  let targetId: string;
  let holdScenarioId: string;
  let virtualUserModelId: string;
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /**
   * Factory: a campaign whose window contains now, started (so `running`: its one run waits on the gate and keeps it
   * running) unless `start` is false. Seeds by default; `seeds: false` opts it out.
   */
  const newCampaign = async ({ line = 'production', seeds = true, budget, start = true }: { line?: string; seeds?: boolean; budget?: object; start?: boolean } = {}) => {
    const now = Date.now();
    const created = await api('post', '/api/campaigns')
      .send({
        name: 'Exploration cycle',
        target_id: targetId,
        line,
        window_start: new Date(now - 3_600_000).toISOString(),
        window_end: new Date(now + 3_600_000).toISOString(),
        plan: [{ scenario_id: holdScenarioId }],
        ...(seeds ? { seed_personas: ['finisher', 'chatty'], seed_goals: ['rebook a flight'] } : {}),
        ...(budget ? { budget_override: budget } : {}),
      })
      .expect(201);
    if (start) await api('post', `/api/campaigns/${created.body.id}/start`).send({}).expect(200);
    return created.body as { id: string };
  };
  /** Factory: an open session. */
  const newSession = async (campaignId: string, extra: object = {}) =>
    (await api('post', '/api/exploration/sessions').send({ campaign_id: campaignId, persona: 'finisher', goal: 'rebook a flight', ...extra }).expect(201)).body;
  const send = (sessionId: string, message: string) => api('post', `/api/exploration/sessions/${sessionId}/messages`).send({ message });
  /** Expects a 409 problem whose detail contains every fragment; returns the body. */
  const expectConflict = (response: request.Response, ...fragments: string[]) => {
    expect(response.status).toBe(409);
    expect(response.headers['content-type']).toMatch(PROBLEM);
    for (const fragment of fragments) expect(response.body.detail).toContain(fragment);
    return response.body;
  };

  beforeAll(async () => {
    agent = await startLocalPeer(async ({ body }) => {
      const { message, history } = body as { message: string; history: ChatMessage[] };
      if (message === '__hold__') await gate.promise;
      if (message.startsWith('fail')) return { status: 500, body: { error: 'agent crashed' } };
      if (message.startsWith('slow')) return { body: { reply: 'too late' }, delayMs: REPLY_TIMEOUT_MS * 3 };
      if (message.startsWith('sorry')) return { body: { reply: "I'm sorry, but I can't help with that." } };
      return { body: { reply: `Echo: ${message} (history ${history.length})` } };
    });
    models = await startLocalPeer(({ body }) => {
      const { model, messages } = body as { model: string; messages: ChatMessage[] };
      if (model === 'broken-model') return { status: 400, body: { error: { message: 'bad request' } } };
      return { body: chatCompletion(virtualUser(messages), model) };
    });
    testApp = await startTestApp({
      EVAL_API_KEYS: API_KEY,
      EVAL_EXPLORATION_SESSIONS_PER_WINDOW: '50',
      EVAL_EXPLORATION_TURNS_PER_SESSION: '6',
      EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: '0',
      EVAL_EXPLORATION_REPLY_TIMEOUT_MS: String(REPLY_TIMEOUT_MS),
      EVAL_EXPLORATION_MAX_DRIVE_TURNS: String(MAX_DRIVE_TURNS),
      EVAL_EXPLORATION_MESSAGE_MAX_CHARS: String(MESSAGE_MAX_CHARS),
    });
    const target = await api('post', '/api/targets')
      .send({ name: 'echo agent', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}', history: '{{history}}', session: '{{session_id}}' }, reply_path: '$.reply', timeout_ms: 600_000 }, max_concurrency: 50 })
      .expect(201);
    targetId = target.body.id;
    const hold = await api('post', '/api/scenarios').send({ name: 'Held', cases: [{ id: 'held', input: '__hold__', rules: [{ type: 'contains', value: 'Echo' }] }] }).expect(201);
    holdScenarioId = hold.body.id;
    const model = await api('post', '/api/model-configs').send({ name: 'virtual user', base_url: `${models.url}/v1`, model: 'virtual-user', purpose: 'exploration', api_key: 'vu-key-123456' }).expect(201);
    virtualUserModelId = model.body.id;
  });
  afterAll(async () => {
    gate.release();
    await testApp?.close();
    await agent?.close();
    await models?.close();
  });

  describe('manual sessions', () => {
    it('delivers messages through the target channel with the history and stores replies with latency; reads and lists', async () => {
      const campaign = await newCampaign();
      const session = await newSession(campaign.id);
      expect(session).toMatchObject({ campaign_id: campaign.id, persona: 'finisher', goal: 'rebook a flight', mode: 'manual', model_config_id: null, status: 'open', turns_used: 0, turn_limit: 6, turns_left: 6, experience: null });

      const first = await send(session.id, 'hello').expect(201);
      expect(first.body).toMatchObject({ session_id: session.id, turns_used: 1, turns_left: 5 });
      expect(first.body.turn).toMatchObject({ turn_index: 0, author: 'manual', message: 'hello', reply: 'Echo: hello (history 0)', error: null });
      expect(first.body.turn.latency_ms).toEqual(expect.any(Number));
      const second = await send(session.id, 'and then?').expect(201);
      expect(second.body.turn).toMatchObject({ turn_index: 1, reply: 'Echo: and then? (history 2)' });

      const delivered = agent.requests.filter((entry) => (entry.body as { session?: string }).session === session.id);
      expect(delivered.map((entry) => (entry.body as { history: ChatMessage[] }).history)).toEqual([
        [],
        [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'Echo: hello (history 0)' }],
      ]);

      const read = await api('get', `/api/exploration/sessions/${session.id}`).expect(200);
      expect(read.body).toMatchObject({ id: session.id, turns_used: 2, turns_left: 4 });
      expect(read.body.messages.map((message: { turn_index: number; reply: string }) => [message.turn_index, message.reply])).toEqual([
        [0, 'Echo: hello (history 0)'],
        [1, 'Echo: and then? (history 2)'],
      ]);
      expect(read.body.messages[0].completed_at).toEqual(expect.any(String));

      await newSession(campaign.id, { persona: 'chatty' });
      const list = await api('get', '/api/exploration/sessions').query({ campaign_id: campaign.id, size: 1 }).expect(200);
      expect(list.body).toMatchObject({ page: 0, size: 1, totalElements: 2, totalPages: 2 });
      expect(list.body.content[0]).toMatchObject({ persona: 'chatty' }); // newest first
      expect(list.body.content[0].messages).toBeUndefined();
      const open = await api('get', '/api/exploration/sessions').query({ campaign_id: campaign.id, status: 'closed' }).expect(200);
      expect(open.body.totalElements).toBe(0);
      await api('get', '/api/exploration/sessions').query({ campaign_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
      await api('get', '/api/exploration/sessions/00000000-0000-4000-8000-000000000000').expect(404);
    });

    it('counts a turn when the target errors or times out, stores the message row with the error, and then refuses past the limit', async () => {
      const campaign = await newCampaign({ budget: { turns_per_session: 3 } });
      const session = await newSession(campaign.id);
      const failed = await send(session.id, 'fail please').expect(201);
      expect(failed.body).toMatchObject({ turns_used: 1, turns_left: 2 });
      expect(failed.body.turn).toMatchObject({ turn_index: 0, reply: null, latency_ms: null, error: 'target answered HTTP 500: {"error":"agent crashed"}' });
      const slow = await send(session.id, 'slow please').expect(201);
      expect(slow.body.turn).toMatchObject({ turn_index: 1, reply: null, error: `no reply within ${REPLY_TIMEOUT_MS} ms (EVAL_EXPLORATION_REPLY_TIMEOUT_MS)` });
      await send(session.id, 'ok').expect(201);

      const refused = expectConflict(await send(session.id, 'one more'), 'this session has used 3 of its 3 turns (turns_per_session)');
      expect(refused).toMatchObject({ status: 409, limit: 'turns_per_session', limit_value: 3, used: 3 });
      const read = await api('get', `/api/exploration/sessions/${session.id}`).expect(200);
      expect(read.body.turns_used).toBe(3);
      expect(read.body.messages.map((message: { message: string; error: string | null }) => [message.message, message.error !== null])).toEqual([
        ['fail please', true],
        ['slow please', true],
        ['ok', false],
      ]);
      // The history of the third turn carries the first two messages without replies.
      const third = agent.requests.find((entry) => (entry.body as { message: string; session: string }).message === 'ok' && (entry.body as { session: string }).session === session.id);
      expect((third!.body as { history: ChatMessage[] }).history).toEqual([{ role: 'user', content: 'fail please' }, { role: 'user', content: 'slow please' }]);
    });

    it('refuses a message over EVAL_EXPLORATION_MESSAGE_MAX_CHARS with 413 without spending a turn', async () => {
      const session = await newSession((await newCampaign()).id);
      const response = await send(session.id, 'x'.repeat(MESSAGE_MAX_CHARS + 1)).expect(413);
      expect(response.body.detail).toContain(`at most ${MESSAGE_MAX_CHARS} are allowed`);
      expect((await api('get', `/api/exploration/sessions/${session.id}`).expect(200)).body.turns_used).toBe(0);
    });

    it('validates the body: mode model needs a usable model configuration, manual takes none', async () => {
      const campaign = await newCampaign();
      const noModel = await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g', mode: 'model' }).expect(400);
      expect(noModel.body.detail).toContain('needs model_config_id');
      const manualWithModel = await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g', model_config_id: virtualUserModelId }).expect(400);
      expect(manualWithModel.body.detail).toContain('only for model-driven sessions');
      const unknown = await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g', mode: 'model', model_config_id: '00000000-0000-4000-8000-000000000000' }).expect(400);
      expect(unknown.body.detail).toContain('No model configuration 00000000-0000-4000-8000-000000000000');
      await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: '', goal: 'g' }).expect(400);
      await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g', mode: 'robot' }).expect(400);
      await api('post', '/api/exploration/sessions').send({ campaign_id: '00000000-0000-4000-8000-000000000000', persona: 'p', goal: 'g' }).expect(404);
    });
  });

  describe('409s of the Errors table, each with its reason', () => {
    it('sessions per window: the window already has sessions_per_window sessions', async () => {
      const campaign = await newCampaign({ budget: { sessions_per_window: 2, min_session_interval_ms: 0 } });
      await newSession(campaign.id);
      const second = await newSession(campaign.id);
      await api('post', `/api/exploration/sessions/${second.id}/close`).send({}).expect(200); // closed sessions still count
      const body = expectConflict(
        await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g' }),
        'Exploration budget exhausted: the campaign has started 2 of its 2 sessions per window (sessions_per_window)',
        'no more sessions are allowed before the window closes',
      );
      expect(body).toMatchObject({ limit: 'sessions_per_window', limit_value: 2, used: 2, next_allowed_at: null });
      expect((await api('get', '/api/exploration/sessions').query({ campaign_id: campaign.id }).expect(200)).body.totalElements).toBe(2);
    });

    it('minimum interval: the previous session started less than min_session_interval_ms ago, with when the next is allowed', async () => {
      const campaign = await newCampaign({ budget: { min_session_interval_ms: 3_600_000 } });
      await newSession(campaign.id);
      const body = expectConflict(
        await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g' }),
        'Too soon: the previous exploration session of this campaign started',
        'the minimum interval between sessions (min_session_interval_ms) is 3600000 ms',
        // The window (created as now ± 1 h) ends before the first start + 1 h: no later session fits in it.
        "that is at or after the window's end",
      );
      expect(body).toMatchObject({ limit: 'min_session_interval', limit_value: 3_600_000, next_allowed_at: null });
      expect(body.used).toBeGreaterThanOrEqual(0);
      expect(body.used).toBeLessThan(3_600_000);

      const shortInterval = await newCampaign({ budget: { min_session_interval_ms: 600_000 } });
      const started = await newSession(shortInterval.id);
      const refused = expectConflict(await api('post', '/api/exploration/sessions').send({ campaign_id: shortInterval.id, persona: 'p', goal: 'g' }), '(min_session_interval_ms) is 600000 ms');
      const expected = new Date(Date.parse(started.started_at) + 600_000).toISOString();
      expect(refused.next_allowed_at).toBe(expected);
      expect(refused.detail).toContain(`the next session is allowed at ${expected} (in `);
    });

    it('turns per session: a message past turns_per_session', async () => {
      const campaign = await newCampaign({ budget: { turns_per_session: 1 } });
      const session = await newSession(campaign.id);
      await send(session.id, 'hi').expect(201);
      expectConflict(await send(session.id, 'again'), 'Exploration budget exhausted: this session has used 1 of its 1 turns (turns_per_session); close it');
    });

    it('manual-only rule: a session that is not manual on an accelerated-line campaign', async () => {
      const campaign = await newCampaign({ line: 'accelerated' });
      expectConflict(
        await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g', mode: 'model', model_config_id: virtualUserModelId }),
        `Manual-only rule: campaign ${campaign.id} is on the accelerated line, where exploration sessions must be manual (mode "manual"); mode "model" is not allowed.`,
      );
      const manual = await newSession(campaign.id, { mode: 'manual' });
      await send(manual.id, 'hello').expect(201);
    });

    it('a campaign that opted out of exploration (no seed set)', async () => {
      const campaign = await newCampaign({ seeds: false });
      expectConflict(
        await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g' }),
        `Campaign ${campaign.id} has opted out of exploration (it has no seed personas and seed goals)`,
      );
    });

    it('a campaign that is not running: draft, then cancelled (also for messages of an open session)', async () => {
      const draft = await newCampaign({ start: false });
      expectConflict(
        await api('post', '/api/exploration/sessions').send({ campaign_id: draft.id, persona: 'p', goal: 'g' }),
        `Campaign ${draft.id} is draft: exploration sessions can only be opened while it is running. Start the campaign first.`,
      );
      const campaign = await newCampaign();
      const session = await newSession(campaign.id);
      await api('post', `/api/campaigns/${campaign.id}/cancel`).send({}).expect(200);
      expectConflict(await send(session.id, 'still there?'), `Campaign ${campaign.id} is cancelled: exploration messages can only be sent while it is running.`);
      expectConflict(await api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g' }), 'is cancelled');
      // Closing still works, so the experience is not lost.
      await api('post', `/api/exploration/sessions/${session.id}/close`).send({}).expect(200);
    });

    it('a closed session: messages, drive and a second close', async () => {
      const campaign = await newCampaign();
      const session = await newSession(campaign.id);
      const closed = await api('post', `/api/exploration/sessions/${session.id}/close`).send({}).expect(200);
      const reason = `Exploration session ${session.id} was closed at ${closed.body.closed_at}; open a new session to keep exploring.`;
      expectConflict(await send(session.id, 'hello?'), reason);
      expectConflict(await api('post', `/api/exploration/sessions/${session.id}/close`).send({}), reason);
      const driven = await newSession(campaign.id, { persona: 'chatty', mode: 'model', model_config_id: virtualUserModelId });
      await api('post', `/api/exploration/sessions/${driven.id}/close`).send({}).expect(200);
      expectConflict(await api('post', `/api/exploration/sessions/${driven.id}/drive`).send({}), `Exploration session ${driven.id} was closed at`);
    });
  });

  describe('concurrency: parallel requests cannot pass a budget together', () => {
    it('sessions per window', async () => {
      const campaign = await newCampaign({ budget: { sessions_per_window: 3, min_session_interval_ms: 0 } });
      const responses = await Promise.all(
        Array.from({ length: 10 }, (_, index) => api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: `p${index}`, goal: 'g' })),
      );
      expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
      const refused = responses.filter((response) => response.status === 409);
      expect(refused).toHaveLength(7);
      for (const response of refused) expect(response.body.limit).toBe('sessions_per_window');
      expect((await api('get', '/api/exploration/sessions').query({ campaign_id: campaign.id }).expect(200)).body.totalElements).toBe(3);
    });

    it('minimum interval', async () => {
      const campaign = await newCampaign({ budget: { sessions_per_window: 10, min_session_interval_ms: 600_000 } });
      const responses = await Promise.all(Array.from({ length: 6 }, () => api('post', '/api/exploration/sessions').send({ campaign_id: campaign.id, persona: 'p', goal: 'g' })));
      expect(responses.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      for (const response of responses.filter((item) => item.status === 409)) expect(response.body.limit).toBe('min_session_interval');
    });

    it('turns per session, with distinct turn indexes and one message row per delivered turn', async () => {
      const campaign = await newCampaign({ budget: { turns_per_session: 4 } });
      const session = await newSession(campaign.id);
      const responses = await Promise.all(Array.from({ length: 12 }, (_, index) => send(session.id, `parallel ${index}`)));
      expect(responses.filter((response) => response.status === 201)).toHaveLength(4);
      expect(responses.filter((response) => response.status === 409)).toHaveLength(8);
      const read = await api('get', `/api/exploration/sessions/${session.id}`).expect(200);
      expect(read.body.turns_used).toBe(4);
      expect(read.body.messages.map((message: { turn_index: number }) => message.turn_index)).toEqual([0, 1, 2, 3]);
      const deliveries = agent.requests.filter((entry) => (entry.body as { session?: string }).session === session.id);
      expect(deliveries).toHaveLength(4);
    });
  });

  describe('model-driven virtual user (a real local OpenAI-compatible server and a real local HTTP agent)', () => {
    const modelCalls = () => models.requests.filter((entry) => (entry.body as { model: string }).model === 'virtual-user');

    it('plays persona + goal until the stop marker; the text before [[DONE]] is still sent; close records goal_reached', async () => {
      const campaign = await newCampaign();
      const session = await newSession(campaign.id, { mode: 'model', model_config_id: virtualUserModelId, goal: 'rebook flight LH123' });
      const callsBefore = modelCalls().length;
      const driven = await api('post', `/api/exploration/sessions/${session.id}/drive`).send({}).expect(200);
      expect(driven.body).toMatchObject({ stopped_by: 'stop_marker', detail: null });
      expect(driven.body.turns.map((turn: { author: string; message: string; reply: string }) => [turn.author, turn.message, turn.reply])).toEqual([
        ['model', 'Hi, I need to rebook my flight.', 'Echo: Hi, I need to rebook my flight. (history 0)'],
        ['model', 'Great, that works for me.', 'Echo: Great, that works for me. (history 2)'],
      ]);
      expect(driven.body.session).toMatchObject({ turns_used: 2, stop_marker: 'done', status: 'open' });

      const calls = modelCalls().slice(callsBefore);
      expect(calls).toHaveLength(2);
      expect(calls[0].headers.authorization).toBe('Bearer vu-key-123456');
      const [opening, followUp] = calls.map((call) => (call.body as { messages: ChatMessage[] }).messages);
      expect(opening[0]).toMatchObject({ role: 'system' });
      expect(opening[0].content).toContain('Persona: finisher');
      expect(opening[0].content).toContain('Goal: rebook flight LH123');
      expect(opening[0].content).toContain('[[DONE]]');
      expect(followUp.slice(1)).toEqual([
        { role: 'assistant', content: 'Hi, I need to rebook my flight.' },
        { role: 'user', content: 'Echo: Hi, I need to rebook my flight. (history 0)' },
      ]);

      const closed = await api('post', `/api/exploration/sessions/${session.id}/close`).send({}).expect(200);
      expect(closed.body.experience).toMatchObject({ persona: 'finisher', goal: 'rebook flight LH123', mode: 'model', turns: 2, replies: 2, errors: 0, outcome: 'goal_reached', outcome_source: 'stop_marker' });
    });

    it('stops at the session turn limit, then refuses to drive further; close records budget_exhausted', async () => {
      const campaign = await newCampaign({ budget: { turns_per_session: 3 } });
      const session = await newSession(campaign.id, { persona: 'chatty', mode: 'model', model_config_id: virtualUserModelId });
      const driven = await api('post', `/api/exploration/sessions/${session.id}/drive`).send({}).expect(200);
      expect(driven.body.stopped_by).toBe('turn_budget');
      expect(driven.body.turns.map((turn: { message: string }) => turn.message)).toEqual(['Tell me more (0)', 'Tell me more (1)', 'Tell me more (2)']);
      expect(driven.body.session).toMatchObject({ turns_used: 3, turns_left: 0, stop_marker: null });
      expectConflict(await api('post', `/api/exploration/sessions/${session.id}/drive`).send({}), 'used 3 of its 3 turns (turns_per_session)');
      const closed = await api('post', `/api/exploration/sessions/${session.id}/close`).send({}).expect(200);
      expect(closed.body.experience).toMatchObject({ outcome: 'budget_exhausted', outcome_source: 'derived', turns: 3, turn_limit: 3 });
    });

    it('plays at most max_turns per call (bounded by EVAL_EXPLORATION_MAX_DRIVE_TURNS) and continues the transcript on the next call', async () => {
      const campaign = await newCampaign();
      const session = await newSession(campaign.id, { persona: 'chatty', mode: 'model', model_config_id: virtualUserModelId });
      const tooMany = await api('post', `/api/exploration/sessions/${session.id}/drive`).send({ max_turns: MAX_DRIVE_TURNS + 1 }).expect(400);
      expect(tooMany.body.detail).toContain(`max_turns may be at most ${MAX_DRIVE_TURNS} (EVAL_EXPLORATION_MAX_DRIVE_TURNS)`);
      const first = await api('post', `/api/exploration/sessions/${session.id}/drive`).send({ max_turns: 2 }).expect(200);
      expect(first.body).toMatchObject({ stopped_by: 'max_turns' });
      expect(first.body.turns).toHaveLength(2);
      const second = await api('post', `/api/exploration/sessions/${session.id}/drive`).send({ max_turns: 1 }).expect(200);
      expect(second.body.turns.map((turn: { turn_index: number; message: string }) => [turn.turn_index, turn.message])).toEqual([[2, 'Tell me more (2)']]);
    });

    it('records [[GIVE_UP]] as abandoned, and stops on a target error, a model error or an empty message', async () => {
      const campaign = await newCampaign();
      const quitter = await newSession(campaign.id, { persona: 'quitter', mode: 'model', model_config_id: virtualUserModelId });
      const gaveUp = await api('post', `/api/exploration/sessions/${quitter.id}/drive`).send({}).expect(200);
      expect(gaveUp.body).toMatchObject({ stopped_by: 'stop_marker', session: { stop_marker: 'give_up', turns_used: 1 } });
      const closed = await api('post', `/api/exploration/sessions/${quitter.id}/close`).send({}).expect(200);
      expect(closed.body.experience).toMatchObject({ outcome: 'abandoned', outcome_source: 'stop_marker' });

      const mute = await newSession(campaign.id, { persona: 'mute', mode: 'model', model_config_id: virtualUserModelId });
      const empty = await api('post', `/api/exploration/sessions/${mute.id}/drive`).send({}).expect(200);
      expect(empty.body).toMatchObject({ stopped_by: 'model_error', detail: 'The virtual-user model returned an empty message.', turns: [] });

      const crasher = await newSession(campaign.id, { persona: 'crasher', mode: 'model', model_config_id: virtualUserModelId });
      const targetError = await api('post', `/api/exploration/sessions/${crasher.id}/drive`).send({}).expect(200);
      expect(targetError.body).toMatchObject({ stopped_by: 'target_error', detail: 'target answered HTTP 500: {"error":"agent crashed"}', session: { turns_used: 1 } });
      expect(targetError.body.turns).toEqual([expect.objectContaining({ turn_index: 0, message: 'fail on purpose', reply: null, error: 'target answered HTTP 500: {"error":"agent crashed"}' })]);

      const broken = await api('post', '/api/model-configs').send({ name: 'broken', base_url: `${models.url}/v1`, model: 'broken-model' }).expect(201);
      const failing = await newSession(campaign.id, { persona: 'chatty', mode: 'model', model_config_id: broken.body.id });
      const modelError = await api('post', `/api/exploration/sessions/${failing.id}/drive`).send({}).expect(200);
      expect(modelError.body).toMatchObject({ stopped_by: 'model_error', turns: [] });
      expect(modelError.body.detail).toMatch(/^The virtual-user model failed: /);
      expect(modelError.body.detail).not.toContain('vu-key');

      const manual = await newSession(campaign.id);
      expectConflict(await api('post', `/api/exploration/sessions/${manual.id}/drive`).send({}), 'is manual', 'Only a model-driven session (mode "model") can be driven.');
    });
  });

  describe('close', () => {
    it('stores the normalised experience record with the outcome and notable replies', async () => {
      const campaign = await newCampaign({ budget: { turns_per_session: 5 } });
      const session = await newSession(campaign.id, { persona: 'traveller', goal: 'find the baggage rules' });
      await send(session.id, 'hi').expect(201);
      await send(session.id, 'sorry to ask, can you help?').expect(201);
      await send(session.id, 'fail now').expect(201);
      const closed = await api('post', `/api/exploration/sessions/${session.id}/close`).send({ notes: 'refused once, then crashed' }).expect(200);
      expect(closed.body).toMatchObject({ status: 'closed', turns_left: 0, closed_at: expect.any(String) });
      const record = closed.body.experience;
      expect(record).toMatchObject({
        persona: 'traveller', goal: 'find the baggage rules', mode: 'manual', turns: 3, turn_limit: 5, replies: 2, errors: 1,
        outcome: 'error', outcome_source: 'derived', notes: 'refused once, then crashed',
      });
      expect(record.duration_ms).toBeGreaterThanOrEqual(0);
      const reasons = Object.fromEntries(record.notable_replies.map((item: { turn_index: number; reasons: string[] }) => [item.turn_index, item.reasons]));
      expect(reasons[1]).toContain('refusal');
      expect(reasons[2]).toEqual(['error']);
      expect(record.notable_replies.find((item: { turn_index: number }) => item.turn_index === 2).error).toContain('HTTP 500');
      expect(record.notable_replies.some((item: { reasons: string[] }) => item.reasons.includes('slowest'))).toBe(true);
      // Stored, not recomputed: reading the session returns the same record.
      expect((await api('get', `/api/exploration/sessions/${session.id}`).expect(200)).body.experience).toEqual(record);

      const judged = await newSession(campaign.id);
      await send(judged.id, 'hi').expect(201);
      const byCaller = await api('post', `/api/exploration/sessions/${judged.id}/close`).send({ outcome: 'goal_reached' }).expect(200);
      expect(byCaller.body.experience).toMatchObject({ outcome: 'goal_reached', outcome_source: 'caller', turns: 1 });
      await api('post', `/api/exploration/sessions/${judged.id}/close`).send({ outcome: 'budget_exhausted' }).expect(400);
    });
  });
});
