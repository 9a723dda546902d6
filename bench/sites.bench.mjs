#!/usr/bin/env node
// Published sites at static-server speed (issue 14, acceptance 4): a site with a 1 MiB file and a small index.html is
// published through the real gateway (the built app, over HTTP), then each file is loaded over BENCH_CONNECTIONS
// keep-alive connections (default 8) for BENCH_DURATION_S seconds (default 10, after BENCH_WARMUP_S = 2 of warm-up)
// against three servers in the same run, one process each, reading the same files on disk:
//   - the app (STORAGE_DRIVER=local, ATRIUM_WORKERS=1, with /metrics on), at the deployment URL;
//   - the reference: bench/support/bare-static-server.mjs, a bare Express app with express.static on the same folder;
//   - nginx (Debian's package, `apt-get install nginx-light`), started by this script with a temporary configuration
//     (one process, sendfile on, access log off) on a free port; skipped with a notice when `nginx` is not installed.
// Prints req/s, MiB/s, p50/p99 latency and the server's CPU ms per request for each, then the ratios app/express.static
// and app/nginx per file (target: app >= 90 % of express.static's req/s).
//
//   npm run build && node bench/sites.bench.mjs            # embedded PostgreSQL in a temp folder
//   DATABASE_URL=postgres://… node bench/sites.bench.mjs   # an existing database (the app migrates it)
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' node bench/sites.bench.mjs   # profile the app
//   BENCH_CONNECTIONS=8 BENCH_DURATION_S=10 BENCH_WARMUP_S=2 BENCH_BIG_KIB=1024 BENCH_APP_LOG_LEVEL=warn node bench/sites.bench.mjs
//
// The load generator is wrk (`apt-get install wrk`), one thread: it is required (a Node load generator would cost the
// shared CPUs as much as the servers it measures). `server cpu` is the CPU time (user + system) of the measured server
// process during the measured window divided by the requests answered: the cost of a request, whatever else the
// machine does. The `load` column is the 1-minute load average after each case.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { appStartFlags, running } from './support/child-process.mjs';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 10);
const WARMUP_S = Number(process.env.BENCH_WARMUP_S ?? 2);
const BIG_BYTES = Number(process.env.BENCH_BIG_KIB ?? 1024) * 1024;
const TARGET_RATIO = 0.9;
const registrationKey = 'bench-registration-key-0123456789';

const work = mkdtempSync(join(tmpdir(), 'atrium-sites-bench-'));
chmodSync(work, 0o755); // run as root, the embedded PostgreSQL runs as `postgres` and must reach its data folder
const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const sleep = (millis) => new Promise((resolve) => setTimeout(resolve, millis));
const log = (line) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
const run = (command, args, options = {}) =>
  new Promise((resolve, reject) =>
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024, ...options }, (error, stdout, stderr) => (error ? reject(Object.assign(error, { stderr })) : resolve(stdout))),
  );
const which = (command) => run('sh', ['-c', `command -v ${command} || ls /usr/sbin/${command} 2>/dev/null`]).then((out) => out.trim().split('\n')[0] || undefined).catch(() => undefined);

/** CPU ms (user + system) used so far by process `pid` (Linux /proc; 0 when unreadable). */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

const wrkPath = await which('wrk');
if (!wrkPath) {
  console.error('bench/sites needs wrk on the PATH (Debian: apt-get install wrk).');
  process.exit(2);
}
const nginxPath = await which('nginx');

// 1. The site: a small index.html and a 1 MiB file of random bytes (nothing compresses it).
const site = join(work, 'site');
mkdirSync(site);
const indexHtml = '<!doctype html><html><head><meta charset="utf-8"><title>Bench site</title></head><body><h1>Bench site</h1><p><a href="big.bin">1 MiB file</a></p></body></html>\n';
writeFileSync(join(site, 'index.html'), indexHtml);
writeFileSync(join(site, 'big.bin'), randomBytes(BIG_BYTES));
const archive = join(work, 'site.tar.gz');
await run('tar', ['-czf', archive, '-C', site, '.']);

// 2. PostgreSQL and the app.
let database;
if (process.env.DATABASE_URL) {
  database = { url: process.env.DATABASE_URL, stop: async () => undefined };
} else {
  const { startEmbeddedPostgres } = await import('../dist/src/database/embedded-postgres.js');
  database = await startEmbeddedPostgres({ dataDir: join(work, 'pg'), port: await freePort(), persistent: false, callerHandlesSignals: true, log: () => undefined });
}
const dataDir = join(work, 'data');
const port = await freePort();
const appEnv = {
  ...process.env,
  PORT: String(port),
  LOG_LEVEL: process.env.BENCH_APP_LOG_LEVEL ?? 'warn',
  DATA_DIR: dataDir,
  DATABASE_URL: database.url,
  STORAGE_DRIVER: 'local',
  ATRIUM_WORKERS: '1',
  DEPLOY_REGISTRATION_KEY: registrationKey,
  DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
};
const startFlags = appStartFlags();
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const app = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], { env: appEnv, stdio: ['ignore', 'ignore', 'inherit'] });
let appExited = false;
app.once('exit', () => (appExited = true));
const children = [];
const results = [];
let failed = false;

/** GET `url` once; the status, the headers and the body's length. */
async function probe(url) {
  const response = await fetch(url);
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, headers: response.headers, length: body.length, body };
}

/** Waits for a server's first answer. */
async function waitFor(url, what, exited = () => false) {
  for (let attempt = 0; ; attempt++) {
    if (await fetch(url).then((response) => response.ok).catch(() => false)) return;
    if (exited() || attempt > 480) throw new Error(`${what} did not start within 2 minutes`);
    await sleep(250);
  }
}

/** wrk for `seconds` on `url`: requests, errors, duration (µs) and latency percentiles (ms). */
async function wrk(url, seconds) {
  const script = join(work, 'summary.lua');
  writeFileSync(
    script,
    `done = function(summary, latency, _)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout
  io.write(string.format("WRK %d %d %d %d %.3f %.3f %.3f\\n", summary.requests, errors, summary.duration, summary.bytes,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000))
end
`,
  );
  const output = await run(wrkPath, ['-t', '1', '-c', String(CONNECTIONS), '-d', `${seconds}s`, '--timeout', '10s', '-s', script, url], { timeout: (seconds + 60) * 1000 });
  const line = output.split('\n').find((text) => text.startsWith('WRK '));
  if (!line) throw new Error(`wrk printed no summary: ${output}`);
  const [requests, errors, durationUs, bytes, p50, p99, max] = line.slice(4).split(' ').map(Number);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0);
  return { requests: requests - non2xx, errors: errors + non2xx, durationUs, bytes, p50, p99, max };
}

/** Warm-up, then the measured window with the server's CPU read before and after. */
async function measure(server, file, url) {
  await wrk(url, WARMUP_S);
  const cpuBefore = cpuMsOf(server.pid);
  const result = await wrk(url, DURATION_S);
  const cpu = cpuMsOf(server.pid) - cpuBefore;
  const row = {
    server: server.name,
    file,
    rps: (result.requests / result.durationUs) * 1e6,
    mibps: (result.bytes / result.durationUs) * 1e6 / 1048576,
    p50: result.p50,
    p99: result.p99,
    errors: result.errors,
    cpuPerRequest: cpu / Math.max(1, result.requests),
    load: loadavg()[0],
  };
  results.push(row);
  log(`${server.name} ${file}: ${row.rps.toFixed(0)} req/s, ${row.mibps.toFixed(0)} MiB/s, p99 ${row.p99.toFixed(1)} ms, cpu ${row.cpuPerRequest.toFixed(3)} ms/req${row.errors ? `, ${row.errors} errors` : ''}`);
}

try {
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${baseUrl}/api/health`, 'the app (did you run npm run build?)', () => appExited);
  log(`app up: pid ${app.pid}, ${baseUrl}; ${cpus().length} CPUs; wrk 1 thread, ${CONNECTIONS} connections, ${DURATION_S} s per case`);

  // Publish the site through the gateway, as the deploy client does.
  const registration = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey, agentId: 'bench', contactId: 'bench' }),
  }).then((response) => response.json());
  const form = new FormData();
  form.set('projectName', 'bench-site');
  form.set('contactId', 'bench');
  form.set('archive', new Blob([readFileSync(archive)]), 'site.tar.gz');
  const deployed = await fetch(`${baseUrl}/api/deploy`, { method: 'POST', headers: { authorization: `Bearer ${registration.token}` }, body: form });
  const deployment = await deployed.json();
  if (deployed.status !== 201) throw new Error(`deploy failed: HTTP ${deployed.status} ${JSON.stringify(deployment)}`);
  const sitePath = new URL(deployment.url).pathname; // /bench/<directory_name>/
  const sitesRoot = join(dataDir, 'sites');
  if (!existsSync(join(sitesRoot, sitePath, 'big.bin'))) throw new Error(`the published site is not under ${sitesRoot} (DEPLOY_SITES_DIR moved?)`);
  const files = [
    { name: `${(BIG_BYTES / 1048576).toFixed(BIG_BYTES % 1048576 ? 2 : 0)} MiB file`, path: `${sitePath}big.bin`, bytes: BIG_BYTES },
    { name: 'index.html (folder URL)', path: sitePath, bytes: Buffer.byteLength(indexHtml) },
  ];
  const appHeaders = await probe(`${baseUrl}${files[0].path}`);
  const indexHeaders = await probe(`${baseUrl}${files[1].path}`);
  log(`app answers: big file HTTP ${appHeaders.status}, Cache-Control "${appHeaders.headers.get('cache-control')}", CSP "${appHeaders.headers.get('content-security-policy')}"; index.html Cache-Control "${indexHeaders.headers.get('cache-control')}"`);

  // The reference servers, on the same folder.
  const servers = [{ name: 'app', pid: app.pid, url: baseUrl }];
  const barePort = await freePort();
  const bare = spawn(process.execPath, ['bench/support/bare-static-server.mjs'], { env: { ...process.env, ROOT: sitesRoot, PORT: String(barePort) }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(bare);
  await waitFor(`http://127.0.0.1:${barePort}${files[1].path}`, 'the express.static reference');
  servers.push({ name: 'express.static', pid: bare.pid, url: `http://127.0.0.1:${barePort}` });
  if (nginxPath) {
    const nginxPort = await freePort();
    const nginxDir = join(work, 'nginx');
    mkdirSync(nginxDir);
    const config = join(nginxDir, 'nginx.conf');
    writeFileSync(
      config,
      `# One process (master_process off), as the other servers: its CPU is the cost of a request.
daemon off;
master_process off;
user root;
worker_processes 1;
pid ${nginxDir}/nginx.pid;
error_log ${nginxDir}/error.log warn;
events { worker_connections 1024; }
http {
  types { text/html html; application/octet-stream bin; }
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path ${nginxDir}/body;
  proxy_temp_path ${nginxDir}/proxy;
  fastcgi_temp_path ${nginxDir}/fastcgi;
  uwsgi_temp_path ${nginxDir}/uwsgi;
  scgi_temp_path ${nginxDir}/scgi;
  server {
    listen 127.0.0.1:${nginxPort};
    root ${sitesRoot};
    index index.html;
  }
}
`,
    );
    const nginx = spawn(nginxPath, ['-c', config, '-p', nginxDir], { stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(nginx);
    await waitFor(`http://127.0.0.1:${nginxPort}${files[1].path}`, 'nginx', () => !running(nginx));
    servers.push({ name: 'nginx', pid: nginx.pid, url: `http://127.0.0.1:${nginxPort}` });
  } else {
    log('nginx: not installed, its rows are skipped (Debian: apt-get install nginx-light)');
  }
  // Every server answers the same bytes before it is measured.
  for (const server of servers) {
    for (const file of files) {
      const answer = await probe(`${server.url}${file.path}`);
      if (answer.status !== 200 || answer.length !== file.bytes) throw new Error(`${server.name} ${file.path}: HTTP ${answer.status}, ${answer.length} bytes (expected ${file.bytes})`);
    }
  }
  for (const file of files) for (const server of servers) await measure(server, file.name, `${server.url}${file.path}`);
} catch (error) {
  failed = true;
  console.error(`bench failed: ${error.stack ?? error}${error.stderr ? `\n${error.stderr}` : ''}`);
} finally {
  for (const child of children) if (running(child)) child.kill('SIGTERM');
  if (!appExited) {
    const exited = new Promise((resolve) => app.once('exit', resolve));
    app.kill('SIGTERM');
    if (!(await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]))) {
      app.kill('SIGKILL');
      await exited;
    }
  }
  await database.stop().catch((error) => console.error(`stopping PostgreSQL: ${error}`));
  await sleep(200);
  rmSync(work, { recursive: true, force: true });
}

// 3. Figures and ratios.
if (results.length > 0) {
  console.log(`\n${'file'.padEnd(26)}${'server'.padEnd(16)}${'req/s'.padStart(9)}${'MiB/s'.padStart(8)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'err'.padStart(5)}${'load'.padStart(6)}${'server cpu'.padStart(12)}`);
  for (const row of results) {
    console.log(`${row.file.padEnd(26)}${row.server.padEnd(16)}${row.rps.toFixed(0).padStart(9)}${row.mibps.toFixed(0).padStart(8)}${row.p50.toFixed(2).padStart(9)}${row.p99.toFixed(2).padStart(9)}${String(row.errors).padStart(5)}${row.load.toFixed(1).padStart(6)}${row.cpuPerRequest.toFixed(3).padStart(9)} ms`);
  }
  console.log('');
  for (const file of [...new Set(results.map((row) => row.file))]) {
    const of = (server) => results.find((row) => row.file === file && row.server === server);
    const [own, bare, nginx] = [of('app'), of('express.static'), of('nginx')];
    if (!own || !bare) continue;
    const ratio = own.rps / bare.rps;
    const pass = ratio >= TARGET_RATIO && own.errors === 0;
    failed ||= !pass;
    console.log(
      `${file.padEnd(26)}app/express.static ${(ratio * 100).toFixed(0).padStart(4)} % req/s (target >= ${TARGET_RATIO * 100} %: ${pass ? 'PASS' : 'FAIL'}), cpu/req ${(own.cpuPerRequest / bare.cpuPerRequest).toFixed(2)}x` +
        (nginx ? `;  app/nginx ${((own.rps / nginx.rps) * 100).toFixed(0)} % req/s, cpu/req ${(own.cpuPerRequest / nginx.cpuPerRequest).toFixed(2)}x` : ';  nginx: skipped'),
    );
  }
}
process.exitCode = failed ? 1 : 0;
