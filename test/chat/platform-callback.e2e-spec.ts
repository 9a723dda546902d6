import request from 'supertest';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ChatPlatformEvents, type ChatPlatformEvent } from '../../src/chat/platform/chat-platform-events';
import {
  addFakeCustomer,
  addFakeStaff,
  callbackVerificationQuery,
  contactAddedXml,
  customerMessageXml,
  type FakeCallbackKeys,
  type FakeChatPlatform,
  newCallbackKeys,
  postCallbackBody,
  postCallbackEvent,
  sealCallbackEvent,
  signCallback,
  startFakeChatPlatform,
} from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf } from './support/way-factories';

type Json = Record<string, any>;

const SIGNATURE_DETAIL = 'The callback signature is invalid or has expired.';
const MAX_BYTES = 4096;

/**
 * Issue 6, "An inbound customer message (from the platform callback endpoint …)": the WeCom-style callback
 * receiver `GET/POST /api/{tenant}/v1/workChat/callback/{workCorpId}`, against the real app in
 * CHAT_PLATFORM_MODE=http with the fake platform sealing and posting the callbacks (real HTTP, real crypto). The
 * published events are observed by subscribing to the app's ChatPlatformEvents (observation, nothing replaced).
 */
describe('platform event callbacks (issue 6: inbound events from the platform)', () => {
  const CORP_A = 'wwcallbackacme01';
  const CORP_B = 'wwcallbackglobex1';
  const CORP_NO_KEYS = 'wwcallbacknokeys';
  const SECRET = 'fake-platform-secret-callbacks-01';
  let fake: FakeChatPlatform;
  let testApp: TestApp;
  let keysA: FakeCallbackKeys;
  let keysB: FakeCallbackKeys;
  let corpA: Json;
  let corpB: Json;
  let acmeToken: string;
  const logLines: string[] = [];
  const published: ChatPlatformEvent[] = [];
  let unsubscribe: () => void;
  let msgSeq = 0;

  const callbackPath = (tenant: string, workCorpId: string) => `/api/${tenant}/v1/workChat/callback/${workCorpId}`;
  const callbackUrl = (tenant: string, workCorpId: string) => `${testApp.baseUrl}${callbackPath(tenant, workCorpId)}`;
  const nextMsgId = () => `7380${Date.now()}${++msgSeq}`;
  const publishedSince = (start: number) => published.slice(start);

  async function createCorp(token: string, tenant: string, body: Json): Promise<Json> {
    const response = await request(testApp.baseUrl).post(`/api/${tenant}/console/workChat/corps`).auth(token, { type: 'bearer' }).send(body);
    if (response.status !== 200) throw new Error(`corp creation failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  }

  beforeAll(async () => {
    fake = await startFakeChatPlatform({ corps: [{ corpId: CORP_A, secret: SECRET }, { corpId: CORP_B, secret: SECRET }] });
    testApp = await startTestApp({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: fake.url, CHAT_PLATFORM_HTTP_RETRIES: '0', CHAT_CALLBACK_MAX_BYTES: String(MAX_BYTES) }, { logLines });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    acmeToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    const globexToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    keysA = newCallbackKeys(CORP_A);
    keysB = newCallbackKeys(CORP_B);
    corpA = await createCorp(acmeToken, 'acme', { corpName: 'Acme Retail', workChatCorpId: CORP_A, secret: SECRET, callbackToken: keysA.token, callbackAesKey: keysA.aesKey });
    await createCorp(acmeToken, 'acme', { corpName: 'Acme No Keys', workChatCorpId: CORP_NO_KEYS, secret: SECRET });
    corpB = await createCorp(globexToken, 'globex', { corpName: 'Globex', workChatCorpId: CORP_B, secret: SECRET, callbackToken: keysB.token, callbackAesKey: keysB.aesKey });
    addFakeStaff(fake, CORP_A, { userid: 'zhangsan' });
    unsubscribe = testApp.app.get(ChatPlatformEvents).subscribe((event) => {
      published.push(event);
    });
  });
  afterAll(async () => {
    unsubscribe?.();
    await testApp?.close();
    await fake?.close();
  });

  describe('URL verification (GET)', () => {
    it('answers the decrypted echostr as text/plain when the signature checks out', async () => {
      const response = await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query(callbackVerificationQuery(keysA, 'echo-5501234567890123')).expect(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.text).toBe('echo-5501234567890123');
    });

    it('refuses a wrong signature or a stale timestamp with the same 401, and another corp\'s echostr with 400', async () => {
      const forged = { ...callbackVerificationQuery(keysA, 'echo-1'), msg_signature: '0'.repeat(40) };
      const bad = await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query(forged).expect(401);
      expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(bad.body).toMatchObject({ status: 401, detail: SIGNATURE_DETAIL });
      const stale = await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query(callbackVerificationQuery(keysA, 'echo-2', { timestamp: Math.floor(Date.now() / 1000) - 301 })).expect(401);
      expect(stale.body.detail).toBe(SIGNATURE_DETAIL);
      // Sealed with acme's keys but addressed to another receiver.
      const misaddressed = callbackVerificationQuery({ ...keysA, receiverId: 'wwsomeoneelse' }, 'echo-3');
      const wrongReceiver = await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query(misaddressed).expect(400);
      expect(wrongReceiver.body.detail).toBe('The encrypted payload is not addressed to this corp.');
      await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query({ timestamp: '1', nonce: '2' }).expect(400);
    });
  });

  describe('events (POST)', () => {
    it('stores the contact of external_contact.added, fetched from the platform, with the event\'s state', async () => {
      const externalUserId = addFakeCustomer(fake, CORP_A, { name: 'Li Lei', followers: ['zhangsan'], state: 'older-state' });
      const start = published.length;
      const answer = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, contactAddedXml({ corpId: CORP_A, userId: 'zhangsan', externalUserId, state: 'spring-fair' }));
      expect(answer).toEqual({ status: 200, contentType: expect.stringMatching(/^text\/plain/), text: 'success' });
      expect(publishedSince(start)).toEqual([
        { type: 'external_contact.added', tenantId: 'acme', corpId: corpA.id, platformCorpId: CORP_A, userId: 'zhangsan', externalUserId, state: 'spring-fair', occurredAt: expect.any(Date) },
      ]);
      // The listener ran before the answer: the contact is already stored.
      const contact = await dataSourceOf(testApp).getRepository(ExternalContactEntity).findOneBy({ tenantId: 'acme', externalUserId, workChatUserId: 'zhangsan' });
      expect(contact).toMatchObject({ corpId: corpA.id, name: 'Li Lei', state: 'spring-fair' });
      expect(fake.requests.some((entry) => entry.path === '/cgi-bin/externalcontact/get' && entry.query.external_userid === externalUserId)).toBe(true);
    });

    it('publishes a customer\'s message as message.received and acknowledges a redelivery the same way', async () => {
      const externalUserId = addFakeCustomer(fake, CORP_A, { name: 'Han Meimei', followers: ['zhangsan'] });
      await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, contactAddedXml({ corpId: CORP_A, userId: 'zhangsan', externalUserId }));
      const msgId = nextMsgId();
      const xml = customerMessageXml({ corpId: CORP_A, msgId, externalUserId, userId: 'zhangsan', content: 'Is the store open on Sunday? <&>', createTime: 1_795_404_000 });
      const start = published.length;
      const answer = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml);
      expect([answer.status, answer.text]).toEqual([200, 'success']);
      expect(publishedSince(start)).toEqual([
        {
          type: 'message.received',
          tenantId: 'acme',
          corpId: corpA.id,
          platformCorpId: CORP_A,
          msgId,
          chatType: 'single',
          userId: 'zhangsan',
          externalUserId,
          msgType: 'text',
          content: 'Is the store open on Sunday? <&>',
          occurredAt: new Date(1_795_404_000_000),
        },
      ]);
      // The platform redelivers (same MsgId): acknowledged again; the pipeline's idempotency keeps one message.
      const again = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml);
      expect([again.status, again.text]).toEqual([200, 'success']);
      expect(publishedSince(start).map((event) => (event as Json).msgId)).toEqual([msgId, msgId]);
      // The inbound pipeline (a ChatPlatformEvents listener) stored the message once, before the answer.
      const rows = await dataSourceOf(testApp).query(`SELECT content, direction, sender, corp_id FROM chat_message WHERE tenant_id = 'acme' AND platform_msg_id = $1`, [msgId]);
      expect(rows).toEqual([{ content: 'Is the store open on Sunday? <&>', direction: 'in', sender: 'customer', corp_id: corpA.id }]);
    });

    it('publishes group and media messages with their fields', async () => {
      const start = published.length;
      const msgId = nextMsgId();
      const xml = customerMessageXml({ corpId: CORP_A, msgId, externalUserId: 'wmgroupcustomer1', userId: 'zhangsan', msgType: 'file', chatId: 'wrroom0001', extra: { MediaUrl: 'https://platform.example/f/1', FileName: 'quote.pdf', FileSize: 2048, ContentType: 'application/pdf' } });
      const answer = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml);
      // A message of a customer Atrium does not know is refused by the pipeline for good (404): acknowledged all the same.
      expect([answer.status, answer.text]).toEqual([200, 'success']);
      expect(publishedSince(start)).toEqual([
        expect.objectContaining({ type: 'message.received', msgId, chatType: 'group', chatId: 'wrroom0001', msgType: 'file', media: { url: 'https://platform.example/f/1', fileName: 'quote.pdf', sizeBytes: 2048, contentType: 'application/pdf' } }),
      ]);
    });

    it('acknowledges and ignores other events and message types', async () => {
      const start = published.length;
      const ignored = [
        contactAddedXml({ corpId: CORP_A, userId: 'zhangsan', externalUserId: 'wm1' }).replace('add_external_contact', 'del_follow_user'),
        '<xml><MsgType><![CDATA[event]]></MsgType><Event><![CDATA[enter_agent]]></Event></xml>',
        customerMessageXml({ corpId: CORP_A, msgId: nextMsgId(), externalUserId: 'wm1', userId: 'zhangsan', msgType: 'miniprogram' }),
      ];
      for (const xml of ignored) {
        const answer = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml);
        expect([answer.status, answer.text]).toEqual([200, 'success']);
      }
      expect(publishedSince(start)).toEqual([]);
    });

    it('refuses a wrong signature, another corp\'s token and a stale or future timestamp with the same 401, publishing nothing', async () => {
      const start = published.length;
      const xml = customerMessageXml({ corpId: CORP_A, msgId: nextMsgId(), externalUserId: 'wm1', userId: 'zhangsan', content: 'hi' });
      const sealed = sealCallbackEvent(keysA, xml);
      const answers = [
        await postCallbackBody(callbackUrl('acme', CORP_A), { ...sealed.query, msg_signature: 'f'.repeat(40) }, sealed.body),
        await postCallbackBody(callbackUrl('acme', CORP_A), { ...sealed.query, nonce: `${sealed.query.nonce}1` }, sealed.body),
        await postCallbackEvent(callbackUrl('acme', CORP_A), { ...keysA, token: keysB.token }, xml),
        await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml, { timestamp: Math.floor(Date.now() / 1000) - 400 }),
        await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml, { timestamp: Math.floor(Date.now() / 1000) + 400 }),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(401);
        expect(answer.contentType).toMatch(/^application\/problem\+json/);
        expect(JSON.parse(answer.text)).toMatchObject({ status: 401, detail: SIGNATURE_DETAIL });
      }
      expect(publishedSince(start)).toEqual([]);
    });

    it('refuses malformed bodies and payloads with 400 and a body over CHAT_CALLBACK_MAX_BYTES with 413', async () => {
      const url = callbackUrl('acme', CORP_A);
      const signed = (encrypted: string) => signCallback(keysA, encrypted);
      const garbage = await postCallbackBody(url, signed('x'), 'garbage, not XML');
      expect([garbage.status, JSON.parse(garbage.text).detail]).toEqual([400, 'The request body is not a callback XML document: not well-formed XML.']);
      expect((await postCallbackBody(url, signed('x'), '<xml><ToUserName>ww</ToUserName></xml>')).status).toBe(400);
      expect((await postCallbackBody(url, signed('x'), '<!DOCTYPE xml [<!ENTITY e SYSTEM "file:///etc/passwd">]><xml><Encrypt>&e;</Encrypt></xml>')).status).toBe(400);
      expect((await postCallbackBody(url, signed('x'), '{"Encrypt":"x"}', 'application/json')).status).toBe(400);
      // Correctly signed, but the ciphertext is not the corp's.
      const notCiphertext = 'QUJDREVGR0hJSktMTU5PUA==';
      expect((await postCallbackBody(url, signed(notCiphertext), `<xml><Encrypt><![CDATA[${notCiphertext}]]></Encrypt></xml>`)).status).toBe(400);
      // Sealed for another receiver, or with garbage inside, or missing required fields.
      expect((await postCallbackEvent(url, { ...keysA, receiverId: CORP_B }, customerMessageXml({ corpId: CORP_B, msgId: nextMsgId(), externalUserId: 'wm1', userId: 'zhangsan', content: 'hi' }))).status).toBe(400);
      const inner = await postCallbackEvent(url, keysA, 'not xml inside');
      expect([inner.status, JSON.parse(inner.text).detail]).toEqual([400, 'The decrypted event is not a callback XML document: not well-formed XML.']);
      expect((await postCallbackEvent(url, keysA, customerMessageXml({ corpId: CORP_A, msgId: nextMsgId(), externalUserId: 'wm1', userId: '', content: 'hi' }))).status).toBe(400);
      const tooLarge = await postCallbackBody(url, signed('x'), `<xml><Encrypt>${'A'.repeat(MAX_BYTES)}</Encrypt></xml>`);
      expect([tooLarge.status, tooLarge.contentType]).toEqual([413, expect.stringMatching(/^application\/problem\+json/)]);
      expect((await postCallbackBody(url, {}, '<xml/>')).status).toBe(400);
    });

    it('answers 404 for an unknown tenant or corp, a corp without callback keys, and another tenant\'s corp', async () => {
      const xml = (corpId: string) => customerMessageXml({ corpId, msgId: nextMsgId(), externalUserId: 'wm1', userId: 'zhangsan', content: 'hi' });
      const start = published.length;
      const answers = [
        await postCallbackEvent(callbackUrl('nosuchtenant', CORP_A), keysA, xml(CORP_A)),
        await postCallbackEvent(callbackUrl('acme', 'wwunknowncorp'), keysA, xml(CORP_A)),
        await postCallbackEvent(callbackUrl('acme', CORP_NO_KEYS), { ...keysA, receiverId: CORP_NO_KEYS }, xml(CORP_NO_KEYS)),
        // Tenant isolation: globex's corp, correctly sealed with globex's keys, under acme's path — and the reverse.
        await postCallbackEvent(callbackUrl('acme', CORP_B), keysB, xml(CORP_B)),
        await postCallbackEvent(callbackUrl('globex', CORP_A), keysA, xml(CORP_A)),
      ];
      for (const answer of answers) expect([answer.status, answer.contentType, JSON.parse(answer.text).status]).toEqual([404, expect.stringMatching(/^application\/problem\+json/), 404]);
      await request(testApp.baseUrl).get(callbackPath('acme', CORP_B)).query(callbackVerificationQuery(keysB, 'echo')).expect(404);
      expect(publishedSince(start)).toEqual([]);
      // Under its own tenant the globex corp works.
      const own = await postCallbackEvent(callbackUrl('globex', CORP_B), keysB, '<xml><MsgType>event</MsgType><Event>enter_agent</Event></xml>');
      expect([own.status, own.text]).toEqual([200, 'success']);
      expect(corpB.workChatCorpId).toBe(CORP_B);
    });

    it('acknowledges but ignores events of a disabled corp (URL verification still works)', async () => {
      await request(testApp.baseUrl).put(`/api/acme/console/workChat/corps/${corpA.id}`).auth(acmeToken, { type: 'bearer' }).send({ enabled: false }).expect(200);
      try {
        const start = published.length;
        const answer = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, customerMessageXml({ corpId: CORP_A, msgId: nextMsgId(), externalUserId: 'wm1', userId: 'zhangsan', content: 'hi' }));
        expect([answer.status, answer.text]).toEqual([200, 'success']);
        expect(publishedSince(start)).toEqual([]);
        await request(testApp.baseUrl).get(callbackPath('acme', CORP_A)).query(callbackVerificationQuery(keysA, 'still-here')).expect(200, 'still-here');
      } finally {
        await request(testApp.baseUrl).put(`/api/acme/console/workChat/corps/${corpA.id}`).auth(acmeToken, { type: 'bearer' }).send({ enabled: true }).expect(200);
      }
    });

    it('asks the platform to redeliver (503) when a listener fails for a reason that may pass', async () => {
      const externalUserId = addFakeCustomer(fake, CORP_A, { name: 'Wei Wei', followers: ['zhangsan'] });
      fake.failNext('/cgi-bin/externalcontact/get', { status: 500 }, 1);
      const xml = contactAddedXml({ corpId: CORP_A, userId: 'zhangsan', externalUserId });
      const failed = await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml);
      expect([failed.status, failed.contentType]).toEqual([503, expect.stringMatching(/^application\/problem\+json/)]);
      // The redelivery succeeds once the platform answers again.
      expect((await postCallbackEvent(callbackUrl('acme', CORP_A), keysA, xml)).text).toBe('success');
      expect(await dataSourceOf(testApp).getRepository(ExternalContactEntity).existsBy({ tenantId: 'acme', externalUserId })).toBe(true);
    });
  });

  it('logs none of the keys, signatures or decrypted contents', () => {
    const logged = logLines.join('\n');
    expect(logLines.length).toBeGreaterThan(0);
    for (const secret of [keysA.token, keysA.aesKey, keysB.token, keysB.aesKey, 'Is the store open on Sunday', 'quote.pdf']) expect(logged).not.toContain(secret);
  });

  it('is documented as called by the platform, without OAuth', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const operations = document.paths['/api/{tenant}/v1/workChat/callback/{workCorpId}'];
    expect(Object.keys(operations).sort()).toEqual(['get', 'post']);
    for (const operation of Object.values<Json>(operations)) {
      expect(operation['x-atrium-auth']).toEqual({ credential: 'none', permission: null });
      // Public: an empty requirement, no OAuth scheme (issue 22: public operations declare `security: []`).
      expect(operation.security).toEqual([]);
      expect(operation.description).toContain('Called by the chat platform');
    }
  });
});
