#!/usr/bin/env node
// Evaluation run throughput and memory (issue 3, acceptance 9): a scenario of BENCH_CASES cases (default 2,000) run
// through the real API against a local http target that answers after BENCH_DELAY_MS (50 ms), at concurrency 20.
// Prints the wall time beside the ideal (cases × delay / concurrency) and the ratio (target <= 1.3), and the app's
// peak RSS (target <= 250 MB), then does the same with BENCH_BIG_CASES cases (default 20,000) in the same app.
//
//   npm run build && node bench/eval-run.bench.mjs            # embedded PostgreSQL in a temp folder
//   DATABASE_URL=postgres://… node bench/eval-run.bench.mjs   # or an existing server
//   BENCH_CASES=2000 BENCH_BIG_CASES=20000 BENCH_CONCURRENCY=20 BENCH_DELAY_MS=50 node bench/eval-run.bench.mjs
//   BENCH_BIG_CASES=0 BENCH_POLL_MS=250 node bench/eval-run.bench.mjs   # skip the big run; poll interval in ms
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/eval-run.bench.mjs   # node flags for the app
// Peak RSS is the app's Node process only (VmHWM and VmRSS sampled every 200 ms from /proc, Linux); PostgreSQL's
// memory is not counted, but the CPU time of the app, of its PostgreSQL children and of this script is printed.
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const cases = Number(process.env.BENCH_CASES ?? 2000);
const bigCases = Number(process.env.BENCH_BIG_CASES ?? 20000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 20);
const delayMs = Number(process.env.BENCH_DELAY_MS ?? 50);
const pollMs = Number(process.env.BENCH_POLL_MS ?? 250);
const RATIO_TARGET = 1.3;
const RSS_TARGET_MB = 250;
const apiKey = 'bench-eval-api-key-0123456789abcdef';
const work = mkdtempSync(join(tmpdir(), 'atrium-eval-bench-'));
chmodSync(work, 0o755); // run as root, the embedded PostgreSQL runs as `postgres` and must reach its data folder

const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const readProc = (pid, file) => {
  try { return readFileSync(`/proc/${pid}/${file}`, 'utf8'); } catch { return ''; } // '' once the process has ended
};
const procMb = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readProc(pid, 'status'))?.[1] ?? 0) / 1024;
/** [pid, /proc/<pid>/stat fields after the name] of the app's process and of its descendants (the embedded PostgreSQL). */
const appTree = () => {
  const procs = new Map(readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map((name) => [Number(name), readProc(name, 'stat').split(') ')[1]?.split(' ')]));
  const tree = new Set([app.pid]);
  let size;
  do {
    size = tree.size;
    for (const [pid, fields] of procs) if (fields && tree.has(Number(fields[1]))) tree.add(pid);
  } while (tree.size !== size);
  return [...tree].filter((pid) => procs.get(pid)).map((pid) => [pid, procs.get(pid)]);
};
/** CPU ms (user + system) so far of the app, of its descendants (PostgreSQL) and of this script. */
const cpuMs = () => {
  const used = { app: 0, db: 0, bench: (process.cpuUsage().user + process.cpuUsage().system) / 1000 };
  for (const [pid, fields] of appTree()) used[pid === app.pid ? 'app' : 'db'] += (Number(fields[11]) + Number(fields[12])) * 10; // ticks of 10 ms
  return used;
};

// 1. The target: waits delayMs, answers { reply: 'ok <message>' }; counts requests and the most seen in flight at once.
const stats = { requests: 0, inFlight: 0, maxInFlight: 0 };
const target = createServer({ keepAliveTimeout: 60_000 }, (request, response) => {
  stats.requests++;
  stats.maxInFlight = Math.max(stats.maxInFlight, ++stats.inFlight);
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () =>
    setTimeout(() => {
      stats.inFlight--;
      const { message } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ reply: `ok ${message}` }));
    }, delayMs),
  );
});
await new Promise((resolve) => target.listen(0, '127.0.0.1', resolve));
const targetUrl = `http://127.0.0.1:${target.address().port}/chat`;

// 2. The app (its own logs at warn), with an RSS sampler on its process.
const port = await freePort();
const env = { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', DATA_DIR: join(work, 'data'), EMBEDDED_POSTGRES_PORT: String(await freePort()), EVAL_API_KEYS: apiKey };
// Set, so the app does not print generated ones.
Object.assign(env, { DEPLOY_REGISTRATION_KEY: 'bench-registration-key-0123456789', DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef' });
// The app runs as `npm start` runs it: with the node flags of package.json's start script (V8 heap sizing), then
// BENCH_NODE_ARGS.
const startFlags = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start.split(' ').filter((word) => word.startsWith('--'));
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const app = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
const baseUrl = `http://127.0.0.1:${port}`;
let appExited = false;
app.once('exit', () => (appExited = true));
let sampledMaxMb = 0;
const sampler = setInterval(() => (sampledMaxMb = Math.max(sampledMaxMb, procMb(app.pid, 'VmRSS'))), 200);

const api = async (method, path, body) => {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: payload });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, bytes: payload?.length ?? 0 };
};
const expect = (result, status, what) => {
  if (result.status !== status) throw new Error(`${what}: HTTP ${result.status} ${JSON.stringify(result.body).slice(0, 500)}`);
  return result.body;
};
const scenarioBody = (count, name) => ({ name, cases: Array.from({ length: count }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `ok m${index}` }] })) });

/** Creates the scenario (one POST), runs it to the end, returns the figures. Falls back to repeat_count on 413. */
async function benchRun(label, count, targetId) {
  sampledMaxMb = procMb(app.pid, 'VmRSS');
  let repeat = 1;
  let started = now();
  let created = await api('POST', '/api/scenarios', scenarioBody(count, `bench ${label}`));
  const notes = [`scenario body ${(created.bytes / 1048576).toFixed(2)} MiB, POST ${(now() - started).toFixed(0)} ms`];
  if (created.status === 413 && count > cases) {
    repeat = Math.ceil(count / cases);
    notes.push(`FINDING: the ${count}-case body was refused (413); ran ${cases} cases × repeat_count ${repeat} instead`);
    started = now();
    created = await api('POST', '/api/scenarios', scenarioBody(cases, `bench ${label}`));
  }
  const scenario = expect(created, 201, `POST /api/scenarios (${label})`);
  notes.push(`RSS after the scenario POST ${procMb(app.pid, 'VmRSS').toFixed(0)} MB (VmHWM ${procMb(app.pid, 'VmHWM').toFixed(0)} MB)`);
  const total = scenario.case_count * repeat;
  Object.assign(stats, { requests: 0, maxInFlight: 0 });
  const cpuBefore = cpuMs();
  const start = now();
  const run = expect(await api('POST', '/api/runs', { scenario_id: scenario.id, target_id: targetId, concurrency, repeat_count: repeat }), 201, 'POST /api/runs');
  const createMs = now() - start;
  let polled;
  let polls = 0;
  let slowestPollMs = 0;
  for (; ; polls++) {
    const pollStart = now();
    polled = expect(await api('GET', `/api/runs/${run.id}`), 200, 'GET /api/runs/{id}');
    slowestPollMs = Math.max(slowestPollMs, now() - pollStart);
    if (['completed', 'failed', 'cancelled'].includes(polled.status)) break;
    if (appExited) throw new Error('the app exited during the run');
    await sleep(pollMs);
  }
  const wallMs = now() - start;
  const cpu = cpuMs();
  if (polled.status !== 'completed') throw new Error(`run ${polled.status}: ${polled.error}`);
  const { summary } = polled;
  if (summary.total_cases !== total || summary.passed_cases !== total) notes.push(`WARNING: summary ${JSON.stringify(summary)}`);
  notes.push(`POST /api/runs ${createMs.toFixed(0)} ms; ${polls + 1} polls of GET /api/runs/{id} every ${pollMs} ms, slowest ${slowestPollMs.toFixed(0)} ms`);
  return {
    label, total, wallMs, notes, requests: stats.requests, maxInFlight: stats.maxInFlight,
    idealMs: (total * delayMs) / concurrency,
    serverMs: new Date(polled.finished_at) - new Date(polled.created_at),
    durationMs: summary.duration_ms,
    latency: `${summary.latency_p50_ms} / ${summary.latency_p95_ms}`,
    cpu: `${cpu.app - cpuBefore.app}/${cpu.db - cpuBefore.db}/${(cpu.bench - cpuBefore.bench).toFixed(0)}`,
    sampledMb: sampledMaxMb,
    hwmMb: procMb(app.pid, 'VmHWM'),
  };
}

const results = [];
let failed = false;
try {
  for (let attempt = 0; ; attempt++) {
    if (await fetch(`${baseUrl}/api/health`).then((response) => response.ok).catch(() => false)) break;
    if (appExited || attempt > 120) throw new Error('the app did not start (did you run npm run build?)');
    await sleep(500);
  }
  console.log(`app up (node ${nodeArgs.join(' ')}): pid ${app.pid}, RSS ${procMb(app.pid, 'VmRSS').toFixed(0)} MB; target ${targetUrl} answers in ${delayMs} ms; concurrency ${concurrency}`);
  const http = { url: targetUrl, body_template: { message: '{{message}}' }, reply_path: '$.reply' };
  const targetId = expect(await api('POST', '/api/targets', { name: 'bench target', kind: 'http', max_concurrency: concurrency, http }), 201, 'POST /api/targets').id;
  for (const [label, count] of [['small', cases], ['big', bigCases]].filter(([, count]) => count > 0)) {
    results.push(await benchRun(label, count, targetId));
    console.log(`${label}: ${results.at(-1).notes.join('; ')}`);
  }
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}`);
} finally {
  clearInterval(sampler);
  if (!appExited) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) {
      for (const [pid] of appTree().reverse()) process.kill(pid, 'SIGKILL'); // it did not stop: it and its PostgreSQL
      await exited;
    }
  }
  target.closeAllConnections();
  await new Promise((resolve) => target.close(resolve));
  rmSync(work, { recursive: true, force: true });
}

// 3. The table and the verdicts (the ratio is judged on every run, RSS on the peak so far).
const row = (name, pick) => console.log(`${name.padEnd(44)}${results.map((result) => String(pick(result)).padStart(18)).join('')}`);
if (results.length > 0) {
  row('', (result) => result.label);
  row('case results (cases × repeats)', (result) => result.total);
  row('target requests / max in flight', (result) => `${result.requests} / ${result.maxInFlight}`);
  row('ideal = cases × delay / concurrency, ms', (result) => result.idealMs.toFixed(0));
  row('wall: POST /api/runs → completed seen, ms', (result) => result.wallMs.toFixed(0));
  row('server: created_at → finished_at, ms', (result) => result.serverMs);
  row('summary.duration_ms', (result) => result.durationMs);
  row('reply latency p50 / p95, ms', (result) => result.latency);
  row(`ratio wall / ideal (target <= ${RATIO_TARGET})`, (result) => (result.wallMs / result.idealMs).toFixed(2));
  row('ratio duration_ms / ideal', (result) => (result.durationMs / result.idealMs).toFixed(2));
  row('CPU ms during run: app/postgres/bench', (result) => result.cpu);
  row('app RSS max sampled (scenario + run), MB', (result) => result.sampledMb.toFixed(0));
  row(`app VmHWM after run (target <= ${RSS_TARGET_MB}), MB`, (result) => result.hwmMb.toFixed(0));
}
for (const result of results) {
  const ratioOk = result.wallMs / result.idealMs <= RATIO_TARGET;
  const rssOk = Math.max(result.hwmMb, result.sampledMb) <= RSS_TARGET_MB;
  failed ||= !ratioOk || !rssOk;
  console.log(`${result.label} (${result.total} cases): ratio ${ratioOk ? 'PASS' : 'FAIL'}, peak RSS ${rssOk ? 'PASS' : 'FAIL'}`);
}
process.exitCode = failed ? 1 : 0;
