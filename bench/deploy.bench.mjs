#!/usr/bin/env node
// Deploys a generated site of about 5,000 files / 50 MiB through the real gateway (the built app, over HTTP) and
// prints, in the same run, `tar -xzf` of the same archive (the reference), the gateway's unpack + publish time
// (`elapsedSeconds`: from the archive's first byte reaching the server to the commit; the archive is unpacked while it
// arrives) and the whole HTTP request including the upload, with their ratios to tar (issue 14 acceptance 2:
// whole request <= 1.3x, unpack + publish <= 1.1x). Rounds interleave tar and the gateway, each after `sync`.
//
//   npm run build && node bench/deploy.bench.mjs            # embedded PostgreSQL in a temp folder
//   DATABASE_URL=postgres://… node bench/deploy.bench.mjs   # or an existing server
//   BENCH_FILES=5000 BENCH_MB=50 BENCH_ROUNDS=5 node bench/deploy.bench.mjs
//   BENCH_APP_MAIN=/path/to/dist/src/main.js                # another build of the app
//   BENCH_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof'   # node flags for the app, after npm start's
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const files = Number(process.env.BENCH_FILES ?? 5000);
const totalBytes = Number(process.env.BENCH_MB ?? 50) * 1024 * 1024;
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
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

// 2. Start the built app and register.
const port = await freePort();
const dataDir = join(work, 'data');
const env = {
  ...process.env,
  PORT: String(port),
  LOG_LEVEL: 'warn',
  DATA_DIR: dataDir,
  EMBEDDED_POSTGRES_PORT: String(await freePort()),
  DEPLOY_REGISTRATION_KEY: registrationKey,
  DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
  DEPLOY_MAX_ARCHIVE_BYTES: String(archiveBytes * 2),
};
const appMain = process.env.BENCH_APP_MAIN ?? 'dist/src/main.js';
// As `npm start` runs it (package.json's node flags), then BENCH_NODE_ARGS (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
const startFlags = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start.split(' ').filter((word) => word.startsWith('--'));
const nodeArgs = [...startFlags, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const app = spawn(process.execPath, [...nodeArgs, appMain], { env, stdio: ['ignore', process.env.BENCH_APP_LOG ? 'inherit' : 'ignore', 'inherit'] });
const baseUrl = `http://127.0.0.1:${port}`;
let appExited = false;
app.once('exit', () => (appExited = true));

/** POST /api/deploy over node:http, the archive part streamed from disk (as curl -F does); resolves status and JSON. */
function deploy(token) {
  const boundary = `----bench${randomBytes(8).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="projectName"\r\n\r\nbench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="contactId"\r\n\r\nbench\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="site.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${baseUrl}/api/deploy`, {
      method: 'POST',
      agent: false, // a fresh connection per round: a kept-alive one may be closed by the server between rounds
      headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(head.length + archiveBytes + tail.length) },
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

const tarTimes = [];
const serverTimes = [];
const requestTimes = [];
try {
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${baseUrl}/api/health`).then((response) => response.ok).catch(() => false);
    if (up) break;
    if (appExited || attempt > 120) throw new Error(`the app did not start (did you run npm run build? ${appMain})`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const registration = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey, agentId: 'bench', contactId: 'bench' }),
  }).then((response) => response.json());
  readFileSync(archive); // into the page cache, for both sides

  // 3. Rounds, interleaved: tar -xzf into a fresh folder beside the app's data, then the same archive through the gateway.
  for (let round = 0; round < rounds; round++) {
    const target = join(work, `tar-${round}`);
    mkdirSync(target);
    execFileSync('sync');
    let start = process.hrtime.bigint();
    execFileSync('tar', ['-xzf', archive, '-C', target]);
    tarTimes.push(ms(start));
    rmSync(target, { recursive: true, force: true });

    execFileSync('sync');
    start = process.hrtime.bigint();
    const { status, body: result } = await deploy(registration.token);
    requestTimes.push(ms(start));
    if (status !== 201) throw new Error(`deploy failed: ${JSON.stringify(result)}`);
    if (result.fileCount !== files) throw new Error(`expected ${files} files, the gateway published ${result.fileCount}`);
    serverTimes.push(result.elapsedSeconds * 1000);
    await fetch(`${baseUrl}/api/deploy/${result.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${registration.token}` } });
  }
  const row = (name, values) => console.log(`${name.padEnd(48)} best ${Math.min(...values).toFixed(0).padStart(6)} ms   median ${median(values).toFixed(0).padStart(6)} ms`);
  const ratio = (name, values, target) =>
    console.log(
      `ratio ${name.padEnd(42)} best ${(Math.min(...values) / Math.min(...tarTimes)).toFixed(2)}   median ${(median(values) / median(tarTimes)).toFixed(2)}   (target <= ${target})`,
    );
  console.log(`rounds: ${rounds}, interleaved, each after sync`);
  row('tar -xzf (reference)', tarTimes);
  row('gateway: unpack + publish (elapsedSeconds)', serverTimes);
  row('gateway: whole HTTP request incl. upload', requestTimes);
  ratio('unpack + publish / tar', serverTimes, 1.1);
  ratio('whole request / tar', requestTimes, 1.3);
} finally {
  if (!appExited) {
    app.kill('SIGTERM');
    await new Promise((resolve) => app.once('exit', resolve));
  }
  rmSync(work, { recursive: true, force: true });
}
