#!/usr/bin/env node
// What ATRIUM_WORKERS=2 buys on this machine (issue 20 acceptance 4, restated in ISSUE-NOTES 20): the chat-list
// page-0 req/s of the app with two workers against one worker, DIVIDED BY the same speedup of the bare
// node:http + pg reference (bench/support/bare-list-server.mjs) under node:cluster (bench/support/bare-cluster-server.mjs),
// all measured in this run, interleaved (app 1, app 2, bare 1, bare 2, per round). Target: ratio >= 0.8. The
// reference absorbs what the machine gives a second process (2 cores shared with PostgreSQL and the load generator):
// a ratio of 1 means the app scales as well as the thinnest possible Node server on the same database.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/workers.bench.mjs
//   BENCH_CONTACTS=100000 BENCH_TENANTS=4 BENCH_CONNECTIONS=32 BENCH_DURATION_S=8 BENCH_WARMUP_S=2 BENCH_ROUNDS=2 \
//     BENCH_PAGE_SIZE=20 node bench/workers.bench.mjs
//
// DATABASE_URL names a server (any database on it): the bench creates its own database there and drops it after.
// The app runs from dist/ when built (`npm run build`, as `npm start`), else from the TypeScript sources compiled on
// load (test/chat/support/swc-register.cjs; same code, a slower start). Load: BENCH_CONNECTIONS keep-alive
// connections from this process (a closed loop: each sends its next request when the last answer was read), over
// the tenants in turn, each with its own OAuth2 token; GET /api/{tenant}/console/workChat/staff00/contact/external
// (page 0) on the app, GET /{tenant} on the reference (the same SQL, columns and JSON shape).
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { appStartFlags, running } from './support/child-process.mjs';

const TENANTS = Number(process.env.BENCH_TENANTS ?? 4);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SIZE = Number(process.env.BENCH_PAGE_SIZE ?? 20);
const TARGET_RATIO = 0.8;
const STAFF = 20;

if (!process.env.DATABASE_URL) {
  console.error('Set DATABASE_URL to a PostgreSQL server (postgres://user@host:port/any-database); the bench creates and drops its own database.');
  process.exit(2);
}
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// 1. A database of our own on the given server.
const serverUrl = new URL(process.env.DATABASE_URL);
const databaseName = `atrium_bench_workers_${Date.now().toString(36)}`;
const adminUrl = new URL(serverUrl);
const admin = new pg.Client({ connectionString: adminUrl.toString() });
await admin.connect();
await admin.query(`CREATE DATABASE ${databaseName}`);
const databaseUrl = new URL(serverUrl);
databaseUrl.pathname = `/${databaseName}`;
const sql = new pg.Client({ connectionString: databaseUrl.toString() });
const work = mkdtempSync(join(tmpdir(), 'atrium-workers-bench-'));

const built = existsSync('dist/src/main.js');
const appEntry = built ? [...appStartFlags(), 'dist/src/main.js'] : ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'];
const cliEntry = built ? ['dist/src/cli/chat/main.js'] : ['-r', './test/chat/support/swc-register.cjs', 'src/cli/chat/main.ts'];
const appEnv = (port, workers) => ({
  ...process.env,
  PORT: String(port),
  HOST: '127.0.0.1',
  LOG_LEVEL: 'error',
  DATA_DIR: join(work, 'data'),
  DATABASE_URL: databaseUrl.toString(),
  ATRIUM_WORKERS: String(workers),
  // One public URL for every start: tokens stay valid from one app start to the next.
  CHAT_PUBLIC_URL: 'http://atrium.bench.test',
  ATRIUM_SECRET_KEY: '62656e6368206b6579202d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2121',
  DEPLOY_REGISTRATION_KEY: 'bench-registration-key-0123456789',
  DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
});

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
/** One request over the keep-alive agent: status and body text. */
function send(port, method, path, { token, json, form, basic } = {}) {
  return new Promise((resolve, reject) => {
    const body = json !== undefined ? JSON.stringify(json) : form !== undefined ? new URLSearchParams(form).toString() : undefined;
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
    if (body !== undefined) {
      headers['content-type'] = json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
const expectOk = async (promise, what, status = 200) => {
  const response = await promise;
  if (response.status !== status) throw new Error(`${what}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  return response.text ? JSON.parse(response.text) : null;
};

/** Starts a server process and waits until `ready()` says so. @returns { port, child, stop() } */
async function startServer(name, args, env, ready) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let exited = false;
  const exit = new Promise((resolve) => child.once('exit', () => resolve((exited = true))));
  child.stdout.resume();
  for (let waited = 0; !(await ready().catch(() => false)); waited += 250) {
    if (exited || waited > 180_000) throw new Error(`${name} did not start`);
    await sleep(250);
  }
  return {
    child,
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      if (!(await Promise.race([exit.then(() => true), sleep(30_000).then(() => false)]))) {
        child.kill('SIGKILL');
        await exit;
      }
    },
  };
}
const startApp = async (workers) => {
  const port = await freePort();
  const server = await startServer(`app (ATRIUM_WORKERS=${workers})`, appEntry, appEnv(port, workers), async () => (await send(port, 'GET', '/api/health')).status === 200);
  return { ...server, port };
};
const startBare = async (workers) => {
  const port = await freePort();
  let ready = false;
  const env = { ...process.env, DATABASE_URL: databaseUrl.toString(), PORT: String(port), WORKERS: String(workers) };
  const child = spawn(process.execPath, ['bench/support/bare-cluster-server.mjs'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  child.stdout.on('data', (chunk) => (ready ||= String(chunk).includes('listening')));
  const exit = new Promise((resolve) => child.once('exit', resolve));
  for (let waited = 0; !ready; waited += 100) {
    if (!running(child) || waited > 60_000) throw new Error('the reference did not start');
    await sleep(100);
  }
  return { port, child, stop: async () => (child.kill('SIGTERM'), await exit) };
};

/** Closed-loop load for `durationMs`; @returns { rps, requests, errors, firstError } */
async function load(port, tenants, pathOf, durationMs) {
  let requests = 0;
  let errors = 0;
  let firstError;
  let next = 0;
  const started = now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (now() < deadline) {
      const tenant = tenants[next++ % tenants.length];
      try {
        const response = await send(port, 'GET', pathOf(tenant), { token: tenant.token });
        if (response.status === 200) requests++;
        else {
          errors++;
          firstError ??= `HTTP ${response.status} ${response.text.slice(0, 200)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= String(error);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  return { rps: (requests / (now() - started)) * 1000, requests, errors, firstError };
}

const appPath = (tenant) => `/api/${tenant.id}/console/workChat/staff00/contact/external?page=0&size=${SIZE}`;
const barePath = (tenant) => `/${tenant.id}?size=${SIZE}`;
const results = []; // { server, workers, round, rps, errors, load }
let failed = false;
try {
  await sql.connect();
  log(`database ${databaseName} on ${serverUrl.host}; ${cpus().length} CPUs; app from ${built ? 'dist/' : 'sources (swc on load)'}; ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per measure, ${ROUNDS} round(s)`);

  // 2. Migrate and create the tenants through the app (one worker), then seed their contacts straight into the tables.
  const setup = await startApp(1);
  const adminClient = await new Promise((resolve, reject) =>
    execFile(process.execPath, [...cliEntry, 'client', 'create', '--platform-admin', '--json'], { env: appEnv(setup.port, 1), timeout: 180_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`atrium-chat client create: ${stderr || error.message}`)) : resolve(JSON.parse(stdout)),
    ),
  );
  const tokenOf = async (port, client) => (await expectOk(send(port, 'POST', '/oauth/token', { basic: { id: client.clientId, secret: client.clientSecret }, form: { grant_type: 'client_credentials' } }), 'POST /oauth/token')).access_token;
  const adminToken = await tokenOf(setup.port, adminClient);
  const tenants = [];
  for (let index = 0; index < TENANTS; index++) {
    const id = `wbench${index}`;
    await expectOk(send(setup.port, 'POST', '/api/platform/tenants', { token: adminToken, json: { id, name: `Bench tenant ${index}` } }), 'POST /api/platform/tenants', 201);
    const client = await expectOk(send(setup.port, 'POST', '/api/platform/clients', { token: adminToken, json: { tenantId: id, scopes: ['chat:read', 'chat:write'] } }), 'POST /api/platform/clients', 201);
    const token = await tokenOf(setup.port, client);
    const corp = await expectOk(send(setup.port, 'POST', `/api/${id}/console/workChat/corps`, { token, json: { corpName: 'Bench Retail', workChatCorpId: `wwwbench${index}`, secret: `bench-secret-${index}` } }), 'POST corps');
    tenants.push({ id, token, corpId: corp.id });
  }
  await setup.stop();
  const perTenant = Math.floor(CONTACTS / TENANTS);
  for (const [index, tenant] of tenants.entries()) {
    await sql.query(
      `INSERT INTO chat_work_user (tenant_id, corp_id, work_chat_user_id, name, mobile, online, created_at, updated_at)
       SELECT $1, $2::uuid, 'staff' || lpad(i::text, 2, '0'), 'Staff ' || i, '1380000' || lpad(i::text, 4, '0'), true, now(), now() FROM generate_series(0, ${STAFF - 1}) AS i`,
      [tenant.id, tenant.corpId],
    );
    await sql.query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, open_id, work_chat_user_id, name, remark, mobile, tags, state, state_at,
                                          add_way, added_at, ai_enabled, profile, created_at, updated_at)
       SELECT $1, $2::uuid, 'wm' || ${index} || 'x' || i, 'oid' || ${index} || 'x' || i,
              CASE WHEN i % 4 = 0 THEN 'staff00' ELSE 'staff' || lpad((1 + i % ${STAFF - 1})::text, 2, '0') END, 'Customer ' || i,
              CASE WHEN i % 4 = 0 THEN 'VIP ' || i END, NULL, '[]'::jsonb, 'st-' || (i % 50), now() - (i % 525600) * interval '1 minute',
              1, now() - (i % 525600) * interval '1 minute', true, '{}'::jsonb, now() - ((i * 7919) % 525600) * interval '1 minute', now()
       FROM generate_series(0, ${perTenant - 1}) AS i`,
      [tenant.id, tenant.corpId],
    );
  }
  await sql.query('VACUUM ANALYZE chat_external_contact');
  log(`${TENANTS} tenants, ${perTenant * TENANTS} contacts`);

  // 3. Interleaved measures: the same load on each server in turn, every round.
  const targets = [
    { server: 'app', workers: 1, start: () => startApp(1), path: appPath },
    { server: 'app', workers: 2, start: () => startApp(2), path: appPath },
    { server: 'bare', workers: 1, start: () => startBare(1), path: barePath },
    { server: 'bare', workers: 2, start: () => startBare(2), path: barePath },
  ];
  for (let round = 1; round <= ROUNDS; round++) {
    for (const target of targets) {
      const server = await target.start();
      try {
        const probe = await send(server.port, 'GET', target.path(tenants[0]), { token: tenants[0].token });
        if (probe.status !== 200) throw new Error(`${target.server} ${target.workers}: HTTP ${probe.status} ${probe.text.slice(0, 300)}`);
        await load(server.port, tenants, target.path, WARMUP_MS);
        const measured = await load(server.port, tenants, target.path, DURATION_MS);
        results.push({ ...target, round, ...measured, load: loadavg()[0] });
        log(`round ${round}: ${target.server} × ${target.workers}: ${measured.rps.toFixed(0)} req/s${measured.errors ? `, ${measured.errors} errors (first: ${measured.firstError})` : ''}, load ${loadavg()[0].toFixed(1)}`);
        failed ||= measured.errors > 0;
      } finally {
        agent.destroy();
        await server.stop();
      }
    }
  }
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}`);
} finally {
  agent.destroy();
  await sql.end().catch(() => undefined);
  await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch((error) => console.error(`dropping ${databaseName}: ${error}`));
  await admin.end().catch(() => undefined);
  rmSync(work, { recursive: true, force: true });
}

// 4. Figures: per round and the medians.
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};
if (results.length === 4 * ROUNDS) {
  const rps = (server, workers) => median(results.filter((result) => result.server === server && result.workers === workers).map((result) => result.rps));
  const appSpeedup = rps('app', 2) / rps('app', 1);
  const bareSpeedup = rps('bare', 2) / rps('bare', 1);
  const ratio = appSpeedup / bareSpeedup;
  console.log(`\nchat list page 0 (staff00, size ${SIZE}), ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per measure, median of ${ROUNDS} round(s), ${cpus().length} CPUs`);
  console.log(`${'server'.padEnd(34)}${'1 worker req/s'.padStart(16)}${'2 workers req/s'.padStart(17)}${'speedup'.padStart(9)}`);
  console.log(`${'app (ATRIUM_WORKERS)'.padEnd(34)}${rps('app', 1).toFixed(0).padStart(16)}${rps('app', 2).toFixed(0).padStart(17)}${appSpeedup.toFixed(2).padStart(9)}`);
  console.log(`${'bare node:http+pg (node:cluster)'.padEnd(34)}${rps('bare', 1).toFixed(0).padStart(16)}${rps('bare', 2).toFixed(0).padStart(17)}${bareSpeedup.toFixed(2).padStart(9)}`);
  const pass = ratio >= TARGET_RATIO;
  console.log(`app speedup / reference speedup = ${ratio.toFixed(2)}  ${pass ? 'PASS' : 'FAIL'} (target >= ${TARGET_RATIO})`);
  failed ||= !pass;
}
process.exitCode = failed ? 1 : 0;
