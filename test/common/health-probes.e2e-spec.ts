import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'pg';
import request from 'supertest';
import { freePort } from '../support/free-port';
import { clusterFolder, createPostgresCluster, type PostgresCluster } from '../support/postgres-cluster';
import { startTestApp, TEST_SECRET_KEY, type TestApp } from '../support/test-app';

const ROOT = resolve(__dirname, '..', '..');
const CHECKS = ['database', 'migrations', 'jobs', 'disk', 'exec_sandbox'];

/**
 * `/api/health/live` and `/api/health/ready` (issue 15 item 3, acceptance 3): ready names every check and turns
 * not-ready with a reason; live never depends on a dependency; against a PostgreSQL the test stops and restarts,
 * ready follows it within 5 s while live stays up.
 */
describe('health probes (issue 15 item 3)', () => {
  describe('in process', () => {
    let testApp: TestApp;
    beforeAll(async () => {
      testApp = await startTestApp({ DEPLOY_EXEC_SANDBOX: 'off' });
    }, 60_000);
    afterAll(async () => testApp?.close());

    it('live answers ok; ready lists every check up; GET /api/health keeps its spec shape', async () => {
      const live = await request(testApp.baseUrl).get('/api/health/live').expect(200);
      expect(live.body).toEqual({ status: 'ok' });
      expect(live.headers['cache-control']).toBe('no-store');
      const ready = await request(testApp.baseUrl).get('/api/health/ready').expect(200);
      expect(ready.body.status).toBe('ok');
      expect(Object.keys(ready.body.details).sort()).toEqual([...CHECKS].sort());
      expect(Object.values(ready.body.details).every((check: any) => check.status === 'up')).toBe(true);
      expect(ready.body.details.exec_sandbox).toMatchObject({ status: 'up', sandbox: 'off' });
      expect(ready.body.details.jobs).toMatchObject({ status: 'up', workers: 'started' });
      expect(ready.body.details.disk.freeBytes).toBeGreaterThan(0);
      expect((await request(testApp.baseUrl).get('/api/health').expect(200)).body).toEqual({ status: 'ok', database: 'up' });
    });
  });

  it('turns not-ready naming the disk when DATA_DIR has less free space than HEALTH_MIN_FREE_DISK_BYTES; live stays up', async () => {
    const full = await startTestApp({ DEPLOY_EXEC_SANDBOX: 'off', HEALTH_MIN_FREE_DISK_BYTES: String(Number.MAX_SAFE_INTEGER) });
    try {
      const ready = await request(full.baseUrl).get('/api/health/ready').expect(503);
      expect(ready.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(ready.body).toMatchObject({ status: 503, detail: 'Not ready: disk.', checks: { disk: { status: 'down', minFreeBytes: Number.MAX_SAFE_INTEGER }, database: { status: 'up' } } });
      await request(full.baseUrl).get('/api/health/live').expect(200);
    } finally {
      await full.close();
    }
  }, 60_000);

  describe('against a PostgreSQL the test stops and restarts (acceptance 3)', () => {
    let cluster: PostgresCluster;
    let clusterDir: string;
    let dataDir: string;
    let app: { baseUrl: string; child: ChildProcess; exited: Promise<void> } | undefined;

    beforeAll(async () => {
      clusterDir = clusterFolder();
      cluster = await createPostgresCluster({ dataDir: join(clusterDir, 'data'), port: await freePort() });
      await cluster.start();
      const admin = new Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('CREATE DATABASE atrium');
      await admin.end();
      dataDir = mkdtempSync(join(tmpdir(), 'atrium-ready-'));
      const port = await freePort();
      const child = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: process.env.HOME ?? '',
          DATABASE_URL: cluster.url.replace(/\/postgres$/, '/atrium'),
          DATA_DIR: dataDir,
          ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          DEPLOY_EXEC_SANDBOX: 'off',
        },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      app = { baseUrl: `http://127.0.0.1:${port}`, child, exited };
      for (let waited = 0; ; waited += 250) {
        if (await request(app.baseUrl).get('/api/health/ready').then((response) => response.status === 200, () => false)) break;
        if (waited > 120_000 || child.exitCode !== null) throw new Error('the app did not become ready');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }, 180_000);
    afterAll(async () => {
      if (app && app.child.exitCode === null) {
        app.child.kill('SIGTERM');
        await Promise.race([app.exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
        if (app.child.exitCode === null) app.child.kill('SIGKILL');
      }
      await cluster?.remove();
      rmSync(clusterDir, { recursive: true, force: true });
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }, 60_000);

    it('ready turns 503 within 5 s of PostgreSQL stopping and 200 again after it restarts; live answers 200 all the time', async () => {
      const base = app!.baseUrl;
      const liveAnswers: number[] = [];
      let watching = true;
      // Live is polled the whole time, independently of the readiness polls.
      const liveWatch = (async () => {
        while (watching) {
          liveAnswers.push(await request(base).get('/api/health/live').timeout(3000).then((response) => response.status, () => 0));
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      })();
      const readyStatus = () => request(base).get('/api/health/ready').timeout(4000).then((response) => ({ status: response.status, body: response.body }), () => ({ status: 0, body: {} }));
      /** Polls ready every 250 ms until `status`; @returns ms waited and the answer */
      const until = async (status: number, limitMs: number) => {
        const started = Date.now();
        for (;;) {
          const answer = await readyStatus();
          if (answer.status === status) return { waitedMs: Date.now() - started, body: answer.body };
          if (Date.now() - started > limitMs) throw new Error(`ready still ${answer.status} after ${limitMs} ms`);
          await new Promise((resolve) => setTimeout(resolve, 250));
        }
      };
      try {
        expect((await readyStatus()).status).toBe(200);
        await cluster.stop();
        const down = await until(503, 15_000);
        expect(down.body).toMatchObject({ status: 503, checks: { database: { status: 'down' }, disk: { status: 'up' } } });
        expect(down.body.detail).toMatch(/^Not ready: .*database/);
        // The acceptance bound: not-ready within 5 s of the database stopping.
        expect(down.waitedMs).toBeLessThanOrEqual(5000);
        // Still not ready a while later (no flapping while PostgreSQL is down).
        await new Promise((resolve) => setTimeout(resolve, 1500));
        expect((await readyStatus()).status).toBe(503);

        await cluster.start();
        const up = await until(200, 60_000);
        expect(up.body.status).toBe('ok');
      } finally {
        watching = false;
        await liveWatch;
      }
      expect(liveAnswers.length).toBeGreaterThan(5);
      expect(liveAnswers.filter((status) => status !== 200)).toEqual([]);
      expect(app!.child.exitCode).toBeNull();
    }, 120_000);
  });
});
