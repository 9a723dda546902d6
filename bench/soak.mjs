#!/usr/bin/env node
// The soak (issue 20 acceptance 5): one app process (ATRIUM_WORKERS=1) under a steady mixed rate for SOAK_MINUTES,
// with its real peers on 127.0.0.1 (a chat model, an evaluation target, a webhook receiver). Each minute prints the
// requests, p50/p99 latency, 5xx count and the app's RSS (VmRSS of /proc/<pid>/status); at the end: the RSS trend
// past minute 2 (least-squares slope, MB/min), each minute's p99 against minute 1's, and the total of 5xx. See
// bench/soak.md for the mix, the verdicts and the last table.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/soak.mjs   # its own database on that server
//   node bench/soak.mjs                                                            # embedded PostgreSQL (temp DATA_DIR)
//   SOAK_MINUTES=10 SOAK_RATE=20 SOAK_RUN_EVERY_S=15 SOAK_CASES=5 node bench/soak.mjs
//
// The app is compiled from SOAK_APP_SOURCE (default: this checkout's src/ and migrations/) with SWC into a temp
// folder, as the e2e tests start it (test/support/app-process.ts); `git archive HEAD src migrations | tar -x -C dir`
// and SOAK_APP_SOURCE=dir soaks the committed code while the tree is being edited.
import { transformSync } from '@swc/core';
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import pg from 'pg';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 20);
const RUN_EVERY_MS = Number(process.env.SOAK_RUN_EVERY_S ?? 15) * 1000;
const CASES = Number(process.env.SOAK_CASES ?? 5);
/** "No upward trend": the RSS slope past minute 2 at most this many MB per minute. */
const RSS_SLOPE_LIMIT = Number(process.env.SOAK_RSS_SLOPE_LIMIT_MB_PER_MIN ?? 1);
/** p99 of every minute within this multiple of minute 1's. */
const P99_RATIO_LIMIT = 2;
const ROOT = join(dirname(new URL(import.meta.url).pathname), '..');
const SOURCE = process.env.SOAK_APP_SOURCE ?? ROOT;
const API_KEY = 'soak-eval-api-key-0123456789abcdef';
const REGISTRATION_KEY = 'soak-registration-key-0123456789';
const WEBHOOK_SECRET = 'soak-webhook-secret';

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

/** Compiles src/ and migrations/ of SOURCE into `outDir` (as test/support/app-process.ts buildApp does). */
function compileApp(outDir) {
  const walk = (folder) =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [join(folder, entry.name)] : [],
    );
  for (const file of [...walk(join(SOURCE, 'src')), ...walk(join(SOURCE, 'migrations'))]) {
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      filename: file,
      jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    const out = join(outDir, relative(SOURCE, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
}

/** A local HTTP peer answering with `answer(body, url)`; counts what it received. */
async function startPeer(answer) {
  const peer = { received: 0, bodies: [] };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      peer.received++;
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        // not JSON
      }
      const reply = answer(body, req);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  peer.url = `http://127.0.0.1:${server.address().port}`;
  peer.close = () => new Promise((resolve) => server.close(resolve));
  server.keepAliveTimeout = 1000;
  return peer;
}

/** A tiny gzipped tar of one index.html (ustar, one 512-byte header + content, two zero blocks). */
function siteArchive(text) {
  const content = Buffer.from(`<!doctype html><title>soak</title><p>${text}</p>\n`);
  const header = Buffer.alloc(512);
  const put = (value, offset, length) => header.write(value, offset, length, 'ascii');
  put('index.html', 0, 100);
  put('0000644\0', 100, 8);
  put('0000000\0', 108, 8);
  put('0000000\0', 116, 8);
  put(`${content.length.toString(8).padStart(11, '0')}\0`, 124, 12);
  put(`${Math.floor(Date.now() / 1000).toString(8).padStart(11, '0')}\0`, 136, 12);
  put('        ', 148, 8);
  put('0', 156, 1);
  put('ustar\0', 257, 6);
  put('00', 263, 2);
  let sum = 0;
  for (const byte of header) sum += byte;
  put(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8);
  const padded = Buffer.alloc(Math.ceil(content.length / 512) * 512);
  content.copy(padded);
  return gzipSync(Buffer.concat([header, padded, Buffer.alloc(1024)]));
}

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
/**
 * One request: { status, text, ms }. Never rejects (a network error is status 0). A request that failed with
 * ECONNRESET on a reused keep-alive socket (the server closed it as the request went out: a client-side race, Node's
 * documented `reusedSocket` case) is sent once more on a fresh one.
 */
function send(port, method, path, options = {}, retried = false) {
  const { token, apiKey, json, form, basic, raw, rawType } = options;
  return new Promise((resolve) => {
    const started = now();
    const body = json !== undefined ? JSON.stringify(json) : form !== undefined ? new URLSearchParams(form).toString() : raw;
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (apiKey) headers['x-api-key'] = apiKey;
    if (basic) headers.authorization = `Basic ${Buffer.from(`${basic.id}:${basic.secret}`).toString('base64')}`;
    if (body !== undefined) {
      headers['content-type'] = json !== undefined ? 'application/json' : form !== undefined ? 'application/x-www-form-urlencoded' : rawType;
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent, timeout: 60_000 }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode, text: Buffer.concat(chunks).toString('utf8'), ms: now() - started }));
      response.on('error', (error) => resolve({ status: 0, text: String(error), ms: now() - started }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (error) => {
      if (!retried && req.reusedSocket && error.code === 'ECONNRESET') resolve(send(port, method, path, options, true));
      else resolve({ status: 0, text: String(error), ms: now() - started });
    });
    req.end(body);
  });
}
const expectOk = async (promise, what, status = 200) => {
  const response = await promise;
  if (response.status !== status) throw new Error(`${what}: HTTP ${response.status} ${response.text.slice(0, 300)}`);
  return response.text ? JSON.parse(response.text) : null;
};
/** A multipart/form-data body of text fields and one file. */
function multipart(fields, file) {
  const boundary = `----soak${Math.random().toString(16).slice(2)}`;
  const parts = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: application/gzip\r\n\r\n`), file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { raw: Buffer.concat(parts), rawType: `multipart/form-data; boundary=${boundary}` };
}
const rssMb = (pid) => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
};
const percentile = (sorted, p) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
/** Least-squares slope of y over x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

const work = mkdtempSync(join(tmpdir(), 'atrium-soak-'));
const serverUrl = process.env.DATABASE_URL ? new URL(process.env.DATABASE_URL) : undefined;
const databaseName = `atrium_soak_${Date.now().toString(36)}`;
let admin;
let app;
let appExited = false;
const peers = [];
let failed = false;
try {
  // 1. The database (our own on the given server, or embedded), the peers, the app.
  let databaseUrl;
  if (serverUrl) {
    admin = new pg.Client({ connectionString: serverUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${databaseName}`);
    databaseUrl = new URL(serverUrl);
    databaseUrl.pathname = `/${databaseName}`;
  }
  const model = await startPeer(() => ({
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'soak-model',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Thanks, your order is on its way.' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  }));
  const target = await startPeer((body) => ({ reply: `ok ${body.message ?? ''}` }));
  const webhook = await startPeer(() => ({ ok: true }));
  peers.push(model, target, webhook);

  const out = join(work, 'build');
  log(`compiling the app from ${SOURCE} …`);
  compileApp(out);
  const port = await freePort();
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    NODE_PATH: join(ROOT, 'node_modules'),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'error',
    ATRIUM_WORKERS: '1',
    DATA_DIR: join(work, 'data'),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl.toString() } : { EMBEDDED_POSTGRES_PORT: String(await freePort()) }),
    ATRIUM_SECRET_KEY: '736f616b206b6579202d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2d2121',
    DEPLOY_REGISTRATION_KEY: REGISTRATION_KEY,
    DEPLOY_OWNER_TOKEN: 'soak-owner-token-0123456789abcdefgh',
    DEPLOY_PUBLIC_URL: `http://127.0.0.1:${port}`,
    CHAT_PUBLIC_URL: `http://127.0.0.1:${port}`,
    EVAL_API_KEYS: API_KEY,
    EVAL_WEBHOOK_URL: `${webhook.url}/hook`,
    EVAL_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CHAT_LLM_BASE_URL: `${model.url}/v1`,
    CHAT_LLM_MODEL: 'soak-model',
  };
  app = spawn(process.execPath, ['--max-old-space-size=512', join(out, 'src', 'main.js')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const appErrors = [];
  app.stderr.on('data', (chunk) => appErrors.push(String(chunk)) > 50 && appErrors.shift());
  app.once('exit', () => (appExited = true));
  for (let waited = 0; (await send(port, 'GET', '/api/health')).status !== 200; waited += 500) {
    if (appExited || waited > 180_000) throw new Error(`the app did not start: ${appErrors.join('').slice(-2000)}`);
    await sleep(500);
  }
  log(`app pid ${app.pid} on :${port}; database ${databaseUrl ? `${databaseName} on ${serverUrl.host}` : 'embedded'}; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(1)}`);

  // 2. Setup: a chat tenant with a corp, a staff user bound to a digital staff, a simulated customer; an evaluation
  //    target and scenario; a deploy agent.
  const cli = (args) =>
    new Promise((resolve, reject) =>
      execFile(process.execPath, [join(out, 'src', 'cli', 'chat', 'main.js'), ...args], { cwd: ROOT, env, timeout: 180_000 }, (error, stdout, stderr) =>
        error ? reject(new Error(`atrium-chat ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
      ),
    );
  const adminClient = JSON.parse(await cli(['client', 'create', '--platform-admin', '--json']));
  const tokenOf = async (client) => (await expectOk(send(port, 'POST', '/oauth/token', { basic: { id: client.clientId, secret: client.clientSecret }, form: { grant_type: 'client_credentials' } }), 'POST /oauth/token')).access_token;
  const adminToken = await tokenOf(adminClient);
  const tenant = 'soak';
  await expectOk(send(port, 'POST', '/api/platform/tenants', { token: adminToken, json: { id: tenant, name: 'Soak tenant' } }), 'POST /api/platform/tenants', 201);
  const tenantClient = await expectOk(send(port, 'POST', '/api/platform/clients', { token: adminToken, json: { tenantId: tenant } }), 'POST /api/platform/clients', 201);
  const chatToken = await tokenOf(tenantClient);
  const chat = (path, json) => expectOk(send(port, 'POST', `/api/${tenant}${path}`, { token: chatToken, json }), `POST ${path}`);
  const corp = await chat('/console/workChat/corps', { corpName: 'Soak Retail', workChatCorpId: 'wwsoakretail', secret: 'soak-corp-secret' });
  await chat('/console/workChat/user', { workChatCorpId: 'wwsoakretail', workChatUserId: 'ava', name: 'Ava' });
  const staffId = (await chat('/v1/chat/staff', { name: 'Ava', persona: 'You are Ava.' })).id;
  await chat('/v1/chat/staff/bind', { staffId, corpName: 'Soak Retail', workChatUserIds: ['ava'] });
  const simulator = `/console/simulator/corps/${corp.id}`;
  const customers = [];
  for (let index = 0; index < 20; index++) customers.push((await chat(`${simulator}/customers`, { name: `Customer ${index}`, userId: 'ava' })).externalUserId);
  const evalTarget = await expectOk(
    send(port, 'POST', '/api/targets', { apiKey: API_KEY, json: { name: 'soak target', kind: 'http', max_concurrency: 4, http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } } }),
    'POST /api/targets',
    201,
  );
  const caseList = Array.from({ length: CASES }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `m${index}` }] }));
  const runScenario = await expectOk(send(port, 'POST', '/api/scenarios', { apiKey: API_KEY, json: { name: 'soak runs', cases: caseList } }), 'POST /api/scenarios', 201);
  const register = (index) => send(port, 'POST', '/api/auth/register', { json: { registrationKey: REGISTRATION_KEY, agentId: `soak-agent-${index}`, contactId: `soak-${index}` } });
  const deployer = await expectOk(register('main'), 'POST /api/auth/register', 201);
  log(`setup done: tenant ${tenant}, ${customers.length} customers, target, scenario of ${CASES} cases, deploy agent`);

  // 3. The mix, one slot per 1/RATE s in this order (list reads 40 %, chat inbound 20 %, scenario creates 10 %, run
  //    reads 10 %, registrations 5 %, deploys 5 %, health 10 %), plus a run every SOAK_RUN_EVERY_S.
  let sequence = 0;
  const kinds = {
    'list runs': () => send(port, 'GET', '/api/runs?size=20', { apiKey: API_KEY }),
    'list scenarios': () => send(port, 'GET', '/api/scenarios?size=20', { apiKey: API_KEY }),
    'list deployments': () => send(port, 'GET', '/api/deployments?size=20', { token: deployer.token }),
    'list contacts': () => send(port, 'GET', `/api/${tenant}/console/workChat/ava/contact/external?page=0&size=20`, { token: chatToken }),
    'chat inbound': () => {
      sequence++;
      return send(port, 'POST', `/api/${tenant}${simulator}/messages`, { token: chatToken, json: { externalUserId: customers[sequence % customers.length], content: `Where is order ${sequence}?`, msgId: `soak-${Date.now()}-${sequence}` } });
    },
    'scenario create': () => send(port, 'POST', '/api/scenarios', { apiKey: API_KEY, json: { name: `soak ${++sequence}`, cases: [{ id: 'a', input: 'x', rules: [{ type: 'contains', value: 'x' }] }] } }),
    'run read': () => (lastRunId ? send(port, 'GET', `/api/runs/${lastRunId}`, { apiKey: API_KEY }) : send(port, 'GET', '/api/runs?size=5', { apiKey: API_KEY })),
    registration: () => register(`${Date.now()}-${++sequence}`),
    deploy: () => send(port, 'POST', '/api/deploy', { token: deployer.token, ...multipart({ projectName: 'soak', contactId: 'soak-main' }, { name: 'archive', filename: 'site.tar.gz', data: siteArchive(`deploy ${++sequence}`) }) }),
    health: () => send(port, 'GET', '/api/health'),
    run: () => send(port, 'POST', '/api/runs', { apiKey: API_KEY, json: { scenario_id: runScenario.id, target_id: evalTarget.id, concurrency: 2 } }),
  };
  const slots = [
    'list runs', 'chat inbound', 'list scenarios', 'scenario create', 'list deployments', 'health', 'list contacts', 'chat inbound', 'run read', 'registration',
    'list runs', 'chat inbound', 'list scenarios', 'scenario create', 'list deployments', 'health', 'list contacts', 'chat inbound', 'run read', 'deploy',
  ];
  let lastRunId;
  const failureKinds = new Map();
  const failureSamples = new Map();
  const minutes = Array.from({ length: MINUTES }, () => ({ latencies: [], byKind: {}, fiveXx: 0, noAnswer: 0, failures: 0, firstFailure: undefined }));
  const record = (minute, kind, response) => {
    const bucket = minutes[minute];
    if (!bucket) return;
    bucket.latencies.push(response.ms);
    bucket.byKind[kind] = (bucket.byKind[kind] ?? 0) + 1;
    if (response.status >= 500) bucket.fiveXx++;
    if (response.status === 0) bucket.noAnswer++;
    const expected = kind === 'run' || kind === 'scenario create' || kind === 'registration' || kind === 'deploy' ? 201 : 200;
    if (response.status !== expected) {
      bucket.failures++;
      bucket.firstFailure ??= `${kind}: HTTP ${response.status} ${response.text.slice(0, 200)}`;
      const key = `${kind} ${response.status}`;
      failureKinds.set(key, (failureKinds.get(key) ?? 0) + 1);
      if (!failureSamples.has(key)) failureSamples.set(key, response.text.slice(0, 300));
    }
  };
  const started = now();
  const end = started + MINUTES * 60_000;
  const inFlight = new Set();
  const fire = (kind) => {
    const minute = Math.floor((now() - started) / 60_000);
    const call = kinds[kind]().then((response) => {
      record(minute, kind, response);
      if (kind === 'run' && response.status === 201) lastRunId = JSON.parse(response.text).id;
    });
    inFlight.add(call);
    call.finally(() => inFlight.delete(call));
  };
  const rows = [];
  let slot = 0;
  let nextRunAt = started;
  let nextMinuteAt = started + 60_000;
  console.log('minute  requests   p50 ms   p99 ms  5xx  failures  RSS MB  in flight');
  // Open loop: slot k is due at started + k / RATE s, whatever the answers take.
  while (now() < end) {
    const due = started + (slot * 1000) / RATE;
    if (due > now()) await sleep(due - now());
    if (now() >= end) break;
    fire(slots[slot % slots.length]);
    slot++;
    if (now() >= nextRunAt) {
      fire('run');
      nextRunAt += RUN_EVERY_MS;
    }
    if (now() >= nextMinuteAt) {
      const index = rows.length;
      const bucket = minutes[index];
      await sleep(0);
      const sorted = [...bucket.latencies].sort((a, b) => a - b);
      const row = { minute: index + 1, requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), fiveXx: bucket.fiveXx, failures: bucket.failures, rss: rssMb(app.pid), inFlight: inFlight.size, firstFailure: bucket.firstFailure };
      rows.push(row);
      console.log(`${String(row.minute).padStart(6)}  ${String(row.requests).padStart(8)}  ${row.p50.toFixed(1).padStart(7)}  ${row.p99.toFixed(1).padStart(7)}  ${String(row.fiveXx).padStart(3)}  ${String(row.failures).padStart(8)}  ${row.rss.toFixed(1).padStart(6)}  ${String(row.inFlight).padStart(9)}${row.firstFailure ? `   first failure: ${row.firstFailure}` : ''}`);
      nextMinuteAt += 60_000;
    }
  }
  await Promise.all([...inFlight]);
  if (rows.length < MINUTES) {
    const bucket = minutes[rows.length];
    const sorted = [...bucket.latencies].sort((a, b) => a - b);
    const row = { minute: rows.length + 1, requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), fiveXx: bucket.fiveXx, failures: bucket.failures, rss: rssMb(app.pid), inFlight: 0, firstFailure: bucket.firstFailure };
    rows.push(row);
    console.log(`${String(row.minute).padStart(6)}  ${String(row.requests).padStart(8)}  ${row.p50.toFixed(1).padStart(7)}  ${row.p99.toFixed(1).padStart(7)}  ${String(row.fiveXx).padStart(3)}  ${String(row.failures).padStart(8)}  ${row.rss.toFixed(1).padStart(6)}  ${String(row.inFlight).padStart(9)}${row.firstFailure ? `   first failure: ${row.firstFailure}` : ''}`);
  }

  // 4. Let the work in the queues finish, then the verdicts.
  const runs = async () => (await expectOk(send(port, 'GET', `/api/runs?size=1&scenario_id=${runScenario.id}`, { apiKey: API_KEY }), 'GET /api/runs')).totalElements;
  const liveRuns = async () => (await expectOk(send(port, 'GET', `/api/runs?size=1&scenario_id=${runScenario.id}&status=running`, { apiKey: API_KEY }), 'GET /api/runs')).totalElements + (await expectOk(send(port, 'GET', `/api/runs?size=1&scenario_id=${runScenario.id}&status=queued`, { apiKey: API_KEY }), 'GET /api/runs')).totalElements;
  for (let waited = 0; (await liveRuns()) > 0 && waited < 120_000; waited += 1000) await sleep(1000);
  await sleep(3000);
  const runCount = await runs();
  const tail = rows.filter((row) => row.minute > 2);
  const rssSlope = slope(tail.map((row) => [row.minute, row.rss]));
  const firstP99 = rows[0]?.p99;
  const worstRatio = Math.max(...rows.map((row) => row.p99 / firstP99));
  const total5xx = rows.reduce((sum, row) => sum + row.fiveXx, 0);
  const totalFailures = rows.reduce((sum, row) => sum + row.failures, 0);
  console.log('');
  console.log(`p99 per minute / minute 1: ${rows.map((row) => (row.p99 / firstP99).toFixed(2)).join(' ')}`);
  console.log(`RSS past minute 2: least-squares slope ${rssSlope.toFixed(2)} MB/min over minutes ${tail.map((row) => row.minute).join(',') || '(none)'} (limit ${RSS_SLOPE_LIMIT}); min ${Math.min(...tail.map((row) => row.rss)).toFixed(1)} max ${Math.max(...tail.map((row) => row.rss)).toFixed(1)} MB`);
  console.log(`runs: ${runCount} created, ${await liveRuns()} still live; target calls ${target.received} (expected ${runCount * CASES}); webhooks received ${webhook.received}; model calls (AI replies) ${model.received}`);
  const verdicts = [
    [`no upward RSS trend past minute 2 (slope ≤ ${RSS_SLOPE_LIMIT} MB/min)`, tail.length < 2 || rssSlope <= RSS_SLOPE_LIMIT],
    [`p99 of every minute within ${P99_RATIO_LIMIT}× of minute 1's`, worstRatio <= P99_RATIO_LIMIT],
    ['zero 5xx', total5xx === 0],
    ['every request answered as expected', totalFailures === 0],
    ['every run ended, each case sent once, one webhook per run', target.received === runCount * CASES && webhook.received === runCount],
  ];
  for (const [key, count] of failureKinds) console.log(`unexpected answers: ${key} × ${count} (first: ${failureSamples.get(key)})`);
  for (const [what, ok] of verdicts) console.log(`${ok ? 'PASS' : 'FAIL'}  ${what}`);
  failed = verdicts.some(([, ok]) => !ok);
  console.log(`load average at the end: ${loadavg().map((value) => value.toFixed(1)).join(' ')}`);
} catch (error) {
  failed = true;
  console.error(`soak failed: ${error.stack ?? error}`);
} finally {
  agent.destroy();
  if (app && !appExited) {
    app.kill('SIGTERM');
    await Promise.race([new Promise((resolve) => app.once('exit', resolve)), sleep(30_000).then(() => app.kill('SIGKILL'))]);
  }
  for (const peer of peers) await peer.close().catch(() => undefined);
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`).catch((error) => console.error(`dropping ${databaseName}: ${error}`));
    await admin.end().catch(() => undefined);
  }
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
