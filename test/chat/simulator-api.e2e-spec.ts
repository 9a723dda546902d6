import request from 'supertest';
import { ChatPlatformEvents, type ChatPlatformEvent } from '../../src/chat/platform/chat-platform-events';
import { CHAT_PLATFORM, type ChatPlatform } from '../../src/chat/platform/chat-platform.port';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { corpContext, newCorp, type TestCorp } from './support/way-factories';

type Method = 'get' | 'post' | 'put' | 'delete';
type Json = Record<string, any>;

/**
 * The simulator's documented endpoint (issue 5, "The enterprise chat platform port": inject customers and inbound
 * messages; acceptance 5: inject a customer through a contact way, switch AI off and on): staff, customers, group
 * chats and messages injected over HTTP publish the platform's events, the `external_contact.added` event becomes a
 * stored contact before the answer, and the messages list shows what was sent. The 404 in HTTP platform mode is in
 * contacts.e2e-spec.ts.
 */
describe('chat platform simulator endpoints ({C}/simulator/corps/{corpId}/...)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let east: TestCorp;
  let events: ChatPlatformEvent[];
  let unsubscribe: () => void;
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const S = (corp: TestCorp = acme) => `/api/${corp.tenantId}/console/simulator/corps/${corp.id}`;

  beforeAll(async () => {
    testApp = await startTestApp();
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    east = await newCorp(testApp, token, 'acme', 'Acme East');
  });
  afterAll(() => testApp?.close());
  beforeEach(() => {
    events = [];
    unsubscribe = testApp.app.get(ChatPlatformEvents).subscribe((event) => {
      events.push(event);
    });
  });
  afterEach(() => unsubscribe());

  it('acceptance 5: a staff user, a contact way, a customer injected through it, AI switched off and on', async () => {
    await api('post', '/api/acme/console/workChat/user').send({ workChatCorpId: acme.workChatCorpId, workChatUserId: 'zhangsan', name: 'Zhang San' }).expect(200);
    const way = (await api('post', '/api/acme/console/workChat/contactWay').send({ corpName: 'Acme Retail', workChatUserId: 'zhangsan', name: 'Spring fair', state: 'spring-fair' }).expect(200)).body;
    const injected = await api('post', `${S()}/customers`).send({ name: 'Lily', contactWayId: way.id }).expect(200);
    expect(injected.body).toEqual({
      externalUserId: expect.stringMatching(/^wm/),
      userId: 'zhangsan',
      state: 'spring-fair',
      addedAt: expect.any(String),
      contact: expect.objectContaining({ id: expect.any(String), corpName: 'Acme Retail', workChatUserId: 'zhangsan', name: 'Lily', state: 'spring-fair', aiEnabled: true, addWay: 1 }),
    });
    expect(events).toEqual([expect.objectContaining({ type: 'external_contact.added', tenantId: 'acme', corpId: acme.id, userId: 'zhangsan', externalUserId: injected.body.externalUserId, state: 'spring-fair' })]);
    const toggle = `/api/acme/console/workChat/zhangsan/contact/external/${injected.body.contact.id}/ai/switch`;
    expect((await api('post', toggle).expect(200)).body).toBe(false);
    const query = `corpName=Acme%20Retail&userId=zhangsan&externalUserId=${injected.body.externalUserId}`;
    expect((await api('get', `/api/acme/v1/workChat/contact/external/ai/switch?${query}`).expect(200)).body).toBe(false);
    expect((await api('post', toggle).expect(200)).body).toBe(true);
    expect((await api('get', `/api/acme/v1/workChat/contact/external/ai/switch?${query}`).expect(200)).body).toBe(true);
  });

  describe('customers', () => {
    let way: Json;
    beforeAll(async () => {
      const platform = testApp.app.get<ChatPlatform>(CHAT_PLATFORM);
      const created = await platform.createContactWay(corpContext(acme), { type: 2, scene: 2, userIds: ['lisi', 'wangwu'], state: 'web' });
      way = { configId: created.configId };
    });

    it('adds through a way\'s platform config id (its first staff member unless userId names another of its staff)', async () => {
      const first = await api('post', `${S()}/customers`).send({ name: 'Tom', contactWayConfigId: way.configId }).expect(200);
      expect(first.body).toMatchObject({ userId: 'lisi', state: 'web', contact: { workChatUserId: 'lisi', state: 'web' } });
      const second = await api('post', `${S()}/customers`).send({ name: 'Tim', contactWayConfigId: way.configId, userId: 'wangwu', gender: 1, type: 2, corpName: 'Initech', unionId: 'u-tim' }).expect(200);
      expect(second.body.contact).toMatchObject({ workChatUserId: 'wangwu', gender: 1, type: 2, customerCorpName: 'Initech', unionId: 'u-tim' });
      const wrongStaff = await api('post', `${S()}/customers`).send({ name: 'Tia', contactWayConfigId: way.configId, userId: 'zhaoliu' }).expect(400);
      expect(wrongStaff.body.detail).toBe(`Staff member zhaoliu is not on contact way ${way.configId} (it lists lisi, wangwu).`);
    });

    it('adds a staff member directly with a state and time, and lets a known customer add another staff member', async () => {
      const added = await api('post', `${S()}/customers`).send({ name: 'Ann', userId: 'zhaoliu', state: 'booth-7', addedAt: '2020-05-01T10:00:00.000Z' }).expect(200);
      expect(added.body).toMatchObject({ userId: 'zhaoliu', state: 'booth-7', addedAt: '2020-05-01T10:00:00.000Z', contact: { state: 'booth-7', stateAt: '2020-05-01T10:00:00.000Z', addWay: 0 } });
      const again = await api('post', `${S()}/customers`).send({ name: 'Ann', userId: 'lisi', externalUserId: added.body.externalUserId }).expect(200);
      expect(again.body.contact).toMatchObject({ externalUserId: added.body.externalUserId, workChatUserId: 'lisi' });
      expect(again.body.contact.id).not.toBe(added.body.contact.id);
    });

    it('refuses what cannot be injected: no staff member (400), unknown ways, customers and corps (404), bad fields (400)', async () => {
      const nobody = await api('post', `${S()}/customers`).send({ name: 'X' }).expect(400);
      expect(nobody.body.detail).toBe('Give userId (the staff member the customer adds) or contactWayConfigId (the contact way the customer scans).');
      await api('post', `${S()}/customers`).send({ name: 'X', contactWayId: 999999 }).expect(404);
      await api('post', `${S()}/customers`).send({ name: 'X', contactWayConfigId: 'no-such-way' }).expect(404);
      await api('post', `${S(east)}/customers`).send({ name: 'X', contactWayConfigId: way.configId }).expect(404);
      await api('post', `${S()}/customers`).send({ name: 'X', userId: 'lisi', externalUserId: 'wm-nobody' }).expect(404);
      await api('post', `/api/acme/console/simulator/corps/00000000-0000-4000-8000-000000000000/customers`).send({ name: 'X', userId: 'lisi' }).expect(404);
      await api('post', `/api/acme/console/simulator/corps/not-a-uuid/customers`).send({ name: 'X', userId: 'lisi' }).expect(400);
      await api('post', `${S()}/customers`).send({ userId: 'lisi' }).expect(400);
      await api('post', `${S()}/customers`).send({ name: 'X', userId: 'lisi', state: 'x'.repeat(31) }).expect(400);
      await api('post', `${S()}/customers`).send({ name: 'X', userId: 'lisi', addedAt: 'yesterday' }).expect(400);
      await api('post', `${S()}/customers`).send({ name: 'X', userId: 'lisi', gender: 5 }).expect(400);
      expect(events).toEqual([]);
    });
  });

  describe('staff and group chats', () => {
    it('creates or updates a staff member on the simulated platform', async () => {
      const created = await api('post', `${S()}/staff`).send({ userId: 'qianba', name: 'Qian Ba', mobile: '13800000008', departmentIds: [1, 2] }).expect(200);
      expect(created.body).toEqual({ userId: 'qianba', name: 'Qian Ba', mobile: '13800000008', departmentIds: [1, 2], status: 1 });
      const updated = await api('post', `${S()}/staff`).send({ userId: 'qianba', name: 'Qian B.', status: 5 }).expect(200);
      expect(updated.body).toEqual({ userId: 'qianba', name: 'Qian B.', departmentIds: [1], status: 5 });
      const listed = await testApp.app.get<ChatPlatform>(CHAT_PLATFORM).listStaff(corpContext(acme));
      expect(listed.find((staff) => staff.userId === 'qianba')).toMatchObject({ name: 'Qian B.', status: 5 });
      await api('post', `${S()}/staff`).send({ userId: 'has space' }).expect(400);
      await api('post', `${S()}/staff`).send({ userId: 'x', status: 3 }).expect(400);
    });

    it('creates a group chat with staff and customer members; a taken chat id is 409, an unknown customer 404', async () => {
      const customer = (await api('post', `${S()}/customers`).send({ name: 'Gus', userId: 'zhangsan' }).expect(200)).body;
      const chat = await api('post', `${S()}/group-chats`).send({ chatId: 'wr-sim-1', name: 'Fans', ownerUserId: 'zhangsan', memberUserIds: ['lisi'], memberExternalUserIds: [customer.externalUserId], notice: 'Hi all' }).expect(200);
      expect(chat.body).toEqual({
        chatId: 'wr-sim-1',
        name: 'Fans',
        ownerUserId: 'zhangsan',
        notice: 'Hi all',
        createdAt: expect.any(String),
        members: [
          { userId: 'zhangsan', type: 1, joinedAt: expect.any(String), joinScene: 1 },
          { userId: 'lisi', type: 1, joinedAt: expect.any(String), joinScene: 1 },
          { userId: customer.externalUserId, type: 2, joinedAt: expect.any(String), joinScene: 1, name: 'Gus' },
        ],
      });
      const taken = await api('post', `${S()}/group-chats`).send({ chatId: 'wr-sim-1', name: 'Again', ownerUserId: 'zhangsan' }).expect(409);
      expect(taken.body.detail).toBe('The simulator already has group chat wr-sim-1.');
      await api('post', `${S()}/group-chats`).send({ name: 'Ghosts', ownerUserId: 'zhangsan', memberExternalUserIds: ['wm-ghost'] }).expect(404);
      await api('post', `${S()}/group-chats`).send({ name: 'No owner' }).expect(400);
    });
  });

  describe('messages', () => {
    let customer: Json;
    beforeAll(async () => {
      customer = (await api('post', `${S()}/customers`).send({ name: 'Mia', userId: 'zhangsan' }).expect(200)).body;
    });

    it('publishes message.received for a customer\'s message and returns the event; a redelivery keeps the id', async () => {
      const sent = await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'Is the spring collection in stock?', msgId: 'msg-sim-1' }).expect(200);
      expect(sent.body).toEqual({ msgId: 'msg-sim-1', chatType: 'single', userId: 'zhangsan', externalUserId: customer.externalUserId, msgType: 'text', content: 'Is the spring collection in stock?', occurredAt: expect.any(String) });
      expect(events).toEqual([expect.objectContaining({ type: 'message.received', tenantId: 'acme', corpId: acme.id, msgId: 'msg-sim-1', content: 'Is the spring collection in stock?' })]);
      const again = await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'Is the spring collection in stock?', msgId: 'msg-sim-1' }).expect(200);
      expect(again.body.msgId).toBe('msg-sim-1');
      expect(events).toHaveLength(2);
      const image = await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, userId: 'zhangsan', msgType: 'image', media: { fileName: 'shoe.jpg', contentType: 'image/jpeg', sizeBytes: 2048 } }).expect(200);
      expect(image.body).toMatchObject({ msgType: 'image', media: { fileName: 'shoe.jpg', contentType: 'image/jpeg', sizeBytes: 2048 } });
      // Nothing of the message is stored by the contacts area: only the simulated platform keeps it.
      const listed = await api('get', `${S()}/messages?externalUserId=${customer.externalUserId}`).expect(200);
      expect(listed.body.map((message: Json) => [message.msgId === 'msg-sim-1' ? 'msg-sim-1' : 'generated', message.direction, message.msgType])).toEqual([
        ['msg-sim-1', 'inbound', 'text'],
        ['generated', 'inbound', 'image'],
      ]);
    });

    it('lists what the wing sent to customers, filtered and limited, oldest first', async () => {
      const platform = testApp.app.get<ChatPlatform>(CHAT_PLATFORM);
      await platform.sendMessage(corpContext(acme), { senderUserId: 'zhangsan', externalUserId: customer.externalUserId, message: { msgType: 'text', content: 'Yes, in all sizes.' } });
      await platform.sendMessage(corpContext(acme), { senderUserId: 'zhangsan', externalUserId: customer.externalUserId, message: { msgType: 'image', media: { fileName: 'a.png', contentType: 'image/png', data: Buffer.from('png-bytes') } } });
      const outbound = await api('get', `${S()}/messages?direction=outbound&externalUserId=${customer.externalUserId}`, readOnly).expect(200);
      expect(outbound.body).toEqual([
        { msgId: expect.any(String), direction: 'outbound', chatType: 'single', userId: 'zhangsan', externalUserId: customer.externalUserId, msgType: 'text', content: 'Yes, in all sizes.', sentAt: expect.any(String) },
        {
          msgId: expect.any(String),
          direction: 'outbound',
          chatType: 'single',
          userId: 'zhangsan',
          externalUserId: customer.externalUserId,
          msgType: 'image',
          media: { mediaId: expect.any(String), fileName: 'a.png', contentType: 'image/png', sizeBytes: 9, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
          sentAt: expect.any(String),
        },
      ]);
      const latest = await api('get', `${S()}/messages?externalUserId=${customer.externalUserId}&limit=1`).expect(200);
      expect(latest.body.map((message: Json) => message.msgType)).toEqual(['image']);
      expect((await api('get', `${S(east)}/messages`).expect(200)).body).toEqual([]);
      await api('get', `${S()}/messages?limit=501`).expect(400);
      await api('get', `${S()}/messages?direction=sideways`).expect(400);
    });

    it('refuses bad messages (400), unknown customers (404) and a message id of another message (409)', async () => {
      const empty = await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId }).expect(400);
      expect(empty.body.detail).toBe('content is required for a text message');
      await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'x', msgType: 'fax' }).expect(400);
      await api('post', `${S()}/messages`).send({ externalUserId: 'wm-nobody', content: 'x' }).expect(404);
      const other = (await api('post', `${S()}/customers`).send({ name: 'Ned', userId: 'zhangsan' }).expect(200)).body;
      await api('post', `${S()}/messages`).send({ externalUserId: other.externalUserId, content: 'x', msgId: 'msg-sim-1' }).expect(409);
      await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'x', media: { sha256: 'abc' } }).expect(400);
    });

    it('answers 500 naming the failure when a listener of the event fails (the message is stored all the same)', async () => {
      const stop = testApp.app.get(ChatPlatformEvents).subscribe((event) => {
        if (event.type === 'message.received') throw new Error('inbox down');
      });
      try {
        const failed = await api('post', `${S()}/messages`).send({ externalUserId: customer.externalUserId, content: 'Hello?', msgId: 'msg-sim-fail' }).expect(500);
        expect(failed.body.detail).toMatch(/^The simulated platform stored the injection, but \d+ event listener\(s\) failed: .*inbox down/);
      } finally {
        stop();
      }
      const listed = await api('get', `${S()}/messages?direction=inbound&externalUserId=${customer.externalUserId}`).expect(200);
      expect(listed.body.map((message: Json) => message.msgId)).toContain('msg-sim-fail');
    });
  });

  it('keeps tenants apart: 403 on another tenant\'s paths, 404 for another tenant\'s corp, 403 on writes without chat:write', async () => {
    const routes: [Method, string, Json | undefined][] = [
      ['post', `${S()}/staff`, { userId: 'x' }],
      ['post', `${S()}/customers`, { name: 'X', userId: 'x' }],
      ['post', `${S()}/group-chats`, { name: 'X', ownerUserId: 'x' }],
      ['post', `${S()}/messages`, { externalUserId: 'wm-x', content: 'x' }],
      ['get', `${S()}/messages`, undefined],
    ];
    for (const [method, path, body] of routes) {
      expect({ path, method, status: (await api(method, path, otherToken).send(body)).status }).toEqual({ path, method, status: 403 });
      const globexPath = path.replace('/api/acme/', '/api/globex/');
      expect({ globexPath, method, status: (await api(method, globexPath, otherToken).send(body)).status }).toEqual({ globexPath, method, status: 404 });
      const reader = (await api(method, path, readOnly).send(body)).status;
      expect({ path, method, status: reader === 403 ? 403 : 'served' }).toEqual({ path, method, status: method === 'get' ? 'served' : 403 });
    }
    expect(events).toEqual([]);
  });
});
