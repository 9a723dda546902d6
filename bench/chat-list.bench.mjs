#!/usr/bin/env node
// Chat list latency at scale (issue 5, acceptance 6): with BENCH_CONTACTS external contacts (default 1,000,000)
// across BENCH_TENANTS tenants (default 10), and BENCH_WAYS contact ways per tenant (default 25,000), the paged,
// filtered contact lists (POST {T}/v1/workChat/contact/external/byLastStates; a staff member's contacts,
// GET {C}/workChat/{workChatUserId}/contact/external) and contact-way lists (GET {T}/v1/chat/contact/way,
// GET {T}/v1/workChat/contact/way, GET {C}/workChat/contactWay) at page 0 and at page
// BENCH_FAR_PAGE (default 1,000) — by offset, and by the keyset `cursor` the page before it answered (issue 23) —
// under BENCH_CONNECTIONS concurrent keep-alive connections (default 50), each
// request for a tenant picked round-robin with that tenant's own OAuth2 token. Prints p50 / p99 / max latency and
// req/s per case (target p99 <= 50 ms), then the EXPLAIN (ANALYZE, BUFFERS) plans of the SQL the app ran for each
// case (auto_explain on the app's own sessions: the real queries, not copies).
//
//   npm run build && node bench/chat-list.bench.mjs          # embedded PostgreSQL in a temp folder (plans printed)
//   DATABASE_URL=postgres://… node bench/chat-list.bench.mjs  # an existing, empty database (plans not captured)
//   BENCH_TRY_INDEXES=1 node bench/chat-list.bench.mjs     # also create the candidate indexes below, to compare
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' BENCH_CASES=floor node bench/chat-list.bench.mjs   # profile
//   cp -r dist /tmp/before && <change, npm run build> && BENCH_COMPARE_DIST=/tmp/before/dist BENCH_ROUNDS=2 node bench/chat-list.bench.mjs
//                                                            # A/B: the previous build measured beside this one, in turns
//   BENCH_CONTACTS=1000000 BENCH_TENANTS=10 BENCH_WAYS=25000 BENCH_CONNECTIONS=50 BENCH_DURATION_S=10 \
//     BENCH_WARMUP_S=2 BENCH_PAGE_SIZE=20 BENCH_FAR_PAGE=1000 BENCH_CASES=byLastStates node bench/chat-list.bench.mjs
//
// The load generator is wrk (https://github.com/wg/wrk, `apt-get install wrk`) when it is on the PATH, else this
// script (BENCH_LOADER=wrk|node chooses). wrk runs BENCH_CONNECTIONS keep-alive connections on BENCH_WRK_THREADS
// threads (default 1), a closed loop like autocannon -c 50, rotating over the tenants with a Lua script; its latency
// percentiles come from its own histogram (microsecond resolution). The node loader: BENCH_CONNECTIONS workers over a
// keep-alive agent with as many sockets, each sending its next request when the previous answer has been read;
// latency from the request to the last byte of the answer; exact percentiles (every sample kept, nearest-rank). wrk
// costs the shared CPUs far less than the node loader (one C thread against a busy JavaScript event loop). The app, PostgreSQL and this script share the machine's CPUs; the
// `load` column is the 1-minute load average after each case (anything else running on the machine shows there);
// `app cpu` and `pg cpu` are the CPU ms per answered request of the app process and of the embedded PostgreSQL (all
// its processes) during the measured window: the cost of a request, whatever else the machine is doing.
// Reference row (BENCH_REFERENCE=1, the default; 0 skips it): the same load on bench/support/bare-list-server.mjs,
// node:http + one `pg` statement per request answering the staff00 contacts page 0 on the same database — what any
// Node implementation of a list could at best do on this machine, to read the app's figures against.
// The data is bulk-inserted with generate_series straight into the app's tables after the app migrated them; the
// tenants, OAuth2 clients and corps are created through the platform-admin API and the corp API. The seeder is
// bench/data-scale/seed.mjs, shared with bench/data-scale (names mix Latin and Chinese for its searches).
import { spawn, execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createChatTenants, seedChat } from './data-scale/seed.mjs';
import { appStartFlags, running } from './support/child-process.mjs';

const TENANTS = Number(process.env.BENCH_TENANTS ?? 10);
const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 1_000_000);
const WAYS = Number(process.env.BENCH_WAYS ?? 25_000);
const STAFF = 20; // staff users per tenant; staff00 has a quarter of the tenant's contacts, the others share the rest
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 10) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 2) * 1000;
/**
 * BENCH_APP_WARMUP_S (default 20): each app (and the compared build) first serves the cases this long in all (each at
 * least BENCH_WARMUP_S), unmeasured.
 * Measured right after its start, an app spent 10-25 % more CPU per request than in later rounds of the same run
 * (100k and 1M contacts, Node 24: 0.82-0.94 ms in round 1 against 0.67-0.80 ms in rounds 2 and 3; issue 14 note,
 * session 15): the per-case warm-up alone did not reach the steady state the reference server reaches at once.
 */
const APP_WARMUP_MS = Number(process.env.BENCH_APP_WARMUP_S ?? 20) * 1000;
const SIZE = Number(process.env.BENCH_PAGE_SIZE ?? 20);
const FAR_PAGE = Number(process.env.BENCH_FAR_PAGE ?? 1000);
const ONLY = process.env.BENCH_CASES ? new RegExp(process.env.BENCH_CASES) : undefined;
const hasWrk = await new Promise((resolve) => execFile('wrk', ['--version'], (error) => resolve(!error || error.code !== 'ENOENT')));
const LOADER = process.env.BENCH_LOADER ?? (hasWrk ? 'wrk' : 'node');
const WRK_THREADS = Number(process.env.BENCH_WRK_THREADS ?? 1);
const P99_TARGET_MS = 50;
const REFERENCE = process.env.BENCH_REFERENCE !== '0';
/**
 * BENCH_COMPARE_DIST=<folder>: a second build of the app (e.g. a copy of `dist/` made before a change), started on
 * the same database and measured on the same cases right after the app, its rows named `compare: …` — an A/B of two
 * builds under the same load. BENCH_ROUNDS (default 1): the app's cases, the compared build's and the reference are
 * measured that many times in turn, each row read against the reference of its own round.
 */
const COMPARE_DIST = process.env.BENCH_COMPARE_DIST;
/** BENCH_COMPARE_NODE_ARGS: node flags of the compared build instead of BENCH_NODE_ARGS (e.g. to A/B a V8 flag on one build: BENCH_COMPARE_DIST=dist). */
const COMPARE_NODE_ARGS = process.env.BENCH_COMPARE_NODE_ARGS;
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
/**
 * BENCH_TRY_INDEXES=1: indexes (not in the migrations) created after seeding, to measure what they would change.
 * Each matches a list's ORDER BY exactly (the services sort `DESC NULLS LAST`, which a plain ascending index read
 * backwards, `DESC NULLS FIRST`, cannot serve) and ends with the `id` tie-breaker, so the page is read in index
 * order instead of sorting every matching row.
 */
const TRY_INDEXES = process.env.BENCH_TRY_INDEXES === '1';
const CANDIDATE_INDEXES = [
  'CREATE INDEX bench_contact_state_at ON chat_external_contact (tenant_id, corp_id, state, state_at DESC NULLS LAST, id)',
  'CREATE INDEX bench_contact_staff_created ON chat_external_contact (tenant_id, work_chat_user_id, created_at DESC NULLS LAST, id)',
  'CREATE INDEX bench_contact_way_corp_created ON chat_contact_way (tenant_id, corp_id, created_at, id) INCLUDE (hidden)',
];
const CORP_NAME = 'Bench Retail';
/** Share of a tenant's contacts whose last state is the big campaign's (the rest spread over 49 smaller states). */
const BIG_STATE = 'spring-fair';
const BIG_STATE_SHARE = 0.3;

const work = mkdtempSync(join(tmpdir(), 'atrium-chat-bench-'));
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
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

// 1. PostgreSQL: DATABASE_URL, or an embedded server this script starts (so it can read the server log: plans).
let database;
let serverLog = '';
let captureLog = false;
if (process.env.DATABASE_URL) {
  database = { url: process.env.DATABASE_URL, stop: async () => undefined, embedded: false };
} else {
  const { startEmbeddedPostgres } = await import('../dist/src/database/embedded-postgres.js');
  const started = await startEmbeddedPostgres({
    dataDir: join(work, 'pg'),
    port: await freePort(),
    persistent: false,
    callerHandlesSignals: true,
    log: (line) => {
      if (captureLog) serverLog += `${line}\n`;
    },
  });
  // The superuser: the bench sets ALTER SYSTEM and reads plans (the app's own role may not).
  database = { ...started, url: started.superuserUrl.replace(/\/postgres$/, '/atrium'), embedded: true };
}
const sql = new pg.Client({ connectionString: database.url });
await sql.connect();
if (database.embedded) {
  // auto_explain in every new session, off until the plan phase (log_min_duration -1: no instrumentation cost).
  await sql.query("ALTER SYSTEM SET session_preload_libraries = 'auto_explain'");
  await sql.query('SELECT pg_reload_conf()');
}
const settings = (await sql.query("SELECT name, current_setting(name) AS value FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'effective_cache_size', 'max_connections', 'jit') ORDER BY name")).rows;
log(`PostgreSQL ${(await sql.query('SHOW server_version')).rows[0].server_version} (${database.embedded ? 'embedded' : 'DATABASE_URL'}): ${settings.map((row) => `${row.name}=${row.value}`).join(' ')}; ${cpus().length} CPUs`);

// 2. The app, as `npm start` runs it (package.json's node flags), on that database.
const port = await freePort();
const dataDir = join(work, 'data');
const appEnv = {
  ...process.env,
  PORT: String(port),
  LOG_LEVEL: process.env.BENCH_APP_LOG_LEVEL ?? 'error', // 'warn' also logs every query slower than 1 s
  DATA_DIR: dataDir,
  DATABASE_URL: database.url,
  CHAT_PUBLIC_URL: `http://127.0.0.1:${port}`,
  DEPLOY_REGISTRATION_KEY: 'bench-registration-key-0123456789',
  DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
};
const startFlags = appStartFlags();
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const app = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env: appEnv, stdio: ['ignore', 'inherit', 'inherit'] });
const baseUrl = `http://127.0.0.1:${port}`;
let appExited = false;
app.once('exit', () => (appExited = true));
// The compared build: same environment and flags, its own port (BENCH_COMPARE_DIST).
const comparePort = COMPARE_DIST ? await freePort() : undefined;
const compareApp = COMPARE_DIST
  ? spawn(process.execPath, [...(COMPARE_NODE_ARGS === undefined ? nodeArgs : [...startFlags, ...COMPARE_NODE_ARGS.split(' ').filter(Boolean)]), join(COMPARE_DIST, 'src/main.js')], { env: { ...appEnv, PORT: String(comparePort), CHAT_PUBLIC_URL: `http://127.0.0.1:${port}` }, stdio: ['ignore', 'inherit', 'inherit'] })
  : undefined;

// Ctrl-C / SIGTERM: the apps and the bench's own connection stop, so the step in progress fails (a measurement at
// its next case) and the cleanup below stops the embedded PostgreSQL and removes its folder; nothing is left running.
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopping = true;
    log(`${signal}: stopping`);
    for (const child of [app, compareApp]) if (child && running(child)) child.kill('SIGTERM');
    sql.end().catch(() => undefined);
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS });
/** One HTTP request over the keep-alive agent; resolves with status, body text and latency (ms). */
function send(method, path, { token, json, form, basic, toPort = port } = {}) {
  return new Promise((resolve, reject) => {
    const body = json !== undefined ? JSON.stringify(json) : form !== undefined ? new URLSearchParams(form).toString() : undefined;
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
    if (body !== undefined) {
      headers['content-type'] = json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const started = now();
    const req = httpRequest({ host: '127.0.0.1', port: toPort, method, path, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8'), ms: now() - started }));
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
const expectOk = async (promise, what, status = 200) => {
  const response = await promise;
  if (response.status !== status) throw new Error(`${what}: HTTP ${response.status} ${response.text.slice(0, 500)}`);
  return response.text ? JSON.parse(response.text) : null;
};

/** Runs the CLI of the built app (`atrium-chat`) against the same database. */
const atriumChat = (args) =>
  new Promise((resolve, reject) =>
    execFile(process.execPath, ['dist/src/cli/chat/main.js', ...args], { env: appEnv, timeout: 120_000 }, (error, stdout, stderr) => (error ? reject(new Error(`atrium-chat ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout))),
  );

/**
 * Bulk data: staff users, contact ways and contacts of every tenant, straight into the app's tables (the seeder
 * bench/data-scale shares, bench/data-scale/seed.mjs), then the candidate indexes when asked.
 */
async function seed(tenants) {
  await seedChat(sql, tenants, { contacts: CONTACTS, ways: WAYS, staff: STAFF, bigState: BIG_STATE, bigStateShare: BIG_STATE_SHARE, log });
  const started = now();
  if (TRY_INDEXES) {
    for (const statement of CANDIDATE_INDEXES) await sql.query(statement);
    log(`BENCH_TRY_INDEXES: created ${CANDIDATE_INDEXES.length} candidate indexes (not in the migrations) in ${((now() - started) / 1000).toFixed(1)} s`);
  }
  await sql.query('VACUUM ANALYZE chat_external_contact');
  await sql.query('VACUUM ANALYZE chat_contact_way');
  await sql.query('VACUUM ANALYZE chat_work_user');
  const sizes = await sql.query(
    "SELECT relname, pg_size_pretty(pg_total_relation_size(oid)) AS total, reltuples::bigint AS rows FROM pg_class WHERE relname IN ('chat_external_contact', 'chat_contact_way') ORDER BY relname",
  );
  log(`VACUUM ANALYZE in ${((now() - started) / 1000).toFixed(1)} s; ${sizes.rows.map((row) => `${row.relname}: ${row.rows} rows, ${row.total} with indexes`).join('; ')}`);
}

/**
 * The measured cases: realistic filters of each list, at page 0 and at FAR_PAGE. `request(tenant, page)` gives
 * method, path and body; `minTotal` is checked once before measuring (the far page must hold rows).
 */
function cases() {
  const corp = encodeURIComponent(CORP_NAME);
  // Fixed once: a cursor opens only the list and filter it came from, so every request of a case sends the same bounds.
  const yearAgo = timestamp(-366);
  const tomorrow = timestamp(1);
  const list = [
    {
      name: 'floor: corp list (1 row)',
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/console/workChat/corps?page=0&size=${SIZE}` }),
      table: 'chat_work_corp',
    },
  ];
  for (const page of [0, FAR_PAGE, FAR_PAGE - 1]) {
    list.push({
      name: `byLastStates state=${BIG_STATE} p${page}`,
      request: (tenant) => ({ method: 'POST', path: `/api/${tenant.id}/v1/workChat/contact/external/byLastStates?page=${page}&size=${SIZE}`, json: { corpName: CORP_NAME, states: [BIG_STATE] } }),
      table: 'chat_external_contact',
    });
    list.push({
      name: `byLastStates 3 states+time p${page}`,
      request: (tenant) => ({
        method: 'POST',
        path: `/api/${tenant.id}/v1/workChat/contact/external/byLastStates?page=${page}&size=${SIZE}&sort=lastStateAt,desc`,
        json: { corpName: CORP_NAME, states: [BIG_STATE, 'st-1', 'st-2'], startTime: yearAgo, endTime: tomorrow },
      }),
      table: 'chat_external_contact',
    });
    list.push({
      name: `console staff00 contacts p${page}`,
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/console/workChat/staff00/contact/external?page=${page}&size=${SIZE}` }),
      table: 'chat_external_contact',
    });
    list.push({
      name: `console staff00 contacts aiEnabled p${page}`,
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/console/workChat/staff00/contact/external?aiEnabled=true&corpId=${tenant.corpId}&page=${page}&size=${SIZE}` }),
      table: 'chat_external_contact',
    });
    list.push({
      name: `chat/contact/way name~campaign p${page}`,
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/v1/chat/contact/way?corpName=${corp}&name=campaign&page=${page}&size=${SIZE}` }),
      table: 'chat_contact_way',
    });
    list.push({
      name: `workChat/contact/way created range p${page}`,
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/v1/workChat/contact/way?corpName=${corp}&startCreateTime=${encodeURIComponent(yearAgo)}&endCreateTime=${encodeURIComponent(tomorrow)}&page=${page}&size=${SIZE}` }),
      table: 'chat_contact_way',
    });
    list.push({
      name: `console contactWay corpName p${page}`,
      request: (tenant) => ({ method: 'GET', path: `/api/${tenant.id}/console/workChat/contactWay?corpName=${corp}&page=${page}&size=${SIZE}` }),
      table: 'chat_contact_way',
    });
  }
  // Page FAR_PAGE again, opened with the keyset `cursor` the page before it answered (issue 14 note: deep pages are
  // measured with issue 23's cursor); the FAR_PAGE - 1 entries only serve to fetch those cursors.
  const beforeFar = list.filter((entry) => entry.name.endsWith(` p${FAR_PAGE - 1}`));
  const measured = list.filter((entry) => !entry.name.endsWith(` p${FAR_PAGE - 1}`));
  for (const before of beforeFar) {
    const cursors = new Map();
    measured.push({
      name: before.name.replace(` p${FAR_PAGE - 1}`, ` p${FAR_PAGE} cursor`),
      table: before.table,
      /**
       * Fetches each tenant's cursor to page FAR_PAGE from `target` (a cursor names the statement that made it: a
       * compared build whose SQL differs refuses the other build's); false when the list answers no `nextCursor`.
       */
      prepare: async (tenants, target) => {
        for (const tenant of tenants) {
          const { method, path, json } = before.request(tenant);
          const page = await expectOk(send(method, path, { token: tenant.token, json, toPort: target.port }), `${before.name}: ${method} ${path}`);
          if (!page.nextCursor) return false;
          cursors.set(`${target.port} ${tenant.id}`, page.nextCursor);
        }
        return true;
      },
      request: (tenant, target) => {
        const request = before.request(tenant);
        return { ...request, path: request.path.replace(/([?&])page=\d+/, `$1cursor=${encodeURIComponent(cursors.get(`${target?.port} ${tenant.id}`) ?? '')}`) };
      },
    });
  }
  return measured.filter((entry) => !ONLY || ONLY.test(entry.name));
}

/** `yyyy-MM-dd HH:mm:ss` (UTC) `days` from now. */
function timestamp(days) {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * CPU time (user + system, ms) used so far by process `pid` (Linux /proc; 0 when unreadable); with `reapedChildren`
 * also that of its children that ended and were waited for.
 */
function cpuMsOf(pid, reapedChildren = false) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]) + (reapedChildren ? Number(fields[13]) + Number(fields[14]) : 0);
    return (ticks * 1000) / 100; // utime + stime (+ cutime + cstime) in clock ticks (USER_HZ = 100)
  } catch {
    return 0;
  }
}

/** CPU ms of the embedded PostgreSQL: the postmaster and its children (backends, walwriter, …); 0 with DATABASE_URL. */
function postgresCpuMs() {
  if (!database.embedded) return 0;
  let postmaster;
  try {
    postmaster = Number(readFileSync(join(work, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return 0;
  }
  // The postmaster's own CPU plus that of its children it has reaped (cutime + cstime: backends that ended, such as
  // pool connections closed while idle), plus the live children's.
  let total = cpuMsOf(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(stat[1]) === postmaster) total += ((Number(stat[11]) + Number(stat[12])) * 1000) / 100;
    } catch {
      // the process ended meanwhile
    }
  }
  return total;
}

/** Nearest-rank percentile of sorted samples. */
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];

/**
 * Closed-loop load on `target` (the app unless told): CONNECTIONS workers for `durationMs`; returns sorted latencies,
 * errors and the elapsed time.
 */
async function load(entry, tenants, durationMs, target) {
  const samples = [];
  let errors = 0;
  let firstError;
  let next = 0;
  const started = now();
  const deadline = started + durationMs;
  const worker = async () => {
    while (now() < deadline) {
      const tenant = tenants[next++ % tenants.length];
      const { method, path, json } = entry.request(tenant, target);
      try {
        const response = await send(method, path, { token: tenant.token, json, toPort: target.port });
        if (response.status === 200) samples.push(response.ms);
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
  const elapsedMs = now() - started;
  return { sorted: samples.sort((a, b) => a - b), errors, firstError, elapsedMs };
}

/** A Lua string literal. */
const luaString = (text) => `"${text.replace(/[\\"]/g, (character) => `\\${character}`).replace(/\n/g, '\\n')}"`;

/**
 * Closed-loop load with wrk for `durationMs`: the requests of every tenant in rotation (each wrk connection starts at
 * a different tenant). Returns the same figures as {@link load}; `sorted` is replaced by wrk's percentiles.
 */
async function loadWithWrk(entry, tenants, durationMs, target) {
  const requests = tenants.map((tenant) => {
    const { method, path, json } = entry.request(tenant, target);
    const headers = { Authorization: `Bearer ${tenant.token}`, ...(json !== undefined ? { 'Content-Type': 'application/json' } : {}) };
    const headerTable = Object.entries(headers).map(([name, value]) => `[${luaString(name)}] = ${luaString(value)}`).join(', ');
    return `wrk.format(${luaString(method)}, ${luaString(path)}, { ${headerTable} }, ${json !== undefined ? luaString(JSON.stringify(json)) : 'nil'})`;
  });
  const script = join(work, 'load.lua');
  writeFileSync(
    script,
    `local requests = {}
local counter = 0
init = function(args)
${requests.map((text) => `  table.insert(requests, ${text})`).join('\n')}
end
request = function()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
done = function(summary, latency, _)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("WRK %d %d %d %.3f %.3f %.3f %.3f\\n", summary.requests, errors, summary.duration,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
`,
  );
  const seconds = Math.max(1, Math.round(durationMs / 1000));
  const output = await new Promise((resolve, reject) =>
    execFile('wrk', ['-t', String(WRK_THREADS), '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, target.url], { timeout: Math.ceil(durationMs) + 60_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`wrk: ${stderr || error.message}`)) : resolve(stdout),
    ),
  );
  const line = output.split('\n').find((text) => text.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no summary: ${output}`);
  const [requestsDone, errors, durationUs, p50, p90, p99, max] = line.slice(4).split(' ').map(Number);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  return { requests: requestsDone - non2xx, errors: errors + non2xx, firstError: errors + non2xx ? output.trim() : undefined, elapsedMs: durationUs / 1000, p50, p90, p99, max };
}

/** One case's load on `target` for `durationMs` with the chosen loader: requests, errors, elapsed time, latency percentiles. */
async function loadCase(entry, tenants, durationMs, target) {
  if (stopping) throw new Error('stopped by a signal');
  if (LOADER === 'wrk') return loadWithWrk(entry, tenants, durationMs, target);
  const { sorted, errors, firstError, elapsedMs } = await load(entry, tenants, durationMs, target);
  return { requests: sorted.length, errors, firstError, elapsedMs, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.at(-1) };
}

/** Whether every step answers true, run one after another (stops at the first false). */
async function everyTrue(steps) {
  for (const step of steps) if (!(await step())) return false;
  return true;
}

/**
 * Measures one case on `target` ({ url, port, pid }): a warm-up, then DURATION_MS with the app's (or the reference
 * server's) and PostgreSQL's CPU read before and after; pushes the figures to `results`.
 */
async function measureCase(entry, tenants, target, round = 0) {
  const measure = (durationMs) => loadCase(entry, tenants, durationMs, target);
  await measure(WARMUP_MS);
  const cpuBefore = { server: cpuMsOf(target.pid), postgres: postgresCpuMs() };
  const measured = await measure(DURATION_MS);
  const cpuAfter = { server: cpuMsOf(target.pid), postgres: postgresCpuMs() };
  results.push({
    name: `${target.label ?? ''}${entry.name}${ROUNDS > 1 ? ` #${round + 1}` : ''}`,
    round,
    rows: entry.rows,
    requests: measured.requests,
    errors: measured.errors,
    rps: (measured.requests / measured.elapsedMs) * 1000,
    p50: measured.p50,
    p90: measured.p90,
    p99: measured.p99,
    max: measured.max,
    load: loadavg()[0],
    appCpuPerRequest: (cpuAfter.server - cpuBefore.server) / Math.max(1, measured.requests),
    postgresCpuPerRequest: (cpuAfter.postgres - cpuBefore.postgres) / Math.max(1, measured.requests),
    reference: entry.reference === true,
  });
  const last = results.at(-1);
  log(`${entry.name}: ${last.requests} req, ${last.rps.toFixed(0)} req/s, p50 ${last.p50?.toFixed(1)} ms, p99 ${last.p99?.toFixed(1)} ms${measured.errors ? `, ${measured.errors} errors (first: ${measured.firstError})` : ''}`);
}

/**
 * BENCH_REFERENCE (default 1): the same load on bench/support/bare-list-server.mjs — node:http and one `pg`
 * statement per request answering the staff00 contacts page 0 on the same database — the machine's ceiling for any
 * Node implementation of a list. Not a verdict on the app: printed as a reference row.
 */
async function measureReference(tenants, round = 0) {
  const referencePort = await freePort();
  const server = spawn(process.execPath, ['bench/support/bare-list-server.mjs'], { env: { ...process.env, DATABASE_URL: database.url, PORT: String(referencePort) }, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      server.stdout.once('data', resolve);
      server.once('exit', (code) => reject(new Error(`the reference server exited (${code})`)));
    });
    const entry = { name: 'reference: bare node:http+pg staff00 p0', reference: true, request: (tenant) => ({ method: 'GET', path: `/${tenant.id}?size=${SIZE}` }) };
    const probe = await expectOk(send('GET', `/${tenants[0].id}?size=${SIZE}`, { toPort: referencePort }), entry.name);
    entry.rows = `${probe.content.length}/${probe.totalElements}`;
    await measureCase(entry, tenants, { url: `http://127.0.0.1:${referencePort}`, port: referencePort, pid: server.pid }, round);
  } finally {
    server.kill('SIGTERM');
  }
}

/** The plan phase: auto_explain logs every statement of the app's sessions with ANALYZE and BUFFERS. */
async function capturePlans(entries, tenants) {
  const settingsOn = { 'auto_explain.log_min_duration': '0', 'auto_explain.log_analyze': 'on', 'auto_explain.log_buffers': 'on', 'auto_explain.log_timing': 'on', 'auto_explain.log_verbose': 'off' };
  await sql.query("LOAD 'auto_explain'");
  for (const [name, value] of Object.entries(settingsOn)) await sql.query(`ALTER SYSTEM SET ${name} = '${value}'`);
  await sql.query('SELECT pg_reload_conf()');
  await sleep(500);
  const plans = [];
  try {
    for (const entry of entries) {
      const tenant = tenants[0];
      const { method, path, json } = entry.request(tenant, { port });
      await send(method, path, { token: tenant.token, json }); // warm: the plan below is of a second, cached run
      serverLog = '';
      captureLog = true;
      const response = await send(method, path, { token: tenant.token, json });
      await sleep(300);
      captureLog = false;
      const relevant = serverLog
        .split(/(?=^.*LOG:\s+duration: [\d.]+ ms\s+plan:)/m)
        .filter((block) => /plan:/.test(block) && block.includes(entry.table))
        .map((block) => block.replace(/^.*LOG:\s+/m, '').trimEnd());
      plans.push({ name: entry.name, ms: response.ms, status: response.status, blocks: relevant });
    }
  } finally {
    for (const name of Object.keys(settingsOn)) await sql.query(`ALTER SYSTEM RESET ${name}`);
    await sql.query('SELECT pg_reload_conf()');
  }
  return plans;
}

const results = [];
let plans = [];
let failed = false;
try {
  for (let attempt = 0; ; attempt++) {
    if (await fetch(`${baseUrl}/api/health`).then((response) => response.ok).catch(() => false)) break;
    if (appExited || attempt > 240) throw new Error('the app did not start (did you run npm run build?)');
    await sleep(500);
  }
  log(`app up (node ${nodeArgs.join(' ')}): pid ${app.pid}, ${baseUrl}`);

  // Tenants, clients and corps through the API: a platform-admin client from the CLI, then /api/platform/*.
  const tenants = await createChatTenants({ http: { send, expectOk }, atriumChat, count: TENANTS, corpName: CORP_NAME });
  log(`${TENANTS} tenants with a client and a corp`);
  await seed(tenants);

  const entries = cases();
  const appTarget = { url: baseUrl, port, pid: app.pid };
  const targets = [appTarget];
  if (compareApp) {
    for (let attempt = 0; ; attempt++) {
      if (await fetch(`http://127.0.0.1:${comparePort}/api/health`).then((response) => response.ok).catch(() => false)) break;
      if (!running(compareApp) || attempt > 240) throw new Error(`the compared build (${COMPARE_DIST}) did not start`);
      await sleep(500);
    }
    log(`compared build up (${COMPARE_DIST}): pid ${compareApp.pid}, port ${comparePort}`);
    targets.push({ url: `http://127.0.0.1:${comparePort}`, port: comparePort, pid: compareApp.pid, label: 'compare: ' });
  }
  const ready = [];
  for (const entry of entries) {
    if (entry.prepare && !(await everyTrue(targets.map((target) => () => entry.prepare(tenants, target))))) {
      log(`${entry.name}: skipped: page ${FAR_PAGE - 1} answers no nextCursor (past the list's end, or no keyset paging)`);
      continue;
    }
    const { method, path, json } = entry.request(tenants[0], appTarget);
    const answer = send(method, path, { token: tenants[0].token, json });
    const probe = entry.prepare ? await expectOk(answer, `${entry.name}: ${method} ${path}`).catch((error) => (log(`${entry.name}: skipped: ${error.message.slice(0, 300)}`), undefined)) : await expectOk(answer, `${entry.name}: ${method} ${path}`);
    if (!probe) continue;
    entry.rows = `${probe.content.length}/${probe.totalElements}`;
    if (probe.content.length === 0) log(`WARNING ${entry.name}: the page is empty (totalElements ${probe.totalElements}); the filter matches too few rows`);
    ready.push(entry);
  }
  if (APP_WARMUP_MS > 0 && ready.length > 0) {
    // Every case, so that each list's code and its PostgreSQL pages are warm (1M contacts: the first round's page 0
    // also cost PostgreSQL 0.52 ms against 0.42-0.44 later when only the first case had warmed up).
    const perCase = Math.max(WARMUP_MS, Math.ceil(APP_WARMUP_MS / ready.length));
    for (const target of targets) for (const entry of ready) await loadCase(entry, tenants, perCase, target);
    log(`apps warmed up: ${(perCase / 1000).toFixed(1)} s of each case (BENCH_APP_WARMUP_S)`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const entry of ready) for (const target of targets) await measureCase(entry, tenants, target, round);
    if (REFERENCE) await measureReference(tenants, round);
  }
  if (database.embedded) plans = await capturePlans(entries, tenants);
  else log('plans: not captured (DATABASE_URL given; run without it to start an embedded PostgreSQL whose log this script reads)');
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}`);
} finally {
  agent.destroy();
  compareApp?.kill('SIGTERM');
  if (!appExited) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) {
      app.kill('SIGKILL');
      await exited;
    }
  }
  await sql.end().catch(() => undefined);
  await database.stop().catch((error) => console.error(`stopping PostgreSQL: ${error}`));
  rmSync(work, { recursive: true, force: true });
}

// 3. Figures, verdicts and plans.
if (results.length > 0) {
  console.log(`\nNode ${process.version} (app, compared build and reference); ${CONTACTS} contacts and ${WAYS * TENANTS} contact ways across ${TENANTS} tenants; loader ${LOADER}${LOADER === 'wrk' ? ` (${WRK_THREADS} thread)` : ''}, ${CONNECTIONS} connections, ${DURATION_MS / 1000} s per case, page size ${SIZE}${TRY_INDEXES ? '; WITH the candidate indexes (BENCH_TRY_INDEXES=1)' : ''}`);
  console.log(`${'case'.padEnd(44)}${'rows/total'.padStart(14)}${'req'.padStart(8)}${'req/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p90 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}${'err'.padStart(5)}${'load'.padStart(6)}${'app cpu'.padStart(9)}${'pg cpu'.padStart(8)}  verdict`);
  for (const result of results) {
    const pass = result.errors === 0 && result.p99 !== undefined && result.p99 <= P99_TARGET_MS;
    if (!result.reference) failed ||= !pass;
    const fmt = (value) => (value === undefined ? '-' : value.toFixed(1)).padStart(9);
    console.log(`${result.name.padEnd(44)}${result.rows.padStart(14)}${String(result.requests).padStart(8)}${result.rps.toFixed(0).padStart(8)}${fmt(result.p50)}${fmt(result.p90)}${fmt(result.p99)}${fmt(result.max)}${String(result.errors).padStart(5)}${result.load.toFixed(1).padStart(6)}${result.appCpuPerRequest.toFixed(2).padStart(9)}${result.postgresCpuPerRequest.toFixed(2).padStart(8)}  ${result.reference ? 'reference' : pass ? 'PASS' : 'FAIL'} (p99 <= ${P99_TARGET_MS} ms)`);
  }
}
// Issue 14 acceptance 1, as ratios within this run: page-0 req/s ≥ 60 % of the reference's, app CPU per request
// ≤ 2× the reference's, and page FAR_PAGE (offset and cursor) ≤ 2× page 0 in app + PostgreSQL CPU per request.
const reference = results.find((result) => result.reference);
const referenceOf = (result) => results.find((entry) => entry.reference && entry.round === result.round) ?? reference;
const ratios = [];
/**
 * A row's verdict. Page 0: req/s at least 60 % of the reference's and app CPU at most 2x. A far page (`farRatio` given):
 * a cursor page must cost at most 2x page 0; an offset page is reported with no target (issue 14 note: deep pages are
 * measured with issue 23's cursor).
 */
const verdictOf = (name, rpsRatio, cpuRatio, farRatio) => {
  if (farRatio === undefined) return rpsRatio >= 0.6 && cpuRatio <= 2 ? 'PASS (>= 60 %, <= 2x)' : 'FAIL (>= 60 %, <= 2x)';
  if (!name.replace(/ #\d+$/, '').endsWith(' cursor')) return 'reported (offset: no target)';
  return farRatio <= 2 ? 'PASS (<= 2x page 0)' : 'FAIL (<= 2x page 0)';
};
if (reference && results.length > 1) {
  console.log(`\nRatios (issue 14 acceptance 1) against the reference row and page 0 of the same list:`);
  console.log(`${'case'.padEnd(44)}${'req/s÷ref'.padStart(11)}${'cpu÷ref'.padStart(9)}${'(app+pg)÷p0'.padStart(13)}  verdict`);
  for (const result of results.filter((entry) => !entry.reference)) {
    const pageZero = results.find((entry) => entry.name === result.name.replace(new RegExp(` p${FAR_PAGE}( cursor)?( #\\d+)?$`), ' p0$2'));
    const isFar = pageZero && pageZero !== result;
    const rpsRatio = result.rps / referenceOf(result).rps;
    const cpuRatio = result.appCpuPerRequest / referenceOf(result).appCpuPerRequest;
    const farRatio = isFar ? (result.appCpuPerRequest + result.postgresCpuPerRequest) / (pageZero.appCpuPerRequest + pageZero.postgresCpuPerRequest) : undefined;
    const verdict = verdictOf(result.name, rpsRatio, cpuRatio, farRatio);
    console.log(`${result.name.padEnd(44)}${`${(rpsRatio * 100).toFixed(0)} %`.padStart(11)}${`${cpuRatio.toFixed(2)}x`.padStart(9)}${(farRatio === undefined ? '-' : `${farRatio.toFixed(2)}x`).padStart(13)}  ${verdict}`);
    ratios.push({ name: result.name.replace(/ #\d+$/, ''), rpsRatio, cpuRatio, farRatio });
  }
  // With BENCH_ROUNDS > 1: each case's median over the rounds. The shared machine drifts about 2x within an hour and
  // the reference itself moved 10-20 % between consecutive rounds (issue 14 notes), so a single round is one sample.
  if (ROUNDS > 1) {
    const median = (values) => {
      const sorted = values.filter((value) => value !== undefined).sort((a, b) => a - b);
      return sorted.length === 0 ? undefined : sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    };
    console.log(`\nMedians over ${ROUNDS} rounds:`);
    for (const name of [...new Set(ratios.map((entry) => entry.name))]) {
      const rounds = ratios.filter((entry) => entry.name === name);
      const [rps, cpu, far] = [median(rounds.map((entry) => entry.rpsRatio)), median(rounds.map((entry) => entry.cpuRatio)), median(rounds.map((entry) => entry.farRatio))];
      const verdict = verdictOf(name, rps, cpu, far);
      const passes = rounds.filter((entry) => verdictOf(name, entry.rpsRatio, entry.cpuRatio, entry.farRatio).startsWith('PASS')).length;
      const tally = verdict.startsWith('reported') ? '' : `; ${passes} of ${rounds.length} rounds pass`;
      console.log(`${name.padEnd(44)}${`${(rps * 100).toFixed(0)} %`.padStart(11)}${`${cpu.toFixed(2)}x`.padStart(9)}${(far === undefined ? '-' : `${far.toFixed(2)}x`).padStart(13)}  ${verdict}${tally}`);
    }
  }
}
for (const plan of plans) {
  console.log(`\n=== ${plan.name} (one request alone: ${plan.ms.toFixed(1)} ms, HTTP ${plan.status}) ===`);
  if (plan.blocks.length === 0) console.log('(no statement on the table was logged)');
  for (const block of plan.blocks) console.log(`${block}\n`);
}
process.exitCode = failed ? 1 : 0;
