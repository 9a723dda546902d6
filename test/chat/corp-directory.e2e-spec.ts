import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;

/**
 * The corp names the chat lists reuse (src/chat/corps/corp-directory.ts, CHAT_LIST_CORP_CACHE_TTL_MS): changes
 * through the API apply at once, a corp written by another process is found at once by a name not seen yet, and a
 * rename by another process waits for the TTL (here a minute, so the reused name is observable) — or applies at
 * once with the TTL at 0.
 */
describe.each([
  ['reused for the TTL', '60000'],
  ['read every request (TTL 0)', '0'],
])('chat list corp names, %s', (_title, ttl) => {
  let testApp: TestApp;
  let token: string;
  let acme: TestCorp;

  const byStates = (corpName: string) =>
    request(testApp.baseUrl).post('/api/acme/v1/workChat/contact/external/byLastStates?page=0&size=10').auth(token, { type: 'bearer' }).send({ corpName, states: ['fair'] });
  const staffContacts = async () =>
    (await request(testApp.baseUrl).get('/api/acme/console/workChat/zhangsan/contact/external?page=0&size=10').auth(token, { type: 'bearer' }).expect(200)).body.content as Json[];

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_LIST_CORP_CACHE_TTL_MS: ttl });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    await newStaffUser(testApp, acme, 'zhangsan');
    await dataSourceOf(testApp).query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, state, state_at, add_way, ai_enabled, profile, created_at, updated_at)
       VALUES ('acme', $1, 'wm-1', 'zhangsan', 'Customer 1', '[]'::jsonb, 'fair', now(), 1, true, '{}'::jsonb, now(), now())`,
      [acme.id],
    );
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('applies renames made through the API at once', async () => {
    expect((await byStates('Acme Retail').expect(200)).body.content.map((row: Json) => row.corpName)).toEqual(['Acme Retail']);
    await request(testApp.baseUrl).put(`/api/acme/console/workChat/corps/${acme.id}`).auth(token, { type: 'bearer' }).send({ corpName: 'Acme Stores' }).expect(200);
    await byStates('Acme Retail').expect(404);
    expect((await byStates('Acme Stores').expect(200)).body.content.map((row: Json) => row.corpName)).toEqual(['Acme Stores']);
    expect((await staffContacts()).map((row) => row.corpName)).toEqual(['Acme Stores']);
  });

  it('finds a corp another process created at once, by its new name', async () => {
    await byStates('Acme Outlet').expect(404);
    await dataSourceOf(testApp).query(`INSERT INTO chat_work_corp (tenant_id, corp_name, work_chat_corp_id, enabled) VALUES ('acme', 'Acme Outlet', 'wwoutlet', true)`);
    expect((await byStates('Acme Outlet').expect(200)).body.content).toEqual([]);
  });

  it(ttl === '0' ? 'shows a rename by another process at once' : 'shows a rename by another process only after the TTL', async () => {
    await byStates('Acme Stores').expect(200);
    await dataSourceOf(testApp).query(`UPDATE chat_work_corp SET corp_name = 'Acme Direct' WHERE id = $1`, [acme.id]);
    const names = (await staffContacts()).map((row) => row.corpName);
    if (ttl === '0') expect(names).toEqual(['Acme Direct']);
    else expect(names).toEqual(['Acme Stores']);
    await byStates('Acme Direct').expect(200); // an unseen name is always looked up
  });

  it('never answers for another tenant’s corp', async () => {
    await newTenant(testApp, 'globex');
    const globexToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    await request(testApp.baseUrl)
      .post('/api/globex/v1/workChat/contact/external/byLastStates?page=0&size=10')
      .auth(globexToken, { type: 'bearer' })
      .send({ corpName: 'Acme Direct', states: ['fair'] })
      .expect(404);
  });
});
