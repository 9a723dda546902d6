#!/usr/bin/env node
// Hostile peers against the outbound guard (issue 19, acceptance 1): evaluation runs whose target answers
// BENCH_REPLY_MB (default 200) MB to every case, BENCH_CASES cases (default 8) at concurrency BENCH_CONCURRENCY (4),
// plus a judge model answering the same. Prints the app's idle and peak RSS (target < 400 MB), /api/health latency
// while the peers stream (p50, p99, max; target < 200 ms) beside the same probe on the idle app measured in this run
// (the ratio), and how many bytes the peers managed to send before the app cut them off (the cap is 10 MiB each).
//
//   DATABASE_URL=postgres://… node bench/outbound-hostile.bench.mjs     # an existing server (a fresh database is made)
//   BENCH_CASES=8 BENCH_CONCURRENCY=4 BENCH_REPLY_MB=200 node bench/outbound-hostile.bench.mjs
// The app runs from source (SWC on load, as the e2e tests run it) with LOG_LEVEL=warn.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { running } from './support/child-process.mjs';

const cases = Number(process.env.BENCH_CASES ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const replyBytes = Number(process.env.BENCH_REPLY_MB ?? 200) * 1024 * 1024;
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) throw new Error('Set DATABASE_URL to a PostgreSQL server (a fresh database is created and dropped).');
const apiKey = 'bench-outbound-api-key-0123456789';
const work = mkdtempSync(join(tmpdir(), 'atrium-outbound-bench-'));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const freePort = () => new Promise((resolve) => { const server = createNetServer().listen(0, '127.0.0.1', () => { const { port } = server.address(); server.close(() => resolve(port)); }); });
const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

// 1. The peer: every POST is answered with replyBytes of JSON text in 64 KiB chunks, never allocated whole.
let sentBytes = 0;
const chunk = Buffer.alloc(64 * 1024, 0x61);
const peer = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    if (request.url === '/small') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"reply":"ok"}');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"reply":"');
    let written = 0;
    const pump = () => {
      while (!response.destroyed && written < replyBytes) {
        written += chunk.length;
        sentBytes += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end('"}');
    };
    pump();
  });
});
await new Promise((resolve) => peer.listen(0, '127.0.0.1', resolve));
const peerUrl = `http://127.0.0.1:${peer.address().port}`;

// 2. A fresh database and the app.
const database = `atrium_bench_outbound_${Date.now().toString(36)}`;
const admin = new pg.Client({ connectionString: serverUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = `/${database}`;
const port = await freePort();
const app = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
  env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: databaseUrl.toString(), DATA_DIR: join(work, 'data'), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'error', DEPLOY_REGISTRATION_KEY: 'bench-registration-key-0123456789', DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef', EVAL_API_KEYS: apiKey, EVAL_MODEL_ALLOW_PRIVATE_NETWORKS: 'true', ATRIUM_SECRET_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const baseUrl = `http://127.0.0.1:${port}`;
const api = async (method, path, body) => {
  const response = await fetch(`${baseUrl}${path}`, { method, headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  return { status: response.status, body: await response.json().catch(() => null) };
};

/** /api/health latencies (ms) sampled every 50 ms while `work` runs, and the peak RSS (MB). */
async function probe(work) {
  const latencies = [];
  let peakMb = rssMb(app.pid);
  let done = false;
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      await fetch(`${baseUrl}/api/health`).then((response) => response.arrayBuffer());
      latencies.push(performance.now() - started);
      peakMb = Math.max(peakMb, rssMb(app.pid));
      await sleep(50);
    }
  })();
  await work();
  done = true;
  await prober;
  return { latencies, peakMb };
}

try {
  for (let waited = 0; ; waited += 250) {
    if (await fetch(`${baseUrl}/api/health`).then((response) => response.ok, () => false)) break;
    if (waited > 180_000 || !running(app)) throw new Error('the app did not start');
    await sleep(250);
  }
  await sleep(2000);
  const idleMb = rssMb(app.pid);
  const idle = await probe(() => sleep(3000));
  const judge = (await api('POST', '/api/model-configs', { name: 'huge judge', base_url: `${peerUrl}/v1`, model: 'huge', purpose: 'judge' })).body;
  const scenario = (await api('POST', '/api/scenarios', { name: 'hostile', model_bindings: { judge: judge.id }, cases: Array.from({ length: cases }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'llm-rubric', value: 'ok' }] })) })).body;
  const hugeTarget = (await api('POST', '/api/targets', { name: 'huge', kind: 'http', http: { url: `${peerUrl}/chat`, body_template: { message: '{{message}}' }, reply_path: '$.reply', timeout_ms: 60_000 } })).body;
  const smallTarget = (await api('POST', '/api/targets', { name: 'small', kind: 'http', http: { url: `${peerUrl}/small`, body_template: { message: '{{message}}' }, reply_path: '$.reply' } })).body;
  const figures = (label, { latencies }) => `${label}: p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms over ${latencies.length} probes`;
  console.log(`RSS: idle ${idleMb.toFixed(1)} MB`);
  console.log(figures('/api/health, idle app (reference)', idle));
  // Run 1: the target answers 200 MB to every case. Run 2: the target is small, the judge answers 200 MB to every rule.
  for (const [label, target] of [['huge target', hugeTarget], ['huge judge model', smallTarget]]) {
    sentBytes = 0;
    const started = performance.now();
    let run;
    const hostile = await probe(async () => {
      run = (await api('POST', '/api/runs', { scenario_id: scenario.id, target_id: target.id, concurrency })).body;
      for (;;) {
        run = (await api('GET', `/api/runs/${run.id}`)).body;
        if (['completed', 'failed', 'cancelled'].includes(run.status)) break;
        await sleep(100);
      }
    });
    const elapsedMs = performance.now() - started;
    const { errored_cases: errored, failed_cases: failed } = run.summary;
    console.log(`${label}: run ${run.status} in ${elapsedMs.toFixed(0)} ms (${errored} errored, ${failed} failed of ${cases}); ${cases} × ${(replyBytes / 1048576).toFixed(0)} MB offered, ${(sentBytes / 1048576).toFixed(1)} MB sent before the cuts`);
    console.log(`  RSS peak ${hostile.peakMb.toFixed(1)} MB (target < 400 MB)`);
    console.log(`  ${figures('/api/health', hostile)}; p99 ${(percentile(hostile.latencies, 99) / percentile(idle.latencies, 99)).toFixed(2)}× the idle app's (target: under 200 ms)`);
  }
} finally {
  if (running(app)) {
    app.kill('SIGTERM');
    await new Promise((resolve) => app.once('exit', resolve));
  }
  peer.close();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
  rmSync(work, { recursive: true, force: true });
}
