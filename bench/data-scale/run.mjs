#!/usr/bin/env node
// Data-scale bench (issue 23 item 5, acceptance 1): does a request cost the same at a million rows as at ten
// thousand? For each size it starts a fresh database and the built app on it (one process, ATRIUM_WORKERS=1,
// STORAGE_DRIVER=local), seeds every wing's big tables with that many rows (bench/data-scale/seed.mjs: 10 chat tenants
// and 10 deploy namespaces, the measured one holding 10 %), then times, one request at a time, every list endpoint
// the served OpenAPI document declares (page 0 with EVERY sort its enum accepts; a deep page through `cursor` when the
// list has one; the offset last page, reported with no target), every search parameter with 12 terms (1, 2 and 3+
// characters, Latin and Chinese, a common and a rare one) and every /api/stats endpoint. It prints each case's median
// at each size and the largest ÷ smallest growth, flagging growth > 2× on the targeted rows. When
// bench/data-scale/reports.mjs exists it runs it with the same sizes and prints its output.
//
//   npm run build && node bench/data-scale/run.mjs [--sizes 10000,100000,1000000]
//   DATABASE_URL=postgres://…/db node bench/data-scale/run.mjs   # that server; one database per size is created
//                                                                 # beside it (needs CREATEDB) and dropped after
//   BENCH_REPS=15 (requests per case, after one warm-up; the median is printed)   BENCH_ONLY=<regex on case names>
//   BENCH_DATABASE_PREFIX=atrium_ds (the per-size databases are <prefix>_<size>)
//   BENCH_WINGS=chat,deploy,evaluation (the wings seeded; leave one out only for a quicker pass with BENCH_ONLY)
//
// See bench/data-scale/README.md for how to read the table.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createChatTenants, SEARCH_TERMS, seedChat, seedDeploy, seedEvaluation } from './seed.mjs';
import { appStartFlags } from '../support/child-process.mjs';

const argSizes = process.argv.indexOf('--sizes');
const SIZES = (argSizes > 0 ? process.argv[argSizes + 1] : '10000,100000,1000000').split(',').map(Number);
const REPS = Number(process.env.BENCH_REPS ?? 15);
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
const TENANTS = 10;
const PAGE_SIZE = 20;
const CORP_NAME = 'Bench Retail';
const REGISTRATION_KEY = 'bench-registration-key-0123456789';
const OWNER_TOKEN = 'bench-owner-token-0123456789abcdef';
const API_KEY = 'bench-eval-api-key-0123456789abcdef';
/** Query parameters that search names (issue 23 item 2: every like…/keyword parameter). */
const SEARCH_PARAMS = /^(keyword|q|name|likeCorpName|userName|intentName|title|likeName)$/;
/** The deep cursor page: page DEEP_PAGE (or the last but one), opened with the `nextCursor` of the page before it. */
const DEEP_PAGE = 1000;
const GROWTH_TARGET = 2;
/** Names the per-size databases (`<prefix>_<size>`), so two benches can share one server. */
const DATABASE_PREFIX = process.env.BENCH_DATABASE_PREFIX ?? 'atrium_ds';
/**
 * The wings whose big tables are seeded (BENCH_WINGS, comma-separated; default all three). Leaving one out is for a
 * quicker pass over another wing's cases (with BENCH_ONLY): that wing's figures then measure empty tables.
 */
const WINGS = new Set((process.env.BENCH_WINGS ?? 'chat,deploy,evaluation').split(',').map((wing) => wing.trim()));

const work = mkdtempSync(join(tmpdir(), 'atrium-data-scale-'));
chmodSync(work, 0o755); // the embedded PostgreSQL runs as `postgres` and must reach its data folder
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const freePort = () =>
  new Promise((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

// 1. PostgreSQL: an embedded server for the whole bench, or DATABASE_URL's server; one database per size.
let server;
if (process.env.DATABASE_URL) {
  server = { adminUrl: process.env.DATABASE_URL, stop: async () => undefined, embedded: false };
} else {
  const { startEmbeddedPostgres } = await import('../../dist/src/database/embedded-postgres.js');
  const started = await startEmbeddedPostgres({ dataDir: join(work, 'pg'), port: await freePort(), persistent: false, callerHandlesSignals: true });
  server = { ...started, adminUrl: started.superuserUrl, embedded: true };
}
const admin = new pg.Client({ connectionString: server.adminUrl });
await admin.connect();
const settings = (await admin.query("SELECT name, current_setting(name) AS value FROM pg_settings WHERE name IN ('shared_buffers', 'work_mem', 'lc_ctype', 'jit') ORDER BY name")).rows;
log(`PostgreSQL ${(await admin.query('SHOW server_version')).rows[0].server_version} (${server.embedded ? 'embedded' : 'DATABASE_URL'}): ${settings.map((row) => `${row.name}=${row.value}`).join(' ')}; ${cpus().length} CPUs`);
const urlOf = (database) => {
  const url = new URL(server.adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

const agent = new Agent({ keepAlive: true, maxSockets: 4 });
/** One HTTP request; resolves with status, parsed body (when JSON) and latency to the last byte (ms). */
function send(port, method, path, { token, apiKey, json, form, basic } = {}) {
  return new Promise((resolve, reject) => {
    const body = json !== undefined ? JSON.stringify(json) : form !== undefined ? new URLSearchParams(form).toString() : undefined;
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (apiKey) headers['x-api-key'] = apiKey;
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
    if (body !== undefined) {
      headers['content-type'] = json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const started = now();
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed;
        try {
          parsed = text ? JSON.parse(text) : null;
        } catch {
          parsed = text;
        }
        resolve({ status: response.statusCode, body: parsed, text, ms: now() - started });
      });
      response.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
const expectOk = async (promise, what, status = 200) => {
  const response = await promise;
  if (response.status !== status) throw new Error(`${what}: HTTP ${response.status} ${response.text.slice(0, 500)}`);
  return response.body;
};

/** Starts the built app on `databaseUrl`; resolves when /api/health answers. */
async function startApp(databaseUrl) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    LOG_LEVEL: process.env.BENCH_APP_LOG_LEVEL ?? 'error',
    DATA_DIR: mkdtempSync(join(work, 'data-')),
    DATABASE_URL: databaseUrl,
    STORAGE_DRIVER: 'local',
    ATRIUM_WORKERS: '1',
    CHAT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DEPLOY_REGISTRATION_KEY: REGISTRATION_KEY,
    DEPLOY_OWNER_TOKEN: OWNER_TOKEN,
    EVAL_API_KEYS: API_KEY,
  };
  const startFlags = appStartFlags();
  const child = spawn(process.execPath, [...startFlags, 'dist/src/main.js'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  let exited = false;
  child.once('exit', () => (exited = true));
  for (let attempt = 0; ; attempt++) {
    if (await fetch(`http://127.0.0.1:${port}/api/health`).then((response) => response.ok).catch(() => false)) break;
    if (exited || attempt > 600) throw new Error('the app did not start (did you run npm run build?)');
    await sleep(500);
  }
  const atriumChat = (args) =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, ['dist/src/cli/chat/main.js', ...args], { env, timeout: 120_000 }, (error, stdout, stderr) => (error ? reject(new Error(`atrium-chat ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout))),
    );
  const stop = async () => {
    if (exited) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    if (!(await Promise.race([gone.then(() => true), sleep(30_000).then(() => false)]))) {
      child.kill('SIGKILL');
      await gone;
    }
  };
  return { port, pid: child.pid, atriumChat, stop };
}

/** The sort values a list accepts, from its `sort` parameter's enum in the served document (the *_SORT_FIELDS consts). */
function sortsOf(parameters) {
  const sort = parameters.find((parameter) => parameter.name === 'sort' && parameter.in === 'query');
  const schema = sort?.schema ?? {};
  return schema.items?.enum ?? schema.enum ?? [];
}

/**
 * The measured cases, from the served OpenAPI document: `{ name, kind, request: { method, path, json, auth } }`, and
 * the notices for lists that could not be measured.
 */
function casesOf(document, context) {
  const cases = [];
  const notices = [];
  const pathValues = { tenant: context.tenant.id, workChatUserId: 'staff00', namespace: context.namespace };
  /** Values for required query parameters: the seeded corp's name (every tenant's corp is named CORP_NAME). */
  const queryValues = { corpName: CORP_NAME };
  let cursorSeen = false;
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const parameters = operation.parameters ?? [];
      const isStats = template.startsWith('/api/stats/') && method === 'get';
      const isList = parameters.some((parameter) => parameter.name === 'page' && parameter.in === 'query');
      if (!isStats && !isList) continue;
      const missing = parameters.filter((parameter) => parameter.in === 'path' && !(parameter.name in pathValues)).map((parameter) => parameter.name);
      if (missing.length) {
        notices.push(`${method.toUpperCase()} ${template}: not measured (no seeded ${missing.join(', ')})`);
        continue;
      }
      const path = template.replace(/\{(\w+)\}/g, (_, name) => encodeURIComponent(pathValues[name]));
      // Required query parameters other than paging (a list that needs its corp named): filled from what the seed
      // made, or the list is a notice (it would only answer 400).
      const required = parameters.filter((parameter) => parameter.in === 'query' && parameter.required && !['page', 'size', 'sort', 'cursor'].includes(parameter.name));
      const unknown = required.filter((parameter) => !(parameter.name in queryValues)).map((parameter) => parameter.name);
      if (unknown.length) {
        notices.push(`${method.toUpperCase()} ${template}: not measured (no seeded value for the required ${unknown.join(', ')})`);
        continue;
      }
      const fixed = Object.fromEntries(required.map((parameter) => [parameter.name, queryValues[parameter.name]]));
      const schemes = (operation.security ?? []).flatMap((entry) => Object.keys(entry));
      const auth = schemes.includes('evaluationApiKey')
        ? { apiKey: API_KEY }
        : schemes.includes('deployOwnerToken')
          ? { token: OWNER_TOKEN }
          : schemes.includes('deployAgentToken')
            ? { token: context.agentToken }
            : template.startsWith('/api/platform/')
              ? { token: context.tenant.adminToken }
              : { token: context.tenant.token };
      let json;
      if (method === 'post') {
        if (!template.endsWith('/byLastStates')) {
          notices.push(`POST ${template}: not measured (no body known for this list)`);
          continue;
        }
        json = { corpName: CORP_NAME, states: ['spring-fair'] };
      } else if (method !== 'get') continue;
      const label = `${method.toUpperCase()} ${template.replace('/api/{tenant}', '{T}')}`;
      const at = (query) => `${path}?${new URLSearchParams({ ...fixed, ...query }).toString()}`;
      if (isStats) {
        for (const days of [30, 365]) cases.push({ name: `${label} days=${days}`, kind: 'stats', request: { method, path: at({ days }), json, auth } });
        continue;
      }
      const sorts = sortsOf(parameters);
      for (const sort of sorts.length ? sorts : [undefined]) {
        cases.push({ name: `${label} p0${sort ? ` sort=${sort}` : ''}`, kind: 'page0', request: { method, path: at({ page: 0, size: PAGE_SIZE, ...(sort ? { sort } : {}) }), json, auth } });
      }
      if (parameters.some((parameter) => parameter.name === 'cursor' && parameter.in === 'query')) {
        cursorSeen = true;
        cases.push({ name: `${label} deep cursor`, kind: 'cursor', deep: { method, path, query: fixed, json, auth }, request: undefined });
      }
      cases.push({ name: `${label} offset last page`, kind: 'offset', last: { method, path, query: fixed, json, auth }, request: undefined });
      for (const parameter of parameters.filter((candidate) => candidate.in === 'query' && SEARCH_PARAMS.test(candidate.name))) {
        for (const term of SEARCH_TERMS) {
          cases.push({
            name: `${label} ${parameter.name}=${term.term} (${term.script} ${term.length}, ${term.frequency})`,
            kind: 'search',
            request: { method, path: at({ page: 0, size: PAGE_SIZE, [parameter.name]: term.term }), json, auth },
          });
        }
      }
    }
  }
  cases.unshift({ name: 'reference: GET /api/health (no data read)', kind: 'reference', request: { method: 'get', path: '/api/health', auth: {} } });
  if (!cursorSeen) notices.push('no list declares a `cursor` parameter yet (keyset paging, issue 23 item 1): deep cursor pages not measured');
  return { cases: cases.filter((entry) => !ONLY || ONLY.test(entry.name)), notices };
}

/**
 * Resolves a case's request at this size: the deep cursor page (page DEEP_PAGE, or the list's last, through the
 * `nextCursor` the page before it answered) or the offset last page.
 */
async function resolveRequest(port, entry) {
  if (entry.kind === 'cursor') {
    const { method, path, query, json, auth } = entry.deep;
    const at = (params) => `${path}?${new URLSearchParams({ ...query, ...params })}`;
    const first = await send(port, method, at({ page: 0, size: PAGE_SIZE }), { ...auth, json });
    if (first.status !== 200) return { skip: `HTTP ${first.status} ${first.text.slice(0, 120)}` };
    const target = Math.min(DEEP_PAGE, (first.body?.totalPages ?? 0) - 1);
    if (target < 1) return { skip: `${first.body?.totalPages ?? '?'} page(s)` };
    const before = await send(port, method, at({ page: target - 1, size: PAGE_SIZE }), { ...auth, json });
    const cursor = before.body?.nextCursor;
    if (!cursor) return { skip: `no nextCursor on page ${target - 1}` };
    return { request: { method, path: at({ size: PAGE_SIZE, cursor }), json, auth }, note: `page ${target}` };
  }
  if (entry.kind === 'offset') {
    const { method, path, query, json, auth } = entry.last;
    const at = (params) => `${path}?${new URLSearchParams({ ...query, ...params })}`;
    const first = await send(port, method, at({ page: 0, size: PAGE_SIZE }), { ...auth, json });
    const pages = first.body?.totalPages;
    if (first.status !== 200 || !(pages > 1)) return { skip: `${pages ?? '?'} page(s)` };
    return { request: { method, path: at({ page: pages - 1, size: PAGE_SIZE }), json, auth }, note: `page ${pages - 1}` };
  }
  return { request: entry.request };
}

/** One warm-up, then REPS requests one at a time: the median and the fastest latency (ms), or the error. */
async function measure(port, request) {
  const { method, path, json, auth } = request;
  const warm = await send(port, method, path, { ...auth, json });
  if (warm.status !== 200) return { error: `HTTP ${warm.status} ${warm.text.slice(0, 160)}` };
  const samples = [];
  for (let rep = 0; rep < REPS; rep++) samples.push((await send(port, method, path, { ...auth, json })).ms);
  samples.sort((a, b) => a - b);
  return { ms: samples[Math.floor(samples.length / 2)], min: samples[0], rows: warm.body?.totalElements };
}

// 2. The table: median ms per size, growth = largest size ÷ smallest; targets: page 0, cursor, search, stats ≤ 2×.
// Printed after each size (so a long run interrupted at 1M keeps what it measured) and at the end.
function printTable(measured) {
const first = measured[0];
const last = measured.at(-1);
const label = (size) => (size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1000 ? `${size / 1000}k` : String(size));
console.log(`\nMedian of ${REPS} sequential requests (ms) after one warm-up; rows per big table = size; ${TENANTS} tenants/namespaces, the measured one holding 10 %; growth = ${label(last)} ÷ ${label(first)}, target <= ${GROWTH_TARGET}x (offset last pages: no target)`);
console.log(`${'case'.padEnd(92)}${measured.map((size) => label(size).padStart(9)).join('')}${'growth'.padStart(9)}${'min gr.'.padStart(9)}  verdict`);
let flagged = 0;
for (const [name, result] of results) {
  const cells = measured.map((size) => {
    const cell = result.bySize[size];
    return (cell?.ms !== undefined ? cell.ms.toFixed(1) : 'err').padStart(9);
  });
  const ratio = (key) => {
    const a = result.bySize[first]?.[key];
    const b = result.bySize[last]?.[key];
    return a && b ? b / a : undefined;
  };
  const growth = ratio('ms');
  const minGrowth = ratio('min');
  const targeted = result.kind !== 'offset' && result.kind !== 'reference';
  // GROWS only when the fastest request grew too: a median alone moves with whatever else loads the machine.
  const verdict = growth === undefined ? 'n/a' : !targeted ? (result.kind === 'reference' ? 'reference' : 'reported') : growth > GROWTH_TARGET && minGrowth > GROWTH_TARGET ? 'GROWS' : growth > GROWTH_TARGET ? 'noisy' : 'flat';
  if (verdict === 'GROWS') flagged++;
  const fmt = (value) => (value === undefined ? '-' : `${value.toFixed(1)}x`).padStart(9);
  console.log(`${name.slice(0, 91).padEnd(92)}${cells.join('')}${fmt(growth)}${fmt(minGrowth)}  ${verdict}`);
  for (const size of measured) if (result.bySize[size]?.error) console.log(`${''.padEnd(6)}${label(size)}: ${result.bySize[size].error}`);
  const notes = measured.filter((size) => result.bySize[size]?.note).map((size) => `${label(size)}: ${result.bySize[size].note}`);
  if (notes.length) console.log(`${''.padEnd(6)}${notes.join(', ')}`);
}
console.log(`\n${flagged} case(s) grow more than ${GROWTH_TARGET}x from ${label(first)} to ${label(last)} in both the median and the fastest request ('noisy': the median only).`);
for (const notice of notices) console.log(`notice: ${notice}`);
console.log('Other processes may share this machine: read each row against the others of the same run.');

}

const results = new Map(); // case name -> { kind, bySize: { size: { ms, error, note } } }
let notices = [];
let failed = false;
const measuredSizes = [];
let stopping = false;
let currentSql;
// Ctrl-C / SIGTERM: stop after the current case (a seed in progress is cut off by closing its connection), print
// the sizes measured in full, clean up (app, PostgreSQL, temp folder).
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopping = true;
    currentSql?.end().catch(() => undefined);
  });
}
try {
  for (const size of SIZES) {
    const database = `${DATABASE_PREFIX}_${size}`;
    await admin.query(`DROP DATABASE IF EXISTS ${database}`);
    await admin.query(`CREATE DATABASE ${database} TEMPLATE template0 ENCODING 'UTF8'`);
    const app = await startApp(urlOf(database));
    const sql = new pg.Client({ connectionString: urlOf(database) });
    await sql.connect();
    currentSql = sql;
    try {
      log(`size ${size}: app up (pid ${app.pid}) on database ${database}; seeding`);
      const http = { send: (method, path, options) => send(app.port, method, path, options), expectOk };
      const tenants = await createChatTenants({ http, atriumChat: app.atriumChat, count: TENANTS, corpName: CORP_NAME });
      const registered = await send(app.port, 'POST', '/api/auth/register', { json: { registrationKey: REGISTRATION_KEY, agentId: 'bench-agent', contactId: 'bench' } });
      if (![200, 201].includes(registered.status)) throw new Error(`POST /api/auth/register: HTTP ${registered.status} ${registered.text.slice(0, 300)}`);
      const registration = registered.body;
      const namespace = registration.namespace ?? 'bench';
      const started = now();
      if (WINGS.has('chat')) await seedChat(sql, tenants, { contacts: size, ways: Math.max(1, Math.floor(size / TENANTS)), rooms: size, log });
      if (WINGS.has('deploy')) await seedDeploy(sql, { rows: size, namespaces: [namespace, ...Array.from({ length: TENANTS - 1 }, (_, index) => `bench${index + 1}`)], log });
      if (WINGS.has('evaluation')) await seedEvaluation(sql, { rows: size, log });
      log(`size ${size}: seeded in ${((now() - started) / 1000).toFixed(0)} s`);
      // The seed's dirty pages are written out before measuring, so the requests don't compete with their writeback.
      await sql.query('CHECKPOINT').catch((error) => log(`CHECKPOINT skipped: ${error.message}`));

      const document = await expectOk(send(app.port, 'GET', '/docs-json'), 'GET /docs-json');
      const built = casesOf(document, { tenant: tenants[0], namespace, agentToken: registration.token });
      notices = built.notices;
      const sizeStarted = now();
      for (const entry of built.cases) {
        if (stopping) break;
        const result = results.get(entry.name) ?? { kind: entry.kind, bySize: {} };
        results.set(entry.name, result);
        try {
          const resolved = await resolveRequest(app.port, entry);
          if (resolved.skip) result.bySize[size] = { error: resolved.skip };
          else result.bySize[size] = { ...(await measure(app.port, resolved.request)), note: resolved.note };
        } catch (error) {
          result.bySize[size] = { error: String(error.message ?? error).slice(0, 160) };
        }
      }
      if (!stopping) {
        measuredSizes.push(size);
        if (measuredSizes.length < SIZES.length) printTable(measuredSizes);
      }
      log(`size ${size}: ${built.cases.length} cases measured in ${((now() - sizeStarted) / 1000).toFixed(0)} s; load average ${loadavg()[0].toFixed(1)}`);
    } finally {
      await sql.end().catch(() => undefined);
      await app.stop();
      if (!process.env.BENCH_KEEP_DATABASES) await admin.query(`DROP DATABASE IF EXISTS ${database}`).catch(() => undefined);
    }
    if (stopping) {
      log(`stopped on a signal during size ${size}${measuredSizes.includes(size) ? '' : ' (its figures are left out)'}`);
      break;
    }
  }
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}`);
} finally {
  agent.destroy();
  await admin.end().catch(() => undefined);
  await server.stop().catch((error) => console.error(`stopping PostgreSQL: ${error}`));
  rmSync(work, { recursive: true, force: true });
}

if (measuredSizes.length) printTable(measuredSizes);

// 3. The reports bench (bench/data-scale/reports.mjs, owned by the runs/reports work) when present.
const reports = join(import.meta.dirname, 'reports.mjs');
if (existsSync(reports)) {
  console.log(`\n=== bench/data-scale/reports.mjs ${process.argv.slice(2).join(' ')} ===`);
  const code = await new Promise((resolve) => spawn(process.execPath, [reports, ...process.argv.slice(2)], { stdio: 'inherit' }).once('exit', resolve));
  if (code !== 0) failed = true;
} else {
  console.log('\nnotice: bench/data-scale/reports.mjs is not there yet: report figures not measured');
}
process.exitCode = failed ? 1 : 0;
