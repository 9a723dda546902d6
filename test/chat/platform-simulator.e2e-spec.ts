import { BadRequestException, ConflictException, NotFoundException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { TestingModule } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ChatPlatformEvents, type ChatPlatformEvent } from '../../src/chat/platform/chat-platform-events';
import { ChatPlatformError } from '../../src/chat/platform/chat-platform.error';
import { chooseChatPlatform } from '../../src/chat/platform/chat-platform.module';
import { CHAT_PLATFORM, type ChatCorpContext, type ChatPlatform } from '../../src/chat/platform/chat-platform.port';
import { HttpChatPlatform } from '../../src/chat/platform/http-chat-platform';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { toProblem } from '../../src/common/http/problem-details';
import { OutboundHttp } from '../../src/common/outbound/outbound.service';
import { loadConfig } from '../../src/app.config';
import { startChatPlatformModule } from '../support/chat-platform-module';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * The chat platform simulator (default adapter of the port; issue 5) against the real test database: contact ways
 * with QR URLs, customers and inbound messages injected with listeners notified, sent messages recorded, the
 * platform's rules and errcodes, tenant isolation.
 */
describe('chat platform simulator (issue 5: the enterprise chat platform port)', () => {
  const QR_BASE = 'http://demo.example.test/api/chat-simulator/qr';
  let testApp: TestApp;
  let moduleRef: TestingModule;
  let platform: ChatPlatform;
  let simulator: ChatPlatformSimulator;
  let events: ChatPlatformEvents;
  let received: ChatPlatformEvent[];
  let unsubscribe: () => void;
  let corpSeq = 0;

  const newCorp = (tenantId = 'acme'): ChatCorpContext => ({ tenantId, corpId: `corp-${++corpSeq}`, platformCorpId: `wwsim${corpSeq}`, secret: 'simulated-secret' });
  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as Error);
  const platformFailure = async (promise: Promise<unknown>) => {
    const error = await failureOf(promise);
    expect(error).toBeInstanceOf(ChatPlatformError);
    return error as ChatPlatformError;
  };

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_SIMULATOR_QR_BASE_URL: `${QR_BASE}/` });
    moduleRef = await startChatPlatformModule(testApp);
    platform = moduleRef.get(CHAT_PLATFORM);
    simulator = moduleRef.get(ChatPlatformSimulator);
    events = moduleRef.get(ChatPlatformEvents);
  });
  afterAll(async () => {
    await moduleRef?.close();
    await testApp?.close();
  });
  beforeEach(() => {
    received = [];
    unsubscribe = events.subscribe((event) => {
      received.push(event);
    });
  });
  afterEach(() => unsubscribe());

  it('builds chat_sim_* tables exactly as the simulator entities describe', async () => {
    const dataSource = moduleRef.get<DataSource>(getDataSourceToken());
    expect(dataSource.entityMetadatas.map((metadata) => metadata.tableName).filter((name) => name.startsWith('chat_sim_')).sort()).toEqual([
      'chat_sim_contact_way',
      'chat_sim_external_contact',
      'chat_sim_follow',
      'chat_sim_group_chat',
      'chat_sim_message',
      'chat_sim_staff',
      'chat_sim_tag',
    ]);
    // Only this port's tables: other wings' work in progress is checked by test/database/migrations.e2e-spec.ts.
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((query) => query.query).filter((query) => query.includes('chat_sim_'))).toEqual([]);
  });

  it('is the adapter by default; CHAT_PLATFORM_MODE=http chooses the HTTP adapter', () => {
    expect(platform).toBe(simulator);
    expect([platform.mode, simulator.enabled]).toEqual(['simulator', true]);
    const http = chooseChatPlatform(loadConfig({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: 'http://127.0.0.1:9' }), simulator, moduleRef.get(OutboundHttp));
    expect(http).toBeInstanceOf(HttpChatPlatform);
  });

  it('creates a contact way with a QR code URL, reads, updates and deletes it', async () => {
    const ctx = newCorp();
    const created = await platform.createContactWay(ctx, { type: 2, scene: 2, userIds: ['zhangsan', 'lisi'], state: 'spring-fair', remark: 'booth A' });
    expect(created.configId).toMatch(/^[0-9a-f]{32}$/);
    expect(created.qrCode).toMatch(new RegExp(`^${QR_BASE}/[A-Za-z0-9]{24}$`));
    const other = await platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['zhangsan'] });
    expect(other.qrCode).not.toBe(created.qrCode);

    expect(await platform.getContactWay(ctx, created.configId)).toEqual({
      configId: created.configId,
      type: 2,
      scene: 2,
      qrCode: created.qrCode,
      state: 'spring-fair',
      remark: 'booth A',
      skipVerify: true,
      userIds: ['zhangsan', 'lisi'],
      departmentIds: [],
    });
    // Staff named by a contact way exist on the simulated platform from then on.
    expect((await platform.listStaff(ctx)).map((staff) => staff.userId)).toEqual(['lisi', 'zhangsan']);

    await platform.updateContactWay(ctx, created.configId, { userIds: ['wangwu'], state: 'summer-fair', skipVerify: false });
    expect(await platform.getContactWay(ctx, created.configId)).toMatchObject({ userIds: ['wangwu'], state: 'summer-fair', skipVerify: false, qrCode: created.qrCode });
    await platform.deleteContactWay(ctx, created.configId);
    const gone = await platformFailure(platform.getContactWay(ctx, created.configId));
    expect([gone.getStatus(), gone.errcode, gone.errmsg]).toEqual([400, 40058, 'invalid config_id']);
  });

  it('refuses what the platform refuses, with its errcodes', async () => {
    const ctx = newCorp();
    const twoUsers = await platformFailure(platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['a', 'b'] }));
    expect([twoUsers.getStatus(), twoUsers.errcode]).toEqual([400, 40058]);
    const longState = await platformFailure(platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['a'], state: 'x'.repeat(31) }));
    expect(longState.errmsg).toBe('state exceeds 30 characters');
    const noSecret = await platformFailure(platform.listStaff({ ...ctx, secret: '' }));
    expect(toProblem(noSecret, '/x')).toMatchObject({ status: 409, platformErrorCode: 41004 });
    expect((await platformFailure(platform.getExternalContact(ctx, 'wm-nobody'))).errcode).toBe(40096);
    expect((await platformFailure(platform.getGroupChat(ctx, 'wr-nothing'))).errcode).toBe(40058);
    expect((await platformFailure(platform.createGroupWay(ctx, { scene: 2, chatIds: ['wr-nothing'] }))).errcode).toBe(40058);
  });

  it('injects a customer who scans a contact way: the relation carries the way state and listeners hear of it', async () => {
    const ctx = newCorp();
    const way = await platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['zhangsan'], state: 'fair-2026' });
    const injected = await simulator.injectCustomer(ctx, { contactWayConfigId: way.configId, name: 'Li Lei', gender: 1 });
    expect(injected.contact.externalUserId).toMatch(/^wm[A-Za-z0-9]{30}$/);
    expect(received).toEqual([
      {
        type: 'external_contact.added',
        tenantId: 'acme',
        corpId: ctx.corpId,
        platformCorpId: ctx.platformCorpId,
        userId: 'zhangsan',
        externalUserId: injected.contact.externalUserId,
        state: 'fair-2026',
        occurredAt: expect.any(Date),
      },
    ]);
    expect(received[0]).toEqual(injected.event);

    const page = await platform.listExternalContacts(ctx, { userIds: ['zhangsan'] });
    expect(page.items).toEqual([
      {
        contact: { externalUserId: injected.contact.externalUserId, name: 'Li Lei', type: 1, gender: 1, avatarUrl: undefined, unionId: undefined, corpName: undefined },
        follow: expect.objectContaining({ userId: 'zhangsan', state: 'fair-2026', addWay: 1, tags: [] }),
      },
    ]);
    expect(page.nextCursor).toBeUndefined();

    // The same customer adds a second staff member directly.
    await simulator.injectCustomer(ctx, { userId: 'lisi', externalUserId: injected.contact.externalUserId, name: 'Li Lei' });
    const detail = await platform.getExternalContact(ctx, injected.contact.externalUserId);
    expect(detail.followers.map((follow) => [follow.userId, follow.state ?? null])).toEqual([
      ['zhangsan', 'fair-2026'],
      ['lisi', null],
    ]);

    await expect(simulator.injectCustomer(ctx, { name: 'Nobody' })).rejects.toBeInstanceOf(BadRequestException);
    await expect(simulator.injectCustomer(ctx, { contactWayConfigId: 'f'.repeat(32), name: 'X' })).rejects.toBeInstanceOf(NotFoundException);
    await expect(simulator.injectCustomer(ctx, { contactWayConfigId: way.configId, userId: 'lisi', name: 'X' })).rejects.toThrow('Staff member lisi is not on contact way');
  });

  it('pages a staff member\'s customers by cursor', async () => {
    const ctx = newCorp();
    const ids: string[] = [];
    for (const name of ['A', 'B', 'C', 'D', 'E']) ids.push((await simulator.injectCustomer(ctx, { userId: 'zhangsan', name })).contact.externalUserId);
    await simulator.injectCustomer(ctx, { userId: 'lisi', name: 'F' });
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await platform.listExternalContacts(ctx, { userIds: ['zhangsan'], limit: 2, cursor });
      seen.push(...page.items.map((item) => item.contact.externalUserId));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect([pages, seen.sort()]).toEqual([3, ids.sort()]);
    expect((await platformFailure(platform.listExternalContacts(ctx, { userIds: ['zhangsan'], cursor: 'not-a-cursor' }))).errmsg).toBe('invalid cursor');
  });

  it('injects inbound messages: stored, listeners notified, a redelivery publishes the same message again', async () => {
    const ctx = newCorp();
    const { contact } = await simulator.injectCustomer(ctx, { userId: 'zhangsan', name: 'Han Meimei' });
    received = [];
    const sentAt = new Date('2026-03-01T08:30:00Z');
    const event = await simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, content: 'What are your opening hours?', sentAt });
    expect(event).toEqual({
      type: 'message.received',
      tenantId: 'acme',
      corpId: ctx.corpId,
      platformCorpId: ctx.platformCorpId,
      msgId: expect.stringMatching(/^msg[A-Za-z0-9]{29}$/),
      chatType: 'single',
      userId: 'zhangsan',
      externalUserId: contact.externalUserId,
      msgType: 'text',
      content: 'What are your opening hours?',
      occurredAt: sentAt,
    });
    expect(received).toEqual([event]);

    const again = await simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, content: 'ignored on redelivery', msgId: event.msgId });
    expect(again).toEqual(event);
    expect(received).toEqual([event, event]);
    const image = await simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, userId: 'zhangsan', msgType: 'image', media: { fileName: 'photo.jpg', contentType: 'image/jpeg', sizeBytes: 2048 } });
    expect(image.media).toEqual({ fileName: 'photo.jpg', contentType: 'image/jpeg', sizeBytes: 2048 });

    const stored = await simulator.listMessages(ctx, { externalUserId: contact.externalUserId });
    expect(stored.map((message) => [message.direction, message.msgType, message.msgId])).toEqual([
      ['inbound', 'text', event.msgId],
      ['inbound', 'image', image.msgId],
    ]);

    await expect(simulator.injectInboundMessage(ctx, { externalUserId: 'wm-nobody', content: 'hi' })).rejects.toBeInstanceOf(NotFoundException);
    await expect(simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, userId: 'lisi', content: 'hi' })).rejects.toThrow('is not a contact of staff member lisi');
    await expect(simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, content: '  ' })).rejects.toBeInstanceOf(BadRequestException);
    await expect(simulator.injectInboundMessage(newCorp(), { externalUserId: contact.externalUserId, content: 'x' })).rejects.toBeInstanceOf(NotFoundException);
    await expect(simulator.injectInboundMessage(newCorp(), { externalUserId: contact.externalUserId, content: 'x', msgId: event.msgId })).rejects.toBeInstanceOf(ConflictException);
    const otherCustomer = (await simulator.injectCustomer(ctx, { userId: 'zhangsan', name: 'Other' })).contact.externalUserId;
    await expect(simulator.injectInboundMessage(ctx, { externalUserId: otherCustomer, content: 'x', msgId: event.msgId })).rejects.toBeInstanceOf(ConflictException);
  });

  it('keeps what it stored when a listener fails, and reports the failure', async () => {
    const ctx = newCorp();
    const { contact } = await simulator.injectCustomer(ctx, { userId: 'zhangsan', name: 'Li Lei' });
    const stop = events.subscribe(() => {
      throw new Error('pipeline unavailable');
    });
    try {
      await expect(simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, content: 'hello?' })).rejects.toBeInstanceOf(AggregateError);
    } finally {
      stop();
    }
    expect((await simulator.listMessages(ctx)).map((message) => message.content)).toEqual(['hello?']);
    expect(received.at(-1)).toMatchObject({ type: 'message.received', content: 'hello?' });
  });

  it('records messages sent to customers and group chats, with attachments by size and hash', async () => {
    const ctx = newCorp();
    const { contact } = await simulator.injectCustomer(ctx, { userId: 'zhangsan', name: 'Li Lei' });
    const text = await platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: contact.externalUserId, message: { msgType: 'text', content: 'Welcome!' } });
    const data = Buffer.from('%PDF-1.7 price list');
    const file = await platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: contact.externalUserId, message: { msgType: 'file', media: { fileName: 'prices.pdf', contentType: 'application/pdf', data } } });
    expect(file.mediaId).toMatch(/^3[A-Za-z0-9]{40}$/);

    const chat = await simulator.injectGroupChat(ctx, { name: 'VIP club', ownerUserId: 'zhangsan', memberExternalUserIds: [contact.externalUserId] });
    const group = await platform.sendGroupMessage(ctx, { senderUserId: 'zhangsan', chatId: chat.chatId, message: { msgType: 'text', content: 'Hello club' } });
    received = [];
    const inGroup = await simulator.injectInboundMessage(ctx, { externalUserId: contact.externalUserId, chatId: chat.chatId, content: 'Hi all' });
    expect(received).toEqual([expect.objectContaining({ chatType: 'group', chatId: chat.chatId, userId: 'zhangsan', msgId: inGroup.msgId })]);

    expect(await simulator.listMessages(ctx, { direction: 'outbound' })).toEqual([
      { msgId: text.msgId, direction: 'outbound', chatType: 'single', userId: 'zhangsan', externalUserId: contact.externalUserId, msgType: 'text', content: 'Welcome!', sentAt: expect.any(Date) },
      {
        msgId: file.msgId,
        direction: 'outbound',
        chatType: 'single',
        userId: 'zhangsan',
        externalUserId: contact.externalUserId,
        msgType: 'file',
        media: { mediaId: file.mediaId, fileName: 'prices.pdf', contentType: 'application/pdf', sizeBytes: data.length, sha256: createHash('sha256').update(data).digest('hex') },
        sentAt: expect.any(Date),
      },
      { msgId: group.msgId, direction: 'outbound', chatType: 'group', userId: 'zhangsan', chatId: chat.chatId, msgType: 'text', content: 'Hello club', sentAt: expect.any(Date) },
    ]);

    const stranger = await platformFailure(platform.sendMessage(ctx, { senderUserId: 'lisi', externalUserId: contact.externalUserId, message: { msgType: 'text', content: 'Hi' } }));
    expect(toProblem(stranger, '/x')).toMatchObject({ status: 400, platformErrorCode: 84061 });
    expect((await platformFailure(platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: contact.externalUserId, message: { msgType: 'text', content: ' ' } }))).errcode).toBe(44004);
    expect((await platformFailure(platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: contact.externalUserId, message: { msgType: 'image', media: { fileName: 'x.png', contentType: 'image/png', data: Buffer.alloc(0) } } }))).errcode).toBe(44001);
    expect((await platformFailure(platform.sendGroupMessage(ctx, { senderUserId: 'lisi', chatId: chat.chatId, message: { msgType: 'text', content: 'x' } }))).errcode).toBe(40058);

    const way = await platform.createGroupWay(ctx, { scene: 2, chatIds: [chat.chatId], state: 'club', autoCreateRoom: true, roomBaseName: 'VIP' });
    expect(await platform.getGroupWay(ctx, way.configId)).toEqual({ configId: way.configId, qrCode: way.qrCode, scene: 2, chatIds: [chat.chatId], state: 'club', remark: undefined, autoCreateRoom: true, roomBaseName: 'VIP', roomBaseId: undefined });
    expect((await platform.listGroupChats(ctx, { ownerUserIds: ['zhangsan'] })).items).toEqual([{ chatId: chat.chatId, status: 0 }]);
  });

  it('keeps corp tags, marks customers, renames tags and groups', async () => {
    const ctx = newCorp();
    const { contact } = await simulator.injectCustomer(ctx, { userId: 'zhangsan', name: 'Li Lei' });
    const level = await platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'VIP', order: 1 }, { name: 'Regular' }] });
    const more = await platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'Lapsed' }] });
    expect(more.groupId).toBe(level.groupId);
    const [vip, regular] = level.tags.map((tag) => tag.tagId);
    await platform.markCustomerTags(ctx, { userId: 'zhangsan', externalUserId: contact.externalUserId, addTagIds: [vip, regular] });
    await platform.markCustomerTags(ctx, { userId: 'zhangsan', externalUserId: contact.externalUserId, removeTagIds: [regular] });
    await platform.renameTag(ctx, vip, 'Gold');
    await platform.renameTag(ctx, level.groupId, 'Membership');
    expect((await platform.getExternalContact(ctx, contact.externalUserId)).followers[0].tags).toEqual([{ tagId: vip, tagName: 'Gold', groupName: 'Membership', type: 1 }]);
    expect((await platform.listTags(ctx, { tagIds: [vip] })).map((group) => [group.groupName, group.tags.map((tag) => tag.name)])).toEqual([['Membership', ['Gold']]]);

    expect((await platformFailure(platform.createTags(ctx, { groupId: level.groupId, tags: [{ name: 'Gold' }] }))).getStatus()).toBe(409);
    expect((await platformFailure(platform.renameTag(ctx, regular, 'Gold'))).errcode).toBe(40071);
    expect((await platformFailure(platform.markCustomerTags(ctx, { userId: 'zhangsan', externalUserId: contact.externalUserId, addTagIds: ['et-unknown'] }))).errcode).toBe(40068);

    await platform.updateCustomerRemark(ctx, { userId: 'zhangsan', externalUserId: contact.externalUserId, remark: 'Lei', description: 'likes tea', remarkMobiles: ['13800000000'] });
    expect((await platform.getExternalContact(ctx, contact.externalUserId)).followers[0]).toMatchObject({ remark: 'Lei', description: 'likes tea', remarkMobiles: ['13800000000'] });
  });

  it('keeps tenants apart even on the same platform corp id', async () => {
    const ours = newCorp('acme');
    const theirs: ChatCorpContext = { ...ours, tenantId: 'globex', corpId: 'corp-globex' };
    const { contact } = await simulator.injectCustomer(ours, { userId: 'zhangsan', name: 'Li Lei' });
    expect((await platformFailure(platform.getExternalContact(theirs, contact.externalUserId))).errcode).toBe(40096);
    expect((await platform.listExternalContacts(theirs, { userIds: ['zhangsan'] })).items).toEqual([]);
    expect(await platform.listStaff(theirs)).toEqual([]);
    await expect(simulator.injectInboundMessage(theirs, { externalUserId: contact.externalUserId, content: 'hi' })).rejects.toBeInstanceOf(NotFoundException);
  });

  it('records robot webhook messages by a hash of the key', async () => {
    const key = '6d0b6b2e-2c1f-4bd7-9f2b-0c1d2e3f4a5b';
    await platform.sendRobotMessage({ tenantId: 'acme' }, { webhookKey: key, msgType: 'text', content: 'New lead from the fair', mentionedUserIds: ['zhangsan'] });
    expect(await simulator.listRobotMessages({ tenantId: 'acme' }, { webhookKey: key })).toEqual([
      { msgId: expect.any(String), direction: 'outbound', chatType: 'robot', msgType: 'text', content: 'New lead from the fair', mentions: { userIds: ['zhangsan'], mobiles: [] }, sentAt: expect.any(Date) },
    ]);
    expect(await simulator.listRobotMessages({ tenantId: 'globex' })).toEqual([]);
    const bad = await platformFailure(platform.sendRobotMessage({ tenantId: 'acme' }, { webhookKey: 'no', msgType: 'text', content: 'x' }));
    expect([bad.getStatus(), bad.errcode]).toEqual([400, 93000]);
  });

  it('refuses injection while CHAT_PLATFORM_MODE is http', async () => {
    const httpConfig = loadConfig({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: 'http://127.0.0.1:9' });
    const off = new ChatPlatformSimulator(moduleRef.get<DataSource>(getDataSourceToken()), httpConfig, events);
    expect(off.enabled).toBe(false);
    await expect(off.injectCustomer(newCorp(), { userId: 'zhangsan', name: 'X' })).rejects.toThrow('The chat platform simulator is off: CHAT_PLATFORM_MODE is not "simulator".');
    await expect(off.listMessages(newCorp())).rejects.toBeInstanceOf(NotFoundException);
  });
});
