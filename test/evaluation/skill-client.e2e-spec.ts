import request from 'supertest';
import { EXIT_CODES, run } from '../../src/cli/eval/main';
import { evaluateWithSkill } from '../../src/cli/eval/skill';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-skill-e2e-key-0123456789abcdef';
const PASSWORD = 'skill-admin-password-0123';
const SESSION_SECRET = 'skill-session-secret-0123456789abcdefghij';

describe('skill client (evaluation-platform.md, Events: "The skill client for assistants")', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let targetId: string;
  let passingScenarioId: string;
  let halfScenarioId: string;
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /** Runs the CLI in-process with its output captured; the environment is empty unless given. */
  const cli = async (args: string[], env: NodeJS.ProcessEnv = {}) => {
    let stdout = '';
    let stderr = '';
    const code = await run(['node', 'atrium-eval', ...args], { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env });
    return { code, stdout, stderr };
  };
  const runIdIn = (text: string) => /^Run: +([0-9a-f-]{36}) /m.exec(text)?.[1];

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => ({ body: { reply: `Echo: ${(body as { message: string }).message}` } }));
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_ADMIN_PASSWORD: PASSWORD, EVAL_SESSION_SECRET: SESSION_SECRET });
    const target = await api('post', '/api/targets')
      .send({ name: 'echo agent', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } })
      .expect(201);
    targetId = target.body.id;
    const passing = await api('post', '/api/scenarios')
      .send({
        name: 'Skill passing',
        cases: [
          { id: 'hello', input: 'hello', rules: [{ type: 'contains', value: 'hello' }, { type: 'starts-with', value: 'Echo:' }] },
          { id: 'bye', input: 'bye', rules: [{ type: 'icontains', value: 'BYE' }] },
        ],
      })
      .expect(201);
    passingScenarioId = passing.body.id;
    const half = await api('post', '/api/scenarios')
      .send({
        name: 'Skill half',
        cases: [
          { id: 'good', input: 'good', rules: [{ type: 'contains', value: 'good' }] },
          { id: 'bad', input: 'bad', rules: [{ type: 'contains', value: 'never-in-the-reply' }, { type: 'latency', threshold: 60000 }] },
        ],
      })
      .expect(201);
    halfScenarioId = half.body.id;
  });
  afterAll(async () => {
    await testApp?.close();
    await agent?.close();
  });

  it('CLI: a passing scenario exits 0, prints the summary, and the run is triggered_by cli', async () => {
    const { code, stdout, stderr } = await cli(
      ['run', '--scenario', passingScenarioId, '--target', targetId, '--api-url', testApp.baseUrl, '--poll-interval', '100', '--timeout', '60000'],
      { EVAL_API_KEY: API_KEY },
    );
    expect({ code, stderr }).toMatchObject({ code: EXIT_CODES.ok });
    expect(stdout).toContain('Scenario:     Skill passing v1\n');
    expect(stdout).toContain('Target:       echo agent\n');
    expect(stdout).toContain('Status:       completed\n');
    expect(stdout).toContain('Pass rate:    100.0%\n');
    expect(stdout).toContain('Cases:        2/2 passed, 0 failed, 0 errored\n');
    expect(stdout).toContain('Rules:        3/3 passed\n');
    expect(stdout).toMatch(/Latency: +p50 \d+ ms, p95 \d+ ms\n/);
    expect(stdout).toContain('Result:       PASS\n');
    expect(stdout + stderr).not.toContain(API_KEY);

    const runId = runIdIn(stdout)!;
    expect(runId).toBeDefined();
    const stored = await api('get', `/api/runs/${runId}`).expect(200);
    expect(stored.body).toMatchObject({ id: runId, status: 'completed', triggered_by: 'cli', scenario_id: passingScenarioId, target_id: targetId });
  });

  it('CLI: a scenario with a failing case under --min-pass-rate 0.9 exits 1 and names the failed rule', async () => {
    const { code, stdout } = await cli(
      ['run', '--scenario', halfScenarioId, '--target', targetId, '--min-pass-rate', '0.9', '--poll-interval', '100'],
      { EVAL_API_URL: testApp.baseUrl, EVAL_API_KEY: API_KEY },
    );
    expect(code).toBe(EXIT_CODES.failed);
    expect(stdout).toContain('Pass rate:    50.0% (minimum 90.0%)');
    expect(stdout).toContain('Result:       FAIL - pass rate 50.0% is under the minimum 90.0%');
    expect(stdout).toContain('Failed cases (1):\n- bad: failed\n  - rule 1 contains: ');

    const json = await cli(
      ['run', '--scenario', halfScenarioId, '--target', targetId, '--min-pass-rate', '0.5', '--poll-interval', '100', '--json'],
      { EVAL_API_URL: testApp.baseUrl, EVAL_API_KEY: API_KEY },
    );
    expect(json.code).toBe(EXIT_CODES.ok);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toMatchObject({ ok: true, exitCode: 0, status: 'completed', passRate: 0.5, run: { triggered_by: 'cli' } });
    expect(parsed.report.cases.map((c: { case_id: string; status: string }) => [c.case_id, c.status]).sort()).toEqual([['bad', 'failed'], ['good', 'passed']]);
  });

  it('CLI: HTTP errors exit 2 with the problem on stderr and no key; --timeout 0 exits 3', async () => {
    const unknown = await cli(
      ['run', '--scenario', '00000000-0000-4000-8000-000000000000', '--target', targetId, '--api-url', testApp.baseUrl, '--api-key', API_KEY],
    );
    expect(unknown.code).toBe(EXIT_CODES.error);
    expect(unknown.stderr).toMatch(/^atrium-eval: Not Found \(HTTP 404\)/);
    expect(unknown.stderr).not.toContain(API_KEY);

    const denied = await cli(['run', '--scenario', passingScenarioId, '--target', targetId, '--api-url', testApp.baseUrl, '--api-key', 'not-a-valid-key']);
    expect(denied.code).toBe(EXIT_CODES.error);
    expect(denied.stderr).toMatch(/^atrium-eval: Unauthorized \(HTTP 401\)/);

    const timedOut = await cli(['run', '--scenario', passingScenarioId, '--target', targetId, '--timeout', '0'], { EVAL_API_URL: testApp.baseUrl, EVAL_API_KEY: API_KEY });
    expect(timedOut.code).toBe(EXIT_CODES.timeout);
    expect(timedOut.stdout).toContain('Status:       timeout');
  });

  it('evaluateWithSkill: creates the run as ai_assistant and returns the report and summary text', async () => {
    const sleeps: number[] = [];
    const result = await evaluateWithSkill({
      apiUrl: testApp.baseUrl,
      apiKey: API_KEY,
      scenarioId: halfScenarioId,
      targetId,
      pollIntervalMs: 50,
      minPassRate: 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
        await new Promise((resolve) => setTimeout(resolve, ms));
      },
    });
    expect(result).toMatchObject({ status: 'completed', ok: true, passRate: 0.5, summary: { total_cases: 2, passed_cases: 1, failed_cases: 1 } });
    expect(result.report?.header).toMatchObject({ scenario_name: 'Skill half', version: 'v1', target_name: 'echo agent', triggered_by: 'ai_assistant' });
    expect(sleeps.every((ms) => ms === 50)).toBe(true);
    expect(result.text).toContain('Scenario:     Skill half v1');
    const stored = await api('get', `/api/runs/${result.runId}`).expect(200);
    expect(stored.body.triggered_by).toBe('ai_assistant');
  });

  it('evaluateWithSkill: accepts a session token from sign-in instead of an API key', async () => {
    const session = await request(testApp.baseUrl).post('/api/auth/sign-in').send({ password: PASSWORD }).expect(200);
    const result = await evaluateWithSkill({ apiUrl: testApp.baseUrl, sessionToken: session.body.token, scenarioId: passingScenarioId, targetId, pollIntervalMs: 100 });
    expect(result).toMatchObject({ status: 'completed', ok: true, passRate: 1 });
    expect(result.run.triggered_by).toBe('ai_assistant');
  });
});
