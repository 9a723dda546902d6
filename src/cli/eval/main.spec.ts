import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EXIT_CODES, run } from './main';

const KEY = 'eval-cli-spec-key-SECRET-abcdef0123';
const TARGET = '33333333-3333-4333-8333-333333333333';
/** Scenario ids steer the fake platform: all cases pass, half pass, never finishes, run fails. */
const PASSING = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const HALF = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const SLOW = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';
const FAILING = 'dddddddd-dddd-4ddd-8ddd-dddddddddddd';

function summary(passed: number, total: number) {
  return {
    total_cases: total,
    passed_cases: passed,
    failed_cases: total - passed,
    errored_cases: 0,
    passed_rules: passed,
    total_rules: total,
    pass_rate: total ? Math.round((passed / total) * 10_000) / 10_000 : 0,
    latency_p50_ms: 10,
    latency_p95_ms: 20,
    duration_ms: 300,
  };
}

describe('atrium-eval CLI (evaluation-platform.md, Events: skill client; exit codes for CI)', () => {
  let server: http.Server;
  let apiUrl: string;
  let created: { body: Record<string, unknown>; headers: http.IncomingHttpHeaders }[];
  let out: string;
  let err: string;
  const runs = new Map<string, { scenario: string; polls: number; triggered_by: string }>();

  const io = (env: NodeJS.ProcessEnv = {}) => ({
    stdout: (text: string) => void (out += text),
    stderr: (text: string) => void (err += text),
    env,
    sleep: async () => undefined,
  });
  const cli = (args: string[], env: NodeJS.ProcessEnv = { EVAL_API_URL: apiUrl, EVAL_API_KEY: KEY }) => run(['node', 'atrium-eval', ...args], io(env));

  beforeAll(async () => {
    let counter = 0;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const send = (status: number, payload: unknown, type = 'application/json') => {
          res.writeHead(status, { 'content-type': type });
          res.end(JSON.stringify(payload));
        };
        if (req.headers['x-api-key'] !== KEY) return send(401, { title: 'Unauthorized', status: 401, detail: 'bad key' }, 'application/problem+json');
        const record = (id: string) => {
          const entry = runs.get(id)!;
          const done = entry.scenario !== SLOW && entry.polls >= 1;
          const status = !done ? (entry.polls === 0 ? 'queued' : 'running') : entry.scenario === FAILING ? 'failed' : 'completed';
          const sum = entry.scenario === PASSING ? summary(2, 2) : entry.scenario === HALF ? summary(1, 2) : null;
          return {
            id,
            status,
            scenario_id: entry.scenario,
            scenario_name: 'CLI scenario',
            scenario_version: 2,
            version_label: 'v2',
            target_id: TARGET,
            target_name: 'cli target',
            triggered_by: entry.triggered_by,
            summary: done ? sum : null,
            error: status === 'failed' ? 'target vanished' : null,
          };
        };
        if (req.method === 'POST' && req.url === '/api/runs') {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
          created.push({ body, headers: req.headers });
          if (![PASSING, HALF, SLOW, FAILING].includes(body.scenario_id as string)) {
            return send(404, { title: 'Not Found', status: 404, detail: `Scenario ${String(body.scenario_id)} not found.` }, 'application/problem+json');
          }
          const id = `eeeeeeee-eeee-4eee-8eee-${String(++counter).padStart(12, '0')}`;
          runs.set(id, { scenario: body.scenario_id as string, polls: 0, triggered_by: body.triggered_by as string });
          return send(201, record(id));
        }
        const runMatch = /^\/api\/runs\/([\w-]+)$/.exec(req.url ?? '');
        if (runMatch && runs.has(runMatch[1])) {
          runs.get(runMatch[1])!.polls++;
          return send(200, record(runMatch[1]));
        }
        const reportMatch = /^\/api\/reports\/([\w-]+)$/.exec(req.url ?? '');
        if (reportMatch && runs.has(reportMatch[1])) {
          const r = record(reportMatch[1]);
          const failedCase = {
            case_id: 'second',
            repeat_index: 0,
            status: 'failed',
            rules: [{ index: 0, type: 'contains', pass: false, score: 0, weight: 1, reason: 'expected "refund" in the reply' }],
          };
          return send(200, {
            run_id: r.id,
            status: r.status,
            header: { scenario_name: r.scenario_name, version: r.version_label, target_name: r.target_name, triggered_by: r.triggered_by },
            summary: r.summary,
            cases: [{ case_id: 'first', repeat_index: 0, status: 'passed', rules: [] }, ...(r.scenario_id === HALF ? [failedCase] : [])],
          });
        }
        send(404, { title: 'Not Found', status: 404 }, 'application/problem+json');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    created = [];
    out = '';
    err = '';
    // Jest reuses its worker processes across files: start from a clean exit code so afterEach sees only this CLI's.
    process.exitCode = undefined;
  });
  afterEach(() => {
    // The CLI must never leak into the test runner's own exit code.
    expect(process.exitCode).toBeUndefined();
    expect(out + err).not.toContain(KEY);
  });

  it('exits 0 for a completed run, creates it as triggered_by cli and prints the summary', async () => {
    const code = await cli(['run', '--scenario', PASSING, '--target', TARGET, '--concurrency', '2', '--repeat', '3']);
    expect(code).toBe(EXIT_CODES.ok);
    expect(created[0].body).toEqual({ scenario_id: PASSING, target_id: TARGET, triggered_by: 'cli', concurrency: 2, repeat_count: 3 });
    expect(created[0].headers['x-api-key']).toBe(KEY);
    expect(out).toContain('Scenario:     CLI scenario v2\n');
    expect(out).toContain('Target:       cli target\n');
    expect(out).toContain('Pass rate:    100.0%\n');
    expect(out).toContain('Result:       PASS\n');
    expect(out).toContain('Failed cases: none');
    expect(err).toMatch(/run [\w-]+ queued\n.*run [\w-]+ completed\n/s);
  });

  it('exits 1 when the pass rate is under --min-pass-rate (also given as a percentage) and lists the failed rule', async () => {
    expect(await cli(['run', '--scenario', HALF, '--target', TARGET, '--min-pass-rate', '0.9'])).toBe(EXIT_CODES.failed);
    expect(out).toContain('Pass rate:    50.0% (minimum 90.0%)');
    expect(out).toContain('Result:       FAIL - pass rate 50.0% is under the minimum 90.0%');
    expect(out).toContain('  - rule 1 contains: expected "refund" in the reply');
    out = '';
    expect(await cli(['run', '--scenario', HALF, '--target', TARGET, '--min-pass-rate', '50%'])).toBe(EXIT_CODES.ok);
  });

  it('exits 1 when the run failed', async () => {
    expect(await cli(['run', '--scenario', FAILING, '--target', TARGET])).toBe(EXIT_CODES.failed);
    expect(out).toContain('Result:       FAIL - run failed: target vanished');
  });

  it('exits 3 on timeout, with the real timer as well', async () => {
    expect(await cli(['run', '--scenario', SLOW, '--target', TARGET, '--timeout', '0'])).toBe(EXIT_CODES.timeout);
    expect(out).toContain('Status:       timeout');
    out = '';
    const started = Date.now();
    const code = await run(['node', 'atrium-eval', 'run', '--scenario', SLOW, '--target', TARGET, '--poll-interval', '20', '--timeout', '150'], {
      ...io({ EVAL_API_URL: apiUrl, EVAL_API_KEY: KEY }),
      sleep: undefined,
    });
    expect(code).toBe(EXIT_CODES.timeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(out).toMatch(/still running after 150 ms \(timeout\)/);
  });

  it('prints the result as JSON with --json, flags taking precedence over the environment', async () => {
    const code = await cli(['run', '--scenario', HALF, '--target', TARGET, '--min-pass-rate', '0.9', '--json', '--api-url', apiUrl, '--api-key', KEY], {
      EVAL_API_URL: 'http://127.0.0.1:9',
      EVAL_API_KEY: 'other-key',
    });
    expect(code).toBe(EXIT_CODES.failed);
    const parsed = JSON.parse(out) as Record<string, unknown>;
    expect(parsed).toMatchObject({ ok: false, exitCode: 1, status: 'completed', passRate: 0.5, minPassRate: 0.9, reason: 'pass rate 50.0% is under the minimum 90.0%' });
    expect(parsed.report).toMatchObject({ header: { scenario_name: 'CLI scenario' } });
    expect(typeof parsed.text).toBe('string');
  });

  it('exits 2 on HTTP errors with the problem title and detail on stderr', async () => {
    const unknown = '99999999-9999-4999-8999-999999999999';
    expect(await cli(['run', '--scenario', unknown, '--target', TARGET])).toBe(EXIT_CODES.error);
    expect(err).toBe(`atrium-eval: Not Found (HTTP 404): Scenario ${unknown} not found.\n`);
    expect(out).toBe('');
    err = '';
    expect(await cli(['run', '--scenario', PASSING, '--target', TARGET, '--json'], { EVAL_API_URL: apiUrl, EVAL_API_KEY: 'wrong-key' })).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-eval: Unauthorized (HTTP 401): bad key\n');
    expect(JSON.parse(out)).toEqual({ ok: false, exitCode: 2, error: 'Unauthorized (HTTP 401): bad key' });
  });

  it('exits 2 on usage errors without contacting the server', async () => {
    expect(await cli(['run', '--target', TARGET])).toBe(EXIT_CODES.error);
    expect(err).toMatch(/required option '--scenario <id>' not specified/);
    err = '';
    expect(await cli(['run', '--scenario', PASSING, '--target', TARGET, '--min-pass-rate', '1.5'])).toBe(EXIT_CODES.error);
    expect(err).toMatch(/--min-pass-rate.*must be a rate between 0 and 1/);
    err = '';
    expect(await cli(['run', '--scenario', PASSING, '--target', TARGET, '--poll-interval', '0'])).toBe(EXIT_CODES.error);
    err = '';
    expect(await cli(['run', '--scenario', PASSING, '--target', TARGET], { EVAL_API_KEY: KEY })).toBe(EXIT_CODES.error);
    expect(err).toBe('atrium-eval: no API URL: pass --api-url or set EVAL_API_URL\n');
    err = '';
    expect(await cli(['run', '--scenario', PASSING, '--target', TARGET], { EVAL_API_URL: apiUrl })).toBe(EXIT_CODES.error);
    expect(err).toMatch(/no credentials/);
    err = '';
    expect(await cli(['bogus'])).toBe(EXIT_CODES.error);
    expect(await cli([])).toBe(EXIT_CODES.error);
    expect(created).toEqual([]);
  });

  it('exits 0 for --help and documents the exit codes', async () => {
    expect(await cli(['run', '--help'])).toBe(EXIT_CODES.ok);
    expect(out).toContain('--min-pass-rate <rate>');
    expect(out).toContain('Exit codes: 0 completed');
  });
});
