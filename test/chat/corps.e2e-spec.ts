import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { WorkChatCorpEntity } from '../../src/chat/corps/work-chat-corp.entity';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Corps (chat-management-api.md, Console endpoints: `GET/POST {C}/workChat/corps`, plus get/update/delete of one
 * corp): DTO fields, uniqueness within a tenant, paging and sorting with a documented maximum size, write-only
 * secrets. Tenant isolation of these routes is in oauth.e2e-spec.ts.
 */
describe('corps ({C}/workChat/corps)', () => {
  let testApp: TestApp;
  let token: string;
  let otherToken: string;
  const corps = '/api/acme/console/workChat/corps';
  const SECRET = 'corp-app-secret-VERY-private-0123456789';
  const AES_KEY = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG';
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });

  beforeAll(async () => {
    testApp = await startTestApp();
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
  });
  afterAll(() => testApp?.close());

  it('creates a corp (200), returns the DTO without secrets, and stores the row under the tenant', async () => {
    const created = await api('post', corps)
      .send({ corpName: 'Acme Retail', workChatCorpId: 'ww3f9c2a7d1e0b4c5a', agentId: '1000002', secret: SECRET, callbackToken: 'tok123', callbackAesKey: AES_KEY, remark: 'main corp' })
      .expect(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      corpName: 'Acme Retail',
      workChatCorpId: 'ww3f9c2a7d1e0b4c5a',
      agentId: '1000002',
      hasSecret: true,
      hasCallbackConfig: true,
      remark: 'main corp',
      enabled: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain(SECRET);
    const rows = await testApp.app.get<DataSource>(getDataSourceToken()).query('SELECT tenant_id, secret, callback_aes_key FROM chat_work_corp WHERE id = $1', [created.body.id]);
    // Sealed at rest (issue 19): the row holds ciphertext; the entity reads the secrets back.
    expect(rows).toEqual([{ tenant_id: 'acme', secret: expect.stringMatching(/^v1:/), callback_aes_key: expect.stringMatching(/^v1:/) }]);
    expect(JSON.stringify(rows)).not.toContain(SECRET);
    const entity = await testApp.app.get<DataSource>(getDataSourceToken()).getRepository(WorkChatCorpEntity).findOneByOrFail({ id: created.body.id });
    expect({ secret: entity.secret, callbackAesKey: entity.callbackAesKey }).toEqual({ secret: SECRET, callbackAesKey: AES_KEY });
    const read = await api('get', `${corps}/${created.body.id}`).expect(200);
    expect(read.body).toEqual(created.body);
  });

  it('keeps corpName and workChatCorpId unique within a tenant (409), not across tenants', async () => {
    const name = await api('post', corps).send({ corpName: 'Acme Retail', workChatCorpId: 'wwother' }).expect(409);
    expect(name.body.detail).toBe('The tenant already has a corp named "Acme Retail".');
    const platformId = await api('post', corps).send({ corpName: 'Another', workChatCorpId: 'ww3f9c2a7d1e0b4c5a' }).expect(409);
    expect(platformId.body.detail).toBe('The tenant already links the platform corp "ww3f9c2a7d1e0b4c5a".');
    await api('post', '/api/globex/console/workChat/corps', otherToken).send({ corpName: 'Acme Retail', workChatCorpId: 'ww3f9c2a7d1e0b4c5a' }).expect(200);
  });

  it('validates the body: required fields, formats, unknown fields, half a callback pair (400)', async () => {
    const missing = await api('post', corps).send({ workChatCorpId: 'wwx' }).expect(400);
    expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'corpName' })]));
    await api('post', corps).send({ corpName: 'X', workChatCorpId: 'has spaces' }).expect(400);
    await api('post', corps).send({ corpName: 'X', workChatCorpId: 'wwx', agentId: 'abc' }).expect(400);
    await api('post', corps).send({ corpName: 'X', workChatCorpId: 'wwx', tenantId: 'globex' }).expect(400);
    const half = await api('post', corps).send({ corpName: 'X', workChatCorpId: 'wwx', callbackToken: 'tok' }).expect(400);
    expect(half.body.detail).toBe('callbackToken and callbackAesKey go together: give both, or clear both with "".');
  });

  it('pages, filters by likeCorpName (wildcards taken literally) and sorts by allowed fields', async () => {
    for (const corpName of ['Beta 100%', 'beta_two', 'Gamma']) await api('post', corps).send({ corpName, workChatCorpId: `ww${corpName.replace(/\W/g, '')}` }).expect(200);
    const all = await api('get', `${corps}?sort=corpName,asc&size=2`).expect(200);
    expect(all.body).toMatchObject({ page: 0, size: 2, totalElements: 4, totalPages: 2 });
    expect(all.body.content.map((c: { corpName: string }) => c.corpName)).toEqual(['Acme Retail', 'Beta 100%']);
    const second = await api('get', `${corps}?sort=corpName,asc&size=2&page=1`).expect(200);
    expect(second.body.content.map((c: { corpName: string }) => c.corpName)).toEqual(['Gamma', 'beta_two']);
    const like = await api('get', `${corps}?likeCorpName=BETA`).expect(200);
    expect(like.body.content.map((c: { corpName: string }) => c.corpName).sort()).toEqual(['Beta 100%', 'beta_two']);
    const percent = await api('get', `${corps}?likeCorpName=${encodeURIComponent('100%')}`).expect(200);
    expect(percent.body.content.map((c: { corpName: string }) => c.corpName)).toEqual(['Beta 100%']);
    const underscore = await api('get', `${corps}?likeCorpName=e_R`).expect(200);
    expect(underscore.body.totalElements).toBe(0);
    const newest = await api('get', corps).expect(200);
    expect(newest.body.content[0].corpName).toBe('Gamma');
  });

  it('refuses a size over the documented maximum of 200, unknown sort fields and bad pages (400)', async () => {
    await api('get', `${corps}?size=200`).expect(200);
    const tooBig = await api('get', `${corps}?size=201`).expect(400);
    expect(tooBig.body.errors).toEqual([expect.objectContaining({ field: 'size' })]);
    const sort = await api('get', `${corps}?sort=secret,asc`).expect(400);
    expect(sort.body.detail).toBe('Invalid request: sort (Cannot sort by "secret"; allowed: createdAt, updatedAt, corpName)');
    await api('get', `${corps}?page=-1`).expect(400);
    await api('get', `${corps}?size=0`).expect(400);
  });

  it('updates the given fields only; "" clears secrets; renaming onto another corp is 409', async () => {
    const created = await api('post', corps).send({ corpName: 'Delta', workChatCorpId: 'wwdelta', secret: SECRET, remark: 'keep me' }).expect(200);
    const renamed = await api('put', `${corps}/${created.body.id}`).send({ corpName: 'Delta Prime', enabled: false }).expect(200);
    expect(renamed.body).toMatchObject({ corpName: 'Delta Prime', enabled: false, remark: 'keep me', hasSecret: true, workChatCorpId: 'wwdelta' });
    const cleared = await api('put', `${corps}/${created.body.id}`).send({ secret: '' }).expect(200);
    expect(cleared.body.hasSecret).toBe(false);
    await api('put', `${corps}/${created.body.id}`).send({ corpName: 'Gamma' }).expect(409);
    await api('put', `${corps}/${created.body.id}`).send({ callbackAesKey: AES_KEY }).expect(400);
  });

  it('reads, changes and deletes only existing corps of the tenant (404), with 400 for ids that are not UUIDs', async () => {
    const created = await api('post', corps).send({ corpName: 'Epsilon', workChatCorpId: 'wwepsilon' }).expect(200);
    await api('get', `${corps}/not-a-uuid`).expect(400);
    const unknown = await api('get', `${corps}/00000000-0000-4000-8000-000000000000`).expect(404);
    expect(unknown.body.detail).toBe('No corp 00000000-0000-4000-8000-000000000000 in this tenant.');
    const deleted = await api('delete', `${corps}/${created.body.id}`).expect(200);
    expect(deleted.text).toBe('');
    await api('get', `${corps}/${created.body.id}`).expect(404);
    await api('delete', `${corps}/${created.body.id}`).expect(404);
  });

  it('refuses to delete a corp that staff users still refer to (409 counting them), and deletes it once they are gone', async () => {
    const corp = await api('post', corps).send({ corpName: 'Acme Outlet', workChatCorpId: 'wwacmeoutlet' }).expect(200);
    const user = await api('post', '/api/acme/console/workChat/user').send({ workChatCorpId: 'wwacmeoutlet', workChatUserId: 'zhangsan', name: 'Zhang San' }).expect(200);
    const refused = await api('delete', `${corps}/${corp.body.id}`).expect(409);
    expect(refused.body.detail).toBe('The corp is still used by 1 staff users; remove them first, or disable the corp instead (PUT with enabled: false).');
    await api('get', `${corps}/${corp.body.id}`).expect(200);
    await api('delete', `/api/acme/console/workChat/user/${user.body.id}`).expect(200);
    await api('delete', `${corps}/${corp.body.id}`).expect(200);
  });
});
