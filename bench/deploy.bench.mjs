#!/usr/bin/env node
// Deploys a generated site of about 5,000 files / 50 MiB through the real gateway (the built app, over HTTP) and
// prints, in the same run, `tar -xzf` of the same archive (the reference), the gateway's unpack + publish time
// (`elapsedSeconds`: from the archive's first byte reaching the server to the commit; the archive is unpacked while it
// arrives) and the whole HTTP request including the upload, with their ratios to tar (issue 14 acceptance 2:
// whole request <= 1.3x, unpack + publish <= 1.1x). Rounds interleave tar and the gateway, each after `sync`.
// Each row prints best, median and every round; the CPU rows (user + system, all threads: tar's gzip and tar processes,
// the app's whole process, then per thread: `main` is the event loop, `node` every other thread of the app: the libuv
// pool (inflating), V8's helpers (GC, compiler) and the writer thread) say what a round cost, which the wall times hide
// on a shared machine. The first deploy(s)
// of the process (module loading, JIT warm-up, the writer thread's start) are printed apart, before the rounds.
//
//   npm run build && node bench/deploy.bench.mjs            # embedded PostgreSQL in a temp folder
//   TMPDIR=/dev/shm node bench/deploy.bench.mjs             # on tmpfs: on a disk, tar itself varies 10x between rounds
//   BENCH_FILES=5000 BENCH_MB=50 BENCH_ROUNDS=11 BENCH_WARMUP=1 node bench/deploy.bench.mjs
//   BENCH_APP_MAIN=/path/to/dist/src/main.js                # another build of the app
//   BENCH_APP_MAIN=/old/dist/src/main.js,dist/src/main.js   # several builds, interleaved in the same rounds (A, B, …)
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'   # node flags for the app, after npm start's
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { appStartFlags } from './support/child-process.mjs';

const files = Number(process.env.BENCH_FILES ?? 5000);
const totalBytes = Number(process.env.BENCH_MB ?? 50) * 1024 * 1024;
const rounds = Number(process.env.BENCH_ROUNDS ?? 11); // enough for a median that one busy moment does not move
const work = mkdtempSync(join(tmpdir(), 'atrium-bench-'));
chmodSync(work, 0o755); // run as root, the embedded PostgreSQL runs as `postgres` and must reach its data folder
const registrationKey = 'bench-registration-key-0123456789';

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
/** CPU time (user + system, ms) of process `pid` so far (Linux /proc, 10 ms ticks); with `reaped`, plus its waited-for children's. */
const cpuMsOf = (pid, reaped = false, fieldsWanted = [11, 12]) => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const wanted = reaped ? [...fieldsWanted, ...fieldsWanted.map((field) => field + 2)] : fieldsWanted;
    return (wanted.reduce((sum, field) => sum + Number(fields[field]), 0) * 1000) / 100;
  } catch {
    return 0;
  }
};

// 1. A site: nested folders, mixed sizes (mostly small, some large), random content so gzip cannot shrink it.
const site = join(work, 'site');
let written = 0;
for (let index = 0; index < files; index++) {
  const dir = join(site, `section-${index % 40}`, `page-${index % 7}`);
  mkdirSync(dir, { recursive: true });
  const remaining = totalBytes - written;
  const size = index === files - 1 ? Math.max(remaining, 0) : Math.min(remaining, index % 50 === 0 ? 200_000 : 4_000 + (index % 13) * 700);
  writeFileSync(join(dir, `file-${index}.${['html', 'css', 'js', 'json', 'png'][index % 5]}`), randomBytes(Math.max(size, 0)));
  written += Math.max(size, 0);
}
const archive = join(work, 'site.tar.gz');
execFileSync('tar', ['-czf', archive, '-C', site, '.']);
const archiveBytes = statSync(archive).size;
console.log(`site: ${files} files, ${(written / 1048576).toFixed(1)} MiB unpacked, archive ${(archiveBytes / 1048576).toFixed(1)} MiB`);

// 2. Start the built app (or each of several builds, to compare them in one run) and register.
// As `npm start` runs it (package.json's node flags), then BENCH_NODE_ARGS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
const startFlags = appStartFlags();
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const appMains = (process.env.BENCH_APP_MAIN ?? 'dist/src/main.js').split(',').filter(Boolean);
const warmups = Number(process.env.BENCH_WARMUP ?? 1);

/**
 * CPU ms (user + system) of each kind of thread of process `pid`, by thread name: `main` (the event loop), `libuv`
 * (the pool: zlib, fs callbacks), `V8` (GC and compiler helpers), `node` (worker threads), …; {} when unreadable.
 */
function cpuByThread(pid) {
  const totals = {};
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).split(/[ -]/)[0];
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      totals[name] = (totals[name] ?? 0) + ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
    }
  } catch {
    // a thread ended while being read: its time is lost to this round only
  }
  return totals;
}

/** Starts one build with its own data folder, embedded PostgreSQL and port. */
async function startApp(appMain, index) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    LOG_LEVEL: 'warn',
    DATA_DIR: join(work, `data-${index}`),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    DEPLOY_REGISTRATION_KEY: registrationKey,
    DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
    DEPLOY_MAX_ARCHIVE_BYTES: String(archiveBytes * 2),
  };
  const child = spawn(process.execPath, [...nodeArgs, appMain], { env, stdio: ['ignore', process.env.BENCH_APP_LOG ? 'inherit' : 'ignore', 'inherit'] });
  const app = { main: appMain, label: appMains.length > 1 ? `gateway ${String.fromCharCode(65 + index)}` : 'gateway', child, baseUrl: `http://127.0.0.1:${port}`, exited: false };
  app.serverTimes = [];
  app.requestTimes = [];
  app.cpu = [];
  app.systemCpu = [];
  app.threadCpu = {};
  child.once('exit', () => (app.exited = true));
  return app;
}

async function register(app) {
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${app.baseUrl}/api/health`).then((response) => response.ok).catch(() => false);
    if (up) break;
    if (app.exited || attempt > 120) throw new Error(`the app did not start (did you run npm run build? ${app.main})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const registration = await fetch(`${app.baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey, agentId: 'bench', contactId: 'bench' }),
  }).then((response) => response.json());
  app.token = registration.token;
}

/** POST /api/deploy over node:http, the archive part streamed from disk (as curl -F does); resolves status and JSON. */
function deploy(app) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="projectName"\r\n\r\nbench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="contactId"\r\n\r\nbench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${app.baseUrl}/api/deploy`, {
      method: 'POST',
      agent: false, // a fresh connection per round: a kept-alive one may be closed by the server between rounds
      headers: { authorization: `Bearer ${app.token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + archiveBytes + tail.length) },
    });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.on('error', reject);
    req.write(head);
    const source = createReadStream(archive, { highWaterMark: 1024 * 1024 });
    source.on('error', reject);
    source.on('end', () => req.end(tail));
    source.pipe(req, { end: false });
  });
}

/** One timed deploy through `app` (after `sync`), recorded in `into` (its rows), then deleted. */
async function timedDeploy(app, into) {
  execFileSync('sync');
  const cpuBefore = cpuMsOf(app.child.pid);
  const systemBefore = cpuMsOf(app.child.pid, false, [12]);
  const threadsBefore = cpuByThread(app.child.pid);
  const start = process.hrtime.bigint();
  const { status, body: result } = await deploy(app);
  into.requestTimes.push(ms(start));
  into.cpu.push(cpuMsOf(app.child.pid) - cpuBefore);
  into.systemCpu.push(cpuMsOf(app.child.pid, false, [12]) - systemBefore);
  if (into.threadCpu) {
    for (const [name, total] of Object.entries(cpuByThread(app.child.pid))) (into.threadCpu[name] ??= []).push(total - (threadsBefore[name] ?? 0));
  }
  if (status !== 201) throw new Error(`deploy failed: ${JSON.stringify(result)}`);
  if (result.fileCount !== files) throw new Error(`expected ${files} files, the gateway published ${result.fileCount}`);
  into.serverTimes.push(result.elapsedSeconds * 1000);
  await fetch(`${app.baseUrl}/api/deploy/${result.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${app.token}` } });
}

/** `tar -xzf` into a fresh folder beside the apps' data (after `sync`): wall and CPU (gzip + tar, reaped children) ms. */
function timedTar(round) {
  const target = join(work, `tar-${round}`);
  mkdirSync(target);
  execFileSync('sync');
  const cpuBefore = cpuMsOf(process.pid, true) - cpuMsOf(process.pid);
  const start = process.hrtime.bigint();
  execFileSync('tar', ['-xzf', archive, '-C', target]);
  const wall = ms(start);
  const cpu = cpuMsOf(process.pid, true) - cpuMsOf(process.pid) - cpuBefore;
  rmSync(target, { recursive: true, force: true });
  return { wall, cpu };
}

const apps = [];
const tarTimes = [];
const tarCpu = [];
try {
  for (const [index, appMain] of appMains.entries()) apps.push(await startApp(appMain, index));
  for (const app of apps) await register(app);
  readFileSync(archive); // into the page cache, for every side

  // 3. The first deploys of a process pay module loading, JIT warm-up and the writer thread's start: shown apart.
  const cold = apps.map(() => ({ serverTimes: [], requestTimes: [], cpu: [], systemCpu: [] }));
  const coldTar = [];
  for (let round = 0; round < warmups; round++) {
    coldTar.push(timedTar(`warm-${round}`).wall);
    for (const [index, app] of apps.entries()) await timedDeploy(app, cold[index]);
  }

  // 4. Rounds, interleaved: tar -xzf, then the same archive through each gateway (their order turns every round).
  for (let round = 0; round < rounds; round++) {
    const tar = timedTar(round);
    tarTimes.push(tar.wall);
    tarCpu.push(tar.cpu);
    for (let turn = 0; turn < apps.length; turn++) await timedDeploy(apps[(round + turn) % apps.length], apps[(round + turn) % apps.length]);
  }

  const row = (name, values) =>
    console.log(`${name.padEnd(52)} best ${Math.min(...values).toFixed(0).padStart(6)} ms   median ${median(values).toFixed(0).padStart(6)} ms   rounds ${values.map((value) => value.toFixed(0)).join(' ')}`);
  const ratio = (name, values, target) =>
    console.log(
      `ratio ${name.padEnd(46)} best ${(Math.min(...values) / Math.min(...tarTimes)).toFixed(2)}   median ${(median(values) / median(tarTimes)).toFixed(2)}   (target <= ${target})`,
    );
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (const [index, app] of apps.entries()) if (apps.length > 1) console.log(`${app.label}: ${app.main}`);
  if (warmups > 0) {
    console.log(`first ${warmups} deploy(s) of each process (cold; not in the rounds below):`);
    row('  tar -xzf', coldTar);
    for (const [index, app] of apps.entries()) {
      row(`  ${app.label}: unpack + publish`, cold[index].serverTimes);
      row(`  ${app.label}: whole HTTP request incl. upload`, cold[index].requestTimes);
    }
  }
  console.log(`rounds: ${rounds}, interleaved, each after sync; load average ${load} (${availableParallelism()} CPUs)`);
  row('tar -xzf (reference)', tarTimes);
  for (const app of apps) {
    row(`${app.label}: unpack + publish (elapsedSeconds)`, app.serverTimes);
    row(`${app.label}: whole HTTP request incl. upload`, app.requestTimes);
  }
  for (const app of apps) {
    ratio(`${app.label}: unpack + publish / tar`, app.serverTimes, 1.1);
    ratio(`${app.label}: whole request / tar`, app.requestTimes, 1.3);
  }
  // CPU (user + system, all threads and processes) says what the wall times cost when the machine is shared.
  row('cpu: tar -xzf (gzip + tar)', tarCpu);
  for (const app of apps) {
    row(`cpu: ${app.label}, whole request`, app.cpu);
    row(`cpu: ${app.label}, whole request, system part`, app.systemCpu);
    for (const [name, values] of Object.entries(app.threadCpu)) row(`cpu: ${app.label}, ${name} thread(s)`, values);
  }
} finally {
  for (const app of apps) {
    if (app.exited) continue;
    app.child.kill('SIGTERM');
    await new Promise((resolve) => app.child.once('exit', resolve));
  }
  rmSync(work, { recursive: true, force: true });
}
