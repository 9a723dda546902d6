import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';
const BASE = '/api/intelligent-evaluations';
const MAX_MESSAGE_CHARS = 500;
const MAX_MESSAGES_PER_SESSION = 3;

type Status = 'draft' | 'planning' | 'pending_approval' | 'executing' | 'completed' | 'failed' | 'cancelled';

/**
 * The moves the spec allows (States and transitions) plus the documented extension (cancel before execution),
 * written out here independently of the code. `report` = only by POST …/report.
 */
const ALLOWED: Record<Status, { to: Status; trigger: 'transition' | 'report' }[]> = {
  draft: [{ to: 'planning', trigger: 'transition' }, { to: 'cancelled', trigger: 'transition' }],
  planning: [{ to: 'pending_approval', trigger: 'transition' }, { to: 'cancelled', trigger: 'transition' }],
  pending_approval: [{ to: 'executing', trigger: 'transition' }, { to: 'cancelled', trigger: 'transition' }],
  executing: [{ to: 'completed', trigger: 'report' }, { to: 'failed', trigger: 'transition' }, { to: 'cancelled', trigger: 'transition' }],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Factory: an evaluation body. */
function newEvaluation(overrides: Record<string, unknown> = {}) {
  return { name: 'Refund robustness', goal: 'Does the bot keep the 30-day refund window under pressure?', ...overrides };
}

/** Factory: a plan with two dimensions. */
function newPlan(overrides: Record<string, unknown> = {}) {
  return {
    summary: 'Probe the refund window from several angles.',
    dimensions: ['accuracy', 'tone'],
    steps: [
      { id: 'day-29', title: 'Ask for a refund on day 29' },
      { id: 'day-31', title: 'Ask for a refund on day 31', description: 'Insist twice.' },
    ],
    ...overrides,
  };
}

/** Factory: a report without findings that covers the plan of {@link newPlan}. */
function newReport(overrides: Record<string, unknown> = {}) {
  return {
    summary: 'The bot kept the policy.',
    verdict: 'pass',
    scores: [
      { dimension: 'accuracy', score: 1 },
      { dimension: 'tone', score: 0.9, rationale: 'Polite throughout.' },
    ],
    findings: [],
    recommendations: [],
    ...overrides,
  };
}

/** What each move needs in its body. */
function moveBody(to: Status): Record<string, unknown> {
  if (to === 'pending_approval') return { to, plan: newPlan() };
  if (to === 'failed') return { to, reason: 'The target stopped answering.' };
  if (to === 'cancelled') return { to, reason: 'No longer needed.' };
  return { to };
}

/** The moves that lead from draft to each state. */
const PATH_TO: Record<Status, Status[]> = {
  draft: [],
  planning: ['planning'],
  pending_approval: ['planning', 'pending_approval'],
  executing: ['planning', 'pending_approval', 'executing'],
  completed: ['planning', 'pending_approval', 'executing', 'completed'],
  failed: ['planning', 'pending_approval', 'executing', 'failed'],
  cancelled: ['cancelled'],
};

describe('intelligent evaluation (evaluation-platform.md: Intelligent evaluation, States and transitions; issue 4 acceptance 5)', () => {
  let testApp: TestApp;
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /** Creates an evaluation and walks it to `status` over HTTP; returns its id. */
  async function createIn(status: Status, body = newEvaluation()): Promise<string> {
    const created = await api('post', BASE).send(body).expect(201);
    for (const to of PATH_TO[status]) {
      if (to === 'completed') await api('post', `${BASE}/${created.body.id}/report`).send(newReport()).expect(201);
      else await api('post', `${BASE}/${created.body.id}/transitions`).send(moveBody(to)).expect(200);
    }
    return created.body.id;
  }

  /** Opens a session and posts one message in it; returns their ids. */
  async function sessionWithMessage(id: string, kind: 'planning' | 'execution'): Promise<{ sessionId: string; messageId: string }> {
    const session = await api('post', `${BASE}/${id}/sessions`).send({ title: `${kind} session`, kind }).expect(201);
    const message = await api('post', `${BASE}/${id}/sessions/${session.body.id}/messages`).send({ role: 'executor', content: 'Can I get a refund on day 31?' }).expect(201);
    return { sessionId: session.body.id, messageId: message.body.id };
  }

  /** The 409 body names the current state, the requested one and exactly the allowed moves with their routes. */
  function expectConflict(body: Record<string, unknown>, id: string, current: Status, requested: Status) {
    const expected = ALLOWED[current].map((move) => ({ ...move, method: 'POST', path: `${BASE}/${id}/${move.trigger === 'report' ? 'report' : 'transitions'}` }));
    expect(body).toMatchObject({ status: 409, current_status: current, requested_status: requested });
    expect(body.allowed_moves).toEqual(expected);
    expect(body.detail).toContain(current);
    for (const move of ALLOWED[current]) expect(body.detail).toContain(move.to);
    if (ALLOWED[current].length === 0) expect(body.detail).toContain('terminal');
  }

  beforeAll(async () => {
    testApp = await startTestApp({
      EVAL_API_KEYS: API_KEY,
      EVAL_INTELLIGENT_MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS),
      EVAL_INTELLIGENT_MAX_MESSAGES_PER_SESSION: String(MAX_MESSAGES_PER_SESSION),
    });
  });
  afterAll(() => testApp?.close());

  it('runs the whole lifecycle: plan, approval, sessions, messages, report', async () => {
    const target = await api('post', '/api/targets')
      .send({ name: 'Support bot', kind: 'http', http: { url: 'http://127.0.0.1:9/chat', body_template: { message: '{{message}}' }, reply_path: '$.reply' } })
      .expect(201);
    const created = await api('post', BASE).send(newEvaluation({ target_id: target.body.id, description: 'Quarterly check' })).expect(201);
    const id = created.body.id;
    expect(created.body).toMatchObject({ status: 'draft', target_id: target.body.id, plan: null, has_report: false, planning_at: null });
    expect(created.body.allowed_moves.map((move: { to: string }) => move.to)).toEqual(['planning', 'cancelled']);

    const planning = await api('post', `${BASE}/${id}/transitions`).send({ to: 'planning' }).expect(200);
    expect(planning.body).toMatchObject({ status: 'planning', planning_at: expect.any(String) });
    const planner = await sessionWithMessage(id, 'planning');

    const pending = await api('post', `${BASE}/${id}/transitions`).send({ to: 'pending_approval', plan: newPlan({ metadata: { budget: 'small' } }) }).expect(200);
    expect(pending.body).toMatchObject({ status: 'pending_approval', pending_approval_at: expect.any(String), plan: { dimensions: ['accuracy', 'tone'], metadata: { budget: 'small' } } });
    expect(pending.body.plan.steps[0]).toEqual({ id: 'day-29', title: 'Ask for a refund on day 29', description: null });

    const approved = await api('post', `${BASE}/${id}/transitions`).send({ to: 'executing', actor: 'Dana (QA lead)', reason: 'Plan looks complete.' }).expect(200);
    expect(approved.body).toMatchObject({ status: 'executing', approved_by: 'Dana (QA lead)', approval_note: 'Plan looks complete.', executing_at: expect.any(String) });

    const executor = await sessionWithMessage(id, 'execution');
    await api('post', `${BASE}/${id}/sessions/${executor.sessionId}/messages`).send({ role: 'target', content: 'Sorry, only within 30 days.', metadata: { latency_ms: 420 } }).expect(201);
    const page = await api('get', `${BASE}/${id}/sessions/${executor.sessionId}/messages?size=1&page=1`).expect(200);
    expect(page.body).toMatchObject({ totalElements: 2, totalPages: 2, content: [{ role: 'target', metadata: { latency_ms: 420 }, session_id: executor.sessionId }] });
    const sessions = await api('get', `${BASE}/${id}/sessions?kind=execution`).expect(200);
    expect(sessions.body).toMatchObject({ totalElements: 1, content: [{ id: executor.sessionId, status: 'open', message_count: 2 }] });

    const report = newReport({
      verdict: 'partial',
      findings: [
        {
          id: 'F1',
          title: 'Refused politely on day 31',
          severity: 'info',
          evidence: [{ session_id: executor.sessionId, message_id: executor.messageId, note: 'the question' }, { session_id: planner.sessionId }],
        },
      ],
      recommendations: [{ title: 'Mention store credit', priority: 'low', finding_ids: ['F1'] }],
    });
    const submitted = await api('post', `${BASE}/${id}/report`).send(report).expect(201);
    expect(submitted.body).toMatchObject({ evaluation_id: id, status: 'completed', verdict: 'partial', submitted_at: expect.any(String) });
    expect(submitted.body.findings[0].evidence[1]).toEqual({ session_id: planner.sessionId, message_id: null, note: null });

    const read = await api('get', `${BASE}/${id}/report`).expect(200);
    expect(read.body).toEqual(submitted.body);
    const evaluation = await api('get', `${BASE}/${id}`).expect(200);
    expect(evaluation.body).toMatchObject({ status: 'completed', has_report: true, completed_at: submitted.body.submitted_at, allowed_moves: [] });
    // Entering a terminal state closed every open session.
    const open = await api('get', `${BASE}/${id}/sessions?status=open`).expect(200);
    expect(open.body.totalElements).toBe(0);

    const listed = await api('get', `${BASE}?status=completed&target_id=${target.body.id}`).expect(200);
    expect(listed.body).toMatchObject({ totalElements: 1, content: [{ id, has_report: true }] });
    expect(listed.body.content[0].plan).toBeUndefined();
  });

  describe('every allowed transition over HTTP', () => {
    const moves = (Object.entries(ALLOWED) as [Status, (typeof ALLOWED)[Status]][]).flatMap(([from, list]) => list.map((move) => [from, move.to, move.trigger] as const));

    it('covers the nine allowed moves', () => expect(moves).toHaveLength(9));

    it.each(moves)('%s → %s (by %s)', async (from, to, trigger) => {
      const id = await createIn(from);
      const response =
        trigger === 'report'
          ? await api('post', `${BASE}/${id}/report`).send(newReport()).expect(201)
          : await api('post', `${BASE}/${id}/transitions`).send(moveBody(to)).expect(200);
      expect(response.body.status).toBe(to);
      const read = await api('get', `${BASE}/${id}`).expect(200);
      expect(read.body).toMatchObject({ status: to, [`${to}_at`]: expect.any(String) });
      if (to === 'failed' || to === 'cancelled') expect(read.body.status_reason).toBe(moveBody(to).reason);
    });
  });

  describe('forbidden transitions answer 409 naming the current state and the allowed moves', () => {
    it.each([
      ['draft', 'pending_approval'],
      ['draft', 'executing'],
      ['draft', 'completed'],
      ['draft', 'failed'],
      ['draft', 'draft'],
      ['planning', 'executing'],
      ['planning', 'draft'],
      ['planning', 'failed'],
      ['pending_approval', 'planning'],
      ['pending_approval', 'completed'],
      ['pending_approval', 'failed'],
      ['executing', 'completed'],
      ['executing', 'pending_approval'],
      ['executing', 'executing'],
      ['completed', 'cancelled'],
      ['completed', 'failed'],
      ['failed', 'executing'],
      ['failed', 'cancelled'],
      ['cancelled', 'planning'],
      ['cancelled', 'draft'],
    ] as [Status, Status][])('%s → %s', async (from, to) => {
      const id = await createIn(from);
      const response = await api('post', `${BASE}/${id}/transitions`).send(moveBody(to)).expect(409);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expectConflict(response.body, id, from, to);
      expect((await api('get', `${BASE}/${id}`).expect(200)).body.status).toBe(from);
    });

    it('says completed is reached only through the report', async () => {
      const id = await createIn('executing');
      const response = await api('post', `${BASE}/${id}/transitions`).send({ to: 'completed' }).expect(409);
      expect(response.body.detail).toContain('only by submitting its structured report');
    });

    it.each(['draft', 'planning', 'pending_approval', 'completed', 'failed', 'cancelled'] as Status[])('refuses a report while %s', async (from) => {
      const id = await createIn(from);
      const response = await api('post', `${BASE}/${id}/report`).send(newReport()).expect(409);
      expectConflict(response.body, id, from, 'completed');
    });
  });

  describe('move bodies', () => {
    it.each([
      ['a plan missing on → pending_approval', 'planning', { to: 'pending_approval' }, 'plan', 'a plan is required'],
      ['a plan with a repeated dimension', 'planning', { to: 'pending_approval', plan: newPlan({ dimensions: ['accuracy', 'accuracy'] }) }, 'plan.dimensions[1]', 'appears more than once'],
      ['a plan step without a title', 'planning', { to: 'pending_approval', plan: newPlan({ steps: [{ id: 's1' }] }) }, 'plan.steps[0].title', 'title'],
      ['a plan with another move', 'draft', { to: 'planning', plan: newPlan() }, 'plan', 'only with the move to pending_approval'],
      ['a reason missing on → failed', 'executing', { to: 'failed' }, 'reason', 'a reason is required'],
      ['a reason on → planning', 'draft', { to: 'planning', reason: 'because' }, 'reason', 'kept only with the moves to executing, failed, cancelled'],
      ['an unknown state', 'draft', { to: 'archived' }, 'to', 'to must be one of'],
    ] as [string, Status, Record<string, unknown>, string, string][])('refuses %s with 400', async (_name, from, body, field, message) => {
      const id = await createIn(from);
      const response = await api('post', `${BASE}/${id}/transitions`).send(body).expect(400);
      const entry = response.body.errors.find((error: { field: string }) => error.field === field);
      expect(entry?.messages.join(' ')).toContain(message);
      expect((await api('get', `${BASE}/${id}`).expect(200)).body.status).toBe(from);
    });

    it('records the credential as approver when no actor is given', async () => {
      const id = await createIn('executing');
      expect((await api('get', `${BASE}/${id}`).expect(200)).body).toMatchObject({ approved_by: 'api-key:env-1', approval_note: null });
    });

    it('refuses an unknown target with 400 and answers 404 for an unknown evaluation', async () => {
      const unknown = randomUUID();
      const response = await api('post', BASE).send(newEvaluation({ target_id: unknown })).expect(400);
      expect(response.body.errors).toEqual([{ field: 'target_id', messages: [expect.stringContaining(`no target ${unknown}`)] }]);
      await api('post', `${BASE}/${randomUUID()}/transitions`).send({ to: 'planning' }).expect(404);
      await api('get', `${BASE}/${randomUUID()}`).expect(404);
    });
  });

  describe('report validation', () => {
    let id: string;
    let own: { sessionId: string; messageId: string };
    let second: { sessionId: string; messageId: string };
    let foreign: { sessionId: string; messageId: string };

    beforeAll(async () => {
      id = await createIn('executing');
      own = await sessionWithMessage(id, 'execution');
      second = await sessionWithMessage(id, 'planning');
      const other = await createIn('executing');
      foreign = await sessionWithMessage(other, 'execution');
    });

    const finding = (evidence: Record<string, unknown>[]) => ({ id: 'F1', title: 'Something', severity: 'high', evidence });

    it.each([
      ['a missing summary and a bad verdict', () => newReport({ summary: undefined, verdict: 'great' }), ['summary', 'verdict']],
      ['a score above 1', () => newReport({ scores: [{ dimension: 'accuracy', score: 1.5 }, { dimension: 'tone', score: 1 }] }), ['scores[0].score']],
      ['a finding without evidence and with an unknown severity', () => newReport({ findings: [{ id: 'F1', title: 'x', severity: 'huge', evidence: [] }] }), ['findings[0].severity', 'findings[0].evidence']],
      ['evidence with a malformed session id', () => newReport({ findings: [finding([{ session_id: 'not-a-uuid' }])] }), ['findings[0].evidence[0].session_id']],
      ['a dimension of the plan not scored', () => newReport({ scores: [{ dimension: 'accuracy', score: 1 }] }), ['scores']],
      ['a dimension scored twice', () => newReport({ scores: [{ dimension: 'accuracy', score: 1 }, { dimension: 'tone', score: 1 }, { dimension: 'tone', score: 0 }] }), ['scores[2].dimension']],
      ['a recommendation citing an unknown finding', () => newReport({ recommendations: [{ title: 'Do it', priority: 'high', finding_ids: ['F9'] }] }), ['recommendations[0].finding_ids[0]']],
      ['an unknown session', () => newReport({ findings: [finding([{ session_id: randomUUID() }])] }), ['findings[0].evidence[0].session_id']],
      ['a session of another evaluation', () => newReport({ findings: [finding([{ session_id: foreign.sessionId }])] }), ['findings[0].evidence[0].session_id']],
      ['a message of another evaluation', () => newReport({ findings: [finding([{ session_id: own.sessionId, message_id: foreign.messageId }])] }), ['findings[0].evidence[0].message_id']],
      ['a message of another session', () => newReport({ findings: [finding([{ session_id: own.sessionId, message_id: second.messageId }])] }), ['findings[0].evidence[0].message_id']],
      ['an unknown message', () => newReport({ findings: [finding([{ session_id: own.sessionId }, { session_id: own.sessionId, message_id: randomUUID() }])] }), ['findings[0].evidence[1].message_id']],
    ] as [string, () => Record<string, unknown>, string[]][])('refuses %s with 400 naming the fields', async (_name, build, fields) => {
      const response = await api('post', `${BASE}/${id}/report`).send(build()).expect(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.body.errors.map((error: { field: string }) => error.field)).toEqual(expect.arrayContaining(fields));
      for (const field of fields) expect(response.body.detail).toContain(field);
    });

    it('stored nothing for the refused reports and accepts a valid one afterwards', async () => {
      expect((await api('get', `${BASE}/${id}`).expect(200)).body).toMatchObject({ status: 'executing', has_report: false });
      await api('get', `${BASE}/${id}/report`).expect(404);
      const report = newReport({ findings: [finding([{ session_id: own.sessionId, message_id: own.messageId }, { session_id: second.sessionId, message_id: second.messageId }])] });
      await api('post', `${BASE}/${id}/report`).send(report).expect(201);
    });
  });

  describe('sessions and messages', () => {
    it('refuses messages to a closed session and closing twice', async () => {
      const id = await createIn('planning');
      const { sessionId } = await sessionWithMessage(id, 'planning');
      const closed = await api('post', `${BASE}/${id}/sessions/${sessionId}/close`).expect(200);
      expect(closed.body).toMatchObject({ status: 'closed', closed_at: expect.any(String), message_count: 1 });
      const refused = await api('post', `${BASE}/${id}/sessions/${sessionId}/messages`).send({ role: 'planner', content: 'late' }).expect(409);
      expect(refused.body.detail).toContain('is closed');
      await api('post', `${BASE}/${id}/sessions/${sessionId}/close`).expect(409);
    });

    it.each(['completed', 'failed', 'cancelled'] as Status[])('refuses messages and sessions once the evaluation is %s', async (terminal) => {
      const id = await createIn('executing');
      const { sessionId } = await sessionWithMessage(id, 'execution');
      if (terminal === 'completed') await api('post', `${BASE}/${id}/report`).send(newReport()).expect(201);
      else await api('post', `${BASE}/${id}/transitions`).send(moveBody(terminal)).expect(200);
      const message = await api('post', `${BASE}/${id}/sessions/${sessionId}/messages`).send({ role: 'executor', content: 'late' }).expect(409);
      expect(message.body.detail).toContain(`The evaluation is ${terminal}, a terminal state`);
      const session = await api('post', `${BASE}/${id}/sessions`).send({ title: 'late', kind: 'planning' }).expect(409);
      expect(session.body.detail).toContain(terminal);
      expect((await api('get', `${BASE}/${id}/sessions/${sessionId}`).expect(200)).body.status).toBe('closed');
    });

    it('opens execution sessions only after approval', async () => {
      const id = await createIn('pending_approval');
      const response = await api('post', `${BASE}/${id}/sessions`).send({ title: 'too early', kind: 'execution' }).expect(409);
      expect(response.body.detail).toContain('only while the evaluation is executing');
      expect(response.body.detail).toContain('pending_approval');
      await api('post', `${BASE}/${id}/sessions`).send({ title: 'planning is fine', kind: 'planning' }).expect(201);
    });

    it('caps messages per session (409) and characters per message (413)', async () => {
      const id = await createIn('planning');
      const { sessionId } = await sessionWithMessage(id, 'planning');
      const path = `${BASE}/${id}/sessions/${sessionId}/messages`;
      await api('post', path).send({ role: 'planner', content: 'x'.repeat(MAX_MESSAGE_CHARS) }).expect(201);
      const tooLong = await api('post', path).send({ role: 'planner', content: 'x'.repeat(MAX_MESSAGE_CHARS + 1) }).expect(413);
      expect(tooLong.body.detail).toContain(`at most ${MAX_MESSAGE_CHARS}`);
      await api('post', path).send({ role: 'planner', content: 'ok', metadata: { blob: 'y'.repeat(MAX_MESSAGE_CHARS) } }).expect(413);
      await api('post', path).send({ role: 'system', content: 'third' }).expect(201);
      const full = await api('post', path).send({ role: 'system', content: 'fourth' }).expect(409);
      expect(full.body.detail).toContain(`holds ${MAX_MESSAGES_PER_SESSION} messages`);
      const listed = await api('get', `${path}?role=system`).expect(200);
      expect(listed.body.content.map((message: { content: string }) => message.content)).toEqual(['third']);
    });

    it('validates message bodies and keeps sessions inside their evaluation', async () => {
      const id = await createIn('planning');
      const other = await createIn('planning');
      const { sessionId } = await sessionWithMessage(id, 'planning');
      const invalid = await api('post', `${BASE}/${id}/sessions/${sessionId}/messages`).send({ role: 'robot', content: '' }).expect(400);
      expect(invalid.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['content', 'role']);
      await api('get', `${BASE}/${other}/sessions/${sessionId}`).expect(404);
      await api('post', `${BASE}/${other}/sessions/${sessionId}/messages`).send({ role: 'planner', content: 'hi' }).expect(404);
      await api('get', `${BASE}/${other}/sessions/${sessionId}/messages`).expect(404);
    });
  });

  describe('concurrent transitions: exactly one wins', () => {
    /** Fires `bodies` at once at the transitions route; checks one 200, the rest 409 with allowed moves, and the final state. */
    async function race(id: string, bodies: Record<string, unknown>[]) {
      const responses = await Promise.all(bodies.map((body) => api('post', `${BASE}/${id}/transitions`).send(body)));
      const winners = responses.filter((response) => response.status === 200);
      const losers = responses.filter((response) => response.status === 409);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(bodies.length - 1);
      for (const loser of losers) expect(loser.body.allowed_moves).toEqual(expect.any(Array));
      const final = (await api('get', `${BASE}/${id}`).expect(200)).body;
      expect(final.status).toBe(winners[0].body.status);
      return final;
    }

    it.each([1, 2, 3])('round %i: eight identical moves draft → planning', async () => {
      const id = await createIn('draft');
      const final = await race(id, Array.from({ length: 8 }, () => ({ to: 'planning' })));
      expect(final.status).toBe('planning');
    });

    it.each([1, 2, 3])('round %i: eight moves to planning or cancelled, all expecting draft', async () => {
      const id = await createIn('draft');
      const bodies = Array.from({ length: 8 }, (_, index) => ({ ...moveBody(index % 2 === 0 ? 'planning' : 'cancelled'), from: 'draft' }));
      const final = await race(id, bodies);
      expect(['planning', 'cancelled']).toContain(final.status);
    });

    it('refuses a move whose expected state is stale, and changes nothing', async () => {
      const id = await createIn('planning');
      const response = await api('post', `${BASE}/${id}/transitions`).send({ to: 'cancelled', from: 'draft' }).expect(409);
      expectConflict(response.body, id, 'planning', 'cancelled');
      expect(response.body.detail).toContain('not draft as the request expected');
      expect((await api('get', `${BASE}/${id}`).expect(200)).body.status).toBe('planning');
    });

    it('from executing: report submission races failing and cancelling', async () => {
      const id = await createIn('executing');
      const responses = await Promise.all([
        api('post', `${BASE}/${id}/report`).send(newReport()),
        api('post', `${BASE}/${id}/transitions`).send(moveBody('failed')),
        api('post', `${BASE}/${id}/transitions`).send(moveBody('cancelled')),
        api('post', `${BASE}/${id}/report`).send(newReport()),
      ]);
      const winners = responses.filter((response) => response.status === 200 || response.status === 201);
      expect(winners).toHaveLength(1);
      expect(responses.filter((response) => response.status === 409)).toHaveLength(3);
      const final = (await api('get', `${BASE}/${id}`).expect(200)).body;
      expect(final.status).toBe(winners[0].body.status);
      expect(final.has_report).toBe(final.status === 'completed');
    });
  });

  it('lists evaluations newest first, paged and filtered by status', async () => {
    const ids = [await createIn('failed'), await createIn('failed'), await createIn('failed')];
    const page = await api('get', `${BASE}?status=failed&size=2`).expect(200);
    expect(page.body.totalElements).toBeGreaterThanOrEqual(3);
    expect(page.body.content.map((row: { id: string }) => row.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.content.every((row: { status: string }) => row.status === 'failed')).toBe(true);
    await api('get', `${BASE}?sort=goal,asc`).expect(400);
  });
});
