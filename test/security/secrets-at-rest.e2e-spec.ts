import { getDataSourceToken } from '@nestjs/typeorm';
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ToolProvidersService } from '../../src/chat/tool-providers/tool-providers.service';
import { parseSealingKey, SEALED_PATTERN } from '../../src/common/crypto/secret-sealer';
import { SEALED_COLUMNS, SEALED_JSON, SEALED_TEXT } from '../../src/database/sealed-columns';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, TEST_SECRET_KEY, type TestApp } from '../support/test-app';

const EVAL_KEY = 'eval-api-key-secrets-at-rest-0123';
/** Every planted secret: none may appear in a database dump. */
const SECRETS = {
  toolBearer: `tool-bearer-${randomBytes(8).toString('hex')}`,
  corpSecret: `corp-secret-${randomBytes(8).toString('hex')}`,
  callbackToken: `cbtok${randomBytes(8).toString('hex')}`,
  callbackAesKey: randomBytes(32).toString('base64').replace(/[^A-Za-z0-9]/g, 'x').slice(0, 43),
  channelSecret: `channel-secret-${randomBytes(8).toString('hex')}`,
  robotKey: `${randomBytes(4).toString('hex')}-aaaa-bbbb-cccc-${randomBytes(6).toString('hex')}`,
  modelKey: `sk-model-${randomBytes(8).toString('hex')}`,
  targetHeader: `target-header-${randomBytes(8).toString('hex')}`,
  targetApiKey: `sk-target-${randomBytes(8).toString('hex')}`,
};

const ROOT = join(__dirname, '..', '..');

/** Runs `atrium-admin` as a real process from the TypeScript sources (as test/chat/cli.e2e-spec.ts runs atrium-chat). */
function atriumAdmin(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['-r', './test/chat/support/swc-register.cjs', 'src/cli/admin/main.ts', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A pg_dump at least as new as the server (pg_dump refuses older servers' successors). */
function pgDumpFor(serverMajor: number): string {
  const candidates = [
    '/usr/bin/pg_dump',
    ...(existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').map((version) => `/usr/lib/postgresql/${version}/bin/pg_dump`) : []),
  ].filter((path) => existsSync(path));
  for (const path of candidates) {
    const major = Number(/(\d+)(?:\.\d+)?/.exec(execFileSync(path, ['--version'], { encoding: 'utf8' }))?.[1]);
    if (major >= serverMajor) return path;
  }
  throw new Error(`no pg_dump of version ${serverMajor} or later among ${candidates.join(', ') || '(none)'}`);
}

/**
 * Acceptance 6 of issue 19: no third-party secret is readable in plain text in a database dump; reading and using
 * them still works; and so does a key rotation (atrium-admin secrets reseal, then a restart with the new key only).
 */
describe('third-party secrets sealed at rest (issue 19, item 6, acceptance 6)', () => {
  let testApp: TestApp;
  let peer: LocalPeer;
  let chatToken: string;
  let providerId: string;
  let channelId: string;
  const serverUrl = () => process.env.ATRIUM_TEST_DATABASE_URL!;
  const databaseUrl = () => {
    const url = new URL(serverUrl());
    url.pathname = `/${testApp.database}`;
    return url.toString();
  };
  const chat = (method: 'post' | 'put', path: string) => request(testApp.baseUrl)[method](path).auth(chatToken, { type: 'bearer' });
  const evaluation = (path: string) => request(testApp.baseUrl).post(path).set('X-API-Key', EVAL_KEY);
  const dataSource = () => testApp.app.get<DataSource>(getDataSourceToken());
  const appEnv = { EVAL_API_KEYS: EVAL_KEY, CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' };

  async function dump(): Promise<string> {
    const major = Number((await dataSource().query('SHOW server_version_num'))[0].server_version_num.slice(0, -4));
    return execFileSync(pgDumpFor(major), ['--data-only', '--no-owner', databaseUrl()], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  }

  /** The tool call carries the bearer secret to the peer (the secret is opened and used). */
  async function callCarriesSecret(): Promise<void> {
    const before = peer.requests.length;
    await testApp.app.get(ToolProvidersService).call('acme', providerId, 'ping', {});
    expect(peer.requests.slice(before).map((entry) => entry.headers.authorization)).toEqual([`Bearer ${SECRETS.toolBearer}`]);
  }

  beforeAll(async () => {
    peer = await startLocalPeer(() => ({ body: { ok: true } }));
    testApp = await startTestApp(appEnv, { dropDatabaseOnClose: false });
    await newTenant(testApp, 'acme');
    chatToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;

    providerId = (await chat('post', '/api/acme/console/toolApiProviders')
      .send({ name: 'Peer', baseUrl: `${peer.url}/api`, auth: { type: 'bearer', secret: SECRETS.toolBearer }, operations: [{ name: 'ping', method: 'GET', path: '/ping', inputSchema: { type: 'object' } }] })
      .expect(200)).body.id;
    await chat('post', '/api/acme/console/workChat/corps')
      .send({ corpName: 'Acme', workChatCorpId: 'wwsecrets', secret: SECRETS.corpSecret, callbackToken: SECRETS.callbackToken, callbackAesKey: SECRETS.callbackAesKey })
      .expect(200);
    channelId = (await chat('post', '/api/acme/console/chat/channel').send({ name: 'CRM', type: 'api', secret: SECRETS.channelSecret }).expect(200)).body.id;
    await chat('post', '/api/acme/v1/entrobot/group').send({ name: 'Ops', webhookKey: SECRETS.robotKey }).expect(200);
    await evaluation('/api/model-configs').send({ name: 'judge', base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key: SECRETS.modelKey, purpose: 'judge' }).expect(201);
    await evaluation('/api/targets')
      .send({ name: 'Bot', kind: 'http', http: { url: 'http://127.0.0.1:9/chat', headers: { Authorization: `Bearer ${SECRETS.targetHeader}` }, body_template: { message: '{{message}}' }, reply_path: '$.reply' } })
      .expect(201);
    await evaluation('/api/targets').send({ name: 'LLM', kind: 'openai', openai: { base_url: 'http://127.0.0.1:9/v1', model: 'agent', api_key: SECRETS.targetApiKey } }).expect(201);
  }, 120_000);
  afterAll(async () => {
    await testApp?.close();
    await peer?.close();
    const admin = new DataSource({ type: 'postgres', url: serverUrl() });
    await admin.initialize();
    await admin.query(`DROP DATABASE IF EXISTS ${testApp.database} WITH (FORCE)`);
    await admin.destroy();
  });

  it('lists every sealed column the entities declare', () => {
    const declared = dataSource()
      .entityMetadatas.flatMap((entity) => entity.columns.filter((column) => column.transformer === SEALED_TEXT || column.transformer === SEALED_JSON).map((column) => `${entity.tableName}.${column.databaseName}`))
      .sort();
    // core_shared_secret has no entity: src/common/cluster/shared-secrets.ts seals its values by SQL.
    expect(declared).toEqual(SEALED_COLUMNS.filter(({ table }) => table !== 'core_shared_secret').map(({ table, column }) => `${table}.${column}`).sort());
  });

  it('keeps every planted secret out of a pg_dump of the database, and still uses them', async () => {
    const text = await dump();
    expect(text).toContain('wwsecrets'); // the dump holds the rows
    for (const [name, secret] of Object.entries(SECRETS)) expect({ name, found: text.includes(secret) }).toEqual({ name, found: false });
    for (const { table, column } of SEALED_COLUMNS) {
      const rows: { value: string }[] = await dataSource().query(`SELECT "${column}" #>> '{}' AS value FROM (SELECT to_jsonb("${column}") AS "${column}" FROM "${table}") t WHERE "${column}" IS NOT NULL AND "${column}" <> 'null'::jsonb`);
      expect({ column: `${table}.${column}`, rows: rows.length > 0 }).toEqual({ column: `${table}.${column}`, rows: true });
      for (const row of rows) expect(row.value).toMatch(SEALED_PATTERN);
    }
    await callCarriesSecret();
  });

  it('seals rows written in plain text by an earlier version at the next start', async () => {
    await dataSource().query('UPDATE chat_channel SET secret = $1 WHERE id = $2', [`${SECRETS.channelSecret}-legacy`, channelId]);
    await testApp.close();
    testApp = await startTestApp(appEnv, { database: testApp.database, dropDatabaseOnClose: false });
    const [row] = await dataSource().query('SELECT secret FROM chat_channel WHERE id = $1', [channelId]);
    expect(row.secret).toMatch(SEALED_PATTERN);
    expect((await dataSource().query('SELECT id FROM chat_channel')).length).toBe(1);
    const entity = await dataSource().getRepository('ChatChannelEntity').findOneByOrFail({ id: channelId });
    expect(entity.secret).toBe(`${SECRETS.channelSecret}-legacy`);
  }, 60_000);

  it('rotates the key: reseal under a new key with the old one as previous, then restart with the new key only', async () => {
    await testApp.close();
    const newKey = randomBytes(32).toString('hex');
    const env = (keys: Record<string, string>) => ({ DATABASE_URL: databaseUrl(), DATA_DIR: testApp.dataDir, ...keys });
    const newId = parseSealingKey(newKey).id;
    // Without the old key the values cannot be opened: reported, left as they were, exit code 1 (ATTACK: wrong key).
    const withoutOld = await atriumAdmin(['secrets', 'reseal', '--json'], env({ ATRIUM_SECRET_KEY: newKey }));
    expect({ code: withoutOld.code, stderr: withoutOld.stderr }).toEqual({ code: 1, stderr: '' });
    expect(Object.keys(JSON.parse(withoutOld.stdout).failed).sort()).toEqual(SEALED_COLUMNS.map(({ table, column }) => `${table}.${column}`).sort());
    const admin = new DataSource({ type: 'postgres', url: databaseUrl() });
    await admin.initialize();
    const [{ shared }] = await admin.query('SELECT count(*)::int AS shared FROM core_shared_secret');
    await admin.destroy();
    expect(shared).toBeGreaterThan(0); // the chat signing key at least: a restart needs it opened under the new key
    const resealed = await atriumAdmin(['secrets', 'reseal'], env({ ATRIUM_SECRET_KEY: newKey, ATRIUM_SECRET_KEY_PREVIOUS: TEST_SECRET_KEY }));
    expect(resealed).toEqual({ code: 0, stdout: `Resealed ${9 + shared} secret(s) under key ${newId}.\n`, stderr: '' });
    const again = await atriumAdmin(['secrets', 'reseal'], env({ ATRIUM_SECRET_KEY: newKey }));
    expect(again).toEqual({ code: 0, stdout: `Resealed 0 secret(s) under key ${newId}.\n`, stderr: '' });

    testApp = await startTestApp({ ...appEnv, ATRIUM_SECRET_KEY: newKey }, { database: testApp.database, dropDatabaseOnClose: false });
    const text = await dump();
    for (const secret of Object.values(SECRETS)) expect(text.includes(secret)).toBe(false);
    expect(text).toContain(`v1:${parseSealingKey(newKey).id}:`);
    expect(text).not.toContain(`v1:${parseSealingKey(TEST_SECRET_KEY).id}:`);
    await callCarriesSecret();
  }, 120_000);
});
