import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { CHAT_PLATFORM, type ChatPlatform } from '../../src/chat/platform/chat-platform.port';
import { startTestApp, TestApp } from '../support/test-app';
import { addFakeStaff, type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { corpContext, dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Method = 'get' | 'post' | 'put' | 'delete';
type Json = Record<string, any>;

/**
 * External contacts, group rooms and their guide syncs (chat-management-api.md, External contact; issue 5,
 * "External contacts"): the console contact and room paths, the v1 tenant API (remark, lookups, AI switch, batch
 * state change), customer profiles and partner info, tag renames, the deprecated group-member dedup, the guide's
 * syncGroup / syncCustomer, tenant isolation of every route, and the same platform operations through the HTTP
 * adapter against a local fake platform server. Customers arrive the way they do in production: through the
 * simulator's `external_contact.added` event (simulator-api.e2e-spec.ts covers the simulator endpoints).
 */
describe('external contacts and group rooms', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let east: TestCorp;
  let globex: TestCorp;
  let platform: ChatPlatform;
  const ways: Record<string, Json> = {};
  const C = '/api/acme/console';
  const V1 = '/api/acme/v1/workChat/contact';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const db = () => dataSourceOf(testApp);
  /** A customer adds a staff member on the simulated platform; returns the simulator's answer (with the stored contact). */
  const inject = async (body: Json, corp: TestCorp = acme, bearer = token) => {
    const response = await api('post', `/api/${corp.tenantId}/console/simulator/corps/${corp.id}/customers`, bearer).send(body);
    if (response.status !== 200) throw new Error(`inject failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body as Json;
  };
  const contactPath = (contact: Json, suffix = '') => `${C}/workChat/${contact.workChatUserId}/contact/external/${contact.id}${suffix}`;
  const syncCustomers = (corp: TestCorp, workChatUserId: string, bearer = token) => api('post', `/api/${corp.tenantId}/console/workChat/user/guide/syncCustomer`, bearer).send({ corpId: corp.id, workChatUserId });
  const syncGroups = (corp: TestCorp, workChatUserId: string, bearer = token) => api('post', `/api/${corp.tenantId}/console/workChat/user/guide/syncGroup`, bearer).send({ corpId: corp.id, workChatUserId });
  const newWay = async (name: string, workChatUserId: string, state: string, corp: TestCorp = acme) =>
    (await api('post', `/api/${corp.tenantId}/console/workChat/contactWay`).send({ corpName: corp.corpName, workChatUserId, name, state }).expect(200)).body as Json;

  beforeAll(async () => {
    testApp = await startTestApp({
      CHAT_CONTACT_BATCH_MAX_ITEMS: '5',
      CHAT_CONTACT_LOOKUP_MAX_IDS: '5',
      CHAT_CUSTOMER_PROFILE_MAX_BYTES: '1024',
      CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT: '50',
      CHAT_SYNC_PAGE_SIZE: '2',
    });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    east = await newCorp(testApp, token, 'acme', 'Acme East');
    globex = await newCorp(testApp, otherToken, 'globex', 'Globex Retail');
    for (const userId of ['zhangsan', 'lisi', 'wangwu', 'zhaoliu']) await newStaffUser(testApp, acme, userId);
    await newStaffUser(testApp, east, 'zhangsan');
    await newStaffUser(testApp, globex, 'zhangsan');
    ways.spring = await newWay('Spring fair', 'zhangsan', 'spring-fair');
    ways.web = await newWay('Website', 'lisi', 'web');
    ways.vip = await newWay('VIP follow-up', 'zhangsan', 'vip');
    ways.store = await newWay('Store', 'wangwu', 'store');
    platform = testApp.app.get<ChatPlatform>(CHAT_PLATFORM);
  });
  afterAll(() => testApp?.close());

  it('serves every spec row of this area with its method, path and operationId (the console ai-intervene row belongs to messages)', async () => {
    const rows: { api: string; method: string; path: string; operationId?: string }[] = JSON.parse(readFileSync(join(__dirname, '../../../shared/spec/endpoints.json'), 'utf8'));
    const area = /\/workChat\/contact\/external|\/workChat\/contact\/batchChangeState|\/customers\/profiles\/|\/external\/partner\/customer\/|\/workChat\/tag\/|\/workChat\/customer\/|\/work-chat-group-member\/dedup|\/contact\/(external|room)\/\{contactId\}(\/ai\/switch)?$|\/user\/guide\/sync(Group|Customer)$/;
    const mine = rows.filter((row) => row.api === 'chat' && area.test(row.path));
    expect(mine).toHaveLength(20);
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const missing = mine.filter((row) => {
      const operation = document.paths[row.path]?.[row.method.toLowerCase()];
      return !operation || (row.operationId !== undefined && operation.operationId !== row.operationId);
    });
    expect(missing).toEqual([]);
  });

  describe('customers added through the platform event', () => {
    it('stores the contact with the contact way\'s state, AI on, and serves it on the console path', async () => {
      const added = await inject({ name: 'Lily', contactWayId: ways.spring.id, gender: 2, avatarUrl: 'https://example.com/lily.png' });
      expect(added).toMatchObject({ userId: 'zhangsan', state: 'spring-fair' });
      const contact = added.contact;
      expect(contact).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        corpId: acme.id,
        corpName: 'Acme Retail',
        workChatUserId: 'zhangsan',
        externalUserId: added.externalUserId,
        openId: null,
        unionId: null,
        name: 'Lily',
        avatarUrl: 'https://example.com/lily.png',
        type: 1,
        gender: 2,
        customerCorpName: null,
        remark: null,
        description: null,
        remarkCompany: null,
        mobile: null,
        tags: [],
        state: 'spring-fair',
        stateAt: added.addedAt,
        addWay: 1,
        addedAt: added.addedAt,
        aiEnabled: true,
        profileNames: [],
        lastMessageAt: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const read = await api('get', contactPath(contact)).expect(200);
      expect(read.body).toEqual(contact);
      // Read scope is enough to read.
      await api('get', contactPath(contact), readOnly).expect(200);
    });

    it('keeps one contact per (customer, staff member) when the customer adds another staff member or comes again', async () => {
      const first = await inject({ name: 'Max', contactWayId: ways.spring.id });
      const second = await inject({ name: 'Max', userId: 'lisi', externalUserId: first.externalUserId, state: 'web' });
      expect(second.contact.id).not.toBe(first.contact.id);
      const again = await inject({ name: 'Max', contactWayId: ways.vip.id, externalUserId: first.externalUserId });
      expect(again.contact).toMatchObject({ id: first.contact.id, state: 'vip' });
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM chat_external_contact WHERE tenant_id = 'acme' AND external_user_id = $1`, [first.externalUserId]);
      expect(count).toBe(2);
    });
  });

  describe('console contact paths ({C}/workChat/{workChatUserId}/contact/external/{contactId})', () => {
    let contact: Json;
    beforeAll(async () => {
      contact = (await inject({ name: 'Nora', contactWayId: ways.spring.id })).contact;
    });

    it('PUT pushes remark fields to the platform and keeps open id and AI switch in Atrium', async () => {
      const updated = await api('put', contactPath(contact)).send({ remark: 'Nora (booth A)', description: 'Likes tea', remarkCompany: 'Initech', mobile: '13800000009', openId: 'o-nora', aiEnabled: false }).expect(200);
      expect(updated.body).toMatchObject({ id: contact.id, remark: 'Nora (booth A)', description: 'Likes tea', remarkCompany: 'Initech', mobile: '13800000009', openId: 'o-nora', aiEnabled: false });
      const onPlatform = await platform.getExternalContact(corpContext(acme), contact.externalUserId);
      expect(onPlatform.followers.find((follow) => follow.userId === 'zhangsan')).toMatchObject({ remark: 'Nora (booth A)', description: 'Likes tea', remarkMobiles: ['13800000009'] });
      // Omitted fields are kept; "" clears.
      const cleared = await api('put', contactPath(contact)).send({ mobile: '', aiEnabled: true }).expect(200);
      expect(cleared.body).toMatchObject({ remark: 'Nora (booth A)', mobile: null, openId: 'o-nora', aiEnabled: true });
      expect((await platform.getExternalContact(corpContext(acme), contact.externalUserId)).followers[0].remarkMobiles).toEqual([]);
    });

    it('refuses bad input (400), unknown ids and other staff members\' contacts (404)', async () => {
      await api('put', contactPath(contact)).send({ remark: 'x'.repeat(21) }).expect(400);
      await api('put', contactPath(contact)).send({ mobile: 'call me' }).expect(400);
      const unknownField = await api('put', contactPath(contact)).send({ name: 'renamed' }).expect(400);
      expect(unknownField.body.errors).toEqual([expect.objectContaining({ field: 'name' })]);
      await api('get', `${C}/workChat/zhangsan/contact/external/not-a-uuid`).expect(400);
      const unknown = await api('get', `${C}/workChat/zhangsan/contact/external/00000000-0000-4000-8000-000000000000`).expect(404);
      expect(unknown.body.detail).toBe('Staff member zhangsan has no contact 00000000-0000-4000-8000-000000000000 in this tenant.');
      await api('get', `${C}/workChat/lisi/contact/external/${contact.id}`).expect(404);
      await api('put', `${C}/workChat/lisi/contact/external/${contact.id}`).send({ remark: 'x' }).expect(404);
    });

    it('answers 409 when the contact\'s corp is disabled (it is not used to reach the platform), and changes nothing', async () => {
      const closed = await newCorp(testApp, token, 'acme', 'Acme Closed');
      const added = await inject({ name: 'Olga', userId: 'zhangsan' }, closed);
      await api('put', `${C}/workChat/corps/${closed.id}`).send({ enabled: false }).expect(200);
      const refused = await api('put', contactPath(added.contact)).send({ remark: 'never' }).expect(409);
      expect(refused.body.detail).toMatch(/^Corp "Acme Closed" is disabled/);
      expect((await api('get', contactPath(added.contact)).expect(200)).body.remark).toBeNull();
    });

    it('pages the staff member\'s contacts with filters, sorting and a maximum size', async () => {
      const base = `${C}/workChat/wangwu/contact/external`;
      const a = await inject({ name: 'Alpha Wang', contactWayId: ways.store.id, addedAt: '2020-02-01T00:00:00.000Z' });
      const b = await inject({ name: 'Beta Wang', userId: 'wangwu', state: 'spring-fair' });
      await inject({ name: 'Gamma Wang', userId: 'wangwu' }, east); // the same staff userid in another corp: left out by corpId
      await api('post', `${base}/${b.contact.id}/ai/switch`).expect(200);
      const all = await api('get', `${base}?corpId=${acme.id}&sort=name,asc`).expect(200);
      expect(all.body).toMatchObject({ page: 0, size: 20 });
      const names = all.body.content.map((row: Json) => row.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(['Alpha Wang', 'Beta Wang']));
      expect(all.body.content.every((row: Json) => row.workChatUserId === 'wangwu' && row.corpId === acme.id)).toBe(true);
      const byKeyword = await api('get', `${base}?keyword=WANG&corpId=${acme.id}`).expect(200);
      expect(byKeyword.body.content.map((row: Json) => row.id).sort()).toEqual([a.contact.id, b.contact.id].sort());
      const allCorps = await api('get', `${base}?keyword=WANG`).expect(200);
      expect(allCorps.body.content.map((row: Json) => row.corpName).sort()).toEqual(['Acme East', 'Acme Retail', 'Acme Retail']);
      expect((await api('get', `${base}?keyword=${a.externalUserId}`).expect(200)).body.content.map((row: Json) => row.id)).toEqual([a.contact.id]);
      expect((await api('get', `${base}?state=store`).expect(200)).body.content.map((row: Json) => row.id)).toEqual([a.contact.id]);
      expect((await api('get', `${base}?aiEnabled=false`).expect(200)).body.content.map((row: Json) => row.id)).toEqual([b.contact.id]);
      const paged = await api('get', `${base}?keyword=wang&corpId=${acme.id}&size=1&page=1&sort=name,asc`).expect(200);
      expect(paged.body).toMatchObject({ page: 1, size: 1, totalElements: 2, totalPages: 2 });
      expect(paged.body.content[0].id).toBe(b.contact.id);
      const created = (await api('get', `${base}?startCreateTime=2000-01-01%2000:00:00&endCreateTime=2000-01-02%2000:00:00`).expect(200)).body;
      expect(created.totalElements).toBe(0);
      await api('get', `${base}?size=201`).expect(400);
      await api('get', `${base}?sort=secret,asc`).expect(400);
      await api('get', `${base}?aiEnabled=maybe`).expect(400);
      const badTime = await api('get', `${base}?startCreateTime=2020-01-01T00:00:00`).expect(400);
      expect(badTime.body.errors).toEqual([expect.objectContaining({ field: 'startCreateTime' })]);
      const reversed = await api('get', `${base}?startCreateTime=2020-01-02%2000:00:00&endCreateTime=2020-01-01%2000:00:00`).expect(400);
      expect(reversed.body.detail).toBe('startCreateTime (2020-01-02 00:00:00) is after endCreateTime (2020-01-01 00:00:00).');
      await api('get', `${base}?startCreateTime=2020-02-30%2000:00:00`).expect(400);
    });
  });

  describe('AI reply switch', () => {
    let contact: Json;
    beforeAll(async () => {
      contact = (await inject({ name: 'Sara', contactWayId: ways.spring.id })).contact;
    });
    const ref = () => ({ corpName: 'Acme Retail', userId: 'zhangsan', externalUserId: contact.externalUserId });
    const query = () => `corpName=${encodeURIComponent('Acme Retail')}&userId=zhangsan&externalUserId=${contact.externalUserId}`;

    it('reads and sets it through the v1 paths and toggles it on the console path (JSON booleans)', async () => {
      const read = await api('get', `${V1}/external/ai/switch?${query()}`).expect(200);
      expect(read.headers['content-type']).toMatch(/^application\/json/);
      expect(read.body).toBe(true);
      expect((await api('post', `${V1}/external/ai/switch`).send({ ...ref(), enabled: false }).expect(200)).body).toBe(false);
      expect((await api('post', `${V1}/external/ai/switch`).send({ ...ref(), enabled: false }).expect(200)).body).toBe(false);
      expect((await api('get', `${V1}/external/ai/switch?${query()}`).expect(200)).body).toBe(false);
      const toggled = await api('post', contactPath(contact, '/ai/switch')).expect(200);
      expect([toggled.headers['content-type'], toggled.body]).toEqual([expect.stringMatching(/^application\/json/), true]);
      expect((await api('post', contactPath(contact, '/ai/switch')).expect(200)).body).toBe(false);
      expect((await api('get', contactPath(contact)).expect(200)).body.aiEnabled).toBe(false);
    });

    it('toggles atomically: concurrent toggles each flip once', async () => {
      const before = (await api('get', contactPath(contact)).expect(200)).body.aiEnabled as boolean;
      const results = await Promise.all(Array.from({ length: 21 }, () => api('post', contactPath(contact, '/ai/switch')).then((response) => response.body as boolean)));
      expect(results.filter((value) => value === true)).toHaveLength(before ? 10 : 11);
      expect(results.filter((value) => value === false)).toHaveLength(before ? 11 : 10);
      expect((await api('get', contactPath(contact)).expect(200)).body.aiEnabled).toBe(!before);
    });

    it('refuses missing or bad fields (400) and unknown contacts (404)', async () => {
      await api('get', `${V1}/external/ai/switch?corpName=Acme%20Retail&userId=zhangsan`).expect(400);
      await api('post', `${V1}/external/ai/switch`).send({ ...ref(), enabled: 'no' }).expect(400);
      await api('post', `${V1}/external/ai/switch`).send(ref()).expect(400);
      const unknown = await api('get', `${V1}/external/ai/switch?corpName=Acme%20Retail&userId=lisi&externalUserId=${contact.externalUserId}`).expect(404);
      expect(unknown.body.detail).toBe(`Staff member lisi has no customer ${contact.externalUserId} in corp "Acme Retail".`);
      await api('post', `${V1}/external/ai/switch`).send({ ...ref(), corpName: 'Nope', enabled: true }).expect(404);
      await api('post', `${C}/workChat/lisi/contact/external/${contact.id}/ai/switch`).expect(404);
      await api('post', `${C}/workChat/zhangsan/contact/external/nope/ai/switch`).expect(400);
    });
  });

  describe('remarks ({T}/v1/.../external/remark and /api/v1/workChat/customer/{corpName}/remark)', () => {
    let contact: Json;
    beforeAll(async () => {
      contact = (await inject({ name: 'Rita', contactWayId: ways.web.id })).contact;
    });

    it('sets the remark on the platform and the stored contact (no body)', async () => {
      const response = await api('post', `${V1}/external/remark`).send({ corpName: 'Acme Retail', userId: 'lisi', externalUserId: contact.externalUserId, remark: 'Rita VIP', remarkMobiles: ['13900000001', '13900000002'] }).expect(200);
      expect(response.text).toBe('');
      expect((await api('get', contactPath(contact)).expect(200)).body).toMatchObject({ remark: 'Rita VIP', mobile: '13900000001' });
      expect((await platform.getExternalContact(corpContext(acme), contact.externalUserId)).followers[0]).toMatchObject({ remark: 'Rita VIP', remarkMobiles: ['13900000001', '13900000002'] });
      const tenantless = await api('put', `/api/v1/workChat/customer/${encodeURIComponent('Acme Retail')}/remark`).send({ userId: 'lisi', externalUserId: contact.externalUserId, description: 'Prefers mornings', remark: '' }).expect(200);
      expect(tenantless.text).toBe('');
      expect((await api('get', contactPath(contact)).expect(200)).body).toMatchObject({ remark: null, description: 'Prefers mornings', mobile: '13900000001' });
    });

    it('refuses an empty change and bad fields (400), unknown corps and contacts (404)', async () => {
      const empty = await api('post', `${V1}/external/remark`).send({ corpName: 'Acme Retail', userId: 'lisi', externalUserId: contact.externalUserId }).expect(400);
      expect(empty.body.detail).toBe('Give at least one of remark, description, remarkCompany, remarkMobiles.');
      await api('post', `${V1}/external/remark`).send({ corpName: 'Acme Retail', userId: 'lisi', externalUserId: contact.externalUserId, remarkMobiles: ['abc'] }).expect(400);
      await api('post', `${V1}/external/remark`).send({ corpName: 'Acme Retail', userId: 'lisi', remark: 'x' }).expect(400);
      await api('put', `/api/v1/workChat/customer/Acme%20Retail/remark`).send({ userId: 'lisi', externalUserId: contact.externalUserId, remark: 'x'.repeat(21) }).expect(400);
      const corp = await api('post', `${V1}/external/remark`).send({ corpName: 'Nope', userId: 'lisi', externalUserId: contact.externalUserId, remark: 'x' }).expect(404);
      expect(corp.body.detail).toBe('No corp named "Nope" in this tenant.');
      await api('put', `/api/v1/workChat/customer/Acme%20Retail/remark`).send({ userId: 'wangwu', externalUserId: contact.externalUserId, remark: 'x' }).expect(404);
    });
  });

  describe('lookups: byOpenId, byLastStates, byExternalUserIds', () => {
    const added: Json[] = [];
    beforeAll(async () => {
      added.push(await inject({ name: 'Ivy', contactWayId: ways.vip.id, addedAt: '2020-01-10T08:00:00.000Z' }));
      added.push(await inject({ name: 'Jack', contactWayId: ways.vip.id, addedAt: '2020-01-12T08:00:00.000Z' }));
      added.push(await inject({ name: 'Kim', contactWayId: ways.web.id, addedAt: '2020-01-11T08:00:00.000Z' }));
      added.push(await inject({ name: 'Ivy', userId: 'lisi', state: 'web', externalUserId: added[0].externalUserId, addedAt: '2020-01-13T08:00:00.000Z' }));
      await api('put', contactPath(added[0].contact)).send({ openId: 'o-ivy' }).expect(200);
      await api('put', contactPath(added[3].contact)).send({ openId: 'o-ivy' }).expect(200);
    });
    const range = { startTime: '2020-01-01 00:00:00', endTime: '2020-01-31 23:59:59' };

    it('byOpenId returns the staff member\'s contact, else the most recently active one; 404 when none', async () => {
      const any = await api('post', `${V1}/external/byOpenId`).send({ openId: 'o-ivy' }).expect(200);
      expect(any.body).toMatchObject({ id: added[3].contact.id, userId: 'lisi', corpName: 'Acme Retail', lastState: 'web', lastStateAt: '2020-01-13T08:00:00.000Z', openId: 'o-ivy' });
      const ofStaff = await api('post', `${V1}/external/byOpenId`).send({ openId: 'o-ivy', userId: 'zhangsan', corpName: 'Acme Retail' }).expect(200);
      expect(ofStaff.body).toMatchObject({ id: added[0].contact.id, userId: 'zhangsan', externalUserId: added[0].externalUserId, name: 'Ivy', lastState: 'vip' });
      const none = await api('post', `${V1}/external/byOpenId`).send({ openId: 'o-nobody' }).expect(404);
      expect(none.body.detail).toBe('No contact with open id "o-nobody".');
      await api('post', `${V1}/external/byOpenId`).send({ openId: 'o-ivy', corpName: 'Acme East' }).expect(404);
      await api('post', `${V1}/external/byOpenId`).send({}).expect(400);
    });

    it('byLastStates pages a corp\'s contacts in the states, newest state first, within the time range', async () => {
      const vip = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip'], ...range }).expect(200);
      expect(vip.body).toMatchObject({ page: 0, size: 20, totalElements: 2, totalPages: 1 });
      expect(vip.body.content.map((row: Json) => row.name)).toEqual(['Jack', 'Ivy']);
      // A state named twice is one state (sent as an equality, the prepared form): the same answer.
      const twice = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip', 'vip'], ...range }).expect(200);
      expect(twice.body).toEqual(vip.body);
      const both = await api('post', `${V1}/external/byLastStates?size=2&page=0`).send({ corpName: 'Acme Retail', states: ['vip', 'web'], ...range }).expect(200);
      expect(both.body).toMatchObject({ totalElements: 4, totalPages: 2 });
      expect(both.body.content.map((row: Json) => [row.name, row.userId])).toEqual([['Ivy', 'lisi'], ['Jack', 'zhangsan']]);
      const second = await api('post', `${V1}/external/byLastStates?size=2&page=1`).send({ corpName: 'Acme Retail', states: ['vip', 'web'], ...range }).expect(200);
      expect(second.body.content.map((row: Json) => row.name)).toEqual(['Kim', 'Ivy']);
      const ofStaff = await api('post', `${V1}/external/byLastStates?sort=name,asc`).send({ corpName: 'Acme Retail', states: ['vip', 'web'], userId: 'lisi', ...range }).expect(200);
      expect(ofStaff.body.content.map((row: Json) => row.name)).toEqual(['Ivy', 'Kim']);
      const window = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip', 'web'], startTime: '2020-01-11 08:00:00', endTime: '2020-01-12 08:00:00' }).expect(200);
      expect(window.body.content.map((row: Json) => row.name)).toEqual(['Jack', 'Kim']);
      const otherCorp = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme East', states: ['vip'] }).expect(200);
      expect(otherCorp.body.totalElements).toBe(0);
    });

    it('byLastStates answers each contact exactly as byExternalUserIds does (the list maps plain rows, the lookup entities)', async () => {
      const listed = (await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip', 'web'], ...range }).expect(200)).body.content as Json[];
      expect(listed).toHaveLength(4);
      const ids = [...new Set(listed.map((row) => row.externalUserId as string))];
      const looked = (await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Acme Retail', externalUserIds: ids }).expect(200)).body as Json[];
      const byId = new Map(looked.map((row) => [row.id, row]));
      for (const row of listed) expect(row).toEqual(byId.get(row.id));
      expect(listed.find((row) => row.id === added[0].contact.id)).toMatchObject({ openId: 'o-ivy', lastStateAt: expect.stringMatching(/^2020-01-10T08:00:00\.000Z$/), lastMessageAt: null });
    });

    it('byLastStates refuses bad filters (400) and unknown corps (404)', async () => {
      const bad = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip'], startTime: '2020-01-01' }).expect(400);
      expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'startTime' })]);
      await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: [] }).expect(400);
      await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['vip'], startTime: '2020-01-02 00:00:00', endTime: '2020-01-01 00:00:00' }).expect(400);
      const many = await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Acme Retail', states: ['a', 'b', 'c', 'd', 'e', 'f'] }).expect(400);
      expect(many.body.detail).toBe('states names 6 states; at most 5 (CHAT_CONTACT_LOOKUP_MAX_IDS).');
      await api('post', `${V1}/external/byLastStates?size=201`).send({ corpName: 'Acme Retail', states: ['vip'] }).expect(400);
      await api('post', `${V1}/external/byLastStates?sort=remark,asc`).send({ corpName: 'Acme Retail', states: ['vip'] }).expect(400);
      await api('post', `${V1}/external/byLastStates`).send({ corpName: 'Nope', states: ['vip'] }).expect(404);
    });

    it('byExternalUserIds returns every contact of the customers in the order asked, leaving unknown ids out', async () => {
      const ids = [added[2].externalUserId, 'wm-unknown', added[0].externalUserId];
      const found = await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Acme Retail', externalUserIds: ids }).expect(200);
      expect(found.body.map((row: Json) => [row.name, row.userId])).toEqual([['Kim', 'lisi'], ['Ivy', 'lisi'], ['Ivy', 'zhangsan']]);
      const ofStaff = await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Acme Retail', externalUserIds: ids, userId: 'zhangsan' }).expect(200);
      expect(ofStaff.body.map((row: Json) => row.id)).toEqual([added[0].contact.id]);
      const many = await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Acme Retail', externalUserIds: ['a', 'b', 'c', 'd', 'e', 'f'] }).expect(400);
      expect(many.body.detail).toBe('externalUserIds names 6 ids; at most 5 (CHAT_CONTACT_LOOKUP_MAX_IDS).');
      await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Acme Retail', externalUserIds: [] }).expect(400);
      await api('post', `${V1}/external/byExternalUserIds`).send({ corpName: 'Nope', externalUserIds: ['a'] }).expect(404);
    });
  });

  describe('batchChangeState', () => {
    it('decides each item and reports per-item success or failure with a reason; changes are stored', async () => {
      const a = await inject({ name: 'Paul', contactWayId: ways.spring.id });
      const b = await inject({ name: 'Quinn', contactWayId: ways.vip.id });
      const response = await api('post', `${V1}/batchChangeState`)
        .send({
          corpName: 'Acme Retail',
          items: [
            { userId: 'zhangsan', externalUserId: a.externalUserId, state: 'vip' },
            { userId: 'zhangsan', externalUserId: b.externalUserId, state: 'vip' },
            { userId: 'zhangsan', externalUserId: 'wm-nobody', state: 'vip' },
            { userId: 'zhangsan', externalUserId: a.externalUserId, state: 'store' },
            { userId: 'lisi', externalUserId: b.externalUserId, state: 'no-such-state' },
          ],
        })
        .expect(200);
      expect(response.body).toEqual({
        total: 5,
        succeeded: 2,
        failed: 3,
        results: [
          { index: 0, userId: 'zhangsan', externalUserId: a.externalUserId, state: 'vip', success: true, changed: true, chatContactId: a.contact.id, previousState: 'spring-fair' },
          { index: 1, userId: 'zhangsan', externalUserId: b.externalUserId, state: 'vip', success: true, changed: false, chatContactId: b.contact.id, previousState: 'vip' },
          { index: 2, userId: 'zhangsan', externalUserId: 'wm-nobody', state: 'vip', success: false, changed: false, reason: 'Staff member zhangsan has no customer wm-nobody in corp "Acme Retail".' },
          { index: 3, userId: 'zhangsan', externalUserId: a.externalUserId, state: 'store', success: false, changed: false, reason: 'Item 0 already changes this contact; a contact can move once per batch.' },
          { index: 4, userId: 'lisi', externalUserId: b.externalUserId, state: 'no-such-state', success: false, changed: false, reason: 'No contact way of corp "Acme Retail" has the state "no-such-state".' },
        ],
      });
      const moved = (await api('get', contactPath(a.contact)).expect(200)).body;
      expect(moved.state).toBe('vip');
      expect(new Date(moved.stateAt).getTime()).toBeGreaterThan(new Date(a.contact.stateAt).getTime());
      expect((await api('get', contactPath(b.contact)).expect(200)).body.stateAt).toBe(b.contact.stateAt);
    });

    it('refuses too many items and bad items (400), unknown corps (404)', async () => {
      const item = { userId: 'zhangsan', externalUserId: 'wm-x', state: 'vip' };
      const many = await api('post', `${V1}/batchChangeState`).send({ corpName: 'Acme Retail', items: Array.from({ length: 6 }, () => item) }).expect(400);
      expect(many.body.detail).toBe('items holds 6 changes; at most 5 per request (CHAT_CONTACT_BATCH_MAX_ITEMS).');
      const missing = await api('post', `${V1}/batchChangeState`).send({ corpName: 'Acme Retail', items: [{ userId: 'zhangsan', externalUserId: 'wm-x' }] }).expect(400);
      expect(missing.body.errors).toEqual([expect.objectContaining({ field: 'items[0].state' })]);
      await api('post', `${V1}/batchChangeState`).send({ corpName: 'Acme Retail', items: [] }).expect(400);
      await api('post', `${V1}/batchChangeState`).send({ corpName: 'Nope', items: [item] }).expect(404);
    });
  });

  describe('customer profiles and partner info', () => {
    let first: Json;
    beforeAll(async () => {
      first = await inject({ name: 'Uma', contactWayId: ways.spring.id, unionId: 'union-uma' });
    });
    const P = '/api/acme/v1/customers/profiles';

    it('creates, merges and replaces a named profile, readable by customer id or any of the customer\'s contacts', async () => {
      const created = await api('post', `${P}/basic`).send({ customerId: first.externalUserId, attributes: { city: 'Hangzhou', budget: 3000 } }).expect(200);
      expect(created.text).toBe('');
      await api('post', `${P}/basic`).send({ chatContactId: first.contact.id, attributes: { budget: 5000, city: null, level: 'gold' } }).expect(200);
      const read = await api('get', `${P}/basic?customerId=${first.externalUserId}`).expect(200);
      expect(read.body).toEqual({
        profileName: 'basic',
        customerId: first.externalUserId,
        corpName: 'Acme Retail',
        chatContactIds: [first.contact.id],
        name: 'Uma',
        gender: 0,
        mobile: null,
        openId: null,
        unionId: 'union-uma',
        attributes: { budget: 5000, level: 'gold' },
        profileNames: ['basic'],
      });
      // A staff member the customer adds later sees the same profile.
      const second = await inject({ name: 'Uma', userId: 'lisi', externalUserId: first.externalUserId });
      expect(second.contact.profileNames).toEqual(['basic']);
      const viaSecond = await api('get', `${P}/basic?chatContactId=${second.contact.id}`).expect(200);
      expect(viaSecond.body.chatContactIds.sort()).toEqual([first.contact.id, second.contact.id].sort());
      expect(viaSecond.body.attributes).toEqual({ budget: 5000, level: 'gold' });
      await api('post', `${P}/basic`).send({ chatContactId: second.contact.id, attributes: { tier: 2 }, replace: true }).expect(200);
      expect((await api('get', `${P}/basic?chatContactId=${first.contact.id}`).expect(200)).body.attributes).toEqual({ tier: 2 });
      await api('get', `${P}/basic?customerId=${first.externalUserId}`, readOnly).expect(200);
    });

    it('refuses bad names and ambiguous or missing customers (400), unknown customers and profiles (404), oversized profiles (413)', async () => {
      const both = await api('get', `${P}/basic?customerId=${first.externalUserId}&chatContactId=${first.contact.id}`).expect(400);
      expect(both.body.detail).toBe('Give exactly one of customerId and chatContactId.');
      await api('get', `${P}/basic`).expect(400);
      const name = await api('get', `${P}/1bad?customerId=${first.externalUserId}`).expect(400);
      expect(name.body.detail).toMatch(/^Profile name "1bad" is not valid/);
      await api('post', `${P}/basic`).send({ customerId: first.externalUserId, attributes: 'not an object' }).expect(400);
      await api('get', `${P}/basic?chatContactId=not-a-uuid`).expect(400);
      await api('get', `${P}/basic?customerId=wm-nobody`).expect(404);
      await api('post', `${P}/basic`).send({ chatContactId: '00000000-0000-4000-8000-000000000000', attributes: {} }).expect(404);
      const missing = await api('get', `${P}/crm?customerId=${first.externalUserId}`).expect(404);
      expect(missing.body.detail).toBe(`Customer ${first.externalUserId} has no profile named "crm" (it has: basic).`);
      const large = await api('post', `${P}/notes`).send({ customerId: first.externalUserId, attributes: { text: 'x'.repeat(2000) } }).expect(413);
      expect(large.body.detail).toMatch(/^Profile "notes" would be \d+ bytes of JSON; at most 1024/);
      await api('get', `${P}/notes?customerId=${first.externalUserId}`).expect(404);
    });

    it('improveUserInfo finds the customer by union id (filling the open id) or open id and merges into the partner profile', async () => {
      const improved = await api('post', '/api/acme/v1/external/partner/customer/improveUserInfo').send({ unionId: 'union-uma', openId: 'o-uma', nickname: 'Umi', attributes: { memberLevel: 'gold' } }).expect(200);
      expect(improved.headers['content-type']).toMatch(/^application\/json/);
      expect(improved.body).toBe(first.externalUserId);
      expect((await api('get', contactPath(first.contact)).expect(200)).body.openId).toBe('o-uma');
      await api('post', '/api/acme/v1/external/partner/customer/improveUserInfo').send({ openId: 'o-uma', mobile: '13700000000', attributes: { memberLevel: null, points: 120 } }).expect(200);
      const partner = (await api('get', `${P}/partner?customerId=${first.externalUserId}`).expect(200)).body;
      expect(partner.attributes).toEqual({ nickname: 'Umi', unionId: 'union-uma', openId: 'o-uma', mobile: '13700000000', points: 120, improvedAt: expect.any(String), improvedBy: 'improveUserInfo' });
      expect(partner.profileNames).toEqual(['basic', 'partner']);
      const neither = await api('post', '/api/acme/v1/external/partner/customer/improveUserInfo').send({ nickname: 'x' }).expect(400);
      expect(neither.body.detail).toBe('Give openId or unionId to find the customer.');
      const none = await api('post', '/api/acme/v1/external/partner/customer/improveUserInfo').send({ openId: 'o-nobody' }).expect(404);
      expect(none.body.detail).toBe('No customer with open id "o-nobody".');
      await api('post', '/api/acme/v1/external/partner/customer/improveUserInfo').send({ openId: 'o-uma', corpName: 'Acme East' }).expect(404);
    });

    it('lists each contact exactly as reading it answers: times, tags, nulls and profile names in order (the list maps plain rows, not entities)', async () => {
      // A profile whose name sorts first, written last: the list sorts the names as reading one does.
      await api('post', `${P}/aardvark`).send({ customerId: first.externalUserId, attributes: { seen: true } }).expect(200);
      const staff = first.contact.workChatUserId;
      const listed = (await api('get', `${C}/workChat/${staff}/contact/external?size=200`).expect(200)).body.content as Json[];
      const uma = listed.find((row) => row.id === first.contact.id)!;
      expect(uma.profileNames).toEqual(['aardvark', 'basic', 'partner']);
      expect(uma.openId).toBe('o-uma');
      expect(listed.length).toBeGreaterThan(1);
      for (const row of listed) expect(row).toEqual((await api('get', `${C}/workChat/${staff}/contact/external/${row.id}`).expect(200)).body);
    });

    it('answers a contact whose stored profile is not a JSON object (an array, a string, null) with no profile names, in the list and alone alike', async () => {
      const odd = await inject({ name: 'Odd Profile', contactWayId: ways.spring.id });
      const staff = odd.contact.workChatUserId;
      for (const stored of ['[1, 2]', '"text"', 'null']) {
        await db().query(`UPDATE chat_external_contact SET profile = $1::jsonb WHERE tenant_id = 'acme' AND id = $2`, [stored, odd.contact.id]);
        const alone = (await api('get', `${C}/workChat/${staff}/contact/external/${odd.contact.id}`).expect(200)).body;
        const listed = ((await api('get', `${C}/workChat/${staff}/contact/external?size=200`).expect(200)).body.content as Json[]).find((row) => row.id === odd.contact.id);
        expect([stored, alone.profileNames]).toEqual([stored, []]);
        expect(listed).toEqual(alone);
      }
    });

    it('improveCustomerInfo merges by corp and external user id; 404 for unknown customers', async () => {
      const improved = await api('post', '/api/acme/v1/external/partner/customer/improveCustomerInfo').send({ corpName: 'Acme Retail', externalUserId: first.externalUserId, company: 'Umbrella', gender: 2 }).expect(200);
      expect(improved.body).toBe(first.externalUserId);
      const partner = (await api('get', `${P}/partner?chatContactId=${first.contact.id}`).expect(200)).body;
      expect(partner.attributes).toMatchObject({ company: 'Umbrella', gender: 2, nickname: 'Umi', points: 120, improvedBy: 'improveCustomerInfo' });
      await api('post', '/api/acme/v1/external/partner/customer/improveCustomerInfo').send({ corpName: 'Acme Retail', externalUserId: 'wm-nobody' }).expect(404);
      await api('post', '/api/acme/v1/external/partner/customer/improveCustomerInfo').send({ corpName: 'Acme Retail', externalUserId: first.externalUserId, gender: 7 }).expect(400);
    });
  });

  describe('guide syncCustomer', () => {
    const customers: Json[] = [];
    beforeAll(async () => {
      for (const name of ['Vic', 'Walt', 'Xena']) customers.push(await inject({ name, userId: 'zhaoliu', state: 'spring-fair' }));
    });

    it('pulls the staff user\'s customers (cursor paging) and upserts them idempotently, keeping Atrium\'s fields', async () => {
      const first = await syncCustomers(acme, 'zhaoliu').expect(200);
      expect(first.body).toEqual({ fetched: 3, created: 0, updated: 0, unchanged: 3, truncated: false });
      // Atrium lost one contact; the platform changed another's remark; Atrium switched that one's AI off.
      await db().query(`DELETE FROM chat_external_contact WHERE tenant_id = 'acme' AND id = $1`, [customers[0].contact.id]);
      await platform.updateCustomerRemark(corpContext(acme), { userId: 'zhaoliu', externalUserId: customers[1].externalUserId, remark: 'Walt (fair)' });
      await api('post', contactPath(customers[1].contact, '/ai/switch')).expect(200);
      await api('post', '/api/acme/v1/customers/profiles/basic').send({ chatContactId: customers[1].contact.id, attributes: { a: 1 } }).expect(200);
      const second = await syncCustomers(acme, 'zhaoliu').expect(200);
      expect(second.body).toEqual({ fetched: 3, created: 1, updated: 1, unchanged: 1, truncated: false });
      const walt = (await api('get', contactPath(customers[1].contact)).expect(200)).body;
      expect(walt).toMatchObject({ remark: 'Walt (fair)', aiEnabled: false, profileNames: ['basic'] });
      const [{ count }] = await db().query(`SELECT count(*)::int AS count FROM chat_external_contact WHERE tenant_id = 'acme' AND work_chat_user_id = 'zhaoliu'`);
      expect(count).toBe(3);
      expect((await syncCustomers(acme, 'zhaoliu').expect(200)).body).toEqual({ fetched: 3, created: 0, updated: 0, unchanged: 3, truncated: false });
    });

    it('does not undo a batch state change with the older state the platform holds; a newer add through another way wins', async () => {
      const xena = customers[2];
      await api('post', `${V1}/batchChangeState`).send({ corpName: 'Acme Retail', items: [{ userId: 'zhaoliu', externalUserId: xena.externalUserId, state: 'web' }] }).expect(200);
      expect((await syncCustomers(acme, 'zhaoliu').expect(200)).body.unchanged).toBe(3);
      expect((await api('get', contactPath(xena.contact)).expect(200)).body.state).toBe('web');
      await inject({ name: 'Xena', userId: 'zhaoliu', externalUserId: xena.externalUserId, state: 'store' });
      expect((await api('get', contactPath(xena.contact)).expect(200)).body.state).toBe('store');
    });

    it('stores corp tags with names and groups resolved from the platform', async () => {
      const ctx = corpContext(acme);
      const group = await platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'VIP' }, { name: 'New' }] });
      await platform.markCustomerTags(ctx, { userId: 'zhaoliu', externalUserId: customers[1].externalUserId, addTagIds: [group.tags[0].tagId] });
      expect((await syncCustomers(acme, 'zhaoliu').expect(200)).body).toMatchObject({ updated: 1, unchanged: 2 });
      expect((await api('get', contactPath(customers[1].contact)).expect(200)).body.tags).toEqual([{ tagId: group.tags[0].tagId, tagName: 'VIP', groupId: group.groupId, groupName: 'Level', type: 1 }]);
    });

    it('refuses unknown corps and staff users (404), bad bodies (400), disabled corps (409)', async () => {
      const staff = await syncCustomers(acme, 'nobody').expect(404);
      expect(staff.body.detail).toBe('Corp "Acme Retail" has no staff user nobody; add it first (POST {C}/workChat/user).');
      await api('post', `${C}/workChat/user/guide/syncCustomer`).send({ corpId: '00000000-0000-4000-8000-000000000000', workChatUserId: 'zhaoliu' }).expect(404);
      await api('post', `${C}/workChat/user/guide/syncCustomer`).send({ corpId: 'nope', workChatUserId: 'zhaoliu' }).expect(400);
      await api('post', `${C}/workChat/user/guide/syncCustomer`).send({ corpId: acme.id }).expect(400);
      const off = await newCorp(testApp, token, 'acme', 'Acme Off');
      await newStaffUser(testApp, off, 'zhaoliu');
      await api('put', `${C}/workChat/corps/${off.id}`).send({ enabled: false }).expect(200);
      await syncCustomers(off, 'zhaoliu').expect(409);
    });
  });

  describe('tag rename (PUT /api/v1/workChat/tag/{workCorpId}/{id})', () => {
    it('renames a tag and a tag group on the platform and in stored contacts', async () => {
      const ctx = corpContext(acme);
      const customer = await inject({ name: 'Yara', userId: 'zhaoliu' });
      const group = await platform.createTags(ctx, { groupName: 'Source', tags: [{ name: 'Fair' }, { name: 'Web' }] });
      await platform.markCustomerTags(ctx, { userId: 'zhaoliu', externalUserId: customer.externalUserId, addTagIds: group.tags.map((tag) => tag.tagId) });
      await syncCustomers(acme, 'zhaoliu').expect(200);
      const renamed = await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/${group.tags[0].tagId}?name=Trade%20fair`).expect(200);
      expect([renamed.headers['content-type'], renamed.body]).toEqual([expect.stringMatching(/^application\/json/), true]);
      await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/${group.groupId}?name=Channel`).expect(200);
      const tags = (await api('get', contactPath(customer.contact)).expect(200)).body.tags;
      expect(tags).toEqual([
        { tagId: group.tags[0].tagId, tagName: 'Trade fair', groupId: group.groupId, groupName: 'Channel', type: 1 },
        { tagId: group.tags[1].tagId, tagName: 'Web', groupId: group.groupId, groupName: 'Channel', type: 1 },
      ]);
      const [onPlatform] = await platform.listTags(ctx, { groupIds: [group.groupId] });
      expect([onPlatform.groupName, onPlatform.tags.map((tag) => tag.name).sort()]).toEqual(['Channel', ['Trade fair', 'Web']]);
    });

    it('refuses a bad name (400), unknown tag ids with the platform\'s code (400), taken names (409), unknown corps (404)', async () => {
      const group = await platform.createTags(corpContext(acme), { groupName: 'Mood', tags: [{ name: 'Happy' }, { name: 'Calm' }] });
      await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/${group.tags[0].tagId}`).expect(400);
      await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/${group.tags[0].tagId}?name=${'x'.repeat(31)}`).expect(400);
      const unknown = await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/no-such-tag?name=X`).expect(400);
      expect(unknown.body).toMatchObject({ platformErrorCode: 40068 });
      const taken = await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/${group.tags[0].tagId}?name=Calm`).expect(409);
      expect(taken.body).toMatchObject({ platformErrorCode: 40071 });
      const corp = await api('put', `/api/v1/workChat/tag/ww-nope/${group.tags[0].tagId}?name=X`).expect(404);
      expect(corp.body.detail).toBe('No corp with platform corp id "ww-nope" in this tenant.');
    });
  });

  describe('guide syncGroup and group rooms', () => {
    let vipChatId: string;
    let room: Json;
    const R = (staff: string) => `${C}/workChat/${staff}/contact/room`;
    const injectChat = async (body: Json) => (await api('post', `${C}/simulator/corps/${acme.id}/group-chats`).send(body).expect(200)).body as Json;

    beforeAll(async () => {
      const c1 = await inject({ name: 'Zed', userId: 'zhangsan' });
      const c2 = await inject({ name: 'Zoe', userId: 'zhangsan' });
      vipChatId = (await injectChat({ name: 'VIP room', ownerUserId: 'zhangsan', memberUserIds: ['lisi'], memberExternalUserIds: [c1.externalUserId, c2.externalUserId], notice: 'Welcome' })).chatId;
      await injectChat({ name: 'Lisi room', ownerUserId: 'lisi', memberExternalUserIds: [c1.externalUserId] });
    });

    it('pulls the owner\'s group chats with members, idempotently', async () => {
      const first = await syncGroups(acme, 'zhangsan').expect(200);
      expect(first.body).toEqual({ fetched: 1, created: 1, updated: 0, unchanged: 0, membersAdded: 4, membersUpdated: 0, membersRemoved: 0, truncated: false });
      const again = await syncGroups(acme, 'zhangsan').expect(200);
      expect(again.body).toEqual({ fetched: 1, created: 0, updated: 0, unchanged: 1, membersAdded: 0, membersUpdated: 0, membersRemoved: 0, truncated: false });
      const list = await api('get', R('zhangsan')).expect(200);
      expect(list.body.content).toHaveLength(1);
      room = list.body.content[0];
      expect(room).toMatchObject({ corpId: acme.id, chatId: vipChatId, name: 'VIP room', ownerWorkChatUserId: 'zhangsan', notice: 'Welcome', status: 0, memberCount: 4, aiEnabled: true });
      const detail = await api('get', `${R('zhangsan')}/${room.id}`).expect(200);
      expect(detail.body.members.map((member: Json) => [member.memberUserId, member.memberType])).toEqual([
        ['lisi', 1],
        ['zhangsan', 1],
        expect.arrayContaining([expect.any(String), 2]),
        expect.arrayContaining([expect.any(String), 2]),
      ]);
      // A staff member of the room has it too; others do not.
      expect((await api('get', R('lisi')).expect(200)).body.content.map((row: Json) => row.id)).toEqual([room.id]);
      expect((await api('get', R('wangwu')).expect(200)).body.totalElements).toBe(0);
      await api('get', `${R('wangwu')}/${room.id}`).expect(404);
      await api('get', `${R('zhangsan')}?keyword=vip`).expect(200).then((response) => expect(response.body.totalElements).toBe(1));
      await api('get', `${R('zhangsan')}?size=201`).expect(400);
    });

    it('removes members who left and reports the room updated', async () => {
      await db().query(
        `UPDATE chat_sim_group_chat SET members = (SELECT jsonb_agg(m) FROM jsonb_array_elements(members) m WHERE m->>'userId' <> 'lisi') WHERE tenant_id = 'acme' AND chat_id = $1`,
        [vipChatId],
      );
      const synced = await syncGroups(acme, 'zhangsan').expect(200);
      expect(synced.body).toMatchObject({ updated: 1, membersRemoved: 1, membersAdded: 0 });
      expect((await api('get', `${R('zhangsan')}/${room.id}`).expect(200)).body).toMatchObject({ memberCount: 3, members: expect.not.arrayContaining([expect.objectContaining({ memberUserId: 'lisi' })]) });
      expect((await api('get', R('lisi')).expect(200)).body.totalElements).toBe(0);
    });

    it('concurrent syncs store each room and member once', async () => {
      const results = await Promise.all(Array.from({ length: 4 }, () => syncGroups(acme, 'lisi')));
      expect(results.map((response) => response.status)).toEqual([200, 200, 200, 200]);
      expect(results.reduce((sum, response) => sum + response.body.created, 0)).toBe(1);
      const rows = await db().query(
        `SELECT r.id, count(m.id)::int AS members, count(DISTINCT m.member_user_id)::int AS distinct_members FROM chat_group_room r JOIN chat_group_member m ON m.group_room_id = r.id
          WHERE r.tenant_id = 'acme' AND r.owner_work_chat_user_id = 'lisi' GROUP BY r.id`,
      );
      expect(rows).toEqual([{ id: expect.any(String), members: 2, distinct_members: 2 }]);
    });

    it('toggles the room\'s AI reply atomically for the owner or a staff member of the room', async () => {
      const path = `${R('zhangsan')}/${room.id}/ai/switch`;
      expect((await api('post', path).expect(200)).body).toBe(false);
      const results = await Promise.all(Array.from({ length: 10 }, () => api('post', path).then((response) => response.body as boolean)));
      expect([results.filter(Boolean).length, results.filter((value) => !value).length]).toEqual([5, 5]);
      expect((await api('get', `${R('zhangsan')}/${room.id}`).expect(200)).body.aiEnabled).toBe(false);
      expect((await api('get', `${R('zhangsan')}?aiEnabled=false`).expect(200)).body.totalElements).toBe(1);
      await api('post', `${R('wangwu')}/${room.id}/ai/switch`).expect(404);
      await api('post', `${R('zhangsan')}/not-a-uuid/ai/switch`).expect(400);
    });

    it('sync refuses unknown staff users (404)', async () => {
      await syncGroups(acme, 'nobody').expect(404);
      await api('post', `${C}/workChat/user/guide/syncGroup`).send({ corpId: acme.id, workChatUserId: 'has space' }).expect(400);
    });

    describe('deprecated group-member dedup', () => {
      const D = '/api/acme/v1/workChat/tmp/work-chat-group-member/dedup';
      const duplicate = (chatId: string) =>
        db().query(
          `INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type, name, join_scene, joined_at, created_at, updated_at)
           SELECT tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type, name, join_scene, joined_at, now() - interval '1 day', now() - interval '1 day'
             FROM chat_group_member WHERE tenant_id = 'acme' AND chat_id = $1 AND updated_at > now() - interval '1 hour'`,
          [chatId],
        );
      const rowsPerMember = async () =>
        (await db().query(`SELECT chat_id, member_user_id, count(*)::int AS n FROM chat_group_member WHERE tenant_id = 'acme' GROUP BY 1, 2`)) as { chat_id: string; member_user_id: string; n: number }[];

      it('removes duplicates in batches of `limit`, keeps the most recently updated row, and is idempotent', async () => {
        const lisiChatId = (await db().query(`SELECT chat_id FROM chat_group_room WHERE tenant_id = 'acme' AND owner_work_chat_user_id = 'lisi'`))[0].chat_id as string;
        const originals = (await db().query(`SELECT id FROM chat_group_member WHERE tenant_id = 'acme'`)).map((row: { id: string }) => row.id).sort();
        await duplicate(vipChatId);
        await duplicate(vipChatId);
        await duplicate(lisiChatId);
        // 3 members × 3 rows in the VIP room, 2 members × 2 rows in lisi's room.
        const first = await api('post', `${D}?chatGroupId=${vipChatId}&limit=2`).expect(200);
        expect(first.body).toEqual({ duplicateGroups: 2, deletedRows: 4, remainingDuplicateGroups: 1, limit: 2 });
        const second = await api('post', D).expect(200);
        expect(second.body).toEqual({ duplicateGroups: 3, deletedRows: 4, remainingDuplicateGroups: 0, limit: 50 });
        const third = await api('post', D).expect(200);
        expect(third.body).toEqual({ duplicateGroups: 0, deletedRows: 0, remainingDuplicateGroups: 0, limit: 50 });
        expect((await rowsPerMember()).every((row) => row.n === 1)).toBe(true);
        expect((await db().query(`SELECT id FROM chat_group_member WHERE tenant_id = 'acme'`)).map((row: { id: string }) => row.id).sort()).toEqual(originals);
      });

      it('refuses a limit out of range (400) and an unknown chatGroupId (404); is marked deprecated in OpenAPI', async () => {
        const over = await api('post', `${D}?limit=51`).expect(400);
        expect(over.body.detail).toBe('limit must be at most 50 (CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT); got 51.');
        await api('post', `${D}?limit=0`).expect(400);
        await api('post', `${D}?limit=many`).expect(400);
        const unknown = await api('post', `${D}?chatGroupId=wr-nope`).expect(404);
        expect(unknown.body.detail).toBe('No group room with chat id wr-nope in this tenant.');
        const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
        const operation = document.paths['/api/{tenant}/v1/workChat/tmp/work-chat-group-member/dedup'].post;
        expect([operation.operationId, operation.deprecated]).toEqual(['dedupWorkChatGroupMember', true]);
        expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'limit', in: 'query', schema: expect.objectContaining({ default: 100 }) })]));
      });
    });
  });

  describe('tenant isolation and scopes', () => {
    let contact: Json;
    let room: Json;
    beforeAll(async () => {
      contact = (await inject({ name: 'Isa', contactWayId: ways.spring.id })).contact;
      const chat = (await api('post', `${C}/simulator/corps/${acme.id}/group-chats`).send({ name: 'Iso room', ownerUserId: 'wangwu' }).expect(200)).body;
      await syncGroups(acme, 'wangwu').expect(200);
      room = (await api('get', `${C}/workChat/wangwu/contact/room?keyword=${chat.chatId}`).expect(200)).body.content[0];
    });
    const ref = () => ({ corpName: 'Acme Retail', userId: 'zhangsan', externalUserId: contact.externalUserId });
    /** Every route of this area on tenant acme's paths: [method, path, body, isWrite]. */
    const routes = (): [Method, string, Json | undefined, boolean][] => [
      ['get', `${C}/workChat/zhangsan/contact/external`, undefined, false],
      ['get', contactPath(contact), undefined, false],
      ['put', contactPath(contact), { remark: 'x' }, true],
      ['post', contactPath(contact, '/ai/switch'), undefined, true],
      ['get', `${C}/workChat/wangwu/contact/room`, undefined, false],
      ['get', `${C}/workChat/wangwu/contact/room/${room.id}`, undefined, false],
      ['post', `${C}/workChat/wangwu/contact/room/${room.id}/ai/switch`, undefined, true],
      ['post', `${C}/workChat/user/guide/syncGroup`, { corpId: acme.id, workChatUserId: 'wangwu' }, true],
      ['post', `${C}/workChat/user/guide/syncCustomer`, { corpId: acme.id, workChatUserId: 'wangwu' }, true],
      ['post', `${V1}/external/remark`, { ...ref(), remark: 'x' }, true],
      ['post', `${V1}/external/byOpenId`, { openId: 'o-x' }, true],
      ['post', `${V1}/external/byLastStates`, { corpName: 'Acme Retail', states: ['vip'] }, true],
      ['post', `${V1}/external/byExternalUserIds`, { corpName: 'Acme Retail', externalUserIds: [contact.externalUserId] }, true],
      ['get', `${V1}/external/ai/switch?corpName=Acme%20Retail&userId=zhangsan&externalUserId=${contact.externalUserId}`, undefined, false],
      ['post', `${V1}/external/ai/switch`, { ...ref(), enabled: true }, true],
      ['post', `${V1}/batchChangeState`, { corpName: 'Acme Retail', items: [{ ...ref(), corpName: undefined, state: 'vip' }] }, true],
      ['get', `/api/acme/v1/customers/profiles/basic?chatContactId=${contact.id}`, undefined, false],
      ['post', `/api/acme/v1/customers/profiles/basic`, { chatContactId: contact.id, attributes: {} }, true],
      ['post', '/api/acme/v1/external/partner/customer/improveUserInfo', { openId: 'o-x' }, true],
      ['post', '/api/acme/v1/external/partner/customer/improveCustomerInfo', { corpName: 'Acme Retail', externalUserId: contact.externalUserId }, true],
      ['post', '/api/acme/v1/workChat/tmp/work-chat-group-member/dedup', undefined, true],
    ];

    it('another tenant\'s token gets 403 on every route of this tenant', async () => {
      for (const [method, path, body] of routes()) {
        const response = await api(method, path, otherToken).send(body);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
    });

    it('a token without chat:write gets 403 on writes; reads are served', async () => {
      for (const [method, path, body, isWrite] of routes()) {
        const response = await api(method, path, readOnly).send(body);
        expect({ method, path, status: response.status === 403 ? 403 : 'not 403' }).toEqual({ method, path, status: isWrite ? 403 : 'not 403' });
      }
      await api('put', `/api/v1/workChat/customer/Acme%20Retail/remark`, readOnly).send({ userId: 'zhangsan', externalUserId: contact.externalUserId, remark: 'x' }).expect(403);
      await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/any?name=X`, readOnly).expect(403);
    });

    it('another tenant\'s ids answer 404 through its own and the tenant-less paths', async () => {
      const G = '/api/globex/console';
      await api('get', `${G}/workChat/zhangsan/contact/external/${contact.id}`, otherToken).expect(404);
      await api('put', `${G}/workChat/zhangsan/contact/external/${contact.id}`, otherToken).send({ remark: 'x' }).expect(404);
      await api('post', `${G}/workChat/zhangsan/contact/external/${contact.id}/ai/switch`, otherToken).expect(404);
      await api('get', `${G}/workChat/wangwu/contact/room/${room.id}`, otherToken).expect(404);
      await api('post', `${G}/workChat/wangwu/contact/room/${room.id}/ai/switch`, otherToken).expect(404);
      await api('post', `${G}/workChat/user/guide/syncCustomer`, otherToken).send({ corpId: acme.id, workChatUserId: 'zhangsan' }).expect(404);
      await api('post', `${G}/workChat/user/guide/syncGroup`, otherToken).send({ corpId: acme.id, workChatUserId: 'zhangsan' }).expect(404);
      expect((await api('get', `${G}/workChat/zhangsan/contact/external`, otherToken).expect(200)).body.totalElements).toBe(0);
      await api('get', `/api/globex/v1/customers/profiles/basic?chatContactId=${contact.id}`, otherToken).expect(404);
      await api('get', `/api/globex/v1/customers/profiles/basic?customerId=${contact.externalUserId}`, otherToken).expect(404);
      await api('post', '/api/globex/v1/workChat/contact/external/byOpenId', otherToken).send({ openId: 'o-ivy' }).expect(404);
      await api('post', '/api/globex/v1/workChat/contact/external/remark', otherToken).send({ ...ref(), remark: 'x' }).expect(404);
      await api('post', '/api/globex/v1/external/partner/customer/improveCustomerInfo', otherToken).send({ corpName: 'Globex Retail', externalUserId: contact.externalUserId }).expect(404);
      await api('post', `/api/globex/v1/workChat/tmp/work-chat-group-member/dedup?chatGroupId=${room.chatId}`, otherToken).expect(404);
      // Tenant-less paths act for the token's tenant: acme's corp name and platform corp id are unknown there.
      await api('put', `/api/v1/workChat/customer/Acme%20Retail/remark`, otherToken).send({ userId: 'zhangsan', externalUserId: contact.externalUserId, remark: 'x' }).expect(404);
      await api('put', `/api/v1/workChat/customer/Globex%20Retail/remark`, otherToken).send({ userId: 'zhangsan', externalUserId: contact.externalUserId, remark: 'x' }).expect(404);
      await api('put', `/api/v1/workChat/tag/${acme.workChatCorpId}/any?name=X`, otherToken).expect(404);
      // Nothing of acme's changed.
      expect((await api('get', contactPath(contact)).expect(200)).body).toMatchObject({ remark: null, aiEnabled: true });
    });
  });
});

/**
 * The same platform operations through the HTTP adapter (CHAT_PLATFORM_MODE=http) against a local fake platform
 * server: customer and group sync read the platform's lists, remarks and tag renames are sent to it, and the
 * simulator endpoints answer 404.
 */
describe('external contacts through the HTTP platform adapter', () => {
  const CORP_ID = 'wwfakecontacts';
  const SECRET = 'fake-platform-secret-0123456789';
  let fake: FakeChatPlatform;
  let testApp: TestApp;
  let token: string;
  let corpId: string;
  const api = (method: Method, path: string) => request(testApp.baseUrl)[method](path).auth(token, { type: 'bearer' });

  beforeAll(async () => {
    fake = await startFakeChatPlatform({ corps: [{ corpId: CORP_ID, secret: SECRET }] });
    testApp = await startTestApp({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: fake.url, CHAT_PLATFORM_HTTP_RETRIES: '0', CHAT_SYNC_PAGE_SIZE: '1' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    const corp = await newCorp(testApp, token, 'acme', 'Fake Corp', { secret: SECRET, workChatCorpId: CORP_ID });
    corpId = corp.id;
    await newStaffUser(testApp, corp, 'zhangsan');
    addFakeStaff(fake, CORP_ID, { userid: 'zhangsan' });
    const state = fake.corp(CORP_ID);
    state.tagGroups.push({ group_id: 'grp-1', group_name: 'Level', order: 0, create_time: 1_700_000_000, tag: [{ id: 'tag-1', name: 'VIP', order: 0, create_time: 1_700_000_000 }] });
    for (const [index, name] of ['Amy', 'Ben'].entries()) {
      state.customers.set(`wm-fake-${index}`, {
        external_userid: `wm-fake-${index}`,
        name,
        type: 1,
        gender: 1,
        follow: new Map([['zhangsan', { remark: `${name} remark`, remark_mobiles: ['13800000000'], createtime: 1_700_000_000 + index, tag_id: index === 0 ? ['tag-1'] : [], state: 'fair', add_way: 1 }]]),
      });
    }
    state.groupChats.set('wr-fake-1', {
      chat_id: 'wr-fake-1',
      name: 'Fake room',
      owner: 'zhangsan',
      create_time: 1_700_000_000,
      status: 0,
      member_list: [
        { userid: 'zhangsan', type: 1, join_time: 1_700_000_000, join_scene: 1 },
        { userid: 'wm-fake-0', type: 2, join_time: 1_700_000_100, join_scene: 3, name: 'Amy' },
      ],
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });

  it('syncs customers and group chats from the platform\'s lists, idempotently', async () => {
    const customers = await api('post', '/api/acme/console/workChat/user/guide/syncCustomer').send({ corpId, workChatUserId: 'zhangsan' }).expect(200);
    expect(customers.body).toEqual({ fetched: 2, created: 2, updated: 0, unchanged: 0, truncated: false });
    expect(fake.callsTo('/cgi-bin/externalcontact/batch/get_by_user')).toBe(2);
    const listed = await api('get', '/api/acme/console/workChat/zhangsan/contact/external?sort=name,asc').expect(200);
    expect(listed.body.content.map((row: Json) => [row.name, row.remark, row.mobile, row.state, row.tags])).toEqual([
      ['Amy', 'Amy remark', '13800000000', 'fair', [{ tagId: 'tag-1', tagName: 'VIP', groupId: 'grp-1', groupName: 'Level', type: 1 }]],
      ['Ben', 'Ben remark', '13800000000', 'fair', []],
    ]);
    expect((await api('post', '/api/acme/console/workChat/user/guide/syncCustomer').send({ corpId, workChatUserId: 'zhangsan' }).expect(200)).body.unchanged).toBe(2);
    const groups = await api('post', '/api/acme/console/workChat/user/guide/syncGroup').send({ corpId, workChatUserId: 'zhangsan' }).expect(200);
    expect(groups.body).toMatchObject({ fetched: 1, created: 1, membersAdded: 2 });
    expect((await api('post', '/api/acme/console/workChat/user/guide/syncGroup').send({ corpId, workChatUserId: 'zhangsan' }).expect(200)).body).toMatchObject({ unchanged: 1, membersAdded: 0 });
  });

  it('sends remarks and tag renames to the platform', async () => {
    await api('post', '/api/acme/v1/workChat/contact/external/remark').send({ corpName: 'Fake Corp', userId: 'zhangsan', externalUserId: 'wm-fake-1', remark: 'Ben B.' }).expect(200);
    expect(fake.corp(CORP_ID).customers.get('wm-fake-1')!.follow.get('zhangsan')!.remark).toBe('Ben B.');
    await api('put', `/api/v1/workChat/tag/${CORP_ID}/tag-1?name=Gold`).expect(200);
    expect(fake.corp(CORP_ID).tagGroups[0].tag[0].name).toBe('Gold');
    const amy = (await api('post', '/api/acme/v1/workChat/contact/external/byExternalUserIds').send({ corpName: 'Fake Corp', externalUserIds: ['wm-fake-0'] }).expect(200)).body[0];
    expect(amy.tags[0].tagName).toBe('Gold');
  });

  it('answers 404 on the simulator endpoints', async () => {
    const response = await api('post', `/api/acme/console/simulator/corps/${corpId}/customers`).send({ name: 'Nobody', userId: 'zhangsan' }).expect(404);
    expect(response.body.detail).toBe('The chat platform simulator is off: CHAT_PLATFORM_MODE is not "simulator".');
    await api('get', `/api/acme/console/simulator/corps/${corpId}/messages`).expect(404);
  });
});
