import request from 'supertest';
import { ChatMessageEntity } from '../../src/chat/messages/chat-message.entity';
import { ChatMessagesService } from '../../src/chat/messages/chat-messages.service';
import type { PlatformTagGroup } from '../../src/chat/platform/chat-platform.port';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { ChatInboundPipeline } from '../../src/chat/pipeline/chat-inbound-pipeline.service';
import { eventually } from '../support/async';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { corpContext, dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;

const T = (tenant = 'acme') => `/api/${tenant}/mcp/chat/contact`;
const SEND = (tenant?: string) => `${T(tenant)}/message/send`;
const SEND_GROUP = (tenant?: string) => `${T(tenant)}/message/send-group`;
const TAG_ADD = (tenant?: string) => `${T(tenant)}/customer/tag/add`;
const TAG_DELETE = (tenant?: string) => `${T(tenant)}/customer/tag/delete`;

/**
 * The tool-style endpoints (chat-management-api.md, "Tool-style endpoints"; issue 6, acceptance 5) over REST against
 * the real app and the platform simulator: a text to a contact and into a group room goes through the message
 * store and the durable delivery (the simulator records it, the history shows it, sender `ai`), customer tags
 * change on the contact and on the platform idempotently and without losing concurrent changes, bad input is 400
 * with nothing stored, another tenant's ids are 404, another tenant's path 403, a read-only token 403.
 */
describe('tool-style endpoints (REST, simulator)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let contact: Json;
  let secondContact: Json;
  let otherContact: Json;
  let room: Json;
  let otherRoom: Json;
  let level: PlatformTagGroup;
  let source: PlatformTagGroup;
  const api = (path: string, bearer = token) => request(testApp.baseUrl).post(path).auth(bearer, { type: 'bearer' });
  const get = (path: string, bearer = token) => request(testApp.baseUrl).get(path).auth(bearer, { type: 'bearer' });
  const simulator = () => testApp.app.get(ChatPlatformSimulator);
  const messageRows = () => dataSourceOf(testApp).getRepository(ChatMessageEntity).count();
  const waitForStatus = (id: string) =>
    eventually(`message ${id} delivered`, async () => {
      const row = await dataSourceOf(testApp).getRepository(ChatMessageEntity).findOneBy({ id });
      return row && row.status !== 'pending' ? row : undefined;
    }, { timeoutMs: 15_000 });
  /** The contact's tags as the console shows them. */
  const storedTags = async (c: Json = contact) => (await get(`/api/acme/console/workChat/${c.workChatUserId}/contact/external/${c.id}`).expect(200)).body.tags as Json[];
  /** The corp tag ids the platform holds on the (staff member, customer) relation. */
  const platformTagIds = async (c: Json = contact) => {
    const detail = await simulator().getExternalContact(corpContext(acme), c.externalUserId);
    return detail.followers.find((follow) => follow.userId === c.workChatUserId)!.tags.map((tag) => tag.tagId).sort();
  };
  const problem = (response: request.Response, status: number, detail: string | RegExp) => {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.detail).toMatch(detail);
  };

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_MESSAGE_MAX_TEXT_CHARS: '50', CHAT_MCP_MAX_TAGS: '3' });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    const globex = await newCorp(testApp, otherToken, 'globex', 'Globex Retail');
    for (const userId of ['zhangsan', 'lisi', 'wangwu']) await newStaffUser(testApp, acme, userId);
    await newStaffUser(testApp, globex, 'zhangsan');
    const C = (corp: TestCorp) => `/api/${corp.tenantId}/console/simulator/corps/${corp.id}`;
    const injectCustomer = async (corp: TestCorp, bearer: string, body: Json) => (await api(`${C(corp)}/customers`, bearer).send(body).expect(200)).body.contact as Json;
    for (const userId of ['zhangsan', 'lisi', 'wangwu']) await api(`${C(acme)}/staff`).send({ userId }).expect(200);
    await api(`${C(globex)}/staff`, otherToken).send({ userId: 'zhangsan' }).expect(200);
    contact = await injectCustomer(acme, token, { name: 'Lily', userId: 'zhangsan' });
    secondContact = await injectCustomer(acme, token, { name: 'Mia', userId: 'zhangsan' });
    otherContact = await injectCustomer(globex, otherToken, { name: 'Olga', userId: 'zhangsan' });
    // A group chat owned by zhangsan with lisi as a staff member, synced into a group room.
    await api(`${C(acme)}/group-chats`).send({ name: 'VIP room', ownerUserId: 'zhangsan', memberUserIds: ['lisi'], memberExternalUserIds: [contact.externalUserId] }).expect(200);
    await api('/api/acme/console/workChat/user/guide/syncGroup').send({ corpId: acme.id, workChatUserId: 'zhangsan' }).expect(200);
    room = (await get('/api/acme/console/workChat/zhangsan/contact/room').expect(200)).body.content[0];
    await api(`${C(globex)}/group-chats`, otherToken).send({ name: 'Globex room', ownerUserId: 'zhangsan' }).expect(200);
    await api('/api/globex/console/workChat/user/guide/syncGroup', otherToken).send({ corpId: globex.id, workChatUserId: 'zhangsan' }).expect(200);
    otherRoom = (await get('/api/globex/console/workChat/zhangsan/contact/room', otherToken).expect(200)).body.content[0];
    // The corp's tag library on the platform: "VIP" exists in two groups.
    level = await simulator().createTags(corpContext(acme), { groupName: 'Level', tags: [{ name: 'VIP' }, { name: 'New' }, { name: 'Gold' }] });
    source = await simulator().createTags(corpContext(acme), { groupName: 'Source', tags: [{ name: 'Fair' }, { name: 'VIP' }] });
  });
  afterAll(() => testApp?.close());

  const tagId = (group: PlatformTagGroup, name: string) => group.tags.find((tag) => tag.name === name)!.tagId;

  it('serves the four rows of endpoints.json with camelCase operationIds under the chat security', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const operations = [
      ['/api/{tenant}/mcp/chat/contact/message/send', 'mcpSendMessage'],
      ['/api/{tenant}/mcp/chat/contact/message/send-group', 'mcpSendGroupMessage'],
      ['/api/{tenant}/mcp/chat/contact/customer/tag/add', 'mcpAddCustomerTag'],
      ['/api/{tenant}/mcp/chat/contact/customer/tag/delete', 'mcpDeleteCustomerTag'],
    ];
    for (const [path, operationId] of operations) {
      expect(document.paths[path].post).toMatchObject({ operationId, security: [{ oauth2: ['chat:write'] }], tags: ['chat: tools (MCP)'] });
    }
    expect(document.paths['/api/{tenant}/mcp/chat/contact/message/send'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/SendMessageRequest');
    expect(document.components.schemas.SendMessageResponse.properties).toHaveProperty('messageId');
    expect(document.components.schemas.AddCustomerTagRequest.properties).toHaveProperty('tagNames');
  });

  describe('message/send', () => {
    it('stores the text as an AI message, delivers it through the simulator and shows it in the history', async () => {
      const response = await api(SEND()).send({ contactId: contact.id, content: 'Hi Lily, your order ships tomorrow.', agentChatId: 'run-1' }).expect(200);
      expect(response.body).toEqual({
        messageId: expect.any(String),
        chatType: 'single',
        contactId: contact.id,
        corpId: acme.id,
        workChatUserId: 'zhangsan',
        sender: 'ai',
        msgType: 'text',
        content: 'Hi Lily, your order ships tomorrow.',
        status: 'pending',
        platformMsgId: null,
        failureReason: null,
        createdAt: expect.any(String),
        sentAt: null,
      });
      const row = await waitForStatus(response.body.messageId);
      expect(row).toMatchObject({ status: 'sent', sender: 'ai', direction: 'out', agentChatId: 'run-1', contactType: 'single' });
      const onPlatform = await simulator().listMessages(corpContext(acme), { externalUserId: contact.externalUserId, direction: 'outbound' });
      expect(onPlatform.filter((message) => message.msgId === row.platformMsgId)).toEqual([expect.objectContaining({ msgType: 'text', content: 'Hi Lily, your order ships tomorrow.', userId: 'zhangsan' })]);
      const history = await testApp.app.get(ChatMessagesService).history('acme', contact.id, 10);
      expect(history.map((message) => message.id)).toContain(response.body.messageId);
    });

    it('names the contact by staff member and customer id, and quotes an earlier message', async () => {
      const first = await api(SEND()).send({ workChatUserId: 'zhangsan', externalUserId: secondContact.externalUserId, content: 'Hello Mia' }).expect(200);
      expect(first.body).toMatchObject({ contactId: secondContact.id, workChatUserId: 'zhangsan' });
      const quoting = await api(SEND()).send({ contactId: secondContact.id, workChatUserId: 'zhangsan', content: 'As I said:', quoteChatMsgId: first.body.messageId }).expect(200);
      expect((await waitForStatus(quoting.body.messageId)).quoteMessageId).toBe(first.body.messageId);
    });

    it('refuses bad input with 400 and stores nothing', async () => {
      const before = await messageRows();
      const cases: [Json, string | RegExp][] = [
        [{ contactId: contact.id }, /content/],
        [{ contactId: contact.id, content: '   ' }, 'content must not be blank'],
        [{ contactId: contact.id, content: 'x'.repeat(51) }, 'at most 50 (CHAT_MESSAGE_MAX_TEXT_CHARS)'],
        [{ content: 'Hello' }, 'Name the contact'],
        [{ contactId: contact.id, externalUserId: contact.externalUserId, workChatUserId: 'zhangsan', content: 'Hello' }, 'not both'],
        [{ externalUserId: contact.externalUserId, content: 'Hello' }, 'needs `workChatUserId`'],
        [{ contactId: 'not-a-uuid', content: 'Hello' }, /contactId/],
        [{ contactId: contact.id, content: 'Hello', msgType: 'text' }, /msgType/],
        [{ contactId: contact.id, content: 'Hello', quoteChatMsgId: otherContact.id }, 'is not a message of this contact'],
      ];
      for (const [body, detail] of cases) problem(await api(SEND()).send(body), 400, detail);
      expect(await messageRows()).toBe(before);
    });

    it('refuses while AI replies are switched off for the contact (409), and sends again once they are on', async () => {
      const toggle = `/api/acme/console/workChat/zhangsan/contact/external/${contact.id}/ai/switch`;
      expect((await api(toggle).expect(200)).body).toBe(false);
      problem(await api(SEND()).send({ contactId: contact.id, content: 'Still there?' }), 409, 'AI replies are switched off');
      expect((await api(toggle).expect(200)).body).toBe(true);
      await api(SEND()).send({ contactId: contact.id, content: 'Still there?' }).expect(200);
    });

    it('answers 404 for another tenant\'s contact or the wrong staff member, 403 for another tenant\'s path and a read-only token', async () => {
      const before = await messageRows();
      problem(await api(SEND()).send({ contactId: otherContact.id, content: 'Hello' }), 404, 'not found');
      problem(await api(SEND()).send({ workChatUserId: 'zhangsan', externalUserId: otherContact.externalUserId, content: 'Hello' }), 404, 'not found');
      problem(await api(SEND()).send({ contactId: contact.id, workChatUserId: 'lisi', content: 'Hello' }), 404, 'not found');
      problem(await api(SEND('globex')).send({ contactId: otherContact.id, content: 'Hello' }), 403, 'not valid for tenant "globex"');
      problem(await api(SEND(), readOnly).send({ contactId: contact.id, content: 'Hello' }), 403, 'chat:write');
      await api(SEND(), 'not-a-token').send({ contactId: contact.id, content: 'Hello' }).expect(401);
      expect(await messageRows()).toBe(before);
    });
  });

  describe('message/send-group', () => {
    it('stores the text in the room\'s history and delivers it into the platform group chat as the owner', async () => {
      const response = await api(SEND_GROUP()).send({ roomId: room.id, content: 'Welcome, everyone!' }).expect(200);
      expect(response.body).toMatchObject({ chatType: 'group', contactId: room.id, corpId: acme.id, workChatUserId: 'zhangsan', sender: 'ai', msgType: 'text', status: 'pending' });
      const row = await waitForStatus(response.body.messageId);
      expect(row).toMatchObject({ status: 'sent', contactType: 'group', failureReason: null });
      const onPlatform = await simulator().listMessages(corpContext(acme), { chatId: room.chatId, direction: 'outbound' });
      expect(onPlatform.filter((message) => message.msgId === row.platformMsgId)).toEqual([expect.objectContaining({ chatType: 'group', content: 'Welcome, everyone!', userId: 'zhangsan' })]);
      const history = await testApp.app.get(ChatMessagesService).history('acme', room.id, 10);
      expect(history.map((message) => message.content)).toContain('Welcome, everyone!');
    });

    it('sends as a staff member of the room; not as someone outside it (404)', async () => {
      const response = await api(SEND_GROUP()).send({ roomId: room.id, workChatUserId: 'lisi', content: 'Lisi here' }).expect(200);
      expect((await waitForStatus(response.body.messageId)).status).toBe('sent');
      problem(await api(SEND_GROUP()).send({ roomId: room.id, workChatUserId: 'wangwu', content: 'Hi' }), 404, 'has no group room');
    });

    it('refuses bad input (400), a room with AI switched off (409), another tenant\'s room (404) or path (403)', async () => {
      const before = await messageRows();
      problem(await api(SEND_GROUP()).send({ content: 'Hi' }), 400, /roomId/);
      problem(await api(SEND_GROUP()).send({ roomId: room.id, content: '' }), 400, 'content must not be blank');
      problem(await api(SEND_GROUP()).send({ roomId: room.id, content: 'y'.repeat(51) }), 400, 'CHAT_MESSAGE_MAX_TEXT_CHARS');
      problem(await api(SEND_GROUP()).send({ roomId: room.id, content: 'Hi', quoteChatMsgId: room.id }), 400, 'not a message of this group room');
      problem(await api(SEND_GROUP()).send({ roomId: otherRoom.id, content: 'Hi' }), 404, 'No group room');
      problem(await api(SEND_GROUP('globex')).send({ roomId: otherRoom.id, content: 'Hi' }), 403, 'not valid for tenant');
      problem(await api(SEND_GROUP(), readOnly).send({ roomId: room.id, content: 'Hi' }), 403, 'chat:write');
      const toggle = `/api/acme/console/workChat/zhangsan/contact/room/${room.id}/ai/switch`;
      expect((await api(toggle).expect(200)).body).toBe(false);
      problem(await api(SEND_GROUP()).send({ roomId: room.id, content: 'Hi' }), 409, 'AI replies are switched off');
      expect((await api(toggle).expect(200)).body).toBe(true);
      expect(await messageRows()).toBe(before);
    });
  });

  describe('customer/tag/add and customer/tag/delete', () => {
    it('adds tags by id and by name (group picked by groupName) on the platform and the contact, with no response body', async () => {
      const response = await api(TAG_ADD()).send({ contactId: contact.id, tagIds: [tagId(level, 'New')], tagNames: ['VIP'], groupName: 'Level' }).expect(200);
      expect(response.text).toBe('');
      expect(await storedTags()).toEqual([
        { tagId: tagId(level, 'New'), tagName: 'New', groupId: level.groupId, groupName: 'Level', type: 1 },
        { tagId: tagId(level, 'VIP'), tagName: 'VIP', groupId: level.groupId, groupName: 'Level', type: 1 },
      ]);
      expect(await platformTagIds()).toEqual([tagId(level, 'New'), tagId(level, 'VIP')].sort());
    });

    it('is idempotent: adding tags the contact has changes nothing', async () => {
      const before = await storedTags();
      await api(TAG_ADD()).send({ workChatUserId: 'zhangsan', externalUserId: contact.externalUserId, tagIds: [tagId(level, 'New'), tagId(level, 'VIP')] }).expect(200);
      expect(await storedTags()).toEqual(before);
      expect(await platformTagIds()).toEqual([tagId(level, 'New'), tagId(level, 'VIP')].sort());
    });

    it('refuses unknown or ambiguous tags, no tags and too many tags with 400, changing nothing', async () => {
      const before = await storedTags();
      problem(await api(TAG_ADD()).send({ contactId: contact.id, tagNames: ['Platinum'] }), 400, 'no tag named "Platinum"');
      problem(await api(TAG_ADD()).send({ contactId: contact.id, tagIds: ['etNoSuchTag'] }), 400, 'unknown tag id(s): etNoSuchTag');
      problem(await api(TAG_ADD()).send({ contactId: contact.id, tagNames: ['VIP'] }), 400, 'several tag groups');
      problem(await api(TAG_ADD()).send({ contactId: contact.id }), 400, 'at least one tag');
      problem(await api(TAG_ADD()).send({ contactId: contact.id, tagNames: ['New', 'Gold', 'Fair', 'VIP'] }), 400, 'at most 3 per request (CHAT_MCP_MAX_TAGS)');
      problem(await api(TAG_ADD()).send({ contactId: contact.id, tagNames: [' padded'] }), 400, /tag name/);
      problem(await api(TAG_DELETE()).send({ contactId: contact.id, tagIds: [] }), 400, 'at least one tag');
      expect(await storedTags()).toEqual(before);
    });

    it('loses no tag when several adds for one contact run at once', async () => {
      const names = ['Gold', 'Fair', 'New'];
      const responses = await Promise.all(names.map((name) => api(TAG_ADD()).send({ contactId: secondContact.id, tagNames: [name], groupName: name === 'Fair' ? 'Source' : 'Level' })));
      expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
      expect((await storedTags(secondContact)).map((tag) => tag.tagName).sort()).toEqual(['Fair', 'Gold', 'New']);
      expect(await platformTagIds(secondContact)).toEqual([tagId(level, 'Gold'), tagId(source, 'Fair'), tagId(level, 'New')].sort());
    });

    it('deletes tags by name and id on the platform and the contact; deleting them again or a tag the contact lacks is a no-op', async () => {
      const response = await api(TAG_DELETE()).send({ contactId: contact.id, tagNames: ['New'], tagIds: [tagId(source, 'Fair')] }).expect(200);
      expect(response.text).toBe('');
      expect(await storedTags()).toEqual([{ tagId: tagId(level, 'VIP'), tagName: 'VIP', groupId: level.groupId, groupName: 'Level', type: 1 }]);
      expect(await platformTagIds()).toEqual([tagId(level, 'VIP')]);
      await api(TAG_DELETE()).send({ contactId: contact.id, tagNames: ['New', 'Platinum'], tagIds: [tagId(source, 'Fair')] }).expect(200);
      await api(TAG_DELETE()).send({ contactId: contact.id, tagIds: ['etNoSuchTag'] }).expect(200);
      expect(await storedTags()).toEqual([{ tagId: tagId(level, 'VIP'), tagName: 'VIP', groupId: level.groupId, groupName: 'Level', type: 1 }]);
      expect(await platformTagIds()).toEqual([tagId(level, 'VIP')]);
    });

    it('answers 404 for another tenant\'s contact, 403 for another tenant\'s path and a read-only token', async () => {
      problem(await api(TAG_ADD()).send({ contactId: otherContact.id, tagNames: ['Gold'], groupName: 'Level' }), 404, 'not found');
      problem(await api(TAG_DELETE()).send({ workChatUserId: 'zhangsan', externalUserId: otherContact.externalUserId, tagNames: ['Gold'] }), 404, 'not found');
      problem(await api(TAG_ADD('globex')).send({ contactId: otherContact.id, tagNames: ['Gold'] }), 403, 'not valid for tenant');
      problem(await api(TAG_ADD(), readOnly).send({ contactId: contact.id, tagNames: ['Gold'], groupName: 'Level' }), 403, 'chat:write');
      problem(await api(TAG_DELETE(), readOnly).send({ contactId: contact.id, tagNames: ['VIP'] }), 403, 'chat:write');
      expect((await storedTags()).map((tag) => tag.tagName)).toEqual(['VIP']);
    });
  });

  describe('inbound group message', () => {
    it('is stored as a group message on the owner\'s contact with the customer, never answered, once per platform message id', async () => {
      const pipeline = testApp.app.get(ChatInboundPipeline);
      const event = {
        type: 'message.received' as const,
        tenantId: 'acme',
        corpId: acme.id,
        platformCorpId: acme.workChatCorpId,
        occurredAt: new Date(),
        msgId: 'wm-group-inbound-1',
        chatType: 'group' as const,
        userId: 'zhangsan',
        externalUserId: contact.externalUserId,
        chatId: room.chatId,
        msgType: 'text' as const,
        content: 'Hello, room',
      };
      const stored = await pipeline.receive(event);
      expect(stored.created).toBe(true);
      const row = await dataSourceOf(testApp).getRepository(ChatMessageEntity).findOneByOrFail({ id: stored.messageId });
      expect(row).toMatchObject({ contactId: contact.id, contactType: 'group', direction: 'in', sender: 'customer', content: 'Hello, room' });
      expect(await pipeline.outcomeOf('acme', stored.messageId)).toMatchObject({ status: 'skipped', reason: expect.stringContaining('group chat') });
      expect(await pipeline.receive(event)).toEqual({ messageId: stored.messageId, created: false });
    });
  });
});
