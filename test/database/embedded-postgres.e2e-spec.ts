import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import PgBoss from 'pg-boss';
import request from 'supertest';
import { credentialsFileOf, processAlive, readEmbeddedCredentials } from '../../src/database/embedded-cluster-state';
import { freePort } from '../support/free-port';
import { clusterFolder, createPostgresCluster } from '../support/postgres-cluster';

const ROOT = join(__dirname, '..', '..');
const REGISTER = './test/chat/support/swc-register.cjs';

/** A running Atrium child process (src/main.ts from source, as `npm start` runs the build) and its stderr. */
interface AppProcess {
  child: ChildProcess;
  baseUrl: string;
  stderr(): string;
  exited: Promise<number | null>;
}

function startApp(env: Record<string, string>): AppProcess {
  const port = env.PORT;
  const child = spawn(process.execPath, ['-r', REGISTER, 'src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', LOG_LEVEL: 'warn', CHAT_PUBLIC_URL: `http://127.0.0.1:${port}`, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  return { child, baseUrl: `http://127.0.0.1:${port}`, stderr: () => stderr, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
}

async function waitHealthy(app: AppProcess, timeoutMs = 120_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const up = await request(app.baseUrl).get('/api/health').then((r) => r.status === 200, () => false);
    if (up) return;
    if (app.child.exitCode !== null) throw new Error(`the app exited with ${app.child.exitCode}:\n${app.stderr()}`);
    if (Date.now() > deadline) throw new Error(`the app did not become healthy:\n${app.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function runCli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-r', REGISTER, script, ...args], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const postmasterPid = (pgDir: string) => Number(readFileSync(join(pgDir, 'postmaster.pid'), 'utf8').split('\n')[0]);

/**
 * Issue 19, items 5 and 6, on the embedded default (DATABASE_URL unset): a cluster made before issue 19 (superuser
 * atrium/atrium owning everything, pg-boss's schema included) is migrated at start; the app then connects as a
 * non-superuser owner that can still create pg_trgm; after `kill -9` of the app, its orphaned PostgreSQL is stopped
 * by the next start, which succeeds without manual steps; a failed start prints the real cause.
 */
describe('embedded PostgreSQL: credentials, owner role, restart after a crash (issue 19)', () => {
  let dataDir: string;
  let pgDir: string;
  let pgPort: number;
  let app: AppProcess | undefined;

  beforeAll(async () => {
    dataDir = clusterFolder('atrium-embedded');
    pgDir = join(dataDir, 'postgres');
    pgPort = await freePort();
    // The cluster an Atrium before issue 19 left: superuser atrium/atrium (password auth), its database `atrium`
    // with app tables and pg-boss's schema, all owned by that superuser.
    const legacy = await createPostgresCluster({ dataDir: pgDir, port: pgPort, user: 'atrium', password: 'atrium', authMethod: 'password' });
    await legacy.start();
    const admin = new Client({ connectionString: legacy.url });
    await admin.connect();
    await admin.query('CREATE DATABASE atrium');
    await admin.end();
    const db = new Client({ connectionString: legacy.url.replace(/\/postgres$/, '/atrium') });
    await db.connect();
    await db.query('CREATE TABLE legacy_note (id serial PRIMARY KEY, body text NOT NULL)');
    await db.query("INSERT INTO legacy_note (body) VALUES ('written before issue 19')");
    await db.query('CREATE VIEW legacy_note_view AS SELECT body FROM legacy_note');
    await db.query(PgBoss.getConstructionPlans('pgboss'));
    await db.end();
    await legacy.stop();
  }, 120_000);

  afterAll(async () => {
    if (app && app.child.exitCode === null) {
      app.child.kill('SIGTERM');
      await app.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(credentialsFileOf(pgDir), { force: true });
  });

  it('migrates an atrium/atrium cluster: new passwords, a non-superuser owner of every object, pg_trgm still creatable', async () => {
    app = startApp({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(pgPort) });
    await waitHealthy(app);
    expect(statSync(credentialsFileOf(pgDir)).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    const credentials = (await readEmbeddedCredentials(pgDir))!;
    expect(credentials.superuserPassword).not.toBe('atrium');
    expect(credentials.initPassword).toBeUndefined();

    // ATTACK: the fixed password of old clusters no longer opens the server.
    const old = new Client({ host: '127.0.0.1', port: pgPort, user: 'atrium', password: 'atrium', database: 'postgres' });
    await expect(old.connect()).rejects.toMatchObject({ code: '28P01' });
    await old.end().catch(() => undefined);

    const owner = new Client({ host: '127.0.0.1', port: pgPort, user: credentials.owner, password: credentials.ownerPassword, database: 'atrium' });
    await owner.connect();
    try {
      expect((await owner.query('SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user')).rows).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false }]);
      expect((await owner.query('SELECT body FROM legacy_note_view')).rows).toEqual([{ body: 'written before issue 19' }]);
      const stillSuperuserOwned = await owner.query(`
        SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user)
           AND n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'`);
      expect(stillSuperuserOwned.rows).toEqual([]);
      expect((await owner.query("SELECT nspowner::regrole::text AS owner FROM pg_namespace WHERE nspname = 'pgboss'")).rows).toEqual([{ owner: credentials.owner }]);
      expect((await owner.query("SELECT datdba::regrole::text AS owner FROM pg_database WHERE datname = 'atrium'")).rows).toEqual([{ owner: credentials.owner }]);
      await owner.query('CREATE EXTENSION IF NOT EXISTS pg_trgm');
      expect((await owner.query("SELECT similarity('atrium', 'atria') > 0 AS similar")).rows).toEqual([{ similar: true }]);
      // ATTACK: the app's role cannot act as a superuser.
      await expect(owner.query("COPY (SELECT 1) TO PROGRAM 'true'")).rejects.toMatchObject({ code: '42501' });
      await expect(owner.query('CREATE DATABASE other_atrium')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await owner.end();
    }
    // Jobs run as the new owner on the migrated pg-boss schema (the app created its queues there).
    await request(app.baseUrl).get('/api/health').expect(200);
  }, 180_000);

  it('uses the running server from a CLI on another EMBEDDED_POSTGRES_PORT (postmaster.pid names the port)', async () => {
    const listed = await runCli('src/cli/chat/main.ts', ['tenant', 'list', '--json'], { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) });
    expect(listed).toEqual({ code: 0, stdout: '[]\n', stderr: '' });
  }, 120_000);

  it('starts again after kill -9 of the app: the orphaned PostgreSQL is stopped, no manual step', async () => {
    const orphan = postmasterPid(pgDir);
    app!.child.kill('SIGKILL');
    await app!.exited;
    expect(processAlive(orphan)).toBe(true); // the crash left the server running, holding the data folder
    app = startApp({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(pgPort) });
    await waitHealthy(app);
    expect(processAlive(orphan)).toBe(false);
    expect(postmasterPid(pgDir)).not.toBe(orphan);
    // ATTACK: a second app on the same DATA_DIR while the first lives is refused, naming the holder; the first keeps serving.
    const second = startApp({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_POSTGRES_PORT: String(await freePort()) });
    expect(await second.exited).toBe(1);
    expect(second.stderr()).toMatch(/Atrium failed to start: Error: The embedded PostgreSQL on .* belongs to a running process \(pid \d+\)/);
    await request(app.baseUrl).get('/api/health').expect(200);
    app.child.kill('SIGTERM');
    expect(await app.exited).toBe(0);
    expect(existsSync(join(pgDir, 'postmaster.pid'))).toBe(false);
  }, 240_000);

  it('prints the real cause when the embedded server cannot start, from the app and from a CLI', async () => {
    const broken = clusterFolder('atrium-broken');
    try {
      mkdirSync(join(broken, 'postgres'), { mode: 0o700 });
      writeFileSync(join(broken, 'postgres', 'PG_VERSION'), '9\n');
      const env = { DATA_DIR: broken, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
      const started = startApp({ ...env, PORT: String(await freePort()) });
      expect(await started.exited).toBe(1);
      expect(started.stderr()).toMatch(/^Atrium failed to start: Error: The embedded PostgreSQL exited during start-up:\n/);
      expect(started.stderr()).not.toMatch(/Cannot read properties of undefined/);
      const cli = await runCli('src/cli/chat/main.ts', ['tenant', 'list'], env);
      expect(cli.code).toBe(2);
      expect(cli.stderr).toMatch(/^atrium-chat: cannot open the database: The embedded PostgreSQL exited during start-up: \S/);
      expect(cli.stderr).not.toMatch(/Cannot read properties of undefined/);
    } finally {
      rmSync(broken, { recursive: true, force: true });
      rmSync(`${join(broken, 'postgres')}.credentials.json`, { force: true });
    }
  }, 120_000);
});
