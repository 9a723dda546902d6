import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Staff users (chat-management-api.md, Console endpoints: `GET/POST {C}/workChat/user` with every filter, plus
 * get/update/delete of one staff user) and the guide operation `POST {C}/workChat/user/guide/bindDigitalStaff`:
 * DTO fields, the corp belonging to the tenant, uniqueness of the platform userid per corp (also under concurrent
 * requests), filters, paging and sorting, binding, tenant isolation and the write scope.
 */
describe('staff users ({C}/workChat/user)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  const users = '/api/acme/console/workChat/user';
  const otherUsers = '/api/globex/console/workChat/user';
  const bindPath = `${users}/guide/bindDigitalStaff`;
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';
  const MAX_IDS = 3;
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const newUser = async (body: Record<string, unknown>, bearer = token, path = users) => (await api('post', path, bearer).send(body).expect(200)).body;
  const newDigitalStaff = async (name: string, tenant = 'acme', bearer = token) =>
    (await api('post', `/api/${tenant}/v1/chat/staff`, bearer).send({ name, persona: `You are ${name}.` }).expect(200)).body as { id: string; name: string };
  const db = () => testApp.app.get<DataSource>(getDataSourceToken());

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_STAFF_MAX_IDS: String(MAX_IDS) });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    await api('post', '/api/acme/console/workChat/corps').send({ corpName: 'Acme Retail', workChatCorpId: 'wwacmeretail' }).expect(200);
    await api('post', '/api/acme/console/workChat/corps').send({ corpName: 'Acme Wholesale', workChatCorpId: 'wwacmewhole' }).expect(200);
    await api('post', '/api/globex/console/workChat/corps', otherToken).send({ corpName: 'Globex', workChatCorpId: 'wwglobex' }).expect(200);
  });
  afterAll(() => testApp?.close());

  it('creates a staff user in a corp of the tenant (200) and reads it back; the row is stored under the tenant', async () => {
    const created = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'zhangsan', name: 'Zhang San', mobile: '+8613800138000', email: 'zs@acme.example', userId: 'E-1', online: true });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      corpId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      corpName: 'Acme Retail',
      workChatCorpId: 'wwacmeretail',
      workChatUserId: 'zhangsan',
      userId: 'E-1',
      name: 'Zhang San',
      mobile: '+8613800138000',
      email: 'zs@acme.example',
      online: true,
      digitalStaffId: null,
      digitalStaffName: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(await db().query('SELECT tenant_id, work_chat_user_id FROM chat_work_user WHERE id = $1', [created.id])).toEqual([{ tenant_id: 'acme', work_chat_user_id: 'zhangsan' }]);
    expect((await api('get', `${users}/${created.id}`).expect(200)).body).toEqual(created);
    const defaults = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'lisi', name: 'Li Si' });
    expect(defaults).toMatchObject({ online: false, mobile: null, email: null, userId: null, digitalStaffId: null });
  });

  it('refuses a corp that is not the tenant\'s (404), including another tenant\'s platform corp id', async () => {
    const unknown = await api('post', users).send({ workChatCorpId: 'wwnope', workChatUserId: 'x', name: 'X' }).expect(404);
    expect(unknown.body.detail).toBe('No corp with platform corp id "wwnope" in this tenant.');
    await api('post', users).send({ workChatCorpId: 'wwglobex', workChatUserId: 'x', name: 'X' }).expect(404);
  });

  it('keeps the platform userid unique per corp (409), also when the same user is created concurrently; other corps may reuse it', async () => {
    const duplicate = await api('post', users).send({ workChatCorpId: 'wwacmeretail', workChatUserId: 'zhangsan', name: 'Again' }).expect(409);
    expect(duplicate.body.detail).toBe('Corp "Acme Retail" already has a staff user "zhangsan".');
    await newUser({ workChatCorpId: 'wwacmewhole', workChatUserId: 'zhangsan', name: 'Zhang San (wholesale)' });
    const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => api('post', users).send({ workChatCorpId: 'wwacmewhole', workChatUserId: 'racer', name: `Racer ${i}` })));
    expect(racers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await db().query("SELECT count(*)::int AS n FROM chat_work_user WHERE tenant_id = 'acme' AND work_chat_user_id = 'racer'")).toEqual([{ n: 1 }]);
  });

  it('validates the body (400 problem+json with the fields)', async () => {
    const missing = await api('post', users).send({ workChatCorpId: 'wwacmeretail', workChatUserId: 'x' }).expect(400);
    expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
    const fields = async (body: Record<string, unknown>) => (await api('post', users).send({ workChatCorpId: 'wwacmeretail', workChatUserId: 'valid', name: 'V', ...body }).expect(400)).body.errors.map((e: { field: string }) => e.field);
    expect(await fields({ workChatUserId: 'has space' })).toEqual(['workChatUserId']);
    expect(await fields({ mobile: '12ab' })).toEqual(['mobile']);
    expect(await fields({ email: 'not-an-email' })).toEqual(['email']);
    expect(await fields({ digitalStaffId: 'nope' })).toEqual(['digitalStaffId']);
    expect(await fields({ online: 'yes' })).toEqual(['online']);
    expect(await fields({ tenantId: 'globex' })).toEqual(['tenantId']);
  });

  describe('list', () => {
    beforeAll(async () => {
      await newUser({ workChatCorpId: 'wwacmewhole', workChatUserId: 'wangwu', name: 'Wang Wu', mobile: '13900000001', userId: 'E-100%', online: true });
      await newUser({ workChatCorpId: 'wwacmewhole', workChatUserId: 'zhaoliu', name: 'Zhao Liu', mobile: '13900000002', userId: 'E-200' });
      await newUser({ workChatCorpId: 'wwglobex', workChatUserId: 'wangwu', name: 'Wang Wu at Globex' }, otherToken, otherUsers);
    });
    const ids = async (query: string) => ((await api('get', `${users}?size=200&sort=workChatUserId,asc&sort=name,asc&${query}`).expect(200)).body.content as { workChatUserId: string; corpName: string }[]).map((u) => `${u.corpName}/${u.workChatUserId}`);

    it('pages the tenant\'s staff users only, newest first by default', async () => {
      const page = await api('get', `${users}?size=2`).expect(200);
      expect(page.body).toMatchObject({ page: 0, size: 2, totalElements: 6, totalPages: 3 });
      expect(page.body.content[0].workChatUserId).toBe('zhaoliu');
      const all = await ids('');
      expect(all).toHaveLength(6);
      expect(all).not.toContain('Globex/wangwu');
    });

    it('filters by workChatCorpId, name, mobile, userId and online', async () => {
      expect(await ids('workChatCorpId=wwacmeretail')).toEqual(['Acme Retail/lisi', 'Acme Retail/zhangsan']);
      expect(await ids('workChatCorpId=wwglobex')).toEqual([]);
      expect(await ids('name=WANG')).toEqual(['Acme Wholesale/wangwu']);
      expect(await ids('mobile=13900000002')).toEqual(['Acme Wholesale/zhaoliu']);
      expect(await ids('mobile=1390000000')).toEqual([]);
      expect(await ids('userId=E-1')).toEqual(['Acme Retail/zhangsan']);
      expect(await ids('online=true')).toEqual(['Acme Wholesale/wangwu', 'Acme Retail/zhangsan']);
      expect(await ids('online=false&workChatCorpId=wwacmeretail')).toEqual(['Acme Retail/lisi']);
      const badOnline = await api('get', `${users}?online=maybe`).expect(400);
      expect(badOnline.body.errors).toEqual([expect.objectContaining({ field: 'online' })]);
    });

    it('matches keyword against name, mobile, userId and workChatUserId, wildcards taken literally', async () => {
      expect(await ids('keyword=zhao')).toEqual(['Acme Wholesale/zhaoliu']);
      expect(await ids('keyword=0000000')).toEqual(['Acme Wholesale/wangwu', 'Acme Wholesale/zhaoliu']);
      expect(await ids(`keyword=${encodeURIComponent('100%')}`)).toEqual(['Acme Wholesale/wangwu']);
      expect(await ids('keyword=E-')).toEqual(['Acme Wholesale/wangwu', 'Acme Retail/zhangsan', 'Acme Wholesale/zhaoliu']);
      expect(await ids('keyword=_')).toEqual([]);
    });

    it('takes workChatUserId as a set: repeated parameters or a comma list, at most CHAT_STAFF_MAX_IDS', async () => {
      const expected = ['Acme Retail/lisi', 'Acme Wholesale/wangwu'];
      expect(await ids('workChatUserId=lisi&workChatUserId=wangwu')).toEqual(expected);
      expect(await ids('workChatUserId=lisi,wangwu')).toEqual(expected);
      expect(await ids('workChatUserId=lisi,wangwu&workChatUserId=nobody')).toEqual(expected);
      expect(await ids('workChatUserId=lisi,lisi,lisi,lisi')).toEqual(['Acme Retail/lisi']);
      expect(await ids('workChatUserId=zhangsan&keyword=wholesale')).toEqual(['Acme Wholesale/zhangsan']);
      const tooMany = await api('get', `${users}?workChatUserId=a,b,c,d`).expect(400);
      expect(tooMany.body.detail).toBe(`workChatUserId names 4 staff users; at most ${MAX_IDS} are allowed per request (CHAT_STAFF_MAX_IDS).`);
      await api('get', `${users}?workChatUserId=${encodeURIComponent('bad id')}`).expect(400);
    });

    it('sorts by allow-listed fields and refuses others, sizes over 200 and negative pages (400)', async () => {
      const byName = await api('get', `${users}?sort=name,desc&size=3`).expect(200);
      expect(byName.body.content.map((u: { name: string }) => u.name)).toEqual(['Zhao Liu', 'Zhang San (wholesale)', 'Zhang San']);
      const sort = await api('get', `${users}?sort=mobile,asc`).expect(400);
      expect(sort.body.detail).toBe('Invalid request: sort (Cannot sort by "mobile"; allowed: createdAt, updatedAt, name, workChatUserId)');
      await api('get', `${users}?size=201`).expect(400);
      await api('get', `${users}?page=-1`).expect(400);
    });
  });

  it('updates the given fields; "" clears optional ones; a clashing userid is 409; digitalStaffId binds and null unbinds', async () => {
    const user = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'sunqi', name: 'Sun Qi', mobile: '13700000000', email: 'sq@acme.example' });
    const staff = await newDigitalStaff('Ava');
    const changed = await api('put', `${users}/${user.id}`).send({ name: 'Sun Qi Jr', online: true, mobile: '', digitalStaffId: staff.id }).expect(200);
    expect(changed.body).toMatchObject({ name: 'Sun Qi Jr', online: true, mobile: null, email: 'sq@acme.example', digitalStaffId: staff.id, digitalStaffName: 'Ava', workChatUserId: 'sunqi' });
    const clash = await api('put', `${users}/${user.id}`).send({ workChatUserId: 'zhangsan' }).expect(409);
    expect(clash.body.detail).toBe('Corp "Acme Retail" already has a staff user "zhangsan".');
    const missingStaff = await api('put', `${users}/${user.id}`).send({ digitalStaffId: UNKNOWN }).expect(404);
    expect(missingStaff.body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
    const unbound = await api('put', `${users}/${user.id}`).send({ digitalStaffId: null }).expect(200);
    expect(unbound.body).toMatchObject({ digitalStaffId: null, digitalStaffName: null, name: 'Sun Qi Jr' });
    await api('put', `${users}/${user.id}`).send({ workChatCorpId: 'wwacmewhole' }).expect(400);
  });

  it('reads, changes and deletes only existing staff users of the tenant (404), with 400 for ids that are not UUIDs', async () => {
    const user = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'tobedeleted', name: 'Temp' });
    await api('get', `${users}/not-a-uuid`).expect(400);
    expect((await api('get', `${users}/${UNKNOWN}`).expect(404)).body.detail).toBe(`No staff user ${UNKNOWN} in this tenant.`);
    await api('put', `${users}/${UNKNOWN}`).send({ name: 'X' }).expect(404);
    expect((await api('delete', `${users}/${user.id}`).expect(200)).text).toBe('');
    await api('get', `${users}/${user.id}`).expect(404);
    await api('delete', `${users}/${user.id}`).expect(404);
  });

  describe('guide: bindDigitalStaff', () => {
    it('binds staff users to a digital staff, moving those bound elsewhere, and reports what changed', async () => {
      const ava = await newDigitalStaff('Ava guide');
      const bob = await newDigitalStaff('Bob guide');
      const a = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'g1', name: 'G One' });
      const b = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'g2', name: 'G Two', digitalStaffId: bob.id });
      const c = await newUser({ workChatCorpId: 'wwacmewhole', workChatUserId: 'g3', name: 'G Three', digitalStaffId: ava.id });
      const bound = await api('post', bindPath).send({ digitalStaffId: ava.id, staffUserIds: [a.id, b.id, c.id, a.id] }).expect(200);
      expect(bound.body).toMatchObject({ digitalStaffId: ava.id, digitalStaffName: 'Ava guide', newlyBound: 1, moved: 1, unchanged: 1 });
      expect(bound.body.staffUsers.map((u: { id: string; digitalStaffId: string; digitalStaffName: string }) => [u.id, u.digitalStaffId, u.digitalStaffName])).toEqual([
        [a.id, ava.id, 'Ava guide'],
        [b.id, ava.id, 'Ava guide'],
        [c.id, ava.id, 'Ava guide'],
      ]);
      expect((await api('get', `${users}?digitalStaffId=${ava.id}`).expect(200)).body.totalElements).toBe(3);
      expect((await api('get', `${users}?digitalStaffId=${bob.id}`).expect(200)).body.totalElements).toBe(0);
      const again = await api('post', bindPath).send({ digitalStaffId: ava.id, staffUserIds: [a.id] }).expect(200);
      expect(again.body).toMatchObject({ newlyBound: 0, moved: 0, unchanged: 1 });
    });

    it('is all or nothing: an unknown staff user or digital staff is 404 and nothing changes; too many ids is 400', async () => {
      const staff = await newDigitalStaff('Cleo guide');
      const user = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'g4', name: 'G Four' });
      const missing = await api('post', bindPath).send({ digitalStaffId: staff.id, staffUserIds: [user.id, UNKNOWN] }).expect(404);
      expect(missing.body.detail).toBe(`No staff user ${UNKNOWN} in this tenant; nothing was bound.`);
      expect((await api('get', `${users}/${user.id}`).expect(200)).body.digitalStaffId).toBeNull();
      const noStaff = await api('post', bindPath).send({ digitalStaffId: UNKNOWN, staffUserIds: [user.id] }).expect(404);
      expect(noStaff.body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
      const tooMany = await api('post', bindPath).send({ digitalStaffId: staff.id, staffUserIds: [1, 2, 3, 4].map((n) => `00000000-0000-4000-8000-00000000000${n}`) }).expect(400);
      expect(tooMany.body.errors).toEqual([{ field: 'staffUserIds', messages: [`at most ${MAX_IDS} entries`] }]);
      await api('post', bindPath).send({ digitalStaffId: staff.id, staffUserIds: [] }).expect(400);
      await api('post', bindPath).send({ digitalStaffId: staff.id, staffUserIds: ['nope'] }).expect(400);
    });
  });

  describe('tenant isolation and scopes', () => {
    let globexUser: { id: string };
    let globexStaff: { id: string };
    let acmeUser: { id: string };
    beforeAll(async () => {
      globexUser = await newUser({ workChatCorpId: 'wwglobex', workChatUserId: 'iso', name: 'Iso' }, otherToken, otherUsers);
      globexStaff = await newDigitalStaff('Globex bot', 'globex', otherToken);
      acmeUser = await newUser({ workChatCorpId: 'wwacmeretail', workChatUserId: 'iso', name: 'Iso at Acme' });
    });

    it('403 for tenant acme\'s token on every route under globex\'s path', async () => {
      const attempts = [
        api('get', otherUsers),
        api('post', otherUsers).send({ workChatCorpId: 'wwglobex', workChatUserId: 'sneaky', name: 'Sneaky' }),
        api('get', `${otherUsers}/${globexUser.id}`),
        api('put', `${otherUsers}/${globexUser.id}`).send({ name: 'Hacked' }),
        api('delete', `${otherUsers}/${globexUser.id}`),
        api('post', `${otherUsers}/guide/bindDigitalStaff`).send({ digitalStaffId: globexStaff.id, staffUserIds: [globexUser.id] }),
      ];
      for (const response of await Promise.all(attempts)) {
        expect([response.status, response.body.detail]).toEqual([403, 'The access token is not valid for tenant "globex" (it is for: acme).']);
      }
      expect((await api('get', `${otherUsers}/${globexUser.id}`, otherToken).expect(200)).body.name).toBe('Iso');
    });

    it('404 for globex\'s ids through acme\'s own paths; nothing of globex changes', async () => {
      await api('get', `${users}/${globexUser.id}`).expect(404);
      await api('put', `${users}/${globexUser.id}`).send({ name: 'Hacked' }).expect(404);
      await api('delete', `${users}/${globexUser.id}`).expect(404);
      await api('post', bindPath).send({ digitalStaffId: globexStaff.id, staffUserIds: [acmeUser.id] }).expect(404);
      await api('post', bindPath).send({ digitalStaffId: (await newDigitalStaff('Acme iso')).id, staffUserIds: [globexUser.id] }).expect(404);
      await api('put', `${users}/${acmeUser.id}`).send({ digitalStaffId: globexStaff.id }).expect(404);
      await api('post', users).send({ workChatCorpId: 'wwacmeretail', workChatUserId: 'iso2', name: 'X', digitalStaffId: globexStaff.id }).expect(404);
      expect((await api('get', `${otherUsers}/${globexUser.id}`, otherToken).expect(200)).body).toMatchObject({ name: 'Iso', digitalStaffId: null });
    });

    it('403 on every write for a token without chat:write; reads are served', async () => {
      await api('get', users, readOnly).expect(200);
      await api('get', `${users}/${acmeUser.id}`, readOnly).expect(200);
      const writes = [
        api('post', users, readOnly).send({ workChatCorpId: 'wwacmeretail', workChatUserId: 'ro', name: 'RO' }),
        api('put', `${users}/${acmeUser.id}`, readOnly).send({ name: 'RO' }),
        api('delete', `${users}/${acmeUser.id}`, readOnly),
        api('post', bindPath, readOnly).send({ digitalStaffId: UNKNOWN, staffUserIds: [acmeUser.id] }),
      ];
      for (const response of await Promise.all(writes)) {
        expect(response.status).toBe(403);
        expect(response.body.detail).toMatch(/^(POST|PUT|DELETE) operations need the chat:write scope, which the token lacks\.$/);
      }
      expect((await api('get', `${users}/${acmeUser.id}`).expect(200)).body.name).toBe('Iso at Acme');
    });
  });
});
