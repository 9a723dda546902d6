import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

/** Factory: a valid scenario body with one single-turn and one multi-turn case. */
function newScenario(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Refund desk',
    description: 'Customer asks about refunds',
    metadata: { owner: 'qa' },
    cases: [
      { id: 'single', input: 'Can I get a refund?', rules: [{ type: 'icontains', value: 'refund' }, { type: 'latency', threshold: 5000 }] },
      { id: 'multi', turns: ['Hi', 'I want my money back'], rules: [{ type: 'not-is-refusal' }], threshold: 1 },
    ],
    model_bindings: { judge: 'none' },
    llm_config: { temperature: 0 },
    ...overrides,
  };
}

describe('scenarios (evaluation-platform.md, Resources: Scenario, rule 1)', () => {
  let testApp: TestApp;
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
  });
  afterAll(() => testApp?.close());

  it('starts at version 1 and ignores a client-sent version', async () => {
    const created = await api('post', '/api/scenarios').send(newScenario({ version: 42 })).expect(201);
    expect(created.body).toMatchObject({ version: 1, case_count: 2, model_bindings: { judge: 'none' } });
  });

  it('keeps the version on metadata edits and bumps it once per syllabus change', async () => {
    const { body: scenario } = await api('post', '/api/scenarios').send(newScenario()).expect(201);
    const renamed = await api('patch', `/api/scenarios/${scenario.id}`).send({ name: 'Renamed', description: 'x', metadata: { owner: 'ops' }, version: 9 }).expect(200);
    expect(renamed.body).toMatchObject({ name: 'Renamed', version: 1 });
    const sameSyllabus = await api('patch', `/api/scenarios/${scenario.id}`).send({ llm_config: { temperature: 0 }, cases: scenario.cases }).expect(200);
    expect(sameSyllabus.body.version).toBe(1);
    const newCases = await api('patch', `/api/scenarios/${scenario.id}`).send({ cases: [...scenario.cases, { id: 'third', input: 'Thanks', rules: [] }] }).expect(200);
    expect(newCases.body).toMatchObject({ version: 2, case_count: 3 });
    expect((await api('patch', `/api/scenarios/${scenario.id}`).send({ model_bindings: { judge: 'other' } }).expect(200)).body.version).toBe(3);
    expect((await api('patch', `/api/scenarios/${scenario.id}`).send({ llm_config: { temperature: 0.7 } }).expect(200)).body.version).toBe(4);
    expect((await api('get', `/api/scenarios/${scenario.id}`).expect(200)).body.version).toBe(4);
  });

  it('refuses invalid cases and rules with 400 naming the problem', async () => {
    const badRule = await api('post', '/api/scenarios').send(newScenario({ cases: [{ id: 'a', input: 'x', rules: [{ type: 'sounds-nice' }] }] })).expect(400);
    expect(JSON.stringify(badRule.body.errors)).toContain('rules');
    await api('post', '/api/scenarios').send(newScenario({ cases: [{ id: 'a', input: 'x', turns: ['y'], rules: [] }] })).expect(400);
    await api('post', '/api/scenarios').send(newScenario({ cases: [{ id: 'a', rules: [] }] })).expect(400);
    await api('post', '/api/scenarios').send(newScenario({ cases: [{ id: 'a', input: 'x', rules: [] }, { id: 'a', input: 'y', rules: [] }] })).expect(400);
    await api('post', '/api/scenarios').send(newScenario({ cases: [] })).expect(400);
    await api('post', '/api/scenarios').send(newScenario({ cases: [{ id: 'a', input: 'x', rules: [{ type: 'regex', value: '(' }] }] })).expect(400);
  });

  it('lists without cases, filters by name and deletes', async () => {
    const { body: scenario } = await api('post', '/api/scenarios').send(newScenario({ name: 'Unique Needle 7' })).expect(201);
    const found = await api('get', '/api/scenarios').query({ q: 'needle' }).expect(200);
    expect(found.body.content).toEqual([expect.objectContaining({ id: scenario.id, case_count: 2, version: 1 })]);
    expect(found.body.content[0].cases).toBeUndefined();
    await api('delete', `/api/scenarios/${scenario.id}`).expect(204);
    await api('get', `/api/scenarios/${scenario.id}`).expect(404);
    await request(testApp.baseUrl).get('/api/scenarios').expect(401);
  });
});
