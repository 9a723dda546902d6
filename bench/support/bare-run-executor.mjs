#!/usr/bin/env node
// The machine's ceiling for bench/eval-run.bench.mjs: the smallest Node program that can execute an evaluation run —
// node:http (keep-alive) to the target and pooled `pg` statements, no framework, no queue, no lease, no retries, no
// judge. It executes the cases of runs the app already ran (their `eval_run_case` rows) against the same target at
// the same concurrency, reads them in position windows as the app does, checks each case's `contains` rules and
// stores a result row per case by group commit (one INSERT for whatever finished while the last one ran) into a
// table of its own. What it takes, on the same machine in the same bench run, is the best any Node implementation
// of a run could do there: the reference the app's wall time is divided by (issue 14 acceptance 3, restated).
//
//   DATABASE_URL=postgres://… TARGET_URL=http://127.0.0.1:…/chat RUN_IDS=<id>,<id> CONCURRENCY=20 \
//     node bench/support/bare-run-executor.mjs
//   → one JSON line on stdout: { "cases": n, "wallMs": ms, "cpuMs": ms } (wall: first read to last stored row)
import { Agent, request } from 'node:http';
import pg from 'pg';

const runIds = process.env.RUN_IDS.split(',');
const concurrency = Number(process.env.CONCURRENCY ?? 20);
const windowSize = Number(process.env.WINDOW ?? 500);
const target = new URL(process.env.TARGET_URL);
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 4 });
const agent = new Agent({ keepAlive: true, maxSockets: concurrency * runIds.length });

await pool.query(`CREATE TABLE IF NOT EXISTS bench_bare_case_result (
  run_id uuid NOT NULL, position integer NOT NULL, status varchar(16) NOT NULL, output text, latency_ms integer, transcript jsonb NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (run_id, position))`);
await pool.query('TRUNCATE bench_bare_case_result');

/** POSTs `{ message }` to the target and resolves to its `reply` (the bench target's shape). */
const send = (message) =>
  new Promise((resolve, reject) => {
    const body = JSON.stringify({ message });
    const outgoing = request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')).reply));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });

/** Group commit: a row is stored at once when no INSERT runs, else with the others in the next one. */
const pending = [];
let storing;
const store = () => {
  storing ??= (async () => {
    while (pending.length > 0) {
      const batch = pending.splice(0, 100);
      await pool.query(
        `INSERT INTO bench_bare_case_result (run_id, position, status, output, latency_ms, transcript)
         SELECT run_id, position, status, output, latency_ms, transcript FROM jsonb_to_recordset($1::jsonb)
           AS item(run_id uuid, position integer, status varchar, output text, latency_ms integer, transcript jsonb)`,
        [JSON.stringify(batch)],
      );
    }
    storing = undefined;
  })();
  return storing;
};

/** Executes one run's cases with `concurrency` in flight, windows read one ahead. */
async function execute(runId) {
  let after = -1;
  const readWindow = () => {
    const from = after;
    after += windowSize;
    return pool.query('SELECT position, content FROM eval_run_case WHERE run_id = $1 AND position > $2 AND position <= $3 ORDER BY position', [runId, from, after]).then((result) => result.rows);
  };
  let window = await readWindow();
  let ahead = readWindow();
  let index = 0;
  const next = async () => {
    while (index >= window.length) {
      if (window.length === 0) return undefined;
      window = await ahead;
      index = 0;
      if (window.length > 0) ahead = readWindow();
    }
    return window[index++];
  };
  const worker = async () => {
    for (let item = await next(); item; item = await next()) {
      const started = performance.now();
      const reply = await send(item.content.input);
      const latencyMs = Math.round(performance.now() - started);
      const pass = (item.content.rules ?? []).every((rule) => rule.type !== 'contains' || reply.includes(rule.value));
      pending.push({ run_id: runId, position: item.position, status: pass ? 'passed' : 'failed', output: reply, latency_ms: latencyMs, transcript: [{ message: item.content.input, reply, latencyMs }] });
      void store();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const cpuStart = process.cpuUsage();
const start = performance.now();
await Promise.all(runIds.map(execute));
while (storing) await storing;
const wallMs = performance.now() - start;
const cpu = process.cpuUsage(cpuStart);
const { rows } = await pool.query('SELECT count(*)::int AS cases FROM bench_bare_case_result');
await pool.query('DROP TABLE bench_bare_case_result');
await pool.end();
agent.destroy();
process.stdout.write(`${JSON.stringify({ cases: rows[0].cases, wallMs: Math.round(wallMs), cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`);
