import { transformSync } from '@swc/core';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { constants, createGzip } from 'node:zlib';
import request from 'supertest';
import { START_FLAGS } from '../support/app-process';
import { eventually } from '../support/async';
import { deployArchive, newAgent } from '../support/deploy-factories';
import { freePort } from '../support/free-port';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { rawTarGz } from '../support/raw-tar';
import { TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, TEST_SECRET_KEY } from '../support/test-app';
import { dropDatabase, withAdmin, withDatabase } from '../support/test-database';

const ROOT = join(__dirname, '../..');
const API_KEY = 'eval-api-key-crash-0123456789abcdef';
const CASES = 24;
/** Size of the one file of the archive being unpacked at the kill (zeros: a small .tar.gz, a long unpack). */
const BIG_FILE_BYTES = 400 * 1024 * 1024;

/**
 * Compiles src/ and migrations/ the way `npm run build` lays them out (dist/src/main.js), with SWC (the compiler the
 * tests use), into `outDir`: a type error elsewhere in the tree can't stop this test, and the app is then started
 * as `npm start` starts it (`node … dist/src/main.js`).
 */
function buildApp(outDir: string): string {
  const walk = (folder: string): string[] =>
    readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? walk(join(folder, entry.name)) : entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [join(folder, entry.name)] : []));
  for (const file of [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'migrations'))]) {
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      filename: file,
      jsc: { parser: { syntax: 'typescript', decorators: true }, transform: { legacyDecorator: true, decoratorMetadata: true }, target: 'es2022' },
      module: { type: 'commonjs' },
    });
    const out = join(outDir, relative(ROOT, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, code);
  }
  return join(outDir, 'src', 'main.js');
}

/** A gzip tar of one file of `size` zero bytes, gzipped as a stream (the test never holds the tar whole). */
async function zeroArchive(name: string, size: number): Promise<Buffer> {
  const block = Buffer.alloc(512, 0);
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 'ascii');
  block.write('0000000\0', 108, 'ascii');
  block.write('0000000\0', 116, 'ascii');
  block.write(size.toString(8).padStart(11, '0') + '\0', 124, 'ascii');
  block.write('00000000000\0', 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write('0', 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 'ascii');
  const gzip = createGzip({ level: constants.Z_BEST_SPEED });
  const chunks: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => gzip.on('end', resolve));
  gzip.write(block);
  const zeros = Buffer.alloc(1024 * 1024, 0);
  let left = size + ((512 - (size % 512)) % 512) + 1024;
  while (left > 0) {
    const piece = zeros.subarray(0, Math.min(zeros.length, left));
    left -= piece.length;
    if (!gzip.write(piece)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await done;
  return Buffer.concat(chunks);
}

interface AppProcess {
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  output: string[];
}

/**
 * Issue 19 item 5, acceptance 5: the app is killed with SIGKILL while a deploy is mid-upload, another deploy is
 * mid-unpack, a delete is in flight and an evaluation run is sending cases to a slow local target. The built app is
 * started again (as `npm start` does) on the same database and DATA_DIR and must come up without manual steps;
 * then no staging folder, temporary upload or orphan site folder remains, and the run completes with no case sent
 * twice beyond those in flight at the kill. Two leftovers whose instant can't be hit by timing are planted as a kill
 * leaves them: a published folder whose publish never committed (kill between rename and commit), and a site
 * withdrawn by a delete that never committed (kill between the delete's rename and its commit).
 *
 * Runs with DATABASE_URL (a database of the test server): the embedded database's stale-process handling (issue 19
 * item 5, src/database/embedded-postgres.ts) is tested on its own.
 */
describe('restart after SIGKILL mid-deploy, mid-delete and mid-run just works (issue 19 acceptance 5)', () => {
  let target: LocalPeer;
  let buildDir: string;
  let mainJs: string;
  let dataDir: string;
  let database: string;
  let databaseUrl: string;
  const running: AppProcess[] = [];

  async function startApp(): Promise<AppProcess> {
    const port = await freePort();
    const child = spawn(process.execPath, [...START_FLAGS, mainJs], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        NODE_PATH: join(ROOT, 'node_modules'),
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        ATRIUM_SECRET_KEY: TEST_SECRET_KEY,
        DEPLOY_REGISTRATION_KEY: TEST_REGISTRATION_KEY,
        DEPLOY_OWNER_TOKEN: TEST_OWNER_TOKEN,
        DEPLOY_PUBLIC_URL: `http://127.0.0.1:${port}`,
        DEPLOY_MAX_ARCHIVE_BYTES: String(64 * 1024 * 1024),
        DEPLOY_MAX_UNPACKED_BYTES: String(BIG_FILE_BYTES + 1024 * 1024),
        DEPLOY_LEFTOVER_GRACE_MS: '2000',
        DEPLOY_LEFTOVER_SWEEP_INTERVAL_MS: '1000',
        EVAL_API_KEYS: API_KEY,
        EVAL_RUN_LEASE_MS: '3000',
        EVAL_RUN_HEARTBEAT_MS: '500',
        EVAL_RUN_SWEEP_INTERVAL_MS: '500',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    child.stdout!.on('data', (chunk: Buffer) => output.push(String(chunk)));
    child.stderr!.on('data', (chunk: Buffer) => output.push(String(chunk)));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const app = { baseUrl: `http://127.0.0.1:${port}`, child, exited, output };
    running.push(app);
    for (let waited = 0; ; waited += 250) {
      if (await request(app.baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 120_000 || child.exitCode !== null) throw new Error(`the app did not start: ${output.join('').slice(-3000)}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    return app;
  }

  beforeAll(async () => {
    // A slow target: 300 ms per reply.
    target = await startLocalPeer(({ body }) => ({ body: { reply: `ok ${(body as { message: string }).message}` }, delayMs: 300 }));
    buildDir = mkdtempSync(join(tmpdir(), 'atrium-crash-build-'));
    mainJs = buildApp(buildDir);
    dataDir = mkdtempSync(join(tmpdir(), 'atrium-crash-data-'));
    database = `atrium_crash_${process.pid}_${Date.now().toString(36)}`;
    // Empty, not the run's migrated template: the first start migrates it, as `npm start` on a new database does.
    await withAdmin(process.env.ATRIUM_TEST_DATABASE_URL!, (admin) => admin.query(`CREATE DATABASE ${database}`));
    databaseUrl = withDatabase(process.env.ATRIUM_TEST_DATABASE_URL!, database);
  }, 120_000);

  afterAll(async () => {
    for (const app of running) {
      if (app.child.exitCode === null && app.child.signalCode === null) {
        app.child.kill('SIGKILL');
        await app.exited;
      }
    }
    await target?.close();
    for (const folder of [buildDir, dataDir]) if (folder) rmSync(folder, { recursive: true, force: true });
    await dropDatabase(process.env.ATRIUM_TEST_DATABASE_URL, database);
  }, 60_000);

  it('comes back up, sweeps every leftover, keeps sites and rows consistent and completes the run', async () => {
    const first = await startApp();
    const sitesDir = join(dataDir, 'sites');
    const stagingDir = join(sitesDir, '.staging');
    const uploadsDir = join(dataDir, 'tmp', 'uploads');
    const agent = await newAgent(first.baseUrl);
    const site = (name: string) => rawTarGz([{ name: 'index.html', content: `<h1>${name}</h1>` }]);
    const kept = (await deployArchive(first.baseUrl, agent.token, site('kept'), { projectName: 'kept', contactId: agent.contactId }).expect(201)).body;
    const withdrawn = (await deployArchive(first.baseUrl, agent.token, site('withdrawn'), { projectName: 'withdrawn', contactId: agent.contactId }).expect(201)).body;
    const deleting = (await deployArchive(first.baseUrl, agent.token, site('deleting'), { projectName: 'deleting', contactId: agent.contactId }).expect(201)).body;

    // The evaluation run, sending cases to the slow target.
    const api = (app: AppProcess, method: 'get' | 'post', path: string) => request(app.baseUrl)[method](path).set('X-API-Key', API_KEY);
    const cases = Array.from({ length: CASES }, (_, index) => ({ id: `c${index}`, input: `m${index}`, rules: [{ type: 'contains', value: `m${index}` }] }));
    const scenario = await api(first, 'post', '/api/scenarios').send({ name: 'Crash', cases }).expect(201);
    const evalTarget = await api(first, 'post', '/api/targets').send({ name: 'slow', kind: 'http', max_concurrency: 2, http: { url: target.url, body_template: { message: '{{message}}' }, reply_path: '$.reply' } }).expect(201);
    const run = await api(first, 'post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: evalTarget.body.id, concurrency: 2 }).expect(201);

    // A deploy mid-upload: the multipart body is sent in part and never finished.
    const boundary = `----crash${randomBytes(8).toString('hex')}`;
    const upload = httpRequest(`${first.baseUrl}/api/deploy`, { method: 'POST', headers: { authorization: `Bearer ${agent.token}`, 'content-type': `multipart/form-data; boundary=${boundary}` } });
    upload.on('error', () => undefined);
    upload.write(
      `--${boundary}\r\nContent-Disposition: form-data; name="projectName"\r\n\r\nhalf-uploaded\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="contactId"\r\n\r\n${agent.contactId}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="archive"; filename="big.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
    );
    // The first 4 MiB of a valid archive: it is unpacked into staging as it arrives (issue 14 item 2), never saved whole.
    upload.write(rawTarGz([{ name: 'big.bin', content: randomBytes(8 * 1024 * 1024) }]).subarray(0, 4 * 1024 * 1024));
    // A deploy mid-unpack: a small archive of one 400 MB file.
    const unpacking = deployArchive(first.baseUrl, agent.token, await zeroArchive('big.bin', BIG_FILE_BYTES), { projectName: 'half-unpacked', contactId: agent.contactId }).then(
      () => undefined,
      () => undefined,
    );

    const sizeIn = (folder: string): number => (existsSync(folder) ? readdirSync(folder).reduce((total, name) => total + sizeOf(join(folder, name)), 0) : 0);
    const stagingBytes = () => (existsSync(stagingDir) ? readdirSync(stagingDir).filter((name) => !name.startsWith('removed~')).reduce((total, name) => total + sizeOf(join(stagingDir, name)), 0) : 0);
    const stagingFolders = () => (existsSync(stagingDir) ? readdirSync(stagingDir).filter((name) => !name.startsWith('removed~')).length : 0);
    await eventually('both uploads unpacking in staging and the run sending', async () => (stagingFolders() >= 2 && stagingBytes() > 10 * 1024 * 1024 && target.requests.length >= 3 ? true : undefined), { timeoutMs: 60_000, intervalMs: 5 });
    expect(sizeIn(uploadsDir)).toBe(0); // nothing of a deploy is staged on disk as an archive
    // A delete in flight when the process dies: either it committed (row and site gone) or not (both there).
    void request(first.baseUrl).delete(`/api/deploy/${deleting.id}`).set('Authorization', `Bearer ${agent.token}`).then(() => undefined, () => undefined);
    first.child.kill('SIGKILL');
    await first.exited;
    // The run's results the dead process had stored (its lease still holds: nobody has taken the run over yet).
    const storedAtKill = new Set(await withAdmin(databaseUrl, async (db) => (await db.query<{ case_id: string }>('SELECT case_id FROM eval_case_result WHERE run_id = $1', [run.body.id])).rows.map((row) => `m${row.case_id.slice(1)}`)));
    upload.destroy();
    await unpacking;
    const sentAtKill = target.requests.length;

    // What a kill at the two instants timing can't hit leaves behind.
    const orphan = join(sitesDir, agent.contactId, 'deadbeef-orphan-20250101000000');
    mkdirSync(orphan, { recursive: true });
    writeFileSync(join(orphan, 'index.html'), '<h1>orphan</h1>');
    const withdrawnDir = join(sitesDir, agent.contactId, withdrawn.directoryName);
    renameSync(withdrawnDir, join(stagingDir, `removed~${agent.contactId}~${withdrawn.directoryName}~0123456789abcdef`));
    // A multer temporary file of an interrupted `POST /api/upload` (deploys no longer leave any there).
    writeFileSync(join(uploadsDir, randomBytes(16).toString('hex')), randomBytes(1024));
    expect(readdirSync(stagingDir).length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(uploadsDir).length).toBeGreaterThanOrEqual(1);

    // `npm start` again: no manual step.
    const second = await startApp();

    // No leftovers remain: staging, uploads and the orphan folder are swept (grace 2 s with DATABASE_URL).
    await eventually('the leftovers swept', async () => (readdirSync(stagingDir).length === 0 && readdirSync(uploadsDir).length === 0 && !existsSync(orphan) ? true : undefined), { timeoutMs: 30_000, intervalMs: 200 });
    expect(second.output.join('')).toContain(`Removed orphan site folder ${agent.contactId}/deadbeef-orphan-20250101000000`);

    // Sites and rows agree: the kept site is served, the withdrawn one (its delete never committed) is back, the
    // deleted one is either gone with its row or there with it, the interrupted deploys left neither.
    const listed = (await request(second.baseUrl).get('/api/deployments?size=50').set('Authorization', `Bearer ${agent.token}`).expect(200)).body.content as { id: string; directoryName: string; projectName: string }[];
    const served = async (directoryName: string) => (await fetch(`${second.baseUrl}/${agent.contactId}/${directoryName}/`)).status;
    expect(await served(kept.directoryName)).toBe(200);
    expect(await served(withdrawn.directoryName)).toBe(200);
    expect(listed.map((row) => row.projectName).sort()).toEqual(listed.some((row) => row.id === deleting.id) ? ['deleting', 'kept', 'withdrawn'] : ['kept', 'withdrawn']);
    expect(await served(deleting.directoryName)).toBe(listed.some((row) => row.id === deleting.id) ? 200 : 404);
    expect(readdirSync(join(sitesDir, agent.contactId)).sort()).toEqual(listed.map((row) => row.directoryName).sort());

    // The run completes (its lease ran out, the sweeper handed it to the new process), every case once, except cases
    // whose result the dead process had not stored: those in flight, results waiting behind the statement in flight
    // (group commit), and requests it had written that the target had not read yet (at most the concurrency, 2).
    let finished: any;
    await eventually('the run completed', async () => {
      finished = (await api(second, 'get', `/api/runs/${run.body.id}`).expect(200)).body;
      return ['completed', 'failed', 'cancelled'].includes(finished.status) ? true : undefined;
    }, { timeoutMs: 120_000, intervalMs: 250 });
    expect(finished.status).toBe('completed');
    expect(finished.summary).toMatchObject({ total_cases: CASES, passed_cases: CASES });
    const messages = target.requests.map((entry) => (entry.body as { message: string }).message);
    expect(new Set(messages).size).toBe(CASES);
    expect(sentAtKill).toBeLessThan(CASES);
    const sentTwice = [...new Set(messages.filter((message, index) => messages.indexOf(message) !== index))];
    expect(sentTwice.filter((message) => storedAtKill.has(message))).toEqual([]);
    expect(messages.length).toBeLessThanOrEqual(CASES + (sentAtKill - storedAtKill.size) + 2);

    second.child.kill('SIGTERM');
    await second.exited;
  }, 400_000);
});

/** Bytes under `path` (a file or a folder); 0 when it vanished meanwhile. */
function sizeOf(path: string): number {
  try {
    const stats = statSync(path);
    if (!stats.isDirectory()) return stats.size;
    return readdirSync(path).reduce((total, name) => total + sizeOf(join(path, name)), 0);
  } catch {
    return 0;
  }
}
