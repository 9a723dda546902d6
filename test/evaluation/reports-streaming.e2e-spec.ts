import http from 'node:http';
import { Client } from 'pg';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { compareRuns } from '../../src/evaluation/reports/compare-runs';
import { renderReportMarkdown } from '../../src/evaluation/reports/report-markdown';
import type { RunReport } from '../../src/evaluation/reports/report.types';
import { waitForRun as waitForRunToEnd } from '../support/evaluation-runs';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-reports-streaming-0123';
/** Small batches, so even these runs are read in many keyset batches. */
const BATCH = 7;

/**
 * Streamed reports (issue 23 item 3): the same document as the whole report always was, filters, paging, ETag/304,
 * compare joined in SQL, a mid-stream failure aborting the connection, and a slow reader holding no pool connection.
 */
describe('streamed reports (issue 23 item 3)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let dataSource: DataSource;
  let scenarioId: string;
  let targetId: string;
  /** The agent fails cases whose number is in this set (toggled between the two runs compared). */
  let failing = new Set<number>();
  const api = (method: 'get' | 'post' | 'patch', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const waitForRun = (id: string) => waitForRunToEnd(testApp.baseUrl, API_KEY, id);

  /** Factory: 23 cases; single and multi-turn, regex rules on every third, tags on even ones, one expected text. */
  const newScenario = () => ({
    name: 'Streaming | reports',
    cases: Array.from({ length: 23 }, (_, index) => ({
      id: `case-${index}`,
      ...(index % 5 === 4 ? { turns: [`m${index}`, `again ${index}`] } : { input: `m${index}` }),
      ...(index === 2 ? { expected: 'Echo: m2' } : {}),
      ...(index % 2 === 0 ? { tags: ['even', index % 4 === 0 ? 'fourth' : 'other'] } : {}),
      rules: [{ type: 'contains', value: 'Echo' }, ...(index % 3 === 0 ? [{ type: 'regex', value: '^Echo: (m|again )\\d+$' }] : [])],
    })),
  });

  /** The whole report as the service built it before streaming: read straight from the tables, in the same shape. */
  async function oldDocument(runId: string): Promise<RunReport> {
    const [run] = await dataSource.query(`SELECT * FROM eval_run WHERE id = $1`, [runId]);
    const rows: any[] = await dataSource.query(
      `SELECT cr.*, rc.content FROM eval_case_result cr LEFT JOIN eval_run_case rc ON rc.run_id = cr.run_id AND rc.position = cr.position
        WHERE cr.run_id = $1 ORDER BY cr.position, cr.repeat_index`,
      [runId],
    );
    const rules: any[] = await dataSource.query(
      `SELECT rr.* FROM eval_rule_result rr JOIN eval_case_result cr ON cr.id = rr.case_result_id WHERE cr.run_id = $1 ORDER BY rr.case_result_id, rr.rule_index`,
      [runId],
    );
    return {
      run_id: run.id,
      status: run.status,
      header: {
        scenario_id: run.scenario_id, scenario_name: run.scenario_name, scenario_version: run.scenario_version, version: `v${run.scenario_version}`,
        target_id: run.target_id, target_name: run.target_name, triggered_by: run.triggered_by, campaign_id: run.campaign_id,
        created_at: run.created_at.toISOString(), started_at: run.started_at?.toISOString() ?? null, finished_at: run.finished_at?.toISOString() ?? null,
      },
      summary: run.summary,
      cases: rows.map((row) => ({
        case_id: row.case_id, repeat_index: row.repeat_index, status: row.status,
        input: row.content?.turns ?? row.content?.input ?? '', expected: row.content?.expected ?? null,
        output: row.output, latency_ms: row.latency_ms, score: row.score, error: row.error, transcript: row.transcript,
        rules: rules.filter((rule) => rule.case_result_id === row.id).map((rule) => ({ index: rule.rule_index, type: rule.type, pass: rule.pass, score: rule.score, weight: rule.weight, reason: rule.reason })),
      })),
    };
  }

  async function finishedRun(repeatCount = 1): Promise<string> {
    const created = await api('post', '/api/runs').send({ scenario_id: scenarioId, target_id: targetId, concurrency: 4, repeat_count: repeatCount }).expect(201);
    expect(created.body.case_count).toBe(23);
    const run = await waitForRun(created.body.id);
    expect(run.status).toBe('completed');
    return run.id;
  }

  let runA: string;
  let runB: string;

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => {
      const { message } = body as { message: string };
      const number = Number(/\d+/.exec(message)?.[0]);
      return { body: { reply: failing.has(number) ? `Nope ${number}` : `Echo: ${message}` } };
    });
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_REPORT_BATCH_SIZE: String(BATCH), EVAL_REPORT_PAGE_MAX: '10', EVAL_RUN_CASE_PAGE_SIZE: '5', EVAL_RUN_RESULT_BATCH_SIZE: '3' });
    dataSource = testApp.app.get(DataSource);
    scenarioId = (await api('post', '/api/scenarios').send(newScenario()).expect(201)).body.id;
    targetId = (await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201)).body.id;
    failing = new Set([1, 3, 6]);
    runA = await finishedRun(2);
    failing = new Set([3, 7]);
    runB = await finishedRun(1);
  });
  afterAll(async () => {
    await testApp?.close();
    await agent?.close();
  });

  it('streams the same document, byte for byte, as the whole report was, and the Markdown renderReportMarkdown writes', async () => {
    const expected = await oldDocument(runA);
    expect(expected.cases).toHaveLength(46);
    const report = await api('get', `/api/reports/${runA}`).expect(200);
    expect(report.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(report.headers['transfer-encoding']).toBe('chunked');
    expect(report.text).toBe(JSON.stringify(expected));
    expect(report.body.cases.filter((item: { status: string }) => item.status === 'failed').map((item: { case_id: string }) => item.case_id)).toEqual(['case-1', 'case-1', 'case-3', 'case-3', 'case-6', 'case-6']);
    expect(report.body.cases[4]).toMatchObject({ case_id: 'case-2', expected: 'Echo: m2', input: 'm2' });
    expect(report.body.cases[8].input).toEqual(['m4', 'again 4']);

    const markdown = await api('get', `/api/reports/${runA}/markdown`).expect(200);
    expect(markdown.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(markdown.headers['content-disposition']).toMatch(/^attachment; filename="?report-streaming-reports-v1-[0-9a-f-]+\.md"?$/);
    expect(markdown.text).toBe(renderReportMarkdown(expected));
    expect(markdown.text).toContain('- **case-1 (repeat 2)** rule 1 `contains` failed');
  });

  it('polls read the stored case count, never the snapshot', async () => {
    const run = await api('get', `/api/runs/${runA}`).expect(200);
    expect(run.body).toMatchObject({ case_count: 23, repeat_count: 2, summary: { total_cases: 46, failed_cases: 6, passed_cases: 40 } });
    const [{ columns }] = await dataSource.query(`SELECT array_agg(column_name::text) AS columns FROM information_schema.columns WHERE table_name = 'eval_run'`);
    expect(columns).toContain('case_count');
    expect(columns).not.toContain('cases');
  });

  it('filters by status, tag and rule type on request; the header and summary stay the run\'s', async () => {
    const whole = (await oldDocument(runA)).cases;
    const ids = (body: { cases: { case_id: string; repeat_index: number }[] }) => body.cases.map((item) => `${item.case_id}#${item.repeat_index}`);
    const expectIds = (cases: typeof whole) => cases.map((item) => `${item.case_id}#${item.repeat_index}`);

    const failed = await api('get', `/api/reports/${runA}`).query({ status: 'failed' }).expect(200);
    expect(ids(failed.body)).toEqual(expectIds(whole.filter((item) => item.status === 'failed')));
    expect(failed.body.summary).toEqual((await oldDocument(runA)).summary);
    expect(failed.body).not.toHaveProperty('next_cursor');

    const tagged = await api('get', `/api/reports/${runA}`).query({ tag: 'fourth' }).expect(200);
    expect(ids(tagged.body)).toEqual(expectIds(whole.filter((item) => Number(item.case_id.split('-')[1]) % 4 === 0)));
    const regex = await api('get', `/api/reports/${runA}`).query({ rule_type: 'regex' }).expect(200);
    expect(ids(regex.body)).toEqual(expectIds(whole.filter((item) => item.rules.some((rule) => rule.type === 'regex'))));
    expect(regex.body.cases[0].rules.map((rule: { type: string }) => rule.type)).toEqual(['contains', 'regex']); // cases stay whole
    const both = await api('get', `/api/reports/${runA}?status=failed,passed&tag=even&rule_type=regex`).expect(200);
    expect(ids(both.body)).toEqual(expectIds(whole.filter((item) => Number(item.case_id.split('-')[1]) % 6 === 0)));
    const none = await api('get', `/api/reports/${runA}`).query({ tag: 'nobody' }).expect(200);
    expect(none.body.cases).toEqual([]);

    const markdown = await api('get', `/api/reports/${runA}/markdown`).query({ status: 'passed' }).expect(200);
    expect(markdown.text).toContain('None: every case passed.');
    expect(markdown.text).not.toContain('| case-1 | failed');

    for (const query of [{ status: 'broken' }, { tag: '' }, { tag: 'x'.repeat(65) }, { rule_type: 'Not A Type' }, { size: 0 }, { size: 'ten' }, { cursor: '***' }, { unknown: 1 }]) {
      const refused = await api('get', `/api/reports/${runA}`).query(query).expect(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    await api('get', `/api/reports/${runA}/markdown`).query({ status: 'nope' }).expect(400);
  });

  it('pages the cases with an opaque cursor; the pages put together are the whole report', async () => {
    const whole = JSON.parse(JSON.stringify((await oldDocument(runA)).cases));
    const seen: unknown[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const page = await api('get', `/api/reports/${runA}`).query({ size: 4, ...(cursor ? { cursor } : {}) }).expect(200);
      expect(page.body.cases.length).toBeLessThanOrEqual(4);
      expect(page.body).toHaveProperty('next_cursor');
      seen.push(...page.body.cases);
      cursor = page.body.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(12); // 46 cases: 11 full pages and one of 2
    expect(seen).toEqual(whole);

    const exact = await api('get', `/api/reports/${runA}`).query({ size: 10, status: 'failed' }).expect(200);
    expect(exact.body.cases).toHaveLength(6);
    expect(exact.body.next_cursor).toBeNull();

    const over = await api('get', `/api/reports/${runA}`).query({ size: 11 }).expect(400);
    expect(over.body.detail).toContain('EVAL_REPORT_PAGE_MAX');
    const forged = await api('get', `/api/reports/${runA}`).query({ cursor: Buffer.from('c1:x:0').toString('base64url') }).expect(400);
    expect(forged.body.detail).toContain('cursor');
  });

  it('answers 304 to If-None-Match on a finished run, per representation and query, and gives no ETag while a run can change', async () => {
    const first = await api('get', `/api/reports/${runA}`).expect(200);
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const again = await api('get', `/api/reports/${runA}`).set('If-None-Match', etag).expect(304);
    expect(again.text ?? '').toBe('');
    await api('get', `/api/reports/${runA}`).set('If-None-Match', `W/${etag}`).expect(304);
    await api('get', `/api/reports/${runA}`).set('If-None-Match', '"other"').expect(200);
    const filtered = await api('get', `/api/reports/${runA}`).query({ status: 'failed' }).set('If-None-Match', etag).expect(200);
    expect(filtered.headers.etag).not.toBe(etag);
    const markdown = await api('get', `/api/reports/${runA}/markdown`).expect(200);
    expect(markdown.headers.etag).not.toBe(etag);
    await api('get', `/api/reports/${runA}/markdown`).set('If-None-Match', markdown.headers.etag).expect(304);
    const compared = await api('get', '/api/reports/compare').query({ run1: runA, run2: runB }).expect(200);
    await api('get', '/api/reports/compare').query({ run1: runA, run2: runB }).set('If-None-Match', compared.headers.etag).expect(304);

    // A late result (a cancelled run's case in flight) changes the ETag: results are part of it.
    const [{ id: copy }] = await dataSource.query(
      `INSERT INTO eval_run (scenario_id, scenario_name, scenario_version, target_id, target_name, status, triggered_by, concurrency, repeat_count, case_count, model_bindings, llm_config, finished_at, lease_owner, lease_until)
       SELECT scenario_id, scenario_name, scenario_version, target_id, target_name, 'running', triggered_by, 1, 1, case_count, '{}', '{}', NULL, 'elsewhere:1:0#0', now() + interval '1 hour' FROM eval_run WHERE id = $1 RETURNING id`,
      [runB],
    );
    const live = await api('get', `/api/reports/${copy}`).expect(200);
    expect(live.headers.etag).toBeUndefined();
    await dataSource.query(`UPDATE eval_run SET status = 'cancelled', finished_at = now(), lease_owner = NULL WHERE id = $1`, [copy]);
    const cancelled = await api('get', `/api/reports/${copy}`).expect(200);
    expect(cancelled.headers.etag).toBeDefined();
    await dataSource.query(
      `INSERT INTO eval_case_result (run_id, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, finished_at)
       VALUES ($1, 'case-0', 0, 0, 'passed', 'late', 1, 1, NULL, '[]', 0, 0, now())`,
      [copy],
    );
    const late = await api('get', `/api/reports/${copy}`).set('If-None-Match', cancelled.headers.etag).expect(200);
    expect(late.body.cases).toHaveLength(1);
  });

  it('compares in SQL: the same document compareRuns builds from the two reports, new cases of run_b last', async () => {
    const [reportA, reportB] = await Promise.all([oldDocument(runA), oldDocument(runB)]);
    const [runRecordA, runRecordB] = await Promise.all([api('get', `/api/runs/${runA}`), api('get', `/api/runs/${runB}`)]);
    const { delta, cases } = compareRuns(reportA, reportB);
    const comparison = await api('get', '/api/reports/compare').query({ run1: runA, run2: runB }).expect(200);
    expect(comparison.text).toBe(JSON.stringify({ run_a: runRecordA.body, run_b: runRecordB.body, delta, cases }));
    expect(cases.filter((item) => item.changed).map((item) => item.case_id)).toEqual(['case-1', 'case-6', 'case-7']);

    // run_b with cases run_a never had, and run_a's cases missing from run_b (a cancelled run): the full outer join.
    const [{ id: partial }] = await dataSource.query(
      `INSERT INTO eval_run (scenario_id, scenario_name, scenario_version, target_id, target_name, status, triggered_by, concurrency, repeat_count, case_count, model_bindings, llm_config, finished_at)
       SELECT scenario_id, scenario_name, scenario_version, target_id, target_name, 'cancelled', triggered_by, 1, 1, 30, '{}', '{}', now() FROM eval_run WHERE id = $1 RETURNING id`,
      [runB],
    );
    await dataSource.query(
      `INSERT INTO eval_case_result (run_id, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, finished_at)
       SELECT $1, 'case-' || n, 0, n, CASE WHEN n % 2 = 0 THEN 'passed' ELSE 'errored' END, 'x', 1, CASE WHEN n % 2 = 0 THEN 1 END, NULL, '[]', 0, 0, now()
         FROM generate_series(20, 29) AS n`,
      [partial],
    );
    const expected = compareRuns(reportA, await oldDocument(partial));
    const outer = await api('get', '/api/reports/compare').query({ run1: runA, run2: partial }).expect(200);
    expect(outer.body.cases).toEqual(expected.cases);
    expect(outer.body.cases.map((item: { case_id: string }) => item.case_id).slice(-7)).toEqual(['case-23', 'case-24', 'case-25', 'case-26', 'case-27', 'case-28', 'case-29'].slice(-7));
    const reversed = await api('get', '/api/reports/compare').query({ run1: partial, run2: runA }).expect(200);
    expect(reversed.body.cases).toEqual(compareRuns(await oldDocument(partial), reportA).cases);
  });

  describe('a big report read slowly', () => {
    let big: string;
    beforeAll(async () => {
      // 6,000 cases of ~2 KB seeded by SQL: ~13 MB of JSON, far more than the socket buffers hold.
      [{ id: big }] = await dataSource.query(
        `INSERT INTO eval_run (scenario_id, scenario_name, scenario_version, target_id, target_name, status, triggered_by, concurrency, repeat_count, case_count, model_bindings, llm_config, finished_at)
         VALUES ($1, 'big', 1, NULL, 't', 'completed', 'manual', 1, 1, 6000, '{}', '{}', now()) RETURNING id`,
        [scenarioId],
      );
      await dataSource.query(`INSERT INTO eval_run_case (run_id, position, case_id, content) SELECT $1, n, 'c' || n, jsonb_build_object('id', 'c' || n, 'input', 'm' || n, 'rules', '[]'::jsonb) FROM generate_series(0, 5999) AS n`, [big]);
      await dataSource.query(
        `INSERT INTO eval_case_result (run_id, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, finished_at)
         SELECT $1, 'c' || n, 0, n, 'passed', repeat('o', 2000), n, 1, NULL, '[]', 0, 0, now() FROM generate_series(0, 5999) AS n`,
        [big],
      );
    });

    /** GETs the report over a raw socket, pausing after the first chunk until `whilePaused` is done. */
    function readPaused(path: string, whilePaused: () => Promise<void>): Promise<{ status: number; text: string; aborted: boolean; complete: boolean }> {
      return new Promise((resolve, reject) => {
        const url = new URL(path, testApp.baseUrl);
        let answered = false;
        const req = http.get(url, { headers: { 'X-API-Key': API_KEY } }, (response) => {
          answered = true;
          const chunks: Buffer[] = [];
          let paused = false;
          let aborted = false;
          response.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            if (paused) return;
            paused = true;
            response.pause();
            whilePaused().then(() => response.resume(), reject);
          });
          response.on('aborted', () => (aborted = true));
          response.on('error', () => (aborted = true));
          response.on('close', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), aborted, complete: response.complete }));
        });
        // Once the answer has begun, a reset connection (ECONNRESET: the server closed with bytes still unsent, as it
        // does when the client is not reading) is an aborted response, reported by the response's 'close'.
        req.on('error', (error) => (answered ? undefined : reject(error)));
      });
    }

    it('holds no pool connection and no transaction while the client does not read', async () => {
      // Watched from a connection of its own: one taken from the app's pool would be the one the report gave back.
      const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
      url.pathname = `/${testApp.database}`;
      const watcher = new Client({ connectionString: url.toString() });
      await watcher.connect();
      const reportStatements = async () =>
        (
          await watcher.query<{ state: string; query: string; query_start: Date }>(
            `SELECT state, query, query_start FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%FROM eval_case_result cr%'`,
          )
        ).rows;
      let during: { state: string }[] = [];
      let stalledAfterMs = -1;
      const result = await readPaused(`/api/reports/${big}`, async () => {
        // The server fills the socket's buffers, then waits for drain: no new batch is read from then on.
        const started = Date.now();
        let latest = 0;
        for (let quiet = 0; quiet < 3 && Date.now() - started < 20_000; ) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          const newest = Math.max(0, ...(await reportStatements()).map((row) => row.query_start.getTime()));
          quiet = newest === latest ? quiet + 1 : 0;
          latest = newest;
        }
        stalledAfterMs = Date.now() - started;
        during = await reportStatements();
      }).finally(() => watcher.end());
      expect(stalledAfterMs).toBeLessThan(20_000);
      expect(during.length).toBeGreaterThan(0); // the report's statements ran on pool connections…
      expect(during.map((row) => row.state)).toEqual(during.map(() => 'idle')); // …that are back in the pool: no statement, no transaction
      expect(result).toMatchObject({ status: 200, aborted: false, complete: true });
      expect(JSON.parse(result.text).cases).toHaveLength(6000);
    });

    it('aborts the connection when the database fails mid-stream, never a body that looks complete', async () => {
      const result = await readPaused(`/api/reports/${big}`, async () => {
        await new Promise((resolve) => setTimeout(resolve, 500));
        await dataSource.query(`ALTER TABLE eval_run_case RENAME TO eval_run_case_away`);
      });
      await dataSource.query(`ALTER TABLE eval_run_case_away RENAME TO eval_run_case`);
      expect(result.status).toBe(200);
      expect(result.complete).toBe(false);
      expect(result.aborted).toBe(true);
      expect(result.text.length).toBeGreaterThan(0);
      expect(() => JSON.parse(result.text)).toThrow();
      // The server is fine afterwards.
      await api('get', `/api/reports/${runA}`).query({ size: 1 }).expect(200);
    });
  });
});
