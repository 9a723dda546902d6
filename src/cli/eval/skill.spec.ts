import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EvalApiError, type EvalReport, type EvalRun, type EvalRunSummary } from './eval-api.client';
import { evaluateWithSkill, formatSkillSummary, MAX_LISTED_FAILURES, type SkillOptions } from './skill';

const KEY = 'eval-skill-spec-key-SECRET-0123456789';
const RUN_ID = '11111111-1111-4111-8111-111111111111';
const SCENARIO_ID = '22222222-2222-4222-8222-222222222222';
const TARGET_ID = '33333333-3333-4333-8333-333333333333';

const SUMMARY: EvalRunSummary = {
  total_cases: 4,
  passed_cases: 2,
  failed_cases: 1,
  errored_cases: 1,
  passed_rules: 5,
  total_rules: 8,
  pass_rate: 0.5,
  latency_p50_ms: 120,
  latency_p95_ms: 480,
  duration_ms: 2300,
};

function runRecord(status: EvalRun['status'], summary: EvalRunSummary | null = null, extra: Partial<EvalRun> = {}): EvalRun {
  return {
    id: RUN_ID,
    status,
    scenario_id: SCENARIO_ID,
    scenario_name: 'Support bot',
    scenario_version: 3,
    version_label: 'v3',
    target_id: TARGET_ID,
    target_name: 'staging bot',
    triggered_by: 'ai_assistant',
    campaign_id: null,
    concurrency: 4,
    repeat_count: 1,
    case_count: 4,
    summary,
    error: null,
    created_at: '2025-01-01T00:00:00.000Z',
    started_at: null,
    finished_at: null,
    ...extra,
  };
}

function rule(index: number, type: string, pass: boolean, reason: string) {
  return { index, type, pass, score: pass ? 1 : 0, weight: 1, reason };
}

function reportCase(case_id: string, status: 'passed' | 'failed' | 'errored', rules: ReturnType<typeof rule>[], extra: { error?: string; repeat_index?: number } = {}) {
  return {
    case_id,
    repeat_index: extra.repeat_index ?? 0,
    status,
    input: 'hi',
    expected: null,
    output: status === 'errored' ? null : 'hello',
    latency_ms: status === 'errored' ? null : 100,
    score: status === 'errored' ? null : 1,
    error: extra.error ?? null,
    transcript: [],
    rules,
  };
}

function reportFor(summary: EvalRunSummary | null, cases: EvalReport['cases'], status = 'completed'): EvalReport {
  return {
    run_id: RUN_ID,
    status,
    header: {
      scenario_id: SCENARIO_ID,
      scenario_name: 'Support bot',
      scenario_version: 3,
      version: 'v3',
      target_id: TARGET_ID,
      target_name: 'staging bot',
      triggered_by: 'ai_assistant',
      campaign_id: null,
      created_at: '2025-01-01T00:00:00.000Z',
      started_at: '2025-01-01T00:00:01.000Z',
      finished_at: '2025-01-01T00:00:03.300Z',
    },
    summary,
    cases,
  };
}

const FIXED_REPORT = reportFor(SUMMARY, [
  reportCase('greet', 'passed', [rule(0, 'contains', true, 'found')]),
  reportCase('refund', 'failed', [
    rule(0, 'contains', false, 'expected "refund policy"\nnot found'),
    rule(1, 'latency', true, 'fast'),
    rule(2, 'llm-rubric', false, 'Does not mention the 30 day window.'),
  ]),
  reportCase('timeout', 'errored', [], { error: 'target timed out after 5000 ms' }),
  reportCase('greet', 'passed', [rule(0, 'contains', true, 'found')], { repeat_index: 1 }),
]);

describe('formatSkillSummary (evaluation-platform.md, Events: skill client summary text)', () => {
  it('renders the header, metrics and every failed rule of a fixed report', () => {
    const text = formatSkillSummary(FIXED_REPORT, runRecord('completed', SUMMARY), { ok: false, reason: 'pass rate 50.0% is under the minimum 80.0%', minPassRate: 0.8 });
    expect(text).toBe(
      [
        'Scenario:     Support bot v3',
        'Target:       staging bot',
        `Run:          ${RUN_ID} (triggered by ai_assistant)`,
        'Status:       completed',
        'Pass rate:    50.0% (minimum 80.0%)',
        'Cases:        2/4 passed, 1 failed, 1 errored',
        'Rules:        5/8 passed',
        'Latency:      p50 120 ms, p95 480 ms',
        'Duration:     2300 ms',
        'Result:       FAIL - pass rate 50.0% is under the minimum 80.0%',
        '',
        'Failed cases (2):',
        '- refund: failed',
        '  - rule 1 contains: expected "refund policy" not found',
        '  - rule 3 llm-rubric: Does not mention the 30 day window.',
        '- timeout: errored: target timed out after 5000 ms',
      ].join('\n'),
    );
  });

  it('works without a verdict and says when nothing failed', () => {
    const allPassed = { ...SUMMARY, passed_cases: 4, failed_cases: 0, errored_cases: 0, pass_rate: 1, latency_p50_ms: null, latency_p95_ms: null };
    const text = formatSkillSummary(reportFor(allPassed, [reportCase('a', 'passed', [])]), runRecord('completed', allPassed));
    expect(text).toContain('Pass rate:    100.0%\n');
    expect(text).toContain('Latency:      p50 n/a, p95 n/a');
    expect(text).not.toContain('Result:');
    expect(text.endsWith('Failed cases: none')).toBe(true);
  });

  it(`lists at most ${MAX_LISTED_FAILURES} failed cases, then counts the rest`, () => {
    const cases = Array.from({ length: 25 }, (_, i) => reportCase(`c${i + 1}`, 'failed', [rule(0, 'equals', false, `mismatch ${i + 1}`)]));
    const text = formatSkillSummary(reportFor(SUMMARY, cases), runRecord('completed', SUMMARY));
    expect(text).toContain('Failed cases (25):');
    expect(text).toContain('- c20: failed');
    expect(text).not.toContain('- c21: failed');
    expect(text.split('\n').filter((line) => line.startsWith('- ')).length).toBe(20);
    expect(text.endsWith('… and 5 more')).toBe(true);
  });

  it('shows repeats, a run error, and a run without summary (timeout, no report)', () => {
    const repeated = formatSkillSummary(reportFor(SUMMARY, [reportCase('x', 'failed', [rule(0, 'regex', false, 'no match')], { repeat_index: 2 })]), runRecord('completed', SUMMARY));
    expect(repeated).toContain('- x (repeat 3): failed');
    const failed = formatSkillSummary(null, runRecord('failed', null, { error: 'scenario snapshot\nbroken' }), { status: 'timeout' });
    expect(failed).toContain('Status:       timeout');
    expect(failed).toContain('Pass rate:    n/a (no summary yet)');
    expect(failed).toContain('Error:        scenario snapshot broken');
    expect(failed).not.toContain('Failed cases');
  });
});

/** What the fake platform does; tests change it per case. */
interface FakePlatform {
  /** Statuses answered by successive GET /api/runs/{id}; the last one repeats. */
  statuses: EvalRun['status'][];
  summary: EvalRunSummary | null;
  report: EvalReport;
  runError: string | null;
  /** Answers for successive GETs that override the status script (e.g. a 503), consumed first. */
  pollFailures: { status: number; body: unknown }[];
  requests: { method: string; url: string; headers: http.IncomingHttpHeaders; body: unknown }[];
}

describe('evaluateWithSkill against a local HTTP server (create → poll → report)', () => {
  let server: http.Server;
  let apiUrl: string;
  let platform: FakePlatform;
  let clock: number;
  let sleeps: number[];

  const sleep = async (ms: number) => {
    sleeps.push(ms);
    clock += ms;
  };
  const options = (extra: Partial<SkillOptions> = {}): SkillOptions => ({
    apiUrl,
    apiKey: KEY,
    scenarioId: SCENARIO_ID,
    targetId: TARGET_ID,
    pollIntervalMs: 1000,
    sleep,
    now: () => clock,
    ...extra,
  });

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body: unknown = text ? JSON.parse(text) : undefined;
        platform.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const send = (status: number, payload: unknown, type = 'application/json') => {
          res.writeHead(status, { 'content-type': type });
          res.end(JSON.stringify(payload));
        };
        const problem = (status: number, title: string, detail: string) =>
          send(status, { type: 'about:blank', title, status, detail }, 'application/problem+json');
        if (req.headers['x-api-key'] !== KEY) return problem(401, 'Unauthorized', 'Send an API key (X-API-Key) or a session token.');
        if (req.method === 'POST' && req.url === '/api/runs') {
          const { scenario_id, triggered_by } = body as { scenario_id: string; triggered_by: EvalRun['triggered_by'] };
          if (scenario_id !== SCENARIO_ID) return problem(404, 'Not Found', `Scenario ${scenario_id} not found; key was ${KEY}`);
          return send(201, runRecord('queued', null, { triggered_by }));
        }
        if (req.method === 'GET' && req.url === `/api/runs/${RUN_ID}`) {
          const failure = platform.pollFailures.shift();
          if (failure) return send(failure.status, failure.body, 'application/problem+json');
          const status = platform.statuses.length > 1 ? platform.statuses.shift()! : platform.statuses[0];
          const terminal = status === 'completed' || status === 'failed';
          return send(200, runRecord(status, terminal ? platform.summary : null, { error: status === 'failed' ? platform.runError : null }));
        }
        if (req.method === 'GET' && req.url === `/api/reports/${RUN_ID}`) return send(200, platform.report);
        problem(404, 'Not Found', 'no such route');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    clock = 1_000_000;
    sleeps = [];
    platform = { statuses: ['running', 'completed'], summary: SUMMARY, report: FIXED_REPORT, runError: null, pollFailures: [], requests: [] };
  });

  it('creates the run as ai_assistant, polls queued → running → completed at the interval, then reads the report', async () => {
    const seen: string[] = [];
    const result = await evaluateWithSkill(options({ concurrency: 2, repeatCount: 3, onStatus: (run) => seen.push(run.status) }));
    expect(platform.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'POST /api/runs',
      `GET /api/runs/${RUN_ID}`,
      `GET /api/runs/${RUN_ID}`,
      `GET /api/reports/${RUN_ID}`,
    ]);
    expect(platform.requests[0].body).toEqual({ scenario_id: SCENARIO_ID, target_id: TARGET_ID, triggered_by: 'ai_assistant', concurrency: 2, repeat_count: 3 });
    expect(platform.requests[0].headers['x-api-key']).toBe(KEY);
    expect(sleeps).toEqual([1000, 1000]);
    expect(seen).toEqual(['queued', 'running', 'completed']);
    expect(result).toMatchObject({ runId: RUN_ID, status: 'completed', passRate: 0.5, summary: SUMMARY, report: FIXED_REPORT, ok: true });
    expect(result.reason).toBeUndefined();
    expect(result.text).toBe(formatSkillSummary(FIXED_REPORT, result.run, { ok: true, reason: undefined, minPassRate: undefined }));
    expect(result.text).toContain('Result:       PASS');
  });

  it('uses the default interval of 2000 ms and sends triggered_by cli when asked', async () => {
    platform.statuses = ['completed'];
    const result = await evaluateWithSkill(options({ pollIntervalMs: undefined, triggeredBy: 'cli' }));
    expect(sleeps).toEqual([2000]);
    expect(platform.requests[0].body).toMatchObject({ triggered_by: 'cli' });
    expect(result.ok).toBe(true);
  });

  it('returns status timeout (not an exception) when the run is still running at the deadline, without reading the report', async () => {
    platform.statuses = ['running'];
    const result = await evaluateWithSkill(options({ timeoutMs: 2500 }));
    expect(sleeps).toEqual([1000, 1000, 500]);
    expect(result).toMatchObject({ runId: RUN_ID, status: 'timeout', ok: false, report: null, passRate: null });
    expect(result.reason).toBe(`run ${RUN_ID} still running after 2500 ms (timeout)`);
    expect(result.text).toContain('Status:       timeout');
    expect(result.text).toContain(`Result:       FAIL - run ${RUN_ID} still running after 2500 ms (timeout)`);
    expect(platform.requests.some((r) => r.url.startsWith('/api/reports/'))).toBe(false);
  });

  it('gates on minPassRate: under the minimum is not ok, equal is ok', async () => {
    const below = await evaluateWithSkill(options({ minPassRate: 0.8 }));
    expect(below).toMatchObject({ status: 'completed', ok: false, passRate: 0.5, minPassRate: 0.8, reason: 'pass rate 50.0% is under the minimum 80.0%' });
    expect(below.text).toContain('Pass rate:    50.0% (minimum 80.0%)');
    platform.statuses = ['running', 'completed'];
    const equal = await evaluateWithSkill(options({ minPassRate: 0.5 }));
    expect(equal).toMatchObject({ ok: true, passRate: 0.5 });
  });

  it('a failed run is not ok and carries the run error', async () => {
    platform.statuses = ['failed'];
    platform.runError = 'scenario has no cases';
    const result = await evaluateWithSkill(options());
    expect(result).toMatchObject({ status: 'failed', ok: false, reason: 'run failed: scenario has no cases' });
  });

  it('throws the problem title and detail on HTTP errors, with the API key redacted', async () => {
    const error = await evaluateWithSkill(options({ scenarioId: '44444444-4444-4444-8444-444444444444' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EvalApiError);
    expect((error as EvalApiError).status).toBe(404);
    expect((error as Error).message).toBe('Not Found (HTTP 404): Scenario 44444444-4444-4444-8444-444444444444 not found; key was [redacted]');
    expect((error as Error).message).not.toContain(KEY);

    const unauthorized = await evaluateWithSkill(options({ apiKey: 'wrong-key-xyz' })).catch((e: unknown) => e);
    expect((unauthorized as Error).message).toBe('Unauthorized (HTTP 401): Send an API key (X-API-Key) or a session token.');
  });

  it('retries transient poll failures (503) at the next interval, but throws other poll errors', async () => {
    platform.pollFailures = [{ status: 503, body: { title: 'Service Unavailable', status: 503 } }];
    platform.statuses = ['completed'];
    const result = await evaluateWithSkill(options());
    expect(sleeps).toEqual([1000, 1000]);
    expect(result.ok).toBe(true);

    platform.pollFailures = [{ status: 500, body: { title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.' } }];
    await expect(evaluateWithSkill(options())).rejects.toThrow('Internal Server Error (HTTP 500): An unexpected error occurred.');
  });

  it('sends a session token as Bearer when no API key is given', async () => {
    const error = await evaluateWithSkill(options({ apiKey: undefined, sessionToken: 'session.token.value' })).catch((e: unknown) => e);
    expect((error as EvalApiError).status).toBe(401);
    expect(platform.requests[0].headers.authorization).toBe('Bearer session.token.value');
    expect(platform.requests[0].headers['x-api-key']).toBeUndefined();
  });

  it('rejects invalid options before any request', async () => {
    await expect(evaluateWithSkill(options({ minPassRate: 1.5 }))).rejects.toThrow(RangeError);
    await expect(evaluateWithSkill(options({ pollIntervalMs: 0 }))).rejects.toThrow(RangeError);
    await expect(evaluateWithSkill(options({ timeoutMs: -1 }))).rejects.toThrow(RangeError);
    await expect(evaluateWithSkill(options({ apiKey: undefined }))).rejects.toThrow('no credentials');
    await expect(evaluateWithSkill(options({ apiUrl: 'ftp://example.com' }))).rejects.toThrow('http or https');
    expect(platform.requests).toEqual([]);
  });

  it('stops when the signal aborts, using the real timer', async () => {
    platform.statuses = ['running'];
    const controller = new AbortController();
    const pending = evaluateWithSkill(options({ sleep: undefined, now: undefined, pollIntervalMs: 60_000, signal: controller.signal }));
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});
