import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { eventually } from '../support/async';
import { freePort } from '../support/free-port';
import { startTestApp, TEST_SECRET_KEY } from '../support/test-app';

const PUBLIC_URL = 'http://atrium.workers.test';

/**
 * `ATRIUM_WORKERS=2` (issue 20 item 7): one port served by two worker processes under a primary, caches invalidated
 * across workers, a dead worker replaced, SIGTERM to the primary stopping everything with exit 0.
 */
describe('ATRIUM_WORKERS=2: node:cluster behind one port (issue 20 item 7)', () => {
  let database: string;
  let databaseUrl: string;
  let dataDir: string;
  let primary: ChildProcess | undefined;
  let exited: Promise<number | null>;
  let baseUrl: string;
  let tenantClient: { clientId: string; clientSecret: string };
  let adminClient: { clientId: string; clientSecret: string };

  async function sql<T = Record<string, any>>(text: string, values: unknown[] = []): Promise<T[]> {
    const connection = new Client({ connectionString: databaseUrl });
    await connection.connect();
    try {
      return (await connection.query(text, values)).rows as T[];
    } finally {
      await connection.end();
    }
  }
  /** Backend pids of the workers' cache-invalidation listeners: one per live worker. */
  const listeners = async () =>
    (await sql<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = 'atrium-cluster-events'`, [database])).map((row) => row.pid);

  beforeAll(async () => {
    const setup = await startTestApp({ CHAT_PUBLIC_URL: PUBLIC_URL }, { dropDatabaseOnClose: false });
    database = setup.database;
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${database}`;
    databaseUrl = url.toString();
    try {
      await newTenant(setup, 'acme');
      tenantClient = await newClient(setup, { tenantId: 'acme' });
      adminClient = await newClient(setup, { platformAdmin: true });
    } finally {
      await setup.close();
    }
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-workers-'));
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    primary = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
      cwd: join(__dirname, '../..'),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
        ATRIUM_WORKERS: '2',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        CHAT_PUBLIC_URL: PUBLIC_URL,
        CHAT_AUTH_TENANT_CACHE_TTL_MS: '60000',
      },
      stdio: 'ignore',
    });
    exited = new Promise((resolve) => primary!.once('exit', (code) => resolve(code)));
    // A worker's listener connects before its HTTP server listens: until then the port refuses, which is "not up yet".
    const healthy = () => request(baseUrl).get('/api/health').then((response) => response.status === 200, () => false);
    await eventually('both workers up', async () => ((await listeners()).length === 2 && (await healthy()) ? true : undefined), { timeoutMs: 180_000, intervalMs: 250 });
  }, 300_000);

  afterAll(async () => {
    if (primary && primary.exitCode === null && primary.signalCode === null) {
      primary.kill('SIGKILL');
      await exited;
    }
    // Workers of a killed primary exit when their IPC channel closes; wait for their connections to go.
    await eventually('no worker left', async () => ((await listeners()).length === 0 ? true : undefined), { timeoutMs: 30_000 }).catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new Client({ connectionString: process.env.ATRIUM_TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  }, 60_000);

  it('serves one port from two processes, whose caches follow a change made through either', async () => {
    const token = (await builtInToken(baseUrl, tenantClient)).access_token;
    const probe = () => request(baseUrl).get('/api/acme/v1/chat/staff').auth(token, { type: 'bearer' });
    // Fresh connections (supertest opens one per request): the primary hands them to both workers, warming both caches.
    for (let i = 0; i < 10; i++) await probe().expect(200);
    const admin = (await builtInToken(baseUrl, adminClient)).access_token;
    await request(baseUrl).patch('/api/platform/tenants/acme').auth(admin, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
    const disabledAt = Date.now();
    // Within 1 s every request, whichever worker answers it, is refused (a cache left alone would answer 200 for 60 s).
    await eventually('refused by both workers', async () => {
      const statuses = await Promise.all(Array.from({ length: 6 }, async () => (await probe()).status));
      return statuses.every((status) => status === 403) ? true : undefined;
    }, { timeoutMs: 1_000, intervalMs: 20 });
    const seenMs = Date.now() - disabledAt;
    for (let i = 0; i < 10; i++) await probe().expect(403);
    console.log(`[workers] tenant disabled through one worker: refused by every worker after ${seenMs} ms`);
  });

  it('replaces a worker that dies (attack: SIGKILL of a worker)', async () => {
    const children = await childPids(primary!.pid!);
    expect(children).toHaveLength(2);
    process.kill(children[0], 'SIGKILL');
    await eventually('the replacement up', async () => {
      const now = await childPids(primary!.pid!);
      return now.length === 2 && !now.includes(children[0]) && (await listeners()).length === 2 ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    await request(baseUrl).get('/api/health').expect(200);
  }, 180_000);

  it('stops every worker and exits 0 on SIGTERM to the primary', async () => {
    const children = await childPids(primary!.pid!);
    primary!.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of children) expect(alive(pid)).toBe(false);
    expect(await listeners()).toEqual([]);
  }, 60_000);
});

/** Pids of `parent`'s live child processes (from /proc). */
async function childPids(parent: number): Promise<number[]> {
  const { readdirSync, readFileSync } = await import('node:fs');
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return Number(fields[1]) === parent && fields[0] !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
