import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ChatMessageEntity } from '../../src/chat/messages/chat-message.entity';
import { ChatMessagesService } from '../../src/chat/messages/chat-messages.service';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { eventually } from '../support/async';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { addFakeStaff, type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { corpContext, dataSourceOf, newCorp, newStaffUser, type TestCorp, newTwoTenantChat } from './support/way-factories';

type Json = Record<string, any>;

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
/** A 1×1 GIF. */
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
/** The start of an MP4 (ftyp box, brand mp42) followed by padding. */
const MP4 = Buffer.concat([Buffer.from('0000001866747970' + '6d703432' + '00000000' + '6d703432' + '69736f6d', 'hex'), Buffer.alloc(64)]);
/** A PDF (a `file` attachment). */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');

/** Files below the storage root (attachments) and multer temp files, recursively. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Contact messages (chat-management-api.md, Contact message; issue 6, "Messages", acceptance 4): the multipart send
 * with every msgType with and without a file, bytes that do not match the type, oversized files, bad `request` JSON
 * (400/413 and nothing stored: no row, no blob, no temp file), delivery through the simulator (`sent`), tenant
 * isolation, scopes, and review comments.
 */
describe('contact messages (simulator)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let contact: Json;
  let otherContact: Json;
  const api = (method: 'get' | 'post', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const sendPath = (c: Json = contact, tenant = 'acme') => `/api/${tenant}/console/workChat/${c.workChatUserId}/contact/${c.id}/message/send`;
  const rows = () => dataSourceOf(testApp).getRepository(ChatMessageEntity).count();
  const stored = () => filesUnder(testApp.config.storage.root).filter((path) => path.includes('chat-messages'));
  const temps = () => filesUnder(join(testApp.dataDir, 'tmp', 'uploads'));
  const simulator = () => testApp.app.get(ChatPlatformSimulator);
  const send = (fields: Json, file?: { data: Buffer; name: string; type?: string }, path = sendPath(), bearer = token) => {
    let req = api('post', path, bearer);
    for (const [key, value] of Object.entries(fields)) req = req.field(key, typeof value === 'string' ? value : JSON.stringify(value));
    if (file) req = req.attach('file', file.data, { filename: file.name, contentType: file.type ?? 'application/octet-stream' });
    return req;
  };
  /** Sends and expects a refusal with `status` whose detail contains `reason`; then checks nothing was stored. */
  const refused = async (status: number, reason: string, fields: Json, file?: { data: Buffer; name: string; type?: string }) => {
    const before = { rows: await rows(), blobs: stored().length };
    const response = await send(fields, file).expect(status);
    expect(response.headers['content-type']).toContain('application/problem+json');
    expect(response.body.detail).toContain(reason);
    expect(await rows()).toBe(before.rows);
    expect(stored()).toHaveLength(before.blobs);
    expect(temps()).toEqual([]);
  };
  const waitForStatus = (id: string, statuses: string[]) =>
    eventually(`message ${id} in ${statuses.join('|')}`, async () => {
      const row = await dataSourceOf(testApp).getRepository(ChatMessageEntity).findOneBy({ id });
      return row && statuses.includes(row.status) ? row : undefined;
    }, { timeoutMs: 15_000 });

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_MESSAGE_MAX_IMAGE_BYTES: '2000', CHAT_MESSAGE_MAX_EMOTION_BYTES: '1000', CHAT_MESSAGE_MAX_VIDEO_BYTES: '3000', CHAT_MESSAGE_MAX_FILE_BYTES: '4000', CHAT_MESSAGE_MAX_TEXT_CHARS: '50' });
    const cast = await newTwoTenantChat(testApp);
    ({ token, readOnly, otherToken, acme } = cast);
    const { globex } = cast;
    const inject = async (corp: TestCorp, bearer: string) => {
      await api('post', `/api/${corp.tenantId}/console/simulator/corps/${corp.id}/staff`, bearer).send({ userId: 'zhangsan' });
      const response = await api('post', `/api/${corp.tenantId}/console/simulator/corps/${corp.id}/customers`, bearer).send({ name: 'Lily', userId: 'zhangsan' });
      if (response.status !== 200) throw new Error(`inject failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.contact as Json;
    };
    contact = await inject(acme, token);
    otherContact = await inject(globex, otherToken);
  });
  afterAll(() => testApp?.close());

  it('serves the message rows of endpoints.json with the chosen operationIds', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const base = '/api/{tenant}/console/workChat/{workChatUserId}/contact/{contactId}/message';
    expect(document.paths[`${base}/send`].post.operationId).toBe('sendChatContactMessage');
    expect(document.paths[`${base}/send`].post.requestBody.content['multipart/form-data']).toBeDefined();
    expect(document.paths[`${base}/{id}/comment`].get.operationId).toBe('getChatContactMessageComment');
    expect(document.paths[`${base}/{id}/comment`].post.operationId).toBe('commentChatContactMessage');
  });

  it('sends a text message: stored pending, delivered through the simulator, then sent', async () => {
    const response = await send({ request: { msgType: 'text', msgBody: { content: 'Hello Lily' } }, contactType: 'single', agentChatId: 'agent-1' }).expect(200);
    expect(response.body).toMatchObject({
      contactId: contact.id,
      corpId: acme.id,
      workChatUserId: 'zhangsan',
      direction: 'out',
      sender: 'staff',
      msgType: 'text',
      content: 'Hello Lily',
      attachment: null,
      agentChatId: 'agent-1',
      contactType: 'single',
      status: 'pending',
      platformMsgId: null,
      sentAt: null,
    });
    const row = await waitForStatus(response.body.id, ['sent', 'failed']);
    expect(row.status).toBe('sent');
    expect(row.platformMsgId).toEqual(expect.any(String));
    expect(row.sentAt).toBeInstanceOf(Date);
    const onPlatform = await simulator().listMessages(corpContext(acme), { externalUserId: contact.externalUserId, direction: 'outbound' });
    expect(onPlatform.filter((message) => message.msgId === row.platformMsgId)).toEqual([expect.objectContaining({ msgType: 'text', content: 'Hello Lily', userId: 'zhangsan' })]);
  });

  it.each([
    ['image', PNG, 'photo.png', 'image/png'],
    ['emotion', GIF, 'smile.gif', 'image/gif'],
    ['video', MP4, 'clip.mp4', 'video/mp4'],
    ['file', PDF, 'menu.pdf', 'application/pdf'],
  ])('sends a %s attachment: stored in the storage, type from the bytes, delivered', async (msgType, data, name, contentType) => {
    const blobsBefore = stored().length;
    const response = await send({ request: { msgType } }, { data, name, type: 'application/octet-stream' }).expect(200);
    expect(response.body).toMatchObject({ msgType, content: null, status: 'pending', attachment: { fileName: name, contentType, sizeBytes: data.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) } });
    expect(stored()).toHaveLength(blobsBefore + 1);
    expect(temps()).toEqual([]);
    const row = await waitForStatus(response.body.id, ['sent', 'failed']);
    expect(row).toMatchObject({ status: 'sent', failureReason: null });
    const [onPlatform] = (await simulator().listMessages(corpContext(acme), { externalUserId: contact.externalUserId })).filter((message) => message.msgId === row.platformMsgId);
    expect(onPlatform.media).toMatchObject({ fileName: name });
  });

  it('quotes a message of the contact and refuses an unknown quoted id', async () => {
    const first = await send({ request: { msgType: 'text', msgBody: { content: 'first' } } }).expect(200);
    const quoted = await send({ request: { msgType: 'text', msgBody: { content: 'second' }, quoteChatMsgId: first.body.id } }).expect(200);
    expect(quoted.body.quoteChatMsgId).toBe(first.body.id);
    await refused(400, 'is not a message of this contact', { request: { msgType: 'text', msgBody: { content: 'x' }, quoteChatMsgId: '0f8fad5b-d9cb-469f-a165-70867728950e' } });
  });

  describe('refusals store nothing', () => {
    it.each(['image', 'video', 'file', 'emotion'])('%s without a file → 400', async (msgType) => {
      await refused(400, `A ${msgType} message needs the attachment in the multipart field \`file\``, { request: { msgType } });
    });

    it('text with a file → 400', async () => {
      await refused(400, 'A text message takes no `file`', { request: { msgType: 'text', msgBody: { content: 'hi' } } }, { data: PNG, name: 'a.png', type: 'image/png' });
    });

    it('bytes that do not match the type → 400, whatever the name and declared type', async () => {
      await refused(400, 'not a supported image: its bytes are application/pdf', { request: { msgType: 'image' } }, { data: PDF, name: 'photo.png', type: 'image/png' });
      await refused(400, 'not a GIF: its bytes are image/png', { request: { msgType: 'emotion' } }, { data: PNG, name: 'smile.gif', type: 'image/gif' });
      await refused(400, 'not a supported video: its bytes are of no recognised type', { request: { msgType: 'video' } }, { data: Buffer.from('just text, not a video'), name: 'clip.mp4', type: 'video/mp4' });
    });

    it('over the type\'s limit → 413; over every limit → 413 from the upload', async () => {
      const bigGif = Buffer.concat([GIF, Buffer.alloc(1200)]);
      await refused(413, 'at most 1000 bytes are accepted (CHAT_MESSAGE_MAX_EMOTION_BYTES)', { request: { msgType: 'emotion' } }, { data: bigGif, name: 'big.gif', type: 'image/gif' });
      await refused(413, 'more than any message type accepts', { request: { msgType: 'file' } }, { data: Buffer.concat([PDF, Buffer.alloc(5000)]), name: 'big.pdf' });
    });

    it('bad `request` JSON or fields → 400 with the reason', async () => {
      await refused(400, 'is not valid JSON', { request: '{"msgType": "text",' });
      await refused(400, 'must be one of text, image, video, file, emotion; got "voice"', { request: { msgType: 'voice' } });
      await refused(400, 'needs `request.msgBody.content`', { request: { msgType: 'text' } });
      await refused(400, 'at most 50 (CHAT_MESSAGE_MAX_TEXT_CHARS)', { request: { msgType: 'text', msgBody: { content: 'x'.repeat(51) } } });
      await refused(400, 'request must be a string', {}, { data: PNG, name: 'a.png' });
      await refused(400, 'property unexpected should not exist', { request: { msgType: 'text', msgBody: { content: 'x' } }, unexpected: 'y' });
    });
  });

  it('isolates tenants and staff members: another tenant\'s or staff member\'s contact → 404, nothing stored', async () => {
    const before = await rows();
    await send({ request: { msgType: 'text', msgBody: { content: 'x' } } }, undefined, sendPath(otherContact, 'acme')).expect(404);
    await send({ request: { msgType: 'text', msgBody: { content: 'x' } } }, undefined, sendPath(contact, 'globex'), otherToken).expect(404);
    await send({ request: { msgType: 'text', msgBody: { content: 'x' } } }, undefined, sendPath({ ...contact, workChatUserId: 'lisi' })).expect(404);
    await send({ request: { msgType: 'text', msgBody: { content: 'x' } } }, undefined, sendPath(contact, 'globex'), token).expect(403);
    expect(await rows()).toBe(before);
  });

  it('refuses a token without chat:write (403), storing nothing', async () => {
    const before = await rows();
    await send({ request: { msgType: 'image' } }, { data: PNG, name: 'a.png' }, sendPath(), readOnly).expect(403);
    expect(await rows()).toBe(before);
    expect(temps()).toEqual([]);
  });

  it('keeps inbound messages idempotent and serves the history (service API for the inbound pipeline)', async () => {
    const service = testApp.app.get(ChatMessagesService);
    const input = { tenantId: 'acme', corpId: acme.id, contactId: contact.id, workChatUserId: 'zhangsan', msgType: 'text' as const, content: 'Do you open on Sunday?', platformMsgId: 'plat-msg-1', sentAt: new Date() };
    const first = await service.storeInbound(input);
    const again = await service.storeInbound({ ...input, content: 'changed' });
    expect(first.created).toBe(true);
    expect(again).toMatchObject({ created: false, message: { id: first.message.id, content: 'Do you open on Sunday?', status: 'received', direction: 'in', sender: 'customer' } });
    const history = await service.history('acme', contact.id, 3);
    expect(history).toHaveLength(3);
    expect(history[2].id).toBe(first.message.id);
    expect(await service.history('globex', contact.id, 10)).toEqual([]);
    const stored = await dataSourceOf(testApp).getRepository(ExternalContactEntity).findOneByOrFail({ id: contact.id });
    expect(stored.lastMessageAt).toBeInstanceOf(Date);
  });

  describe('comments', () => {
    it('reviews an AI-assisted message: one comment per reviewer, replaced on repost; plain staff messages → 409', async () => {
      const ai = await send({ request: { msgType: 'text', msgBody: { content: 'We open at 9.' } }, originalAiContent: 'We open at 9 am.' }).expect(200);
      const path = `/api/acme/console/workChat/zhangsan/contact/${contact.id}/message/${ai.body.id}/comment`;
      await api('get', path).expect(404);
      const created = await api('post', path).send({ rating: 4, content: 'Good, a bit short.', tags: ['tone', 'tone'] }).expect(200);
      expect(created.body).toMatchObject({ messageId: ai.body.id, rating: 4, content: 'Good, a bit short.', tags: ['tone'], reviewer: expect.any(String) });
      const replaced = await api('post', path).send({ rating: 5 }).expect(200);
      expect(replaced.body).toMatchObject({ id: created.body.id, rating: 5, content: null, tags: [] });
      expect((await api('get', path).expect(200)).body).toEqual(replaced.body);
      expect((await api('post', path).send({}).expect(400)).body.detail).toContain('at least one of rating');
      await api('post', path).send({ rating: 6 }).expect(400);
      await api('get', `/api/globex/console/workChat/zhangsan/contact/${contact.id}/message/${ai.body.id}/comment`, otherToken).expect(404);
      await api('post', path, readOnly).send({ rating: 3 }).expect(403);
      const plain = await send({ request: { msgType: 'text', msgBody: { content: 'plain' } } }).expect(200);
      const conflict = await api('post', `/api/acme/console/workChat/zhangsan/contact/${contact.id}/message/${plain.body.id}/comment`).send({ rating: 3 }).expect(409);
      expect(conflict.body.detail).toContain('is not an AI message');
    });

    it('optimize without a configured model → 400 with the reason', async () => {
      const message = await send({ request: { msgType: 'text', msgBody: { content: 'Hi' } } }).expect(200);
      const base = `/api/acme/console/workChat/zhangsan/contact/${contact.id}/message/${message.body.id}`;
      expect((await api('post', `${base}/comment/optimize`).send({ content: 'too short' }).expect(400)).body.detail).toBe('no chat model configured: set CHAT_LLM_BASE_URL and CHAT_LLM_MODEL');
      expect((await api('post', `${base}/advice/optimize`).send({ advice: 'friendlier' }).expect(400)).body.detail).toBe('no chat model configured: set CHAT_LLM_BASE_URL and CHAT_LLM_MODEL');
    });
  });
});

/** Delivery through the HTTP adapter against a local fake platform: refusals end `failed` with the platform's reason, retryable failures are retried. */
describe('contact messages through the HTTP platform adapter', () => {
  const CORP_ID = 'wwfakemessages';
  const SECRET = 'fake-platform-secret-0123456789';
  const SEND = '/cgi-bin/externalcontact/add_msg_template';
  let fake: FakeChatPlatform;
  let testApp: TestApp;
  let token: string;
  let contactId: string;
  const sendText = (content: string) =>
    request(testApp.baseUrl)
      .post(`/api/acme/console/workChat/zhangsan/contact/${contactId}/message/send`)
      .auth(token, { type: 'bearer' })
      .field('request', JSON.stringify({ msgType: 'text', msgBody: { content } }))
      .expect(200);
  const settled = (id: string) =>
    eventually(`message ${id} settled`, async () => {
      const row = await dataSourceOf(testApp).getRepository(ChatMessageEntity).findOneBy({ id });
      return row && row.status !== 'pending' ? row : undefined;
    }, { timeoutMs: 20_000 });

  beforeAll(async () => {
    fake = await startFakeChatPlatform({ corps: [{ corpId: CORP_ID, secret: SECRET }] });
    testApp = await startTestApp({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: fake.url, CHAT_PLATFORM_HTTP_RETRIES: '0' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    const corp = await newCorp(testApp, token, 'acme', 'Fake Corp', { secret: SECRET, workChatCorpId: CORP_ID });
    await newStaffUser(testApp, corp, 'zhangsan');
    addFakeStaff(fake, CORP_ID, { userid: 'zhangsan' });
    fake.corp(CORP_ID).customers.set('wm-fake-1', { external_userid: 'wm-fake-1', name: 'Amy', type: 1, gender: 1, follow: new Map([['zhangsan', { remark_mobiles: [], createtime: 1_700_000_000, tag_id: [], add_way: 1 }]]) } as never);
    const repository = dataSourceOf(testApp).getRepository(ExternalContactEntity);
    const row = await repository.save(repository.create({ tenantId: 'acme', corpId: corp.id, externalUserId: 'wm-fake-1', workChatUserId: 'zhangsan', name: 'Amy', tags: [], profile: {} }));
    contactId = row.id;
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });

  it('sends to the platform: sent with the platform\'s msgid', async () => {
    const response = await sendText('Hello Amy');
    const row = await settled(response.body.id);
    expect(row.status).toBe('sent');
    expect(fake.corp(CORP_ID).messages.map((message) => message.msgid)).toContain(row.platformMsgId);
  });

  it('a platform refusal ends failed with the platform\'s reason, sent once', async () => {
    fake.failNext(SEND, { errcode: 40003, errmsg: 'invalid external userid' });
    const calls = fake.callsTo(SEND);
    const response = await sendText('Refused');
    const row = await settled(response.body.id);
    expect(row.status).toBe('failed');
    expect(row.failureReason).toContain('errcode 40003');
    expect(row.failureReason).toContain('invalid external userid');
    expect(row.platformMsgId).toBeNull();
    expect(fake.callsTo(SEND)).toBe(calls + 1);
  });

  it('a retryable failure (platform busy) is retried by the job and then sent', async () => {
    fake.failNext(SEND, { errcode: -1, errmsg: 'system busy' });
    const response = await sendText('Retried');
    const row = await settled(response.body.id);
    expect(row).toMatchObject({ status: 'sent', deliveryAttempts: 2, failureReason: null });
  });
});

/** Comment and advice optimize against a real local OpenAI-compatible server (CHAT_LLM_*). */
describe('contact message optimize with a local model', () => {
  let model: LocalPeer;
  let testApp: TestApp;
  let token: string;
  let otherToken: string;
  let base: string;
  let imageBase: string;
  let answer: { status?: number; body: unknown } = { body: chatCompletion('x') };
  const api = (path: string, bearer = token) => request(testApp.baseUrl).post(path).auth(bearer, { type: 'bearer' });

  beforeAll(async () => {
    model = await startLocalPeer(() => answer);
    testApp = await startTestApp({ CHAT_LLM_BASE_URL: `${model.url}/v1`, CHAT_LLM_MODEL: 'local-model', CHAT_LLM_API_KEY: 'sk-local-secret-123', CHAT_LLM_TIMEOUT_MS: '5000' });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    const corp = await newCorp(testApp, token, 'acme', 'Acme Retail');
    await newStaffUser(testApp, corp, 'zhangsan');
    await request(testApp.baseUrl).post(`/api/acme/console/simulator/corps/${corp.id}/staff`).auth(token, { type: 'bearer' }).send({ userId: 'zhangsan' });
    const injected = await request(testApp.baseUrl).post(`/api/acme/console/simulator/corps/${corp.id}/customers`).auth(token, { type: 'bearer' }).send({ name: 'Lily', userId: 'zhangsan' }).expect(200);
    const contactId = injected.body.contact.id;
    const sendPath = `/api/acme/console/workChat/zhangsan/contact/${contactId}/message/send`;
    const text = await api(sendPath).field('request', JSON.stringify({ msgType: 'text', msgBody: { content: 'We open at 9.' } })).field('originalAiContent', 'We open at 9.').expect(200);
    const image = await api(sendPath).field('request', JSON.stringify({ msgType: 'image' })).attach('file', PNG, 'a.png').expect(200);
    base = `/api/acme/console/workChat/zhangsan/contact/${contactId}/message/${text.body.id}`;
    imageBase = `/api/acme/console/workChat/zhangsan/contact/${contactId}/message/${image.body.id}`;
  });
  afterAll(async () => {
    await testApp?.close();
    await model?.close();
  });

  it('optimizes a draft review: the model sees the message and the draft, the answer comes back cleaned', async () => {
    answer = { body: chatCompletion('"The reply is correct but should also mention Sunday hours."') };
    const before = model.requests.length;
    const response = await api(`${base}/comment/optimize`).send({ content: 'say sunday too' }).expect(200);
    expect(response.body).toEqual({ original: 'say sunday too', optimized: 'The reply is correct but should also mention Sunday hours.', advice: null, model: 'local-model' });
    const sent = model.requests[before];
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe('Bearer sk-local-secret-123');
    expect(JSON.stringify(sent.body)).toContain('We open at 9.');
    expect(JSON.stringify(sent.body)).toContain('say sunday too');
  });

  it('uses the saved comment when no draft is given, and 400 when there is none', async () => {
    expect((await api(`${base}/comment/optimize`).send({}).expect(400)).body.detail).toContain('Nothing to optimize');
    await api(`${base}/comment`).send({ content: 'too short' }).expect(200);
    answer = { body: chatCompletion('Too short: add the opening hours for every day.') };
    const response = await api(`${base}/comment/optimize`).send({}).expect(200);
    expect(response.body).toMatchObject({ original: 'too short', optimized: 'Too short: add the opening hours for every day.' });
  });

  it('rewrites a text message following advice; attachments → 400; invalid advice → 400', async () => {
    answer = { body: chatCompletion('Hi! We open at 9, Sundays included 😊') };
    const response = await api(`${base}/advice/optimize`).send({ advice: 'friendlier, mention Sundays' }).expect(200);
    expect(response.body).toEqual({ original: 'We open at 9.', optimized: 'Hi! We open at 9, Sundays included 😊', advice: 'friendlier, mention Sundays', model: 'local-model' });
    expect((await api(`${imageBase}/advice/optimize`).send({ advice: 'x' }).expect(400)).body.detail).toContain('only text messages can be rewritten');
    await api(`${base}/advice/optimize`).send({ advice: '' }).expect(400);
    await api(`${base}/advice/optimize`).send({}).expect(400);
  });

  it('a failing model → 502 with the reason (never the key); another tenant → 404', async () => {
    answer = { status: 500, body: { error: { message: 'model overloaded' } } };
    const response = await api(`${base}/advice/optimize`).send({ advice: 'shorter' }).expect(502);
    expect(response.body.detail).toContain('The chat model (local-model) failed');
    expect(JSON.stringify(response.body)).not.toContain('sk-local-secret-123');
    answer = { body: chatCompletion('   ') };
    expect((await api(`${base}/advice/optimize`).send({ advice: 'shorter' }).expect(502)).body.detail).toContain('answered nothing');
    await api(base.replace('/api/acme/', '/api/globex/') + '/advice/optimize', otherToken).send({ advice: 'x' }).expect(404);
  });
});
