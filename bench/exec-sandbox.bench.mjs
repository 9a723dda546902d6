#!/usr/bin/env node
// Overhead of the exec sandbox (issue 12 acceptance 2): `POST /api/exec {"command":"true"}` through the real app over
// HTTP, 50 calls with the bubblewrap sandbox and 50 without (DEPLOY_EXEC_SANDBOX=off), interleaved in one run so both
// see the same machine load. Prints median and p90 of each, the ratio and the added milliseconds per exec.
//
//   npm run build && node bench/exec-sandbox.bench.mjs          # embedded PostgreSQL in a temp folder
//   DATABASE_URL=postgres://… node bench/exec-sandbox.bench.mjs # or an existing server (one database per app)
//   BENCH_CALLS=50 BENCH_APP=dist/src/main.js node bench/exec-sandbox.bench.mjs
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const calls = Number(process.env.BENCH_CALLS ?? 50);
const appEntry = process.env.BENCH_APP ?? 'dist/src/main.js';
const work = mkdtempSync(join(tmpdir(), 'atrium-bench-exec-'));
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
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

/** With DATABASE_URL, each app gets its own fresh database on that server (dropped at the end). */
async function databaseFor(name) {
  if (!process.env.DATABASE_URL) return { env: { EMBEDDED_POSTGRES_PORT: String(await freePort()) }, drop: async () => {} };
  const database = `atrium_bench_exec_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${database}`;
  return {
    env: { DATABASE_URL: url.toString() },
    drop: async () => {
      const cleanup = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await cleanup.connect();
      await cleanup.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await cleanup.end();
    },
  };
}

/** Starts the built app with `extraEnv`, registers an agent, returns a `run(command)` that times one exec. */
async function startApp(name, extraEnv) {
  const port = await freePort();
  const database = await databaseFor(name);
  const env = {
    PATH: process.env.PATH,
    ...(process.env.NODE_PATH ? { NODE_PATH: process.env.NODE_PATH } : {}),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: join(work, name),
    DEPLOY_REGISTRATION_KEY: registrationKey,
    DEPLOY_OWNER_TOKEN: 'bench-owner-token-0123456789abcdef',
    ...database.env,
    ...extraEnv,
  };
  const app = spawn(process.execPath, [appEntry], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  let exited = false;
  app.once('exit', () => (exited = true));
  const baseUrl = `http://127.0.0.1:${port}`;
  for (let attempt = 0; ; attempt++) {
    if (await fetch(`${baseUrl}/api/health`).then((response) => response.ok).catch(() => false)) break;
    if (exited || attempt > 120) throw new Error(`the ${name} app did not start (did you run npm run build?)`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const registration = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey, agentId: `bench-${name}`, contactId: `bench-${name}` }),
  }).then((response) => response.json());
  return {
    async run(command) {
      const start = process.hrtime.bigint();
      const response = await fetch(`${baseUrl}/api/exec`, {
        method: 'POST',
        headers: { authorization: `Bearer ${registration.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ command }),
      });
      const result = await response.json();
      const elapsed = ms(start);
      if (response.status !== 200 || result.exitCode !== 0) throw new Error(`${name}: exec failed: ${response.status} ${JSON.stringify(result)}`);
      return { request: elapsed, server: result.durationMs, stdout: result.stdout };
    },
    async stop() {
      if (!exited) {
        app.kill('SIGTERM');
        await new Promise((resolve) => app.once('exit', resolve));
      }
      await database.drop();
    },
  };
}

const apps = [];
try {
  const sandboxed = await startApp('sandbox', { DEPLOY_EXEC_SANDBOX: 'on' });
  apps.push(sandboxed);
  const bare = await startApp('bare', { DEPLOY_EXEC_SANDBOX: 'off' });
  apps.push(bare);
  // The sandboxed app really confines: its command runs as another user in its own PID namespace.
  const check = await sandboxed.run('echo "$(id -u) $$"');
  if (check.stdout.trim() === `${process.getuid?.()} ${process.pid}` || !/^\d+ \d+$/.test(check.stdout.trim())) throw new Error(`the sandbox is not on: ${check.stdout}`);
  if (!check.stdout.trim().endsWith(' 2')) throw new Error(`expected the command to be PID 2 of its own namespace, got ${check.stdout}`);
  for (let warm = 0; warm < 5; warm++) {
    await sandboxed.run('true');
    await bare.run('true');
  }
  const times = { sandbox: { request: [], server: [] }, bare: { request: [], server: [] } };
  for (let call = 0; call < calls; call++) {
    // Alternate which goes first, so neither always follows the other's garbage or cache effects.
    const order = call % 2 === 0 ? [['sandbox', sandboxed], ['bare', bare]] : [['bare', bare], ['sandbox', sandboxed]];
    for (const [name, app] of order) {
      const { request, server } = await app.run('true');
      times[name].request.push(request);
      times[name].server.push(server);
    }
  }
  const row = (label, values) => console.log(`${label.padEnd(40)} median ${quantile(values, 0.5).toFixed(1).padStart(7)} ms   p90 ${quantile(values, 0.9).toFixed(1).padStart(7)} ms`);
  console.log(`${calls} calls of \`true\` each, interleaved, through POST /api/exec over HTTP`);
  row('without sandbox: whole request', times.bare.request);
  row('with sandbox:    whole request', times.sandbox.request);
  row('without sandbox: durationMs (spawn→exit)', times.bare.server);
  row('with sandbox:    durationMs (spawn→exit)', times.sandbox.server);
  const ratio = quantile(times.sandbox.request, 0.5) / quantile(times.bare.request, 0.5);
  console.log(`ratio sandbox/bare, whole request (median): ${ratio.toFixed(2)}`);
  console.log(`added per exec (median request): ${(quantile(times.sandbox.request, 0.5) - quantile(times.bare.request, 0.5)).toFixed(1)} ms`);
  console.log(`added per exec (median durationMs): ${(quantile(times.sandbox.server, 0.5) - quantile(times.bare.server, 0.5)).toFixed(1)} ms`);
} finally {
  for (const app of apps) await app.stop();
  rmSync(work, { recursive: true, force: true });
}
