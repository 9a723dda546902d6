#!/usr/bin/env node
// Report cost at scale (issue 23 item 3 and acceptance 2): runs of 1,000 / 10,000 / 50,000 cases seeded by SQL
// (generate_series: each case with a snapshot row, a result with a one-turn transcript and two rule results), then
// for each size the median time to the last byte of GET /api/reports/{id}, /markdown and /api/reports/compare (two
// runs of the size), beside two references measured in the same run on the same rows:
//   - the physical floor: `COPY (SELECT …) TO STDOUT` of the report's rows (and of the comparison's full outer
//     join), through psql to /dev/null, timed by psql's \timing (the statement, not psql's start);
//   - a bare `node:http` + `pg` + `pg-query-stream` server streaming the same SELECT's rows as a JSON array.
// Targets (50k): report and compare ≤ 3× the COPY floor, or ≤ 1.5× the bare stream (both printed); the app's peak
// RSS above its idle RSS while two 50k reports are read at once < 50 MB.
//
//   npm run build && node bench/data-scale/reports.mjs [--report-cases 1000,10000,50000]
//   DATABASE_URL=postgres://…/db node bench/data-scale/reports.mjs     # that server (a fresh database beside it)
//   BENCH_REPS=3 (requests per measure after one warm-up; the median is printed)
// Also `import { benchReports } from './reports.mjs'` (bench/data-scale/run.mjs runs this file when it exists).
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { appStartFlags, running } from '../support/child-process.mjs';

const ROOT = join(import.meta.dirname, '..', '..');
const API_KEY = 'bench-eval-api-key-0123456789abcdef';
const TIME_TARGET_COPY = 3;
const TIME_TARGET_BARE = 1.5;
const RSS_TARGET_MB = 50;

const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const procMb = (pid, field) => {
  try {
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** GET to the last byte: { status, bytes, ms }. */
function get(port, path, headers = {}) {
  return new Promise((resolve, reject) => {
    const started = now();
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { 'x-api-key': API_KEY, ...headers } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk) => (bytes += chunk.length));
      response.on('end', () => resolve({ status: response.statusCode, bytes, ms: now() - started }));
      response.on('error', reject);
      // A server that dies mid-body (the app stopped, a crash): a failure, never a wait without end.
      response.on('close', () => {
        if (!response.complete) reject(new Error(`${path.slice(0, 80)}: the response was cut off after ${bytes} bytes`));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** The report's rows as one statement (what the app reads in keyset batches): cases, snapshot, rules as JSON. */
const reportRowsSql = (runId) => `
  SELECT cr.case_id, cr.repeat_index, cr.position, cr.status, cr.output, cr.latency_ms, cr.score, cr.error, cr.transcript,
         rc.content->'turns' AS turns, rc.content->'input' AS input, rc.content->'expected' AS expected,
         (SELECT json_agg(json_build_object('index', rr.rule_index, 'type', rr.type, 'pass', rr.pass, 'score', rr.score, 'weight', rr.weight, 'reason', rr.reason) ORDER BY rr.rule_index)
            FROM eval_rule_result rr WHERE rr.case_result_id = cr.id) AS rules
    FROM eval_case_result cr LEFT JOIN eval_run_case rc ON rc.run_id = cr.run_id AND rc.position = cr.position
   WHERE cr.run_id = '${runId}' ORDER BY cr.position, cr.repeat_index`;

/** The comparison's rows as one statement: both runs folded per case, full outer join on case id, in report order. */
const compareRowsSql = (runA, runB) => `
  WITH a AS (SELECT position, case_id, array_agg(status ORDER BY repeat_index) AS statuses, array_agg(score ORDER BY repeat_index) AS scores FROM eval_case_result WHERE run_id = '${runA}' GROUP BY position, case_id),
       b AS (SELECT position, case_id, array_agg(status ORDER BY repeat_index) AS statuses, array_agg(score ORDER BY repeat_index) AS scores FROM eval_case_result WHERE run_id = '${runB}' GROUP BY position, case_id)
  SELECT COALESCE(a.case_id, b.case_id) AS case_id, a.statuses AS statuses_a, a.scores AS scores_a, b.statuses AS statuses_b, b.scores AS scores_b
    FROM a FULL OUTER JOIN b ON a.case_id = b.case_id
   ORDER BY a.position IS NULL, COALESCE(a.position, b.position)`;

/** The bare reference: node:http + pg + pg-query-stream, GET /?sql=<base64url> streams the rows as a JSON array. */
const BARE_SERVER = `
import { createServer } from 'node:http';
import pg from 'pg';
import QueryStream from 'pg-query-stream';
const pool = new pg.Pool({ connectionString: process.env.BARE_DATABASE_URL, max: 4 });
const server = createServer(async (request, response) => {
  const sql = Buffer.from(new URL(request.url, 'http://x').searchParams.get('sql'), 'base64url').toString('utf8');
  const client = await pool.connect();
  const stream = client.query(new QueryStream(sql, [], { batchSize: 500 }));
  response.writeHead(200, { 'content-type': 'application/json' });
  let first = true;
  response.write('[');
  stream.on('data', (row) => {
    if (!response.write((first ? '' : ',') + JSON.stringify(row))) stream.pause();
    first = false;
  });
  response.on('drain', () => stream.resume());
  stream.on('end', () => { client.release(); response.end(']'); });
  stream.on('error', (error) => { client.release(); response.destroy(error); });
});
server.listen(Number(process.env.BARE_PORT), '127.0.0.1', () => process.send?.('ready'));
`;

/** Seeds a scenario and two finished runs (A, B) of `cases` cases each; B differs from A on every 7th case. */
async function seedRuns(sql, cases) {
  const { rows: [{ id: scenarioId }] } = await sql.query(
    `INSERT INTO eval_scenario (name, metadata, cases, model_bindings, llm_config, version)
     SELECT $1, '{}', jsonb_agg(jsonb_build_object('id', 'case-' || n, 'input', 'Question number ' || n || '?', 'expected', 'Answer ' || n, 'rules', '[]'::jsonb) ORDER BY n), '{}', '{}', 1
       FROM generate_series(0, $2::int - 1) AS n RETURNING id`,
    [`bench reports ${cases}`, cases],
  );
  const runs = [];
  for (const variant of [0, 1]) {
    const { rows: [{ id: runId }] } = await sql.query(
      `INSERT INTO eval_run (scenario_id, scenario_name, scenario_version, target_id, target_name, status, triggered_by, concurrency, repeat_count, case_count, model_bindings, llm_config, summary, started_at, finished_at)
       VALUES ($1, $2, 1, NULL, 'bench target', 'completed', 'manual', 20, 1, $3, '{}', '{}', $4, now() - interval '1 hour', now()) RETURNING id`,
      [scenarioId, `bench reports ${cases}`, cases, JSON.stringify({ total_cases: cases, passed_cases: cases, failed_cases: 0, errored_cases: 0, passed_rules: 2 * cases, total_rules: 2 * cases, pass_rate: 1, latency_p50_ms: 50, latency_p95_ms: 90, duration_ms: 1000 })],
    );
    await sql.query(`INSERT INTO eval_run_case (run_id, position, case_id, content) SELECT $1, position, item.value->>'id', item.value FROM eval_scenario, jsonb_array_elements(cases) WITH ORDINALITY AS item(value, ordinality), LATERAL (SELECT (item.ordinality - 1)::int AS position) p WHERE eval_scenario.id = $2`, [runId, scenarioId]);
    await sql.query(
      `INSERT INTO eval_case_result (run_id, case_id, repeat_index, position, status, output, latency_ms, score, error, transcript, rules_passed, rules_total, finished_at)
       SELECT $1, 'case-' || n, 0, n, CASE WHEN (n + $2) % 7 = 0 THEN 'failed' ELSE 'passed' END, 'The answer to question ' || n || ' is ' || md5(n::text) || '.', 40 + n % 60,
              CASE WHEN (n + $2) % 7 = 0 THEN 0.5 ELSE 1 END, NULL,
              jsonb_build_array(jsonb_build_object('message', 'Question number ' || n || '?', 'reply', 'The answer to question ' || n || ' is ' || md5(n::text) || '.', 'latencyMs', 40 + n % 60)),
              CASE WHEN (n + $2) % 7 = 0 THEN 1 ELSE 2 END, 2, now()
         FROM generate_series(0, $3::int - 1) AS n`,
      [runId, variant, cases],
    );
    await sql.query(
      `INSERT INTO eval_rule_result (case_result_id, rule_index, type, pass, score, weight, reason)
       SELECT cr.id, r.i, CASE r.i WHEN 0 THEN 'contains' ELSE 'llm-rubric' END, NOT (cr.status = 'failed' AND r.i = 1), CASE WHEN cr.status = 'failed' AND r.i = 1 THEN 0 ELSE 1 END, 1,
              CASE r.i WHEN 0 THEN 'found "answer"' ELSE 'The reply answers the question and stays polite.' END
         FROM eval_case_result cr, (VALUES (0), (1)) AS r(i) WHERE cr.run_id = $1`,
      [runId],
    );
    runs.push(runId);
  }
  for (const table of ['eval_run', 'eval_run_case', 'eval_case_result', 'eval_rule_result']) await sql.query(`VACUUM ANALYZE ${table}`);
  return runs;
}

/** ms of `COPY (<select>) TO STDOUT` as psql's \timing measures it (rows written to /dev/null; psql's start not counted). */
function copyMs(url, select) {
  return new Promise((resolve, reject) => {
    execFile('psql', [url, '-q', '-X', '-o', '/dev/null', '-c', '\\timing on', '-c', `COPY (${select}) TO STDOUT`], (error, stdout) => {
      if (error) return reject(error);
      const match = /Time: ([\d.]+) ms/.exec(stdout);
      return match ? resolve(Number(match[1])) : reject(new Error(`psql printed no timing: ${stdout.slice(0, 200)}`));
    });
  });
}

/**
 * The bench: seeds, measures, prints. Resolves with the rows it printed.
 * @param options.sizes cases per run (default 1,000 / 10,000 / 50,000)
 * @param options.reps requests per measure after a warm-up (median printed)
 * @param options.databaseUrl a server to create the bench database on (default: an embedded one)
 */
export async function benchReports({ sizes = [1000, 10000, 50000], reps = 3, databaseUrl = process.env.DATABASE_URL, log = console.log } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'atrium-reports-bench-'));
  chmodSync(work, 0o755);
  let embedded;
  let adminUrl = databaseUrl;
  if (!adminUrl) {
    const { startEmbeddedPostgres } = await import(join(ROOT, 'dist/src/database/embedded-postgres.js'));
    embedded = await startEmbeddedPostgres({ dataDir: join(work, 'pg'), port: await freePort(), persistent: false, callerHandlesSignals: true });
    adminUrl = embedded.superuserUrl;
  }
  const database = `atrium_reports_bench_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  const benchUrl = url.toString();

  const port = await freePort();
  const startFlags = appStartFlags();
  const app = spawn(process.execPath, [...startFlags, 'dist/src/main.js'], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'error', DATA_DIR: join(work, 'data'), DATABASE_URL: benchUrl, STORAGE_DRIVER: 'local', ATRIUM_WORKERS: '1', EVAL_API_KEYS: API_KEY, DEPLOY_REGISTRATION_KEY: 'bench-registration-key-0123456789', DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const barePort = await freePort();
  // Evaluated as a module with the repository as its base, so pg and pg-query-stream resolve from its node_modules.
  // It runs with the app's V8 flags (package.json's start script), so both stream on the same heap settings.
  const bare = spawn(process.execPath, [...startFlags, '--input-type=module', '-e', BARE_SERVER], { cwd: ROOT, env: { ...process.env, BARE_DATABASE_URL: benchUrl, BARE_PORT: String(barePort) }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const bareReady = new Promise((resolve, reject) => {
    bare.once('message', resolve);
    bare.once('exit', (code) => reject(new Error(`the bare reference server exited (${code})`)));
  });
  // Awaited below; marked handled so that an exit before then (a failed start, a signal) ends in the cleanup, not in
  // an unhandled rejection that would leave the servers and the database behind.
  bareReady.catch(() => undefined);
  // Ctrl-C / SIGTERM (also when run.mjs, the parent, is stopped): the two servers stop first, so the step in progress
  // fails and the cleanup below drops the bench database (and stops the embedded server).
  const stopServers = () => {
    log('stopping: the app and the bare reference server first, then the bench database');
    for (const child of [app, bare]) if (running(child)) child.kill('SIGTERM');
  };
  for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, stopServers);
  const sql = new pg.Client({ connectionString: benchUrl });
  const printed = [];
  try {
    for (let attempt = 0; ; attempt++) {
      if (await fetch(`http://127.0.0.1:${port}/api/health`).then((response) => response.ok).catch(() => false)) break;
      if (!running(app) || attempt > 600) throw new Error('the app did not start (did you run npm run build?)');
      await sleep(500);
    }
    await sql.connect();
    await bareReady;
    log(`app pid ${app.pid}; bare reference pid ${bare.pid}`);
    const measure = async (fn) => {
      await fn();
      const times = [];
      for (let rep = 0; rep < reps; rep++) times.push(await fn());
      return median(times);
    };
    const bareSql = (select) => `/?sql=${Buffer.from(select).toString('base64url')}`;
    const appGet = async (path) => {
      const result = await get(port, path);
      if (result.status !== 200) throw new Error(`${path}: HTTP ${result.status}`);
      return result;
    };
    for (const cases of sizes) {
      const seeded = now();
      const [runA, runB] = await seedRuns(sql, cases);
      log(`${cases} cases: seeded two runs in ${((now() - seeded) / 1000).toFixed(1)} s`);
      const reportBytes = (await appGet(`/api/reports/${runA}`)).bytes;
      const row = {
        cases,
        reportMb: reportBytes / 1048576,
        reportMs: await measure(async () => (await appGet(`/api/reports/${runA}`)).ms),
        markdownMs: await measure(async () => (await appGet(`/api/reports/${runA}/markdown`)).ms),
        compareMs: await measure(async () => (await appGet(`/api/reports/compare?run1=${runA}&run2=${runB}`)).ms),
        copyReportMs: await measure(() => copyMs(benchUrl, reportRowsSql(runA))),
        copyCompareMs: await measure(() => copyMs(benchUrl, compareRowsSql(runA, runB))),
        bareReportMs: await measure(async () => (await get(barePort, bareSql(reportRowsSql(runA)))).ms),
        bareCompareMs: await measure(async () => (await get(barePort, bareSql(compareRowsSql(runA, runB)))).ms),
      };
      // Two reports read at once: the app's peak RSS (VmHWM reset first) above its RSS just before.
      await sleep(1000);
      const idleMb = procMb(app.pid, 'VmRSS');
      let reset = true;
      try {
        writeFileSync(`/proc/${app.pid}/clear_refs`, '5');
      } catch {
        reset = false;
      }
      let sampled = idleMb;
      const sampler = setInterval(() => (sampled = Math.max(sampled, procMb(app.pid, 'VmRSS'))), 50);
      const pair = now();
      await Promise.all([appGet(`/api/reports/${runA}`), appGet(`/api/reports/${runB}`)]);
      clearInterval(sampler);
      row.twoAtOnceMs = now() - pair;
      row.idleMb = idleMb;
      row.rssGrowthMb = Math.max(reset ? procMb(app.pid, 'VmHWM') : 0, sampled) - idleMb;
      printed.push(row);
    }
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM']) process.off(signal, stopServers);
    await sql.end().catch(() => undefined);
    for (const child of [app, bare]) if (running(child)) child.kill('SIGTERM');
    await Promise.all([app, bare].map((child) => (running(child) ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await embedded?.stop?.();
    rmSync(work, { recursive: true, force: true });
  }

  const line = (name, pick) => log(`${name.padEnd(52)}${printed.map((row) => String(pick(row)).padStart(12)).join('')}`);
  line('cases per run', (row) => row.cases);
  line('report size, MiB', (row) => row.reportMb.toFixed(1));
  line('GET /api/reports/{id}, ms (median)', (row) => row.reportMs.toFixed(0));
  line('GET /api/reports/{id}/markdown, ms', (row) => row.markdownMs.toFixed(0));
  line('GET /api/reports/compare (two runs), ms', (row) => row.compareMs.toFixed(0));
  line('floor: COPY (report rows) TO STDOUT, ms', (row) => row.copyReportMs.toFixed(0));
  line('floor: COPY (compare full outer join) TO STDOUT, ms', (row) => row.copyCompareMs.toFixed(0));
  line('bare node + pg-query-stream, report rows, ms', (row) => row.bareReportMs.toFixed(0));
  line('bare node + pg-query-stream, compare rows, ms', (row) => row.bareCompareMs.toFixed(0));
  line(`report ÷ COPY (target ≤ ${TIME_TARGET_COPY})`, (row) => (row.reportMs / row.copyReportMs).toFixed(2));
  line(`report ÷ bare (target ≤ ${TIME_TARGET_BARE})`, (row) => (row.reportMs / row.bareReportMs).toFixed(2));
  line('markdown ÷ COPY of the report rows', (row) => (row.markdownMs / row.copyReportMs).toFixed(2));
  line(`compare ÷ COPY (target ≤ ${TIME_TARGET_COPY})`, (row) => (row.compareMs / row.copyCompareMs).toFixed(2));
  line(`compare ÷ bare (target ≤ ${TIME_TARGET_BARE})`, (row) => (row.compareMs / row.bareCompareMs).toFixed(2));
  line('two reports at once: wall, ms', (row) => row.twoAtOnceMs.toFixed(0));
  line('app RSS before them (idle), MB', (row) => row.idleMb.toFixed(0));
  line(`app peak RSS − idle, two at once (target < ${RSS_TARGET_MB}), MB`, (row) => row.rssGrowthMb.toFixed(0));
  const largest = printed.at(-1);
  if (largest) {
    const timeOk = (app, copy, bareMs) => app / copy <= TIME_TARGET_COPY || app / bareMs <= TIME_TARGET_BARE;
    const verdicts = {
      report: timeOk(largest.reportMs, largest.copyReportMs, largest.bareReportMs),
      compare: timeOk(largest.compareMs, largest.copyCompareMs, largest.bareCompareMs),
      rss: largest.rssGrowthMb < RSS_TARGET_MB,
    };
    log(`${largest.cases} cases: report ${verdicts.report ? 'PASS' : 'FAIL'}, compare ${verdicts.compare ? 'PASS' : 'FAIL'} (≤ ${TIME_TARGET_COPY}× COPY or ≤ ${TIME_TARGET_BARE}× bare), RSS growth ${verdicts.rss ? 'PASS' : 'FAIL'}`);
    return { rows: printed, pass: Object.values(verdicts).every(Boolean) };
  }
  return { rows: printed, pass: false };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf('--report-cases');
  const sizes = flag > 0 ? process.argv[flag + 1].split(',').map(Number) : undefined;
  if (process.argv.includes('--sizes')) console.log('notice: --sizes (table rows) does not apply here; report sizes are --report-cases (default 1000,10000,50000)');
  const result = await benchReports({ sizes, reps: Number(process.env.BENCH_REPS ?? 3) }).catch((error) => {
    console.error(`bench failed: ${error.stack ?? error}`);
    return { pass: false };
  });
  process.exitCode = result.pass ? 0 : 1;
}
