import request from 'supertest';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

type Method = 'get' | 'post' | 'put' | 'delete';

const KEY = '693a91f6-7aaa-4bc4-97a0-0ec2b1fa5aaa';
const OTHER_KEY = '11111111-2222-3333-4444-555555555555';

/**
 * Issue 6, Messages: "Enterprise robot". Robot chat groups (`{T}/v1/entrobot/group`: the spec's create plus list,
 * read, update, delete) with a write-only webhook key, and sending through them (`{T}/v1/entrobot/message/sendMsg`)
 * via the platform port: the simulator in the first app, a local fake platform server (real HTTP) in the second,
 * where an errcode refusal becomes problem details. Limits are small here (CHAT_ENT_ROBOT_TEXT_MAX_BYTES=20,
 * CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES=40, CHAT_ENT_ROBOT_MAX_MENTIONS=2).
 */
describe('enterprise robot ({T}/v1/entrobot)', () => {
  const LIMITS = { CHAT_ENT_ROBOT_TEXT_MAX_BYTES: '20', CHAT_ENT_ROBOT_MARKDOWN_MAX_BYTES: '40', CHAT_ENT_ROBOT_MAX_MENTIONS: '2' };
  const T = '/api/acme/v1/entrobot';

  describe('with the platform simulator', () => {
    let testApp: TestApp;
    let token: string;
    let otherToken: string;
    let readOnlyToken: string;
    /** Every response body seen, to show the key never leaves. */
    const seen: string[] = [];
    const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
    const record = <R extends { text: string }>(response: R): R => (seen.push(response.text), response);

    beforeAll(async () => {
      testApp = await startTestApp(LIMITS);
      await newTenant(testApp, 'acme');
      await newTenant(testApp, 'globex');
      token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
      otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
      readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    });
    afterAll(async () => {
      expect(seen.length).toBeGreaterThan(10);
      for (const text of seen) expect(text).not.toContain(KEY);
      await testApp?.close();
    });

    it('creates, reads, lists, updates (key kept when omitted, replaced when given) and deletes a group; the key shows only as a hint', async () => {
      const corpId = record(await api('post', '/api/acme/console/workChat/corps').send({ corpName: 'Robot corp', workChatCorpId: 'wwrobot' }).expect(200)).body.id;
      const created = record(await api('post', `${T}/group`).send({ name: 'Ops alerts', webhookKey: KEY, corpId, description: 'Night shift' }).expect(200));
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Ops alerts',
        keyHint: '****5aaa',
        corpId,
        description: 'Night shift',
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const id = created.body.id;
      expect(record(await api('get', `${T}/group/${id}`).expect(200)).body).toEqual(created.body);
      record(await api('post', `${T}/group`).send({ name: 'Sales', webhookKey: OTHER_KEY, enabled: false }).expect(200));
      const page = record(await api('get', `${T}/group?sort=name,asc`).expect(200)).body;
      expect(page).toMatchObject({ totalElements: 2, page: 0, size: 20 });
      expect(page.content.map((g: { name: string }) => g.name)).toEqual(['Ops alerts', 'Sales']);
      expect(record(await api('get', `${T}/group?enabled=false`).expect(200)).body.content.map((g: { name: string }) => g.name)).toEqual(['Sales']);
      expect(record(await api('get', `${T}/group?name=OPS`).expect(200)).body.totalElements).toBe(1);

      const renamed = record(await api('put', `${T}/group/${id}`).send({ name: 'Ops alerts v2' }).expect(200)).body;
      expect(renamed).toMatchObject({ name: 'Ops alerts v2', keyHint: '****5aaa', corpId: null, description: null, enabled: true });
      record(await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'text', content: 'kept key' }).expect(200));
      const simulator = testApp.app.get(ChatPlatformSimulator);
      expect((await simulator.listRobotMessages({ tenantId: 'acme' }, { webhookKey: KEY })).map((m) => m.content)).toEqual(['kept key']);

      const rekeyed = record(await api('put', `${T}/group/${id}`).send({ name: 'Ops alerts v2', webhookKey: 'abcdef12-0000-0000-0000-00000000beef' }).expect(200)).body;
      expect(rekeyed.keyHint).toBe('****beef');
      record(await api('delete', `${T}/group/${id}`).expect(200));
      record(await api('get', `${T}/group/${id}`).expect(404));
      record(await api('delete', `${T}/group/${id}`).expect(404));
    });

    it('answers 400 for invalid groups and 409 for a taken name', async () => {
      const missingKey = record(await api('post', `${T}/group`).send({ name: 'No key' }).expect(400));
      expect(missingKey.body.detail).toContain('webhookKey is required');
      const url = record(await api('post', `${T}/group`).send({ name: 'URL', webhookKey: `https://qyapi.example.com/cgi-bin/webhook/send?key=${KEY}` }).expect(400));
      expect(url.body.detail).toContain('not the whole URL');
      record(await api('post', `${T}/group`).send({ webhookKey: KEY }).expect(400));
      record(await api('post', `${T}/group`).send({ name: ' padded ', webhookKey: KEY }).expect(400));
      record(await api('post', `${T}/group`).send({ name: 'Bad corp', webhookKey: KEY, corpId: '00000000-0000-4000-8000-000000000000' }).expect(400));
      record(await api('post', `${T}/group`).send({ name: 'Flag', webhookKey: KEY, enabled: 'yes' }).expect(400));
      record(await api('get', `${T}/group?size=0`).expect(400));
      record(await api('get', `${T}/group?sort=webhookKey,asc`).expect(400));
      record(await api('get', `${T}/group/not-a-uuid`).expect(400));
      record(await api('post', `${T}/group`).send({ name: 'Twice', webhookKey: KEY }).expect(200));
      const taken = record(await api('post', `${T}/group`).send({ name: 'Twice', webhookKey: OTHER_KEY }).expect(409));
      expect(taken.body.detail).toContain('"Twice"');
    });

    it('sends text with mentions and markdown through the simulator and logs each send', async () => {
      const key = 'a1b2c3d4-0000-4000-8000-000000000001';
      const id = record(await api('post', `${T}/group`).send({ name: 'Send', webhookKey: key }).expect(200)).body.id;
      record(await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'text', content: 'Disk 90%', mentionedUserIds: ['zhangsan'], mentionedMobiles: ['13800000000'] }).expect(200));
      record(await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'markdown', content: '# Deploy done' }).expect(200));
      const sent = await testApp.app.get(ChatPlatformSimulator).listRobotMessages({ tenantId: 'acme' }, { webhookKey: key });
      expect(sent.map((m) => ({ msgType: m.msgType, content: m.content, mentions: m.mentions }))).toEqual([
        { msgType: 'text', content: 'Disk 90%', mentions: { userIds: ['zhangsan'], mobiles: ['13800000000'] } },
        { msgType: 'markdown', content: '# Deploy done', mentions: { userIds: [], mobiles: [] } },
      ]);
      const log = record(await api('get', `${T}/group/${id}/messages?sort=createdAt,asc`).expect(200)).body;
      expect(log.content.map((e: Record<string, unknown>) => [e.msgType, e.contentBytes, e.mentionCount, e.status, e.platformErrorCode])).toEqual([
        ['text', 8, 2, 'sent', null],
        ['markdown', 13, 0, 'sent', null],
      ]);
    });

    it('refuses bad messages (400), oversized ones (413), unknown (404) and disabled groups (409), sending nothing', async () => {
      const key = 'a1b2c3d4-0000-4000-8000-000000000002';
      const id = record(await api('post', `${T}/group`).send({ name: 'Limits', webhookKey: key }).expect(200)).body.id;
      const send = (body: Record<string, unknown>) => api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'text', content: 'hi', ...body });
      record(await send({ msgType: 'image' }).expect(400));
      record(await send({ content: undefined }).expect(400));
      expect(record(await send({ content: '   ' }).expect(400)).body.detail).toContain('must not be empty');
      record(await send({ groupId: 'nope' }).expect(400));
      expect(record(await send({ msgType: 'markdown', mentionedUserIds: ['a'] }).expect(400)).body.detail).toContain('work with msgType "text" only');
      expect(record(await send({ mentionedUserIds: ['a', 'b'], mentionedMobiles: ['13800000000'] }).expect(400)).body.detail).toContain('At most 2 mentions');
      record(await send({ mentionedMobiles: ['call me'] }).expect(400));
      const tooLarge = record(await send({ content: '你好世界你好世界' }).expect(413));
      expect(tooLarge.body.detail).toContain('at most 20 bytes');
      record(await send({ msgType: 'markdown', content: 'x'.repeat(40) }).expect(200));
      record(await send({ msgType: 'markdown', content: 'x'.repeat(41) }).expect(413));
      const unknown = record(await send({ groupId: '00000000-0000-4000-8000-000000000000' }).expect(404));
      expect(unknown.body.detail).toContain('No robot chat group');
      record(await api('put', `${T}/group/${id}`).send({ name: 'Limits', enabled: false }).expect(200));
      expect(record(await send({}).expect(409)).body.detail).toContain('is disabled');
      expect((await testApp.app.get(ChatPlatformSimulator).listRobotMessages({ tenantId: 'acme' }, { webhookKey: key })).map((m) => m.content)).toEqual(['x'.repeat(40)]);
    });

    it('isolates tenants (403 on acme paths with a globex token, 404 for acme ids on globex paths) and needs chat:write to write', async () => {
      const id = record(await api('post', `${T}/group`).send({ name: 'Isolated', webhookKey: KEY }).expect(200)).body.id;
      const statuses = [
        (await api('get', `${T}/group`, otherToken)).status,
        (await api('get', `${T}/group/${id}`, otherToken)).status,
        (await api('post', `${T}/group`, otherToken).send({ name: 'x', webhookKey: KEY })).status,
        (await api('post', `${T}/message/sendMsg`, otherToken).send({ groupId: id, msgType: 'text', content: 'x' })).status,
      ];
      expect(statuses).toEqual([403, 403, 403, 403]);
      const G = '/api/globex/v1/entrobot';
      record(await api('get', `${G}/group/${id}`, otherToken).expect(404));
      record(await api('put', `${G}/group/${id}`, otherToken).send({ name: 'Stolen' }).expect(404));
      record(await api('delete', `${G}/group/${id}`, otherToken).expect(404));
      record(await api('get', `${G}/group/${id}/messages`, otherToken).expect(404));
      record(await api('post', `${G}/message/sendMsg`, otherToken).send({ groupId: id, msgType: 'text', content: 'x' }).expect(404));
      expect(record(await api('get', `${G}/group`, otherToken).expect(200)).body.totalElements).toBe(0);

      record(await api('get', `${T}/group/${id}`, readOnlyToken).expect(200));
      const writes = [
        (await api('post', `${T}/group`, readOnlyToken).send({ name: 'RO', webhookKey: KEY })).status,
        (await api('put', `${T}/group/${id}`, readOnlyToken).send({ name: 'RO' })).status,
        (await api('delete', `${T}/group/${id}`, readOnlyToken)).status,
        (await api('post', `${T}/message/sendMsg`, readOnlyToken).send({ groupId: id, msgType: 'text', content: 'x' })).status,
      ];
      expect(writes).toEqual([403, 403, 403, 403]);
      expect(record(await api('get', `${T}/group/${id}`).expect(200)).body.name).toBe('Isolated');
    });
  });

  describe('with the HTTP adapter and a local fake platform server', () => {
    let fake: FakeChatPlatform;
    let testApp: TestApp;
    let token: string;
    const api = (method: Method, path: string) => request(testApp.baseUrl)[method](path).auth(token, { type: 'bearer' });

    beforeAll(async () => {
      fake = await startFakeChatPlatform({ robotKeys: [KEY] });
      testApp = await startTestApp({ ...LIMITS, CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: `${fake.url}/`, CHAT_PLATFORM_HTTP_TIMEOUT_MS: '500', CHAT_PLATFORM_HTTP_RETRIES: '0' });
      await newTenant(testApp, 'acme');
      token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    });
    afterAll(async () => {
      await testApp?.close();
      await fake?.close();
    });

    it('posts text with mentions and markdown to the webhook of the registered key', async () => {
      const id = (await api('post', `${T}/group`).send({ name: 'Live', webhookKey: KEY }).expect(200)).body.id;
      await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'text', content: 'Hello team', mentionedUserIds: ['@all'] }).expect(200);
      await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'markdown', content: '**Release** 1.2' }).expect(200);
      expect(fake.robotMessages).toEqual([
        { key: KEY, body: { msgtype: 'text', text: { content: 'Hello team', mentioned_list: ['@all'], mentioned_mobile_list: [] } } },
        { key: KEY, body: { msgtype: 'markdown', markdown: { content: '**Release** 1.2' } } },
      ]);
    });

    it('maps the platform\'s errcode 93000 (key not accepted) to a 400 problem with the errcode, logged as failed, key not disclosed', async () => {
      const id = (await api('post', `${T}/group`).send({ name: 'Stale key', webhookKey: OTHER_KEY }).expect(200)).body.id;
      const before = fake.robotMessages.length;
      const refused = await api('post', `${T}/message/sendMsg`).send({ groupId: id, msgType: 'text', content: 'Anyone?' }).expect(400);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.body).toMatchObject({ status: 400, platformOperation: 'sendRobotMessage', platformErrorCode: 93000 });
      expect(refused.text).not.toContain(OTHER_KEY);
      expect(fake.robotMessages.length).toBe(before);
      const log = (await api('get', `${T}/group/${id}/messages`).expect(200)).body;
      expect(log.content).toEqual([expect.objectContaining({ status: 'failed', platformErrorCode: 93000, contentBytes: 7, platformError: expect.stringContaining('errcode 93000') })]);
      expect(JSON.stringify(log)).not.toContain(OTHER_KEY);
    });
  });
});
