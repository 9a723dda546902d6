import { Client } from 'pg';
import request from 'supertest';
import { DASHBOARD_COUNTERS_SQL, DASHBOARD_PASS_RATE_TREND_SQL, DASHBOARD_SLOWEST_TARGETS_SQL } from '../../src/evaluation/stats/dashboard.queries';
import { waitForRun } from '../support/evaluation-runs';
import { LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-dashboard-0123456789';
/** Windows in days: within a day, within a month, across one or several month starts (the monthly rollup), a year. */
const WINDOWS = [1, 7, 30, 45, 100, 365];

/**
 * The dashboard as the full-scan implementation computed it before issue 23 (one aggregate over every run per
 * figure, on every request): the reference the rollups must equal. The only change is the `target_id` tie-breaker,
 * which the old query left to chance.
 */
async function scanDashboard(sql: Client, days: number): Promise<unknown> {
  const since = new Date(Date.now() - days * 86_400_000);
  const [[counts], byStatus, trend, slowest] = await Promise.all([
    sql.query(`SELECT (SELECT count(*) FROM eval_scenario)::int AS scenarios, (SELECT count(*) FROM eval_target)::int AS targets`).then((result) => result.rows),
    sql.query(`SELECT status, count(*)::int AS count FROM eval_run GROUP BY status`).then((result) => result.rows),
    sql
      .query(
        `SELECT to_char(date_trunc('day', finished_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, count(*)::int AS runs,
                round(avg((summary->>'pass_rate')::numeric), 4)::float AS mean_pass_rate
           FROM eval_run WHERE status = 'completed' AND finished_at >= $1 GROUP BY 1 ORDER BY 1`,
        [since],
      )
      .then((result) => result.rows),
    sql
      .query(
        `SELECT target_id, max(target_name) AS target_name, count(*)::int AS runs, round(avg((summary->>'latency_p95_ms')::numeric))::int AS mean_latency_p95_ms
           FROM eval_run WHERE status = 'completed' AND finished_at >= $1 AND target_id IS NOT NULL AND summary->>'latency_p95_ms' IS NOT NULL
          GROUP BY target_id ORDER BY mean_latency_p95_ms DESC, target_id LIMIT 5`,
        [since],
      )
      .then((result) => result.rows),
  ]);
  return {
    scenarios: counts.scenarios,
    targets: counts.targets,
    runs_by_status: Object.fromEntries(byStatus.map((row: { status: string; count: number }) => [row.status, row.count])),
    pass_rate_trend: trend,
    slowest_targets: slowest,
    window_days: days,
  };
}

/** Columns of eval_run that are NOT NULL without a default (the runs folder may add some): filled by {@link seedRuns}. */
const FILLERS: Record<string, string> = {
  scenario_name: `'Seeded scenario'`,
  scenario_version: '1',
  triggered_by: `'api'`,
  concurrency: '1',
  repeat_count: '1',
  cases: `'[]'::jsonb`,
  model_bindings: `'{}'::jsonb`,
  llm_config: `'{}'::jsonb`,
};

describe('dashboard rollups (issue 23 item 4: GET /api/stats/dashboard never scans every run)', () => {
  let testApp: TestApp;
  let agent: LocalPeer;
  let sql: Client;
  const writers: Client[] = [];
  const api = (method: 'get' | 'post' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const targetIds = Array.from({ length: 8 }, (_, index) => `00000000-0000-4000-8000-00000000000${index}`);

  /** Inserts runs from `select` (a SELECT over generate_series giving the listed columns) in one statement. */
  async function seedRuns(columns: string[], select: string): Promise<void> {
    const required = (
      await sql.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'eval_run' AND is_nullable = 'NO' AND column_default IS NULL AND column_name <> ALL($1)`,
        [columns],
      )
    ).rows.map((row: { column_name: string }) => row.column_name);
    const unknown = required.filter((name) => !(name in FILLERS));
    if (unknown.length) throw new Error(`eval_run has NOT NULL columns this seed does not know: ${unknown.join(', ')}`);
    await sql.query(`INSERT INTO eval_run (${[...columns, ...required].join(', ')}) SELECT s.*, ${required.map((name) => FILLERS[name]).join(', ') || 'NULL'} FROM (${select}) s`.replace(', NULL FROM', ' FROM'));
  }

  /**
   * Asserts the served dashboard equals the full scan for every window. The scan runs before and after the request;
   * when the two differ (a run sat on the moving window edge meanwhile) it tries again.
   */
  async function expectDashboardMatchesScan(): Promise<void> {
    for (const days of WINDOWS) {
      for (let attempt = 0; ; attempt++) {
        const before = await scanDashboard(sql, days);
        const served = await api('get', '/api/stats/dashboard').query({ days }).expect(200);
        const after = await scanDashboard(sql, days);
        if (JSON.stringify(before) !== JSON.stringify(after) && attempt < 10) continue;
        expect(served.body).toEqual(after);
        break;
      }
    }
  }

  /** Rollup rows that count something (the incremental path may leave zero rows behind; a rebuild does not). */
  async function rollups(): Promise<unknown[]> {
    const read = async (text: string) => (await sql.query(text)).rows;
    return [
      await read(`SELECT name, value::text FROM eval_stats_counter WHERE value <> 0 ORDER BY name`),
      await read(`SELECT hour::text, runs::text, trim_scale(pass_rate_sum)::text AS pass_rate_sum, pass_rate_n::text FROM eval_stats_pass_rate_hourly WHERE runs <> 0 OR pass_rate_n <> 0 ORDER BY hour`),
      await read(`SELECT day::text, target_id, target_name, runs::text, trim_scale(latency_sum)::text AS latency_sum FROM eval_stats_target_latency_daily WHERE runs <> 0 ORDER BY day, target_id, target_name`),
      await read(`SELECT month::text, target_id, target_name, runs::text, trim_scale(latency_sum)::text AS latency_sum FROM eval_stats_target_latency_monthly WHERE runs <> 0 ORDER BY month, target_id, target_name`),
      await read(`SELECT hour::text, target_id, target_name, runs::text, trim_scale(latency_sum)::text AS latency_sum FROM eval_stats_target_latency_hourly WHERE runs <> 0 ORDER BY hour, target_id, target_name`),
    ];
  }

  beforeAll(async () => {
    agent = await startLocalPeer(({ body }) => ({ body: { reply: `Echo: ${(body as { message: string }).message}` } }));
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${testApp.database}`;
    sql = new Client({ connectionString: url.toString() });
    await sql.connect();
    for (let index = 0; index < 8; index++) {
      const writer = new Client({ connectionString: url.toString() });
      await writer.connect();
      writers.push(writer);
    }

    // 3,000 runs over 400 days (minute grid, 30 s off it): every status; summaries without a pass rate or a latency,
    // or none at all; fractional rates and latencies; 8 targets, two of which changed name over time; a few without a
    // target. Plus runs on either side of the 7-day window's edge, 20 minutes and 5 hours away (partial hour, day).
    await sql.query(`INSERT INTO eval_scenario (name, metadata, cases, model_bindings, llm_config, version) SELECT 'S' || i, '{}', '[]', '{}', '{}', 1 FROM generate_series(1, 3) i`);
    // Running runs hold a lease for a day, so that the run-lease sweeper leaves them alone during the suite.
    const columns = ['status', 'target_id', 'target_name', 'summary', 'finished_at', 'lease_owner', 'lease_until'];
    await seedRuns(
      columns,
      `SELECT CASE WHEN i % 10 < 6 THEN 'completed' WHEN i % 10 = 6 THEN 'failed' WHEN i % 10 = 7 THEN 'cancelled' WHEN i % 10 = 8 THEN 'running' ELSE 'queued' END,
              CASE WHEN i % 37 = 0 THEN NULL ELSE ('00000000-0000-4000-8000-00000000000' || (i % 8))::uuid END,
              'target ' || (i % 8) || CASE WHEN i % 8 < 2 AND i % 3 = 0 THEN ' (renamed)' ELSE '' END,
              CASE WHEN i % 10 >= 8 OR i % 53 = 0 THEN NULL
                   WHEN i % 41 = 0 THEN jsonb_build_object('total_cases', 3)
                   WHEN i % 43 = 0 THEN jsonb_build_object('pass_rate', 0.5)
                   ELSE jsonb_build_object('pass_rate', round(((i * 7919) % 10007) / 10007.0, 6), 'latency_p95_ms', 100 + (i * 104729) % 5000 + (i % 2) * 0.5) END,
              CASE WHEN i % 10 >= 8 THEN NULL ELSE now() - ((i * 7919) % (400 * 1440)) * interval '1 minute' - interval '30 seconds' END,
              CASE WHEN i % 10 = 8 THEN 'seeded' END, CASE WHEN i % 10 = 8 THEN now() + interval '1 day' END
         FROM generate_series(1, 3000) i`,
    );
    await seedRuns(
      columns,
      `SELECT 'completed', '00000000-0000-4000-8000-0000000000e0'::uuid, 'edge', jsonb_build_object('pass_rate', 0.25 * k, 'latency_p95_ms', 90000 + k), now() - interval '7 days' + offs, NULL, NULL::timestamptz
         FROM unnest(ARRAY[interval '20 minutes', interval '-20 minutes', interval '5 hours', interval '-5 hours', interval '25 hours'], ARRAY[1, 2, 3, 4, 0]) AS e(offs, k)`,
    );
  }, 120_000);

  afterAll(async () => {
    for (const writer of writers) await writer.end().catch(() => undefined);
    await sql?.end().catch(() => undefined);
    await testApp?.close();
    await agent?.close();
  });

  it('serves the same figures as the full scan on the seeded runs, and the rollups equal a rebuild', async () => {
    const scan = (await scanDashboard(sql, 7)) as { slowest_targets: { target_name: string; runs: number }[]; pass_rate_trend: unknown[] };
    expect(scan.slowest_targets[0]).toMatchObject({ target_name: 'edge', runs: 3 }); // the 3 edge runs inside the window
    expect(scan.pass_rate_trend.length).toBeGreaterThan(4);
    await expectDashboardMatchesScan();
    const incremental = await rollups();
    await sql.query('SELECT eval_stats_rebuild()');
    expect(await rollups()).toEqual(incremental);
  });

  it('follows runs that finish through the API, and scenarios and targets created and deleted', async () => {
    const scenario = await api('post', '/api/scenarios').send({ name: 'Dashboard echo', cases: [{ id: 'a', input: 'hi', rules: [{ type: 'contains', value: 'hi' }] }, { id: 'b', input: 'x', rules: [{ type: 'contains', value: 'never' }] }] }).expect(201);
    const target = await api('post', '/api/targets').send({ name: 'echo', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const runs = await Promise.all([1, 2, 3].map(() => api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201)));
    const finished = await Promise.all(runs.map((run) => waitForRun(testApp.baseUrl, API_KEY, run.body.id)));
    expect(finished.map((run) => run.status)).toEqual(['completed', 'completed', 'completed']);
    const served = await api('get', '/api/stats/dashboard').query({ days: 1 }).expect(200);
    const today = served.body.pass_rate_trend.find((row: { day: string }) => row.day === new Date().toISOString().slice(0, 10));
    expect(today.runs).toBeGreaterThanOrEqual(3);
    await expectDashboardMatchesScan();

    const spare = await api('post', '/api/targets').send({ name: 'spare', kind: 'http', http: { url: `${agent.url}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    expect((await api('get', '/api/stats/dashboard').expect(200)).body.targets).toBe(2);
    await api('delete', `/api/targets/${spare.body.id}`).expect(204);
    expect((await api('get', '/api/stats/dashboard').expect(200)).body).toMatchObject({ scenarios: 4, targets: 1 });
    await expectDashboardMatchesScan();
  });

  it('loses no update when many runs finish at once, while others are deleted and edited', async () => {
    const live = (await sql.query(`SELECT id FROM eval_run WHERE status IN ('running', 'queued') ORDER BY id`)).rows.map((row: { id: string }) => row.id);
    expect(live.length).toBeGreaterThan(400);
    const finishing = live.slice(0, 400);
    const doomed = (await sql.query(`SELECT id FROM eval_run WHERE status = 'completed' ORDER BY id LIMIT 60`)).rows.map((row: { id: string }) => row.id);
    // 8 connections finish 50 runs each, one transaction per run that holds its locks a moment (so they overlap),
    // into the same few hours and targets (the hottest rollup rows); two of them also delete runs as they go.
    await Promise.all(
      writers.map(async (writer, index) => {
        for (const [position, id] of finishing.filter((_, at) => at % writers.length === index).entries()) {
          await writer.query('BEGIN');
          await writer.query(
            `UPDATE eval_run SET status = $2, finished_at = now() - ($3::int % 3) * interval '1 hour', target_id = $4,
                    summary = jsonb_build_object('pass_rate', $3::int % 7 / 7.0, 'latency_p95_ms', 200 + $3::int)
              WHERE id = $1`,
            [id, position % 9 === 0 ? 'failed' : 'completed', position, targetIds[position % 3]],
          );
          await writer.query('SELECT pg_sleep(0.002)');
          await writer.query('COMMIT');
          if (index < 2 && position % 5 === 0) {
            const victim = doomed.pop();
            if (victim) await writer.query('DELETE FROM eval_run WHERE id = $1', [victim]);
          }
        }
      }),
    );
    // One statement, one snapshot: the status counters equal a count of the runs, whatever else runs meanwhile.
    const [{ counted, rolled }] = (
      await sql.query(
        `SELECT (SELECT jsonb_object_agg(status, n) FROM (SELECT status, count(*) AS n FROM eval_run GROUP BY status) c) AS counted,
                (SELECT jsonb_object_agg(substr(name, 5), value) FROM eval_stats_counter WHERE name LIKE 'run:%' AND value <> 0) AS rolled`,
      )
    ).rows;
    expect(rolled).toEqual(counted);
    await expectDashboardMatchesScan();

    // Edits the dashboard reads: a rename, a new summary, a finish moved across an hour and a day, back to running.
    await sql.query(`UPDATE eval_run SET target_name = 'target 4 (new name)' WHERE target_id = $1 AND status = 'completed' AND finished_at > now() - interval '10 days'`, [targetIds[4]]);
    await sql.query(`UPDATE eval_run SET summary = summary || '{"pass_rate": 1}' WHERE status = 'completed' AND finished_at > now() - interval '3 days'`);
    await sql.query(`UPDATE eval_run SET finished_at = finished_at - interval '26 hours' WHERE id IN (SELECT id FROM eval_run WHERE status = 'completed' ORDER BY id LIMIT 50)`);
    await sql.query(`UPDATE eval_run SET status = 'running', finished_at = NULL, lease_owner = 'seeded', lease_until = now() + interval '1 day' WHERE id IN (SELECT id FROM eval_run WHERE status = 'completed' ORDER BY id DESC LIMIT 20)`);
    // A bulk delete (one statement, one fold) and a write the dashboard ignores (a lease heartbeat).
    await sql.query(`DELETE FROM eval_run WHERE id IN (SELECT id FROM eval_run WHERE status = 'cancelled' ORDER BY id LIMIT 100)`);
    const before = await rollups();
    await sql.query(`UPDATE eval_run SET lease_until = now() + interval '1 minute' WHERE status = 'running'`);
    expect(await rollups()).toEqual(before);
    await expectDashboardMatchesScan();

    const incremental = await rollups();
    await sql.query('SELECT eval_stats_rebuild()');
    expect(await rollups()).toEqual(incremental);
  }, 120_000);

  it('never fails a run write over an odd summary, and leaves a non-numeric figure out', async () => {
    const [{ id }] = (await sql.query(`SELECT id FROM eval_run WHERE status = 'completed' ORDER BY finished_at DESC LIMIT 1`)).rows;
    const [{ summary }] = (await sql.query('SELECT summary FROM eval_run WHERE id = $1', [id])).rows;
    await sql.query(`UPDATE eval_run SET summary = '{"pass_rate": "high", "latency_p95_ms": [1]}' WHERE id = $1`, [id]);
    const served = await api('get', '/api/stats/dashboard').query({ days: 1 }).expect(200);
    expect(served.body.pass_rate_trend.length).toBeGreaterThan(0);
    await sql.query('UPDATE eval_run SET summary = $2 WHERE id = $1', [id, summary]);
    await expectDashboardMatchesScan();
  });

  it('follows a TRUNCATE of the runs', async () => {
    await sql.query('TRUNCATE eval_run CASCADE');
    const served = await api('get', '/api/stats/dashboard').query({ days: 30 }).expect(200);
    expect(served.body).toMatchObject({ runs_by_status: {}, pass_rate_trend: [], slowest_targets: [] });
    await expectDashboardMatchesScan();
  });

  it('serves each figure from an index or a rollup, never a scan of eval_run (plan check)', async () => {
    await seedRuns(['status', 'target_id', 'target_name', 'summary', 'finished_at'], `SELECT 'completed', '${targetIds[1]}'::uuid, 't', '{"pass_rate": 1, "latency_p95_ms": 5}'::jsonb, now() - i * interval '1 hour' FROM generate_series(1, 500) i`);
    await sql.query('ANALYZE eval_run');
    await sql.query('BEGIN');
    try {
      await sql.query('SET LOCAL enable_seqscan = off');
      await sql.query('SET LOCAL enable_sort = off');
      const since = new Date(Date.now() - 7 * 86_400_000);
      const plan = async (text: string, params: unknown[]) => (await sql.query(`EXPLAIN ${text}`, params)).rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
      for (const [text, params] of [
        [DASHBOARD_PASS_RATE_TREND_SQL, [since]],
        [DASHBOARD_SLOWEST_TARGETS_SQL, [since, 5]],
      ] as const) {
        const shown = await plan(text, [...params]);
        expect(shown).not.toMatch(/Seq Scan on eval_run/);
        expect(shown).toMatch(/Index (Only )?Scan using ix_eval_run_completed_finished_utc on eval_run|Bitmap Index Scan on ix_eval_run_completed_finished_utc/);
      }
      // The slowest targets read whole months from the monthly rollup (migration 1795600751000), the days before the
      // window's first whole month from the daily one, the hours before its first whole day from the hourly one, each
      // an index range, and the runs of its first partial hour: a year's window read every day x target before (1M
      // runs over 200 targets: 73,000 rows), and every run of its first partial day.
      for (const days of [7, 45, 365]) {
        const shown = await plan(DASHBOARD_SLOWEST_TARGETS_SQL, [new Date(Date.now() - days * 86_400_000), 5]);
        expect(shown).toMatch(/Index (Only )?Scan using eval_stats_target_latency_monthly_pkey on eval_stats_target_latency_monthly|Bitmap Index Scan on eval_stats_target_latency_monthly_pkey/);
        expect(shown).toMatch(/Index Cond: \(\(day >= [^\n]*\) AND \(day < [^\n]*\)\)/);
        expect(shown).toMatch(/Index Cond: \(\(hour >= [^\n]*\) AND \(hour < [^\n]*\)\)/);
        // The runs are read up to the window's first whole hour only (the bound is folded to a constant).
        expect(shown).toMatch(/Index Cond: \(\(\(finished_at AT TIME ZONE 'UTC'::text\) >= [^\n]*\) AND \(\(finished_at AT TIME ZONE 'UTC'::text\) < '\d{4}-\d\d-\d\d \d\d:00:00'::timestamp without time zone\)\)/);
        expect(shown).not.toMatch(/Seq Scan on eval_stats_target_latency_(daily|monthly|hourly)/);
      }
      expect(await plan(DASHBOARD_COUNTERS_SQL, [])).toMatch(/on eval_stats_counter/);
    } finally {
      await sql.query('ROLLBACK');
    }
  });

  it('refuses a bad window with problem details, and callers without a credential', async () => {
    for (const days of ['0', '366', '-1', 'abc', '1.5']) {
      const refused = await api('get', '/api/stats/dashboard').query({ days }).expect(400);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    await request(testApp.baseUrl).get('/api/stats/dashboard').expect(401);
    await request(testApp.baseUrl).get('/api/stats/dashboard').set('X-API-Key', 'not-the-key-0123456789abcdef').expect(401);
  });
});
