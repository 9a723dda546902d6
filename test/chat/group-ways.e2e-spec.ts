import request from 'supertest';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { corpContext, dataSourceOf, newCorp, newDigitalStaff, type TestCorp } from './support/way-factories';

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * Group ways (chat-management-api.md, "Group way"; issue 5: "Group ways: setDefault on both path layouts,
 * conversation group assignment on both layouts"): `PUT /api/{tenant}/v1/chat/group/way/{id}/setDefault`
 * (setDefault_3) and `PUT /api/v1/{tenant}/chat/group/way/{id}/setDefault` (setDefault_2), the two
 * `…/chat/group/way/conversationGroupId` layouts, and the create/list/get/update/delete on `{T}/v1/chat/group/way`.
 * Group chats live on the real chat platform simulator.
 */
describe('group ways', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let acmeEast: TestCorp;
  let chatIds: string[];
  let eastChatId: string;
  let digitalStaffId: string;
  const T = '/api/acme/v1/chat/group/way';
  const V = '/api/v1/acme/chat/group/way';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const db = () => dataSourceOf(testApp);
  const create = async (body: Record<string, unknown> = {}) => (await api('post', T).send({ corpName: 'Acme Retail', name: 'Group way', chatIds: [chatIds[0]], ...body }).expect(200)).body;
  const defaultsOf = async (scope: string) =>
    (await db().query(`SELECT id::int AS id FROM chat_group_way WHERE tenant_id = 'acme' AND is_default AND default_scope = $1 ORDER BY id`, [scope])).map((row: { id: number }) => row.id);
  const flags = (response: request.Response) => response.body.map((way: { id: number; isDefault: boolean }) => [way.id, way.isDefault]);

  beforeAll(async () => {
    testApp = await startTestApp();
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    acmeEast = await newCorp(testApp, token, 'acme', 'Acme East');
    const simulator = testApp.app.get(ChatPlatformSimulator);
    chatIds = [];
    for (const name of ['VIP club', 'Members 1', 'Members 2']) chatIds.push((await simulator.injectGroupChat(corpContext(acme), { name, ownerUserId: 'zhangsan' })).chatId);
    eastChatId = (await simulator.injectGroupChat(corpContext(acmeEast), { name: 'East club', ownerUserId: 'zhaoliu' })).chatId;
    digitalStaffId = (await newDigitalStaff(testApp, 'acme', 'Aria')).id;
  });
  afterAll(() => testApp?.close());

  describe('create, read, list, update, delete', () => {
    it('creates a group way on the platform (simulator QR code) and reads it back', async () => {
      const created = await create({ name: 'VIP poster', chatIds: [chatIds[0], chatIds[1]], remark: 'vip', autoCreateRoom: true, roomBaseName: 'VIP', roomBaseId: 3, digitalStaffId, conversationGroupId: 'vip-onboarding' });
      expect(created).toEqual({
        id: expect.any(Number),
        tenantId: 'acme',
        corpId: acme.id,
        corpName: 'Acme Retail',
        name: 'VIP poster',
        scene: 2,
        state: expect.stringMatching(/^gw_[A-Za-z0-9]{16}$/),
        chatIds: [chatIds[0], chatIds[1]],
        conversationGroupId: 'vip-onboarding',
        digitalStaffId,
        digitalStaffName: 'Aria',
        configId: expect.stringMatching(/^[0-9a-f]{32}$/),
        qrCode: expect.stringContaining('/api/chat-simulator/qr/'),
        remark: 'vip',
        autoCreateRoom: true,
        roomBaseName: 'VIP',
        roomBaseId: 3,
        isDefault: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const [sim] = await db().query('SELECT kind, chat_ids, state, qr_code, options FROM chat_sim_contact_way WHERE config_id = $1', [created.configId]);
      expect(sim).toEqual({ kind: 'join_way', chat_ids: [chatIds[0], chatIds[1]], state: created.state, qr_code: created.qrCode, options: { autoCreateRoom: true, roomBaseName: 'VIP', roomBaseId: 3 } });
      const qr = await request(testApp.baseUrl).get(new URL(created.qrCode).pathname).set('Accept', 'application/json').expect(200);
      expect(qr.body).toMatchObject({ simulated: true, kind: 'groupWay', configId: created.configId, chatIds: [chatIds[0], chatIds[1]] });
      expect((await api('get', `${T}/${created.id}`).expect(200)).body).toEqual(created);
    });

    it('validates the body (400) and surfaces the platform\'s refusal of an unknown group chat', async () => {
      const bad = async (body: Record<string, unknown>, field: string) => {
        const response = await api('post', T).send({ corpName: 'Acme Retail', name: 'x', chatIds: [chatIds[0]], ...body }).expect(400);
        expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
      };
      await bad({ chatIds: [] }, 'chatIds');
      await bad({ chatIds: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'chatIds');
      await bad({ chatIds: [chatIds[0], chatIds[0]] }, 'chatIds');
      await bad({ state: 'bad state' }, 'state');
      await bad({ scene: 3 }, 'scene');
      await bad({ roomBaseId: 0 }, 'roomBaseId');
      await bad({ conversationGroupId: 'has space' }, 'conversationGroupId');
      await bad({ digitalStaffId: 'x' }, 'digitalStaffId');
      await bad({ isDefault: true }, 'isDefault');
      await bad({ name: '' }, 'name');
      const unknownChat = await api('post', T).send({ corpName: 'Acme Retail', name: 'Unknown chat', chatIds: ['wrNoSuchChat'] }).expect(400);
      expect(unknownChat.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(unknownChat.body).toMatchObject({ platformOperation: 'createGroupWay', platformErrorCode: 40058 });
      expect(await db().query("SELECT 1 FROM chat_group_way WHERE name = 'Unknown chat'")).toEqual([]);
      expect((await api('post', T).send({ corpName: 'Nope', name: 'x', chatIds: [chatIds[0]] }).expect(404)).body.detail).toBe('No corp named "Nope" in this tenant.');
      await api('post', T).send({ corpName: 'Acme Retail', name: 'x', chatIds: [chatIds[0]], digitalStaffId: '00000000-0000-4000-8000-000000000000' }).expect(404);
    });

    it('keeps state unique within a corp (409)', async () => {
      await create({ state: 'gw_dup' });
      expect((await api('post', T).send({ corpName: 'Acme Retail', name: 'x', chatIds: [chatIds[1]], state: 'gw_dup' }).expect(409)).body.detail).toMatch(/already has a group way with state "gw_dup"/);
      await api('post', T).send({ corpName: 'Acme East', name: 'x', chatIds: [eastChatId], state: 'gw_dup' }).expect(200);
    });

    it('updates on the platform and here; cannot move to another corp; a platform refusal changes nothing', async () => {
      const way = await create({ name: 'Before', remark: 'keep', conversationGroupId: 'cg-1' });
      const updated = await api('post', `${T}/${way.id}`).send({ corpName: 'Acme Retail', name: 'After', chatIds: [chatIds[2], chatIds[1]], scene: 1, state: 'gw_after', conversationGroupId: null }).expect(200);
      expect(updated.body).toMatchObject({ id: way.id, name: 'After', chatIds: [chatIds[2], chatIds[1]], scene: 1, state: 'gw_after', remark: 'keep', conversationGroupId: null, configId: way.configId });
      const [sim] = await db().query('SELECT chat_ids, scene, state, remark FROM chat_sim_contact_way WHERE config_id = $1', [way.configId]);
      expect(sim).toEqual({ chat_ids: [chatIds[2], chatIds[1]], scene: 1, state: 'gw_after', remark: 'keep' });
      const otherCorp = await api('post', `${T}/${way.id}`).send({ corpName: 'Acme East', name: 'x', chatIds: [eastChatId] }).expect(400);
      expect(otherCorp.body.detail).toBe(`Group way ${way.id} belongs to another corp; a group way cannot move to corp "Acme East".`);
      await api('post', `${T}/${way.id}`).send({ corpName: 'Acme Retail', name: 'Broken', chatIds: ['wrNoSuchChat'] }).expect(400);
      expect((await api('get', `${T}/${way.id}`).expect(200)).body).toMatchObject({ name: 'After', chatIds: [chatIds[2], chatIds[1]] });
      await api('post', `${T}/999999`).send({ corpName: 'Acme Retail', name: 'x', chatIds: [chatIds[0]] }).expect(404);
    });

    it('pages with filters, sorts by allowed fields and caps size at 200', async () => {
      const a = await create({ name: 'List alpha', conversationGroupId: 'cg-list' });
      const b = await create({ name: 'List beta', digitalStaffId });
      const east = (await api('post', T).send({ corpName: 'Acme East', name: 'List east', chatIds: [eastChatId] }).expect(200)).body;
      const ids = (response: request.Response) => response.body.content.map((way: { id: number }) => way.id);
      expect(ids(await api('get', `${T}?name=list&sort=id,asc`).expect(200))).toEqual([a.id, b.id, east.id]);
      expect(ids(await api('get', `${T}?name=list&corpName=Acme%20East`).expect(200))).toEqual([east.id]);
      expect(ids(await api('get', `${T}?corpName=Nobody`).expect(200))).toEqual([]);
      expect(ids(await api('get', `${T}?conversationGroupId=cg-list`).expect(200))).toEqual([a.id]);
      expect(ids(await api('get', `${T}?name=list&digitalStaffId=${digitalStaffId}`).expect(200))).toEqual([b.id]);
      expect(ids(await api('get', `${T}?id=${a.id}`).expect(200))).toEqual([a.id]);
      expect(ids(await api('get', `${T}?state=${b.state}`).expect(200))).toEqual([b.id]);
      await api('put', `${T}/${east.id}/setDefault`).expect(200);
      expect(ids(await api('get', `${T}?name=list&isDefault=true`).expect(200))).toEqual([east.id]);
      const paged = await api('get', `${T}?name=list&sort=name,asc&size=2&page=1`).expect(200);
      expect(paged.body).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
      expect(paged.body.content.map((way: { name: string }) => way.name)).toEqual(['List east']);
      await api('get', `${T}?size=201`).expect(400);
      expect((await api('get', `${T}?sort=configId,asc`).expect(400)).body.detail).toBe('Invalid request: sort (Cannot sort by "configId"; allowed: id, createdAt, updatedAt, name)');
      await api('get', `${T}?id=0`).expect(400);
    });

    it('deletes on the platform and here', async () => {
      const way = await create({ name: 'Delete me' });
      await api('delete', `${T}/${way.id}`).expect(200);
      expect(await db().query('SELECT 1 FROM chat_sim_contact_way WHERE config_id = $1', [way.configId])).toEqual([]);
      await api('get', `${T}/${way.id}`).expect(404);
      await api('delete', `${T}/${way.id}`).expect(404);
      await api('get', `${T}/abc`).expect(400);
    });
  });

  describe('setDefault on both path layouts', () => {
    it('behaves the same on /api/{tenant}/v1/… and /api/v1/{tenant}/…: previous default cleared, affected ways returned', async () => {
      const corp = await newCorp(testApp, token, 'acme', 'Acme Layouts');
      const chatId = (await testApp.app.get(ChatPlatformSimulator).injectGroupChat(corpContext(corp), { name: 'Layouts', ownerUserId: 'owner' })).chatId;
      const a = (await api('post', T).send({ corpName: 'Acme Layouts', name: 'A', chatIds: [chatId] }).expect(200)).body;
      const b = (await api('post', T).send({ corpName: 'Acme Layouts', name: 'B', chatIds: [chatId] }).expect(200)).body;
      const first = await api('put', `${T}/${a.id}/setDefault`).expect(200);
      expect(first.body).toEqual([{ id: a.id, name: 'A', corpId: corp.id, digitalStaffId: null, conversationGroupId: null, state: a.state, qrCode: a.qrCode, isDefault: true }]);
      expect(flags(await api('put', `${V}/${b.id}/setDefault`).expect(200))).toEqual([[a.id, false], [b.id, true]]);
      expect(flags(await api('put', `${V}/${a.id}/setDefault`).expect(200))).toEqual([[b.id, false], [a.id, true]]);
      expect(flags(await api('put', `${T}/${b.id}/setDefault`).expect(200))).toEqual([[a.id, false], [b.id, true]]);
      expect(flags(await api('put', `${V}/${b.id}/setDefault`).expect(200))).toEqual([[b.id, true]]);
      expect(await defaultsOf(`corp:${corp.id}`)).toEqual([b.id]);
      for (const base of [T, V]) {
        expect((await api('put', `${base}/999999/setDefault`).expect(404)).body.detail).toBe('No group way 999999 in this tenant.');
        await api('put', `${base}/abc/setDefault`).expect(400);
      }
    });

    it('scopes ways with a digital staff to the digital staff, others to their corp', async () => {
      const staff = await newDigitalStaff(testApp, 'acme', 'Scoped');
      const corpWay = await create({ name: 'Corp scoped' });
      const staffWay = await create({ name: 'Staff scoped', digitalStaffId: staff.id });
      await api('put', `${T}/${corpWay.id}/setDefault`).expect(200);
      expect(flags(await api('put', `${V}/${staffWay.id}/setDefault`).expect(200))).toEqual([[staffWay.id, true]]);
      expect(await defaultsOf(`corp:${acme.id}`)).toEqual([corpWay.id]);
      expect(await defaultsOf(`ds:${staff.id}`)).toEqual([staffWay.id]);
      // Moving a default way to another digital staff ends its default status.
      const moved = await api('post', `${T}/${staffWay.id}`).send({ corpName: 'Acme Retail', name: 'Staff scoped', chatIds: [chatIds[0]], digitalStaffId: null }).expect(200);
      expect(moved.body.isDefault).toBe(false);
      expect(await defaultsOf(`ds:${staff.id}`)).toEqual([]);
    });

    it('keeps exactly one default under concurrent requests on both layouts', async () => {
      const staff = await newDigitalStaff(testApp, 'acme', 'Race');
      const ways: { id: number }[] = [];
      for (let i = 0; i < 8; i++) ways.push(await create({ name: `Race ${i}`, digitalStaffId: staff.id }));
      for (let round = 0; round < 3; round++) {
        const responses = await Promise.all(ways.map((way, i) => api('put', `${i % 2 ? T : V}/${way.id}/setDefault`)));
        expect(responses.map((response) => response.status)).toEqual(ways.map(() => 200));
        for (const [i, response] of responses.entries()) expect(response.body[response.body.length - 1]).toMatchObject({ id: ways[i].id, isDefault: true });
        expect(await defaultsOf(`ds:${staff.id}`)).toHaveLength(1);
      }
    });
  });

  describe('conversationGroupId on both path layouts', () => {
    it('assigns, changes and clears the conversation group the same way on both layouts', async () => {
      const way = await create({ name: 'Conversation' });
      const set = await api('put', `${T}/conversationGroupId`).send({ id: way.id, conversationGroupId: 'welcome-flow' }).expect(200);
      expect(set.body).toEqual({ ...way, conversationGroupId: 'welcome-flow', updatedAt: expect.any(String) });
      const changed = await api('put', `${V}/conversationGroupId`).send({ id: way.id, conversationGroupId: 'vip-flow' }).expect(200);
      expect(changed.body).toMatchObject({ id: way.id, conversationGroupId: 'vip-flow' });
      const cleared = await api('put', `${V}/conversationGroupId`).send({ id: way.id, conversationGroupId: null }).expect(200);
      expect(cleared.body.conversationGroupId).toBeNull();
      expect((await api('get', `${T}/${way.id}`).expect(200)).body.conversationGroupId).toBeNull();
      for (const base of [T, V]) {
        await api('put', `${base}/conversationGroupId`).send({ id: way.id }).expect(400);
        await api('put', `${base}/conversationGroupId`).send({ id: 0, conversationGroupId: 'x' }).expect(400);
        await api('put', `${base}/conversationGroupId`).send({ id: '1', conversationGroupId: 'x' }).expect(400);
        await api('put', `${base}/conversationGroupId`).send({ id: way.id, conversationGroupId: 'bad group' }).expect(400);
        expect((await api('put', `${base}/conversationGroupId`).send({ id: 999999, conversationGroupId: 'x' }).expect(404)).body.detail).toBe('No group way 999999 in this tenant.');
      }
    });
  });

  describe('tenant isolation and scopes', () => {
    let way: { id: number };
    const body = () => ({ corpName: 'Acme Retail', name: 'x', chatIds: [chatIds[0]] });
    const routes = (id: number): [Method, string, object?][] => [
      ['get', T],
      ['post', T, body()],
      ['get', `${T}/${id}`],
      ['post', `${T}/${id}`, body()],
      ['delete', `${T}/${id}`],
      ['put', `${T}/${id}/setDefault`],
      ['put', `${V}/${id}/setDefault`],
      ['put', `${T}/conversationGroupId`, { id, conversationGroupId: 'x' }],
      ['put', `${V}/conversationGroupId`, { id, conversationGroupId: 'x' }],
    ];

    beforeAll(async () => {
      way = await create({ name: 'Isolated' });
    });

    it('another tenant\'s token gets 403 on every route of this tenant, on both layouts', async () => {
      for (const [method, path, payload] of routes(way.id)) {
        const response = await api(method, path, otherToken).send(payload);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
    });

    it('another tenant\'s ids answer 404 through its own paths, on both layouts', async () => {
      await api('get', `/api/globex/v1/chat/group/way/${way.id}`, otherToken).expect(404);
      await api('post', `/api/globex/v1/chat/group/way/${way.id}`, otherToken).send({ corpName: 'Globex', name: 'x', chatIds: ['wr1'] }).expect(404);
      await api('delete', `/api/globex/v1/chat/group/way/${way.id}`, otherToken).expect(404);
      await api('put', `/api/globex/v1/chat/group/way/${way.id}/setDefault`, otherToken).expect(404);
      await api('put', `/api/v1/globex/chat/group/way/${way.id}/setDefault`, otherToken).expect(404);
      await api('put', '/api/globex/v1/chat/group/way/conversationGroupId', otherToken).send({ id: way.id, conversationGroupId: 'stolen' }).expect(404);
      await api('put', '/api/v1/globex/chat/group/way/conversationGroupId', otherToken).send({ id: way.id, conversationGroupId: 'stolen' }).expect(404);
      expect((await api('get', '/api/globex/v1/chat/group/way', otherToken).expect(200)).body.totalElements).toBe(0);
      expect((await api('get', `${T}/${way.id}`).expect(200)).body).toMatchObject({ isDefault: false, conversationGroupId: null });
    });

    it('a token without chat:write gets 403 on every write, and may read', async () => {
      for (const [method, path, payload] of routes(way.id).filter(([method]) => method !== 'get')) {
        const response = await api(method, path, readOnly).send(payload);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
      await api('get', `${T}/${way.id}`, readOnly).expect(200);
      await api('get', T, readOnly).expect(200);
    });
  });
});
