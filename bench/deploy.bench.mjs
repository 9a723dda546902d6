#!/usr/bin/env node
// Deploys a generated site of about 5,000 files / 50 MB through the real gateway (the built app, over HTTP) and
// prints its time beside `tar -xzf` of the same archive on the same machine, and the ratio (target: at most 1.5).
//
//   npm run build && node bench/deploy.bench.mjs            # embedded PostgreSQL in a temp folder
//   DATABASE_URL=postgres://… node bench/deploy.bench.mjs   # or an existing server
//   BENCH_FILES=5000 BENCH_MB=50 BENCH_ROUNDS=3 node bench/deploy.bench.mjs
import { spawn, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const files = Number(process.env.BENCH_FILES ?? 5000);
const totalBytes = Number(process.env.BENCH_MB ?? 50) * 1024 * 1024;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
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

// 2. tar -xzf, best and median of the rounds.
const tarTimes = [];
for (let round = 0; round < rounds; round++) {
  const target = join(work, `tar-${round}`);
  mkdirSync(target);
  const start = process.hrtime.bigint();
  execFileSync('tar', ['-xzf', archive, '-C', target]);
  tarTimes.push(ms(start));
  rmSync(target, { recursive: true, force: true });
}

// 3. The gateway: start the built app, register, deploy the same archive each round.
const port = await freePort();
const env = {
  ...process.env,
  PORT: String(port),
  LOG_LEVEL: 'warn',
  DATA_DIR: join(work, 'data'),
  EMBEDDED_POSTGRES_PORT: String(await freePort()),
  DEPLOY_REGISTRATION_KEY: registrationKey,
  DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
  DEPLOY_MAX_ARCHIVE_BYTES: String(archiveBytes * 2),
};
const app = spawn(process.execPath, ['dist/src/main.js'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
const baseUrl = `http://127.0.0.1:${port}`;
let appExited = false;
app.once('exit', () => (appExited = true));
try {
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`${baseUrl}/api/health`).then((response) => response.ok).catch(() => false);
    if (up) break;
    if (appExited || attempt > 120) throw new Error('the app did not start (did you run npm run build?)');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const registration = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey, agentId: 'bench', contactId: 'bench' }),
  }).then((response) => response.json());
  const serverTimes = [];
  const requestTimes = [];
  const body = readFileSync(archive);
  for (let round = 0; round < rounds; round++) {
    const form = new FormData();
    form.set('projectName', 'bench');
    form.set('contactId', 'bench');
    form.set('archive', new Blob([body]), 'site.tar.gz');
    const start = process.hrtime.bigint();
    const response = await fetch(`${baseUrl}/api/deploy`, { method: 'POST', headers: { authorization: `Bearer ${registration.token}` }, body: form });
    const result = await response.json();
    requestTimes.push(ms(start));
    if (response.status !== 201) throw new Error(`deploy failed: ${JSON.stringify(result)}`);
    if (result.fileCount !== files) throw new Error(`expected ${files} files, the gateway published ${result.fileCount}`);
    serverTimes.push(result.elapsedSeconds * 1000);
  }
  const row = (name, values) => console.log(`${name.padEnd(44)} best ${Math.min(...values).toFixed(0).padStart(6)} ms   median ${median(values).toFixed(0).padStart(6)} ms`);
  row('tar -xzf', tarTimes);
  row('gateway: unpack + publish (elapsedSeconds)', serverTimes);
  row('gateway: whole HTTP request incl. upload', requestTimes);
  console.log(`ratio gateway/tar (best): ${(Math.min(...serverTimes) / Math.min(...tarTimes)).toFixed(2)}   (target <= 1.5)`);
  console.log(`ratio whole request/tar (best): ${(Math.min(...requestTimes) / Math.min(...tarTimes)).toFixed(2)}`);
} finally {
  if (!appExited) {
    app.kill('SIGTERM');
    await new Promise((resolve) => app.once('exit', resolve));
  }
  rmSync(work, { recursive: true, force: true });
}
