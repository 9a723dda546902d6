import type { TestingModule } from '@nestjs/testing';
import { ChatPlatformError } from '../../src/chat/platform/chat-platform.error';
import { CHAT_PLATFORM, type ChatCorpContext, type ChatPlatform } from '../../src/chat/platform/chat-platform.port';
import { HttpChatPlatform, httpChatPlatformOptions } from '../../src/chat/platform/http-chat-platform';
import { toProblem } from '../../src/common/http/problem-details';
import { OutboundHttp } from '../../src/common/outbound/outbound.service';
import { startChatPlatformModule } from '../support/chat-platform-module';
import { freePort } from '../support/free-port';
import { addFakeCustomer, addFakeGroupChat, addFakeStaff, type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Issue 5, acceptance 3: the HTTP adapter of the chat platform port against a local fake platform server (real
 * HTTP on 127.0.0.1): token caching and refresh on expiry, contact way creation returning the platform's QR code,
 * retries with backoff, errors mapped to problem details with the platform's errcode.
 */
describe('chat platform HTTP adapter (issue 5: the enterprise chat platform port)', () => {
  const SECRET = 'corp-secret-value-0123456789';
  let fake: FakeChatPlatform;
  let testApp: TestApp;
  let moduleRef: TestingModule;
  let platform: ChatPlatform;
  let corpSeq = 0;

  /** A corp of its own on the fake for each test (tokens are cached per corp). */
  function newCorp(staff: string[] = ['zhangsan']): ChatCorpContext {
    const platformCorpId = `ww${++corpSeq}a1b2c3d4e5f6`;
    fake.addCorp(platformCorpId, SECRET);
    for (const userid of staff) addFakeStaff(fake, platformCorpId, { userid, name: userid.toUpperCase() });
    return { tenantId: 'acme', corpId: `corp-${corpSeq}`, platformCorpId, secret: SECRET };
  }

  const requestsTo = (path: string, since = 0) => fake.requests.slice(since).filter((request) => request.path === path);
  const failureOf = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error as ChatPlatformError);

  beforeAll(async () => {
    fake = await startFakeChatPlatform({ robotKeys: ['0b1c2d3e-robot-key-0001'] });
    testApp = await startTestApp({
      CHAT_PLATFORM_MODE: 'http',
      CHAT_PLATFORM_BASE_URL: `${fake.url}/`,
      CHAT_PLATFORM_HTTP_TIMEOUT_MS: '300',
      CHAT_PLATFORM_HTTP_RETRIES: '2',
      CHAT_PLATFORM_HTTP_RETRY_BASE_DELAY_MS: '5',
      CHAT_PLATFORM_HTTP_RETRY_MAX_DELAY_MS: '20',
      CHAT_PLATFORM_TOKEN_REFRESH_MARGIN_MS: '0',
    });
    moduleRef = await startChatPlatformModule(testApp);
    platform = moduleRef.get(CHAT_PLATFORM);
  });
  afterAll(async () => {
    await moduleRef?.close();
    await testApp?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.setTokenTtlSeconds(7200);
    fake.clearFailures();
  });

  it('is the adapter the module provides when CHAT_PLATFORM_MODE=http', () => {
    expect(platform).toBeInstanceOf(HttpChatPlatform);
    expect(platform.mode).toBe('http');
  });

  it('creates a contact way and returns the QR code the platform issued', async () => {
    const ctx = newCorp(['zhangsan', 'lisi']);
    const created = await platform.createContactWay(ctx, { type: 2, scene: 2, userIds: ['zhangsan', 'lisi'], state: 'spring-fair', remark: 'booth A' });
    const stored = fake.corp(ctx.platformCorpId).contactWays.get(created.configId);
    expect(stored).toBeDefined();
    expect(created.qrCode).toBe(stored!.qr_code);
    expect(created.qrCode).toMatch(/^https:\/\/fake-platform\.test\/qr\//);
    expect(requestsTo('/cgi-bin/externalcontact/add_contact_way').at(-1)!.body).toEqual({ type: 2, scene: 2, skip_verify: true, state: 'spring-fair', remark: 'booth A', user: ['zhangsan', 'lisi'] });

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
    await platform.updateContactWay(ctx, created.configId, { userIds: ['lisi'], state: 'summer-fair' });
    expect(stored).toMatchObject({ user: ['lisi'], state: 'summer-fair' });
    await platform.deleteContactWay(ctx, created.configId);
    expect(fake.corp(ctx.platformCorpId).contactWays.has(created.configId)).toBe(false);
  });

  it('fetches one access token for many operations of a corp and sends it with each', async () => {
    const ctx = newCorp();
    const start = fake.requests.length;
    await Promise.all([platform.listStaff(ctx), platform.listTags(ctx), platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['zhangsan'] })]);
    await platform.listStaff(ctx);
    await platform.listGroupChats(ctx, {});
    const gettoken = requestsTo('/cgi-bin/gettoken', start);
    expect(gettoken).toHaveLength(1);
    expect(gettoken[0].query).toEqual({ corpid: ctx.platformCorpId, corpsecret: SECRET });
    const calls = fake.requests.slice(start).filter((request) => request.path !== '/cgi-bin/gettoken');
    expect(calls).toHaveLength(5);
    expect(new Set(calls.map((request) => request.query.access_token))).toEqual(new Set([fake.issuedTokens().at(-1)]));
  });

  it('keeps tokens per corp: another corp fetches its own', async () => {
    const first = newCorp();
    const second = newCorp();
    const start = fake.requests.length;
    await platform.listStaff(first);
    await platform.listStaff(second);
    await platform.listStaff(first);
    expect(requestsTo('/cgi-bin/gettoken', start).map((request) => request.query.corpid)).toEqual([first.platformCorpId, second.platformCorpId]);
  });

  it('refreshes the token when the platform says it expired (42001) or is invalid (40014) and repeats the call once', async () => {
    const ctx = newCorp();
    await platform.listStaff(ctx);
    const start = fake.requests.length;
    fake.expireTokens(ctx.platformCorpId);
    const created = await platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['zhangsan'], state: 'after-expiry' });
    expect(created.qrCode).toBe(fake.corp(ctx.platformCorpId).contactWays.get(created.configId)!.qr_code);
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(1);
    const attempts = requestsTo('/cgi-bin/externalcontact/add_contact_way', start);
    expect(attempts).toHaveLength(2);
    expect(attempts[0].query.access_token).not.toBe(attempts[1].query.access_token);
    expect(fake.corp(ctx.platformCorpId).contactWays.size).toBe(1);

    fake.revokeTokens(ctx.platformCorpId);
    const again = fake.requests.length;
    expect(await platform.listStaff(ctx)).toEqual([{ userId: 'zhangsan', name: 'ZHANGSAN', mobile: undefined, departmentIds: [1], status: 1 }]);
    expect(requestsTo('/cgi-bin/gettoken', again)).toHaveLength(1);
    // The new token is cached again.
    await platform.listStaff(ctx);
    expect(requestsTo('/cgi-bin/gettoken', again)).toHaveLength(1);
  });

  it('replaces a token once its lifetime is over, without waiting for the platform to refuse it', async () => {
    const ctx = newCorp();
    fake.setTokenTtlSeconds(0.25);
    const start = fake.requests.length;
    await platform.listStaff(ctx);
    await platform.listStaff(ctx);
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await platform.listStaff(ctx);
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(2);
    // No call was refused for its token: the adapter renewed it in time.
    expect(requestsTo('/cgi-bin/user/list', start)).toHaveLength(3);
  });

  it('refreshes only once: a token refused again is a 502 carrying the errcode', async () => {
    const ctx = newCorp();
    await platform.listStaff(ctx);
    const start = fake.requests.length;
    fake.failNext('/cgi-bin/externalcontact/get_corp_tag_list', { errcode: 42001, errmsg: 'access_token expired' }, 2);
    const error = await failureOf(platform.listTags(ctx));
    expect(error).toBeInstanceOf(ChatPlatformError);
    expect([error!.getStatus(), error!.errcode, error!.retryable]).toEqual([502, 42001, false]);
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(1);
    expect(requestsTo('/cgi-bin/externalcontact/get_corp_tag_list', start)).toHaveLength(2);
  });

  it('retries 5xx answers and a busy platform (-1) with backoff, then succeeds', async () => {
    const ctx = newCorp();
    await platform.listStaff(ctx);
    let start = fake.requests.length;
    fake.failNext('/cgi-bin/externalcontact/add_contact_way', { status: 503 }, 2);
    const created = await platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['zhangsan'] });
    expect(created.qrCode).toBe(fake.corp(ctx.platformCorpId).contactWays.get(created.configId)!.qr_code);
    expect(requestsTo('/cgi-bin/externalcontact/add_contact_way', start)).toHaveLength(3);

    start = fake.requests.length;
    fake.failNext('/cgi-bin/gettoken', { status: 502 }, 1);
    fake.expireTokens(ctx.platformCorpId);
    fake.failNext('/cgi-bin/user/list', { errcode: -1, errmsg: 'system busy' }, 1);
    expect(await platform.listStaff(ctx)).toHaveLength(1);
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(2);
    // busy (-1), then refused for the expired token, then answered with the new one
    expect(requestsTo('/cgi-bin/user/list', start)).toHaveLength(3);
  });

  it('gives up after the configured retries with a retryable 502', async () => {
    const ctx = newCorp();
    await platform.listStaff(ctx);
    const start = fake.requests.length;
    fake.failNext('/cgi-bin/externalcontact/get_corp_tag_list', { status: 500, body: `internal error for ${SECRET}` }, 3);
    const error = await failureOf(platform.listTags(ctx));
    expect([error!.getStatus(), error!.kind, error!.httpStatus, error!.retryable]).toEqual([502, 'http_status', 500, true]);
    expect(requestsTo('/cgi-bin/externalcontact/get_corp_tag_list', start)).toHaveLength(3);
    expect(error!.message).not.toContain(SECRET);
    // 1 + CHAT_PLATFORM_HTTP_RETRIES attempts used the three failures: the platform answers again.
    await expect(platform.listTags(ctx)).resolves.toEqual([]);
  });

  it('retries a timed-out read but never a timed-out send (it may have been delivered): 504', async () => {
    const ctx = newCorp();
    const customer = addFakeCustomer(fake, ctx.platformCorpId, { name: 'Li Lei', followers: ['zhangsan'] });
    await platform.listStaff(ctx);
    let start = fake.requests.length;
    fake.failNext('/cgi-bin/externalcontact/get', { delayMs: 600 }, 1);
    const detail = await platform.getExternalContact(ctx, customer);
    expect(detail.contact.name).toBe('Li Lei');
    expect(requestsTo('/cgi-bin/externalcontact/get', start)).toHaveLength(2);

    start = fake.requests.length;
    fake.failNext('/cgi-bin/externalcontact/add_msg_template', { delayMs: 600 }, 1);
    const error = await failureOf(platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: customer, message: { msgType: 'text', content: 'Hello' } }));
    expect([error!.getStatus(), error!.kind, error!.retryable]).toEqual([504, 'timeout', true]);
    await new Promise((resolve) => setTimeout(resolve, 400)); // let the slow answer land
    expect(requestsTo('/cgi-bin/externalcontact/add_msg_template', start)).toHaveLength(1);
    expect(fake.corp(ctx.platformCorpId).messages).toHaveLength(1);
  });

  it('retries a connection that could not be opened, then reports the platform unreachable', async () => {
    const closed = new HttpChatPlatform({ ...httpChatPlatformOptions({ ...testApp.config.chatPlatform, baseUrl: `http://127.0.0.1:${await freePort()}` }, testApp.app.get(OutboundHttp).client(testApp.config.chatOutbound.platform)), baseDelayMs: 1, maxDelayMs: 2 });
    const started = Date.now();
    const error = await failureOf(closed.createContactWay(newCorp(), { type: 1, scene: 2, userIds: ['zhangsan'] }));
    expect([error!.getStatus(), error!.kind, error!.retryable]).toEqual([502, 'network', true]);
    expect(error!.message).toBe('Chat platform call createContactWay failed: the platform could not be reached (ECONNREFUSED).');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('maps the platform errcodes to problem details carrying the code', async () => {
    const ctx = newCorp();
    const unknownStaff = await failureOf(platform.createContactWay(ctx, { type: 1, scene: 2, userIds: ['nobody'] }));
    expect(toProblem(unknownStaff, '/api/acme/v1/chat/contact/way')).toEqual({
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: "Chat platform call createContactWay failed: errcode 60111 (userid not found: nobody). The chat platform has no staff member with this user id; check the staff member's platform user id.",
      instance: '/api/acme/v1/chat/contact/way',
      platformOperation: 'createContactWay',
      platformErrorCode: 60111,
      platformErrorMessage: 'userid not found: nobody',
    });

    await platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'VIP' }] });
    const duplicate = await failureOf(platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'VIP' }] }));
    expect([duplicate!.getStatus(), duplicate!.errcode]).toEqual([409, 40071]);

    fake.failNext('/cgi-bin/user/list', { errcode: 48002, errmsg: 'api forbidden' });
    const forbidden = await failureOf(platform.listStaff(ctx));
    expect(toProblem(forbidden, '/x')).toMatchObject({ status: 502, platformErrorCode: 48002, platformErrorMessage: 'api forbidden' });

    fake.failNext('/cgi-bin/user/list', { errcode: 777777, errmsg: 'something new' });
    expect((await failureOf(platform.listStaff(ctx)))!.getStatus()).toBe(502);

    fake.failNext('/cgi-bin/user/list', { status: 200, body: '<html>maintenance</html>' });
    const garbled = await failureOf(platform.listStaff(ctx));
    expect([garbled!.getStatus(), garbled!.kind, garbled!.message]).toEqual([502, 'invalid_response', "Chat platform call listStaff failed: the platform's reply was not understood (reply is not JSON)."]);
  });

  it('reports rejected credentials as a 502 with errcode 40001 and never reveals the secret', async () => {
    const ctx = { ...newCorp(), secret: 'wrong-secret-value-abcdef' };
    const start = fake.requests.length;
    const error = await failureOf(platform.verifyCredentials(ctx));
    const problem = toProblem(error, '/api/acme/console/workChat/diagnose');
    expect(problem).toMatchObject({ status: 502, platformErrorCode: 40001, platformOperation: 'verifyCredentials' });
    expect(problem.detail).toContain("update the corp's platform credentials");
    expect(JSON.stringify(problem)).not.toContain(ctx.secret);
    expect(error!.message).not.toContain(ctx.secret);
    // Not retried and not cached: the next call asks again.
    await failureOf(platform.listStaff(ctx));
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(2);
    await expect(platform.verifyCredentials({ ...ctx, secret: SECRET })).resolves.toBeUndefined();
  });

  it('syncs staff, customers (paged by cursor) and group chats', async () => {
    const ctx = newCorp(['zhangsan', 'lisi']);
    const group = await platform.createTags(ctx, { groupName: 'Level', tags: [{ name: 'VIP' }, { name: 'New' }] });
    const vip = group.tags.find((tag) => tag.name === 'VIP')!.tagId;
    const customers = ['A', 'B', 'C'].map((name) => addFakeCustomer(fake, ctx.platformCorpId, { name, followers: ['zhangsan'], state: 'fair', tagIds: [vip] }));
    addFakeCustomer(fake, ctx.platformCorpId, { name: 'D', followers: ['lisi'] });

    expect((await platform.listStaff(ctx)).map((staff) => staff.userId)).toEqual(['zhangsan', 'lisi']);
    const first = await platform.listExternalContacts(ctx, { userIds: ['zhangsan'], limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.nextCursor).toBeDefined();
    const second = await platform.listExternalContacts(ctx, { userIds: ['zhangsan'], limit: 2, cursor: first.nextCursor });
    expect(second.nextCursor).toBeUndefined();
    expect([...first.items, ...second.items].map((row) => row.contact.externalUserId).sort()).toEqual([...customers].sort());
    expect(first.items[0].follow).toMatchObject({ userId: 'zhangsan', state: 'fair', addWay: 1, tags: [{ tagId: vip, type: 1 }] });

    const detail = await platform.getExternalContact(ctx, customers[0]);
    expect(detail.followers[0].tags).toEqual([{ tagId: vip, tagName: 'VIP', groupName: 'Level', type: 1 }]);

    const chatId = addFakeGroupChat(fake, ctx.platformCorpId, { name: 'VIP club', owner: 'zhangsan', customers: customers.slice(0, 2) });
    addFakeGroupChat(fake, ctx.platformCorpId, { name: 'Other', owner: 'lisi' });
    expect((await platform.listGroupChats(ctx, { ownerUserIds: ['zhangsan'] })).items).toEqual([{ chatId, status: 0 }]);
    const chat = await platform.getGroupChat(ctx, chatId);
    expect([chat.name, chat.ownerUserId, chat.members.map((member) => [member.userId, member.type])]).toEqual([
      'VIP club',
      'zhangsan',
      [['zhangsan', 1], [customers[0], 2], [customers[1], 2]],
    ]);
    const way = await platform.createGroupWay(ctx, { scene: 2, chatIds: [chatId], state: 'club' });
    expect(way.qrCode).toBe(fake.corp(ctx.platformCorpId).joinWays.get(way.configId)!.qr_code);
  });

  it('updates remarks and tags on the platform', async () => {
    const ctx = newCorp();
    const customer = addFakeCustomer(fake, ctx.platformCorpId, { name: 'Han Meimei', followers: ['zhangsan'] });
    await platform.updateCustomerRemark(ctx, { userId: 'zhangsan', externalUserId: customer, remark: 'Meimei', remarkMobiles: ['13800000000'] });
    const follow = fake.corp(ctx.platformCorpId).customers.get(customer)!.follow.get('zhangsan')!;
    expect([follow.remark, follow.remark_mobiles]).toEqual(['Meimei', ['13800000000']]);

    const group = await platform.createTags(ctx, { groupName: 'Intent', tags: [{ name: 'hot' }, { name: 'cold' }] });
    const [hot, cold] = group.tags.map((tag) => tag.tagId);
    await platform.markCustomerTags(ctx, { userId: 'zhangsan', externalUserId: customer, addTagIds: [hot, cold] });
    await platform.markCustomerTags(ctx, { userId: 'zhangsan', externalUserId: customer, removeTagIds: [cold] });
    expect(follow.tag_id).toEqual([hot]);
    await platform.renameTag(ctx, hot, 'very hot');
    await platform.renameTag(ctx, group.groupId, 'Purchase intent');
    expect(await platform.listTags(ctx)).toEqual([expect.objectContaining({ groupName: 'Purchase intent', tags: [expect.objectContaining({ name: 'very hot' }), expect.objectContaining({ name: 'cold' })] })]);

    const notContact = await failureOf(platform.updateCustomerRemark(ctx, { userId: 'zhangsan', externalUserId: 'wm-unknown', remark: 'x' }));
    expect([notContact!.getStatus(), notContact!.errcode]).toEqual([400, 40096]);
  });

  it('sends text and media messages: uploads the attachment, then sends it by media id', async () => {
    const ctx = newCorp();
    const customer = addFakeCustomer(fake, ctx.platformCorpId, { name: 'Li Lei', followers: ['zhangsan'] });
    const text = await platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: customer, message: { msgType: 'text', content: 'Welcome!' } });
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 7)]);
    const image = await platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: customer, message: { msgType: 'image', media: { fileName: 'menu.png', contentType: 'image/png', data: png } } });
    const gif = await platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: customer, message: { msgType: 'emotion', media: { fileName: 'smile.gif', contentType: 'image/gif', data: Buffer.from('GIF89a-smile') } } });

    const state = fake.corp(ctx.platformCorpId);
    expect(state.messages.map((message) => message.msgid)).toEqual([text.msgId, image.msgId, gif.msgId]);
    expect(state.messages[0].body).toEqual({ chat_type: 'single', external_userid: [customer], sender: 'zhangsan', text: { content: 'Welcome!' } });
    expect(state.messages[1].body.attachments).toEqual([{ msgtype: 'image', image: { media_id: image.mediaId } }]);
    expect(state.media.get(image.mediaId!)).toEqual({ type: 'image', fileName: 'menu.png', contentType: 'image/png', size: png.length });
    expect(state.media.get(gif.mediaId!)).toMatchObject({ type: 'image', fileName: 'smile.gif' });

    const stranger = addFakeCustomer(fake, ctx.platformCorpId, { name: 'Stranger', followers: [] });
    const refused = await failureOf(platform.sendMessage(ctx, { senderUserId: 'zhangsan', externalUserId: stranger, message: { msgType: 'text', content: 'Hi' } }));
    expect([refused!.getStatus(), refused!.errcode]).toEqual([400, 84061]);

    const chatId = addFakeGroupChat(fake, ctx.platformCorpId, { name: 'Club', owner: 'zhangsan', customers: [customer] });
    const group = await platform.sendGroupMessage(ctx, { senderUserId: 'zhangsan', chatId, message: { msgType: 'text', content: 'Hello all' } });
    expect(state.messages.at(-1)).toEqual({ msgid: group.msgId, body: { chat_type: 'group', chat_id_list: [chatId], sender: 'zhangsan', text: { content: 'Hello all' } } });
  });

  it('posts through an enterprise robot webhook by key, without an access token, and keeps the key out of errors', async () => {
    const start = fake.requests.length;
    await platform.sendRobotMessage({ tenantId: 'acme' }, { webhookKey: '0b1c2d3e-robot-key-0001', msgType: 'text', content: 'New lead', mentionedUserIds: ['@all'] });
    expect(fake.robotMessages.at(-1)).toEqual({ key: '0b1c2d3e-robot-key-0001', body: { msgtype: 'text', text: { content: 'New lead', mentioned_list: ['@all'], mentioned_mobile_list: [] } } });
    expect(requestsTo('/cgi-bin/gettoken', start)).toHaveLength(0);

    const error = await failureOf(platform.sendRobotMessage({ tenantId: 'acme' }, { webhookKey: 'ffffffff-not-a-robot-key', msgType: 'markdown', content: '**hi**' }));
    expect(toProblem(error, '/api/acme/v1/entrobot/message/sendMsg')).toMatchObject({ status: 400, platformErrorCode: 93000 });
    expect(JSON.stringify(toProblem(error, '/x'))).not.toContain('ffffffff-not-a-robot-key');
  });
});
