import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { freePort } from '../support/free-port';

const ROOT = join(__dirname, '../..');
/** Only these variables reach the app and the CLI: a newcomer's shell, nothing from the test configuration. */
const BASE_ENV = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };

/** Runs `atrium-chat` as a real process (the TypeScript entry compiled on load, as in cli.e2e-spec.ts). */
function atriumChat(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './test/chat/support/swc-register.cjs', 'src/cli/chat/main.ts', ...args],
      { cwd: ROOT, env: { ...BASE_ENV, ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The README's chat walkthrough: the shell block between its markers. */
function readmeWalkthrough(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const found = /<!-- chat-walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- chat-walkthrough:end -->/.exec(readme);
  if (!found) throw new Error('README.md has no chat walkthrough block between <!-- chat-walkthrough:start --> and <!-- chat-walkthrough:end -->');
  return found[1];
}

/**
 * Issue 5, acceptance 5: on the embedded default (DATA_DIR only: embedded PostgreSQL, the built-in OAuth2 server,
 * the platform simulator), a newcomer following the README gets a client from the CLI, a token, creates a corp, a
 * staff user, a digital staff with service time, a contact way, injects a customer through the simulator, switches
 * AI off and on and runs a diagnosis — every step over real HTTP against the app started like `npm start`. The last
 * test runs the README's curl block itself with bash, so the README cannot drift from what works.
 */
describe('newcomer walkthrough on the embedded default (README, chat management service)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let app: ChildProcess;
  let exited: Promise<void>;
  let baseUrl: string;
  let client: { clientId: string; clientSecret: string };
  let token: string;
  const state: Record<string, string> = {};
  const api = (method: 'get' | 'post' | 'put', path: string) => request(baseUrl)[method](path).auth(token, { type: 'bearer' });

  beforeAll(async () => {
    // Not a mkdtemp folder (0700): run as root, PostgreSQL runs as the OS user "postgres" and must traverse it.
    dataDir = join(tmpdir(), `atrium-walkthrough-${randomBytes(6).toString('hex')}`);
    mkdirSync(dataDir, { mode: 0o755 });
    const port = await freePort();
    env = { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
    app = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], { cwd: ROOT, env: { ...BASE_ENV, ...env }, stdio: 'ignore' });
    exited = new Promise<void>((resolve) => app.once('exit', () => resolve()));
    baseUrl = `http://127.0.0.1:${port}`;
    for (let waited = 0; ; waited += 250) {
      if (await request(baseUrl).get('/api/health').then((response) => response.status === 200, () => false)) break;
      if (waited > 150_000 || app.exitCode !== null) throw new Error('the app did not start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }, 180_000);

  afterAll(async () => {
    if (app && app.exitCode === null) {
      app.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('1. the CLI creates a tenant and an OAuth2 client for it (secret shown once)', async () => {
    expect(await atriumChat(['tenant', 'create', 'acme', '--name', 'Acme Retail'], env)).toEqual({ code: 0, stdout: 'Created tenant acme (Acme Retail).\n', stderr: '' });
    const created = await atriumChat(['client', 'create', '--tenant', 'acme', '--scopes', 'chat:read,chat:write', '--json'], env);
    expect(created.code).toBe(0);
    client = JSON.parse(created.stdout);
    expect(client).toMatchObject({ clientId: expect.stringMatching(/^atc_/), clientSecret: expect.any(String), tenantId: 'acme', scopes: ['chat:read', 'chat:write'] });
  }, 120_000);

  it('2. gets an access token from the built-in authorization server (client credentials, HTTP Basic)', async () => {
    const response = await request(baseUrl)
      .post('/oauth/token')
      .auth(client.clientId, client.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'chat:read chat:write' })
      .expect(200);
    expect(response.body).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), scope: 'chat:read chat:write' });
    token = response.body.access_token;
    await request(baseUrl).get('/api/acme/console/workChat/corps').expect(401);
  });

  it('3. creates a corp, a staff user, a digital staff with service time, and binds them', async () => {
    const corp = await api('post', '/api/acme/console/workChat/corps').send({ corpName: 'Acme Stores', workChatCorpId: 'wwacmestores', secret: 'any-secret-the-simulator-accepts' }).expect(200);
    expect(corp.body).toMatchObject({ corpName: 'Acme Stores', hasSecret: true });
    state.corpId = corp.body.id;

    const user = await api('post', '/api/acme/console/workChat/user').send({ workChatCorpId: 'wwacmestores', workChatUserId: 'zhangsan', name: 'Zhang San' }).expect(200);
    expect(user.body).toMatchObject({ workChatUserId: 'zhangsan', corpName: 'Acme Stores', digitalStaffId: null });

    const staff = await api('post', '/api/acme/v1/chat/staff').send({ name: 'Ava', persona: 'You are Ava, the friendly assistant of Acme Stores. Answer briefly.' }).expect(200);
    expect(staff.body).toMatchObject({ name: 'Ava', enabled: true, boundStaffUserCount: 0 });
    state.staffId = staff.body.id;

    await api('post', '/api/acme/v1/chat/staff/bind').send({ staffId: state.staffId, corpName: 'Acme Stores', workChatUserIds: ['zhangsan'] }).expect(200);
    const bound = await api('get', `/api/acme/console/workChat/user?workChatUserId=zhangsan`).expect(200);
    expect(bound.body.content).toEqual([expect.objectContaining({ workChatUserId: 'zhangsan', digitalStaffId: state.staffId, digitalStaffName: 'Ava' })]);

    const windows = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' }));
    const serviceTime = await api('post', '/api/acme/v1/chat/digital-staff/service-time').send({ staffId: state.staffId, timeZone: 'Asia/Shanghai', windows, outOfHoursMessage: 'We are closed; we answer from 9:00.' }).expect(200);
    expect(serviceTime.body).toMatchObject({ staffId: state.staffId, timeZone: 'Asia/Shanghai', inServiceNow: true, version: 1 });
  });

  it('4. creates a contact way for the staff user and digital staff (QR code from the simulator) and makes it the default', async () => {
    const way = await api('post', '/api/acme/v1/chat/contact/way').send({ corpName: 'Acme Stores', name: 'Spring poster', workChatUserIds: ['zhangsan'], digitalStaffId: state.staffId, state: 'spring-fair' }).expect(200);
    expect(way.body).toMatchObject({ id: expect.any(Number), state: 'spring-fair', qrCode: expect.stringContaining('/api/chat-simulator/qr/') });
    state.wayId = String(way.body.id);
    const defaults = await api('put', `/api/acme/v1/chat/contact/way/${state.wayId}/setDefault`).expect(200);
    expect(defaults.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: way.body.id, isDefault: true })]));
  });

  it('5. a customer scans the contact way on the simulator and becomes a contact of the staff user', async () => {
    const customer = await api('post', `/api/acme/console/simulator/corps/${state.corpId}/customers`).send({ name: 'Li Lei', contactWayId: Number(state.wayId) }).expect(200);
    expect(customer.body).toMatchObject({ userId: 'zhangsan', state: 'spring-fair', contact: expect.objectContaining({ id: expect.any(String), aiEnabled: true }) });
    state.contactId = customer.body.contact.id;
    state.externalUserId = customer.body.externalUserId;
    const listed = await api('post', '/api/acme/v1/workChat/contact/external/byLastStates').send({ corpName: 'Acme Stores', states: ['spring-fair'] }).expect(200);
    expect(listed.body).toMatchObject({ totalElements: 1, content: [expect.objectContaining({ externalUserId: state.externalUserId })] });
  });

  it('6. switches AI replies off (the diagnosis says so) and on again (the diagnosis passes)', async () => {
    const ref = { corpName: 'Acme Stores', userId: 'zhangsan', externalUserId: state.externalUserId };
    const off = await api('post', '/api/acme/v1/workChat/contact/external/ai/switch').send({ ...ref, enabled: false }).expect(200);
    expect(off.body).toBe(false);
    const offDiagnosis = await api('post', '/api/acme/console/workChat/diagnose').send({ chatContactId: state.contactId }).expect(200);
    expect(offDiagnosis.body).toMatchObject({ healthy: false, summary: '1 of 8 checks failed: aiSwitch; warning: conversationGroup.' });

    const on = await api('post', '/api/acme/v1/workChat/contact/external/ai/switch').send({ ...ref, enabled: true }).expect(200);
    expect(on.body).toBe(true);
    const read = await api('get', `/api/acme/v1/workChat/contact/external/ai/switch?corpName=${encodeURIComponent('Acme Stores')}&userId=zhangsan&externalUserId=${state.externalUserId}`).expect(200);
    expect(read.body).toBe(true);

    const diagnosis = await api('post', '/api/acme/console/workChat/diagnose').send({ chatContactId: state.contactId }).expect(200);
    expect(diagnosis.body).toMatchObject({ subject: 'contact', healthy: true, platformMode: 'simulator', summary: 'No check failed (7 passed; warning: conversationGroup).' });
    expect(diagnosis.body.checks.map((check: { name: string; status: string }) => `${check.name}:${check.status}`)).toEqual([
      'contactExists:pass', 'aiSwitch:pass', 'staffUser:pass', 'digitalStaff:pass', 'serviceTime:pass', 'defaultScene:pass', 'conversationGroup:warn', 'platformReachable:pass',
    ]);
    const staff = await api('post', '/api/acme/console/workChat/diagnose').send({ chatStaffId: state.staffId }).expect(200);
    expect(staff.body).toMatchObject({ subject: 'staff', healthy: true });
  });

  it('7. the README\'s curl walkthrough runs as written, against this app, for a second tenant', async () => {
    expect((await atriumChat(['tenant', 'create', 'globex', '--name', 'Globex'], env)).code).toBe(0);
    const created = await atriumChat(['client', 'create', '--tenant', 'globex', '--scopes', 'chat:read,chat:write', '--json'], env);
    const globex = JSON.parse(created.stdout) as { clientId: string; clientSecret: string };
    const script = readmeWalkthrough();
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        ['--norc', '--noprofile', '-euo', 'pipefail', '-c', script],
        { cwd: ROOT, env: { ...BASE_ENV, BASE: baseUrl, TENANT: 'globex', CLIENT_ID: globex.clientId, CLIENT_SECRET: globex.clientSecret }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // The script ends with the diagnosis of the injected customer (AI switched off and on again).
    const diagnosis = JSON.parse(result.stdout.trim().split('\n').at(-1)!);
    expect(diagnosis).toMatchObject({ subject: 'contact', healthy: true, platformMode: 'simulator' });
    expect(diagnosis.checks).toHaveLength(8);
  }, 120_000);
});
