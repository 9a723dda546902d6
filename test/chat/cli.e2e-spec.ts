import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { embeddedDatabaseUrl, postgresAnswers } from '../../src/cli/chat/postgres-probe';
import { freePort } from '../support/free-port';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken } from './support/chat-test-app';

const ROOT = join(__dirname, '../..');

/**
 * Runs `atrium-chat` as a real process: the TypeScript entry compiled on load by SWC (support/swc-register.cjs), with
 * only the environment given (plus PATH and HOME).
 */
function atriumChat(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './test/chat/support/swc-register.cjs', 'src/cli/chat/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('atrium-chat CLI against the app\'s database (issue 5: tenants and clients from the command line)', () => {
  let testApp: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    testApp = await startTestApp();
    const url = new URL(process.env.ATRIUM_TEST_DATABASE_URL!);
    url.pathname = `/${testApp.database}`;
    env = { DATABASE_URL: url.toString(), DATA_DIR: testApp.dataDir, CHAT_PUBLIC_URL: testApp.config.chatAuth.publicUrl, PORT: String(testApp.config.port) };
  });
  afterAll(() => testApp?.close());

  it('creates a tenant and a client whose secret gets a token from the running app', async () => {
    const tenant = await atriumChat(['tenant', 'create', 'acme', '--name', 'Acme Retail'], env);
    expect(tenant).toEqual({ code: 0, stdout: 'Created tenant acme (Acme Retail).\n', stderr: '' });

    const created = await atriumChat(['client', 'create', '--tenant', 'acme', '--scopes', 'chat:read,chat:write', '--name', 'CLI test', '--json'], env);
    expect(created.code).toBe(0);
    const client = JSON.parse(created.stdout);
    expect(client).toMatchObject({ tenantId: 'acme', scopes: ['chat:read', 'chat:write'], name: 'CLI test', tokenUrl: `${testApp.config.chatAuth.publicUrl}/oauth/token` });

    const token = (await builtInToken(testApp.baseUrl, client)).access_token;
    await request(testApp.baseUrl).post('/api/acme/console/workChat/corps').auth(token, { type: 'bearer' }).send({ corpName: 'Acme Retail', workChatCorpId: 'wwacme' }).expect(200);

    const text = await atriumChat(['client', 'create', '--tenant', 'acme', '--scopes', 'chat:read'], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^Created OAuth2 client atc_[0-9a-f]{24} for tenant acme, scopes: chat:read\n {2}client_id: {5}atc_[0-9a-f]{24}\n {2}client_secret: \S{43}\n/);
    expect(text.stdout).toContain(`curl -s -u 'atc_`);

    const listed = await atriumChat(['client', 'list', '--tenant', 'acme'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(client.clientId);
    expect(listed.stdout).not.toContain(client.clientSecret);

    expect(await atriumChat(['client', 'revoke', client.clientId], env)).toMatchObject({ code: 0, stdout: `Revoked ${client.clientId}.\n` });
    await request(testApp.baseUrl).post('/oauth/token').auth(client.clientId, client.clientSecret).type('form').send({ grant_type: 'client_credentials' }).expect(401);
  });

  it('creates a platform-admin client that manages tenants over the API', async () => {
    const created = await atriumChat(['client', 'create', '--platform-admin', '--json'], env);
    expect(created.code).toBe(0);
    const admin = JSON.parse(created.stdout);
    expect(admin).toMatchObject({ tenantId: null, scopes: ['platform:admin'] });
    const token = (await builtInToken(testApp.baseUrl, admin)).access_token;
    const tenants = await request(testApp.baseUrl).get('/api/platform/tenants').auth(token, { type: 'bearer' }).expect(200);
    expect(tenants.body.content.map((t: { id: string }) => t.id)).toContain('acme');
  });

  it('refuses reserved, invalid and duplicate tenant ids (exit 1) and bad usage (exit 2), saying why', async () => {
    expect(await atriumChat(['tenant', 'create', 'console'], env)).toMatchObject({
      code: 1,
      stderr: 'atrium-chat: Tenant id "console" is reserved: it is a fixed path segment of the API (/api/console/...). Choose another id.\n',
    });
    expect((await atriumChat(['tenant', 'create', 'Bad_Id'], env)).stderr).toContain('is not a valid slug');
    expect(await atriumChat(['tenant', 'create', 'acme'], env)).toMatchObject({ code: 1, stderr: 'atrium-chat: Tenant "acme" already exists.\n' });
    expect(await atriumChat(['client', 'create', '--tenant', 'nobody'], env)).toMatchObject({ code: 1, stderr: 'atrium-chat: No tenant "nobody"; create it first.\n' });
    expect(await atriumChat(['client', 'create'], env)).toMatchObject({ code: 2, stderr: 'atrium-chat: give either --tenant <id> or --platform-admin\n' });
    expect((await atriumChat(['client', 'create', '--tenant', 'acme', '--scopes', 'chat:admin'], env)).stderr).toBe(
      'atrium-chat: Unknown scope(s): chat:admin; allowed: chat:read, chat:write.\n',
    );
    expect((await atriumChat(['tenant', 'create', 'x1', '--name', 'n'], { ...env, DATABASE_URL: 'mysql://nope' })).stderr).toMatch(/^atrium-chat: Invalid configuration: DATABASE_URL/);
  });

  it('disables and enables a tenant, and lists tenants as JSON', async () => {
    expect((await atriumChat(['tenant', 'disable', 'acme'], env)).stdout).toBe('Tenant acme is disabled.\n');
    const listed = JSON.parse((await atriumChat(['tenant', 'list', '--json'], env)).stdout);
    expect(listed).toEqual([expect.objectContaining({ id: 'acme', name: 'Acme Retail', status: 'disabled' })]);
    expect((await atriumChat(['tenant', 'enable', 'acme'], env)).stdout).toBe('Tenant acme is active.\n');
  });
});

describe('atrium-chat CLI on the embedded PostgreSQL (DATABASE_URL unset)', () => {
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    // Not a mkdtemp folder (0700): run as root, PostgreSQL runs as the OS user "postgres" and must traverse it.
    dataDir = join(tmpdir(), `atrium-chat-cli-${randomBytes(6).toString('hex')}`);
    mkdirSync(dataDir, { mode: 0o755 });
    env = { DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()) };
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts the embedded server for a command when the app is not running, and stops it after', async () => {
    const created = await atriumChat(['tenant', 'create', 'initech', '--name', 'Initech'], env);
    expect(created).toEqual({ code: 0, stdout: 'Created tenant initech (Initech).\n', stderr: '' });
    expect(await postgresAnswers(await embeddedDatabaseUrl(join(dataDir, 'postgres'), Number(env.EMBEDDED_POSTGRES_PORT)))).toBe(false);
  }, 180_000);

  it('uses the running app\'s embedded server while the app runs; the client it creates gets a token from the app', async () => {
    const port = await freePort();
    const appEnv = { ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', CHAT_PUBLIC_URL: `http://127.0.0.1:${port}` };
    // The real app, started like `npm start` (src/main.ts) on the embedded default.
    const app: ChildProcess = spawn(process.execPath, ['-r', './test/chat/support/swc-register.cjs', 'src/main.ts'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...appEnv },
      stdio: 'ignore',
    });
    const exited = new Promise<void>((resolve) => app.once('exit', () => resolve()));
    try {
      const baseUrl = `http://127.0.0.1:${port}`;
      for (let waited = 0; ; waited += 250) {
        const up = await request(baseUrl).get('/api/health').then((r) => r.status === 200, () => false);
        if (up) break;
        if (waited > 90_000 || app.exitCode !== null) throw new Error('the app did not start');
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const listed = await atriumChat(['tenant', 'list', '--json'], appEnv);
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: 'initech', status: 'active' })]);
      const created = await atriumChat(['client', 'create', '--tenant', 'initech', '--json'], appEnv);
      expect(created.code).toBe(0);
      const token = (await builtInToken(baseUrl, JSON.parse(created.stdout))).access_token;
      await request(baseUrl).get('/api/initech/console/workChat/corps').auth(token, { type: 'bearer' }).expect(200);
      expect(await postgresAnswers(await embeddedDatabaseUrl(join(dataDir, 'postgres'), Number(env.EMBEDDED_POSTGRES_PORT)))).toBe(true);
    } finally {
      app.kill('SIGTERM');
      await exited;
    }
    expect(await postgresAnswers(await embeddedDatabaseUrl(join(dataDir, 'postgres'), Number(env.EMBEDDED_POSTGRES_PORT)))).toBe(false);
  }, 180_000);
});
