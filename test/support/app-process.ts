import { transformSync } from '@swc/core';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';
import type { PostgresCluster } from './postgres-cluster';

const ROOT = join(__dirname, '../..');

/** The V8 flags `npm start` (and the Docker image) run the app with (`--max-old-space-size`, `--max-semi-space-size`), read from package.json. */
export const START_FLAGS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string).split(/\s+/).filter((word) => word.startsWith('--'));

/**
 * Keys of the apps started here. Not test-app.ts's: importing it loads the whole AppModule into Jest, which these
 * tests never use (the app runs as a child).
 */
export const CHILD_REGISTRATION_KEY = 'child-registration-key-0123456789';
export const CHILD_OWNER_TOKEN = 'child-owner-token-0123456789abcdefghij';
const CHILD_SECRET_KEY = randomBytes(32).toString('hex');

/**
 * Compiles src/ and migrations/ the way `npm run build` lays them out (dist/src/main.js), with SWC (the compiler the
 * tests use), into `outDir`, so a test can start the app as `npm start` does, as a child process it may signal, stop
 * or kill; a type error elsewhere in the tree can't stop such a test.
 * @returns the path of the compiled main.js
 */
export function buildApp(outDir: string): string {
  // ATRIUM_TEST_APP_SOURCE: compile another checkout's src/ and migrations/ (e.g. a snapshot while the tree is edited).
  const source = process.env.ATRIUM_TEST_APP_SOURCE ?? ROOT;
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [join(folder, entry.name)] : []));
  for (const file of [...walk(join(source, 'src')), ...walk(join(source, 'migrations'))]) {
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      filename: file,
      jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    const out = join(outDir, relative(source, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
  return join(outDir, 'src', 'main.js');
}

/** An app started as a child process. */
export interface AppProcess {
  baseUrl: string;
  child: ChildProcess;
  /** Resolves with the exit status (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  output: string[];
}

/**
 * Starts the compiled app (see {@link buildApp}) on a free port of 127.0.0.1 with the test keys, `env` on top, and
 * waits until GET /api/health answers 200.
 * @param mainJs compiled main.js
 * @param env DATABASE_URL, DATA_DIR and whatever the test sets
 * @throws Error with the app's last output when it exits or is not healthy within 120 s
 */
export async function startAppProcess(mainJs: string, env: Record<string, string>): Promise<AppProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--max-old-space-size=512', mainJs], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_PATH: join(ROOT, 'node_modules'),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ATRIUM_SECRET_KEY: CHILD_SECRET_KEY,
      DEPLOY_REGISTRATION_KEY: CHILD_REGISTRATION_KEY,
      DEPLOY_OWNER_TOKEN: CHILD_OWNER_TOKEN,
      DEPLOY_PUBLIC_URL: `http://127.0.0.1:${port}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => output.push(String(chunk)));
  child.stderr!.on('data', (chunk: Buffer) => output.push(String(chunk)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const app = { baseUrl: `http://127.0.0.1:${port}`, child, exited, output };
  for (let waited = 0; ; waited += 250) {
    const healthy = await fetch(`${app.baseUrl}/api/health`, { signal: AbortSignal.timeout(5000) }).then((response) => response.status === 200, () => false);
    if (healthy) break;
    if (waited > 120_000 || child.exitCode !== null) throw new Error(`the app did not start: ${output.join('').slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return app;
}

/**
 * Registers a new deploy agent on a child app (POST /api/auth/register with {@link CHILD_REGISTRATION_KEY}).
 * @returns its token and namespace (contactId)
 * @throws Error when the app does not answer 201
 */
export async function registerChildAgent(baseUrl: string): Promise<{ token: string; contactId: string }> {
  const suffix = randomBytes(4).toString('hex');
  const contactId = `c-${suffix}`;
  const response = await fetch(`${baseUrl}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ registrationKey: CHILD_REGISTRATION_KEY, agentId: `agent-${suffix}`, contactId }),
  });
  if (response.status !== 201) throw new Error(`registration answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { token: string };
  return { token: body.token, contactId };
}

/** Kills the app with SIGKILL if it still runs, and waits for it. */
export async function killAppProcess(app: AppProcess | undefined): Promise<void> {
  if (!app) return;
  if (app.child.exitCode === null && app.child.signalCode === null) app.child.kill('SIGKILL');
  await app.exited;
}

/**
 * Creates database `name` on `cluster` and returns its superuser URL.
 */
export async function createClusterDatabase(cluster: PostgresCluster, name: string): Promise<string> {
  const admin = new Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster.url);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Pids of `pid`'s child processes (from `ps`), e.g. a postmaster's backends. */
export function childPids(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((line) => Number(line.trim()))
      .filter((value) => value > 0);
  } catch {
    return [];
  }
}

/**
 * Freezes a whole PostgreSQL server (postmaster first, so it forks nothing new, then every backend and helper), as a
 * hung host would look: TCP still accepts, nothing answers.
 * @returns a function that thaws it (backends first, then the postmaster)
 */
export function freezeCluster(cluster: PostgresCluster): () => void {
  const postmaster = cluster.pid();
  if (!postmaster) throw new Error('the cluster is not running');
  process.kill(postmaster, 'SIGSTOP');
  const children = childPids(postmaster);
  for (const pid of children) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of childPids(postmaster)) process.kill(pid, 'SIGCONT');
    process.kill(postmaster, 'SIGCONT');
  };
}
