import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { secretSealer } from '../../src/common/crypto/secret-sealer';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../../src/chat/staff-users/work-chat-user.entity';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

type Method = 'get' | 'post' | 'put' | 'delete';

const SECRET = 'api-channel-signing-secret-0123456789';

/**
 * Issue 6, Configuration resources: channels (`{C}/chat/channel`, the spec's `PUT {C}/chat/channel/{id}` plus
 * create, list, read, delete) and chat groups (the spec's tenant-less `GET/PUT /api/console/chat/group/{id}` with the
 * tenant from the token, plus create and list under `{C}/chat/group` and delete): type rules, write-only secret,
 * one channel per corp, one chat group per channel (also under concurrency), deleting a channel a group handles
 * (409), tenant isolation (403 on another tenant's paths, 404 for its ids, also on the tenant-less paths) and the
 * chat:write scope. Configured with small caps (CHAT_CHANNEL_MAX_ALLOWED_ORIGINS=2, CHAT_GROUP_MAX_MEMBERS=2,
 * CHAT_GROUP_MAX_CHANNELS=3).
 */
describe('channels ({C}/chat/channel) and chat groups (/api/console/chat/group)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let corpId: string;
  let seq = 0;
  const C = '/api/acme/console';
  const G = '/api/console/chat/group';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });

  /** A web widget channel of acme; returns its id. */
  async function newWidget(bearer = token, tenant = 'acme'): Promise<string> {
    const n = ++seq;
    return (await api('post', `/api/${tenant}/console/chat/channel`, bearer).send({ name: `Widget ${n}`, type: 'web_widget', allowedOrigins: [`https://shop${n}.example.com`] }).expect(200)).body.id;
  }

  /** A staff user row of acme; returns its id. */
  async function newStaffUser(): Promise<string> {
    const n = ++seq;
    return (await dataSource.getRepository(WorkChatUserEntity).save({ tenantId: 'acme', corpId, workChatUserId: `member${n}`, userId: null, name: `Member ${n}`, mobile: null, email: null, online: true, digitalStaffId: null })).id;
  }

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_CHANNEL_MAX_ALLOWED_ORIGINS: '2', CHAT_GROUP_MAX_MEMBERS: '2', CHAT_GROUP_MAX_CHANNELS: '3' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    corpId = (await api('post', `${C}/workChat/corps`).send({ corpName: 'Channel corp', workChatCorpId: 'wwchannel' }).expect(200)).body.id;
  });
  afterAll(() => testApp?.close());

  describe('channels', () => {
    it('creates a web widget with a public key and normalised origins, reads it, and PUT replaces it (key kept)', async () => {
      const groupId = (await api('post', `${C}/userConversationGroups`).send({ name: 'Widget flow' }).expect(200)).body.id;
      const staff = await dataSource.getRepository(DigitalStaffEntity).save({ tenantId: 'acme', name: 'Widget staff', persona: 'You help.', description: null, welcomeMessage: null, enabled: true });
      const created = await api('post', `${C}/chat/channel`)
        .send({ name: 'Shop widget', type: 'web_widget', allowedOrigins: ['https://Shop.Example.com/', 'https://shop.example.com'], welcomeMessage: 'Hi!', themeColor: '#1a73e8', digitalStaffId: staff.id, conversationGroupId: groupId })
        .expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Shop widget',
        type: 'web_widget',
        corpId: null,
        allowedOrigins: ['https://shop.example.com'],
        welcomeMessage: 'Hi!',
        themeColor: '#1A73E8',
        widgetKey: expect.stringMatching(/^wk_[0-9a-f]{32}$/),
        hasSecret: false,
        digitalStaffId: staff.id,
        conversationGroupId: groupId,
        chatGroupId: null,
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${C}/chat/channel/${created.body.id}`).expect(200)).body).toEqual(created.body);
      const replaced = await api('put', `${C}/chat/channel/${created.body.id}`).send({ name: 'Shop widget v2', type: 'web_widget', allowedOrigins: ['http://localhost:3000'] }).expect(200);
      expect(replaced.body).toMatchObject({ name: 'Shop widget v2', allowedOrigins: ['http://localhost:3000'], welcomeMessage: null, themeColor: null, digitalStaffId: null, conversationGroupId: null, widgetKey: created.body.widgetKey });
    });

    it('keeps the api secret write-only: required on creation, kept when omitted on PUT, replaced when given', async () => {
      const missing = await api('post', `${C}/chat/channel`).send({ name: 'CRM', type: 'api' }).expect(400);
      expect(missing.body.errors).toEqual([{ field: 'secret', messages: ['secret is required for a new api channel (16..256 characters).'] }]);
      const created = await api('post', `${C}/chat/channel`).send({ name: 'CRM', type: 'api', secret: SECRET }).expect(200);
      expect(created.body).toMatchObject({ type: 'api', hasSecret: true, widgetKey: null, allowedOrigins: null });
      expect(JSON.stringify(created.body)).not.toContain(SECRET);
      const kept = await api('put', `${C}/chat/channel/${created.body.id}`).send({ name: 'CRM sync', type: 'api' }).expect(200);
      expect(kept.body.hasSecret).toBe(true);
      // Sealed at rest (issue 19): the row holds ciphertext, opened here with the app's sealer.
      const stored = async () => {
        const sealed: string = (await dataSource.query('SELECT secret FROM chat_channel WHERE id = $1', [created.body.id]))[0].secret;
        expect(sealed).toMatch(/^v1:/);
        return secretSealer().open(sealed);
      };
      expect(await stored()).toBe(SECRET);
      await api('put', `${C}/chat/channel/${created.body.id}`).send({ name: 'CRM sync', type: 'api', secret: `${SECRET}-rotated` }).expect(200);
      expect(await stored()).toBe(`${SECRET}-rotated`);
      const listed = await api('get', `${C}/chat/channel?type=api`).expect(200);
      expect(JSON.stringify(listed.body)).not.toContain(SECRET);
      await api('post', `${C}/chat/channel`).send({ name: 'Short', type: 'api', secret: 'short' }).expect(400);
    });

    it('links at most one work_chat channel per corp (409), and refuses fields of other types and a changed type (400)', async () => {
      const first = await api('post', `${C}/chat/channel`).send({ name: 'Corp inbox', type: 'work_chat', corpId }).expect(200);
      expect(first.body).toMatchObject({ type: 'work_chat', corpId, allowedOrigins: null, widgetKey: null });
      const second = await api('post', `${C}/chat/channel`).send({ name: 'Corp inbox 2', type: 'work_chat', corpId }).expect(409);
      expect(second.body.detail).toBe(`Corp ${corpId} already has a channel ("Corp inbox", ${first.body.id}); a corp has at most one.`);
      const ghost = randomUUID();
      expect((await api('post', `${C}/chat/channel`).send({ name: 'Ghost', type: 'work_chat', corpId: ghost }).expect(400)).body.errors).toEqual([
        { field: 'corpId', messages: [`No corp ${ghost} in this tenant.`] },
      ]);
      const mixed = await api('post', `${C}/chat/channel`).send({ name: 'Mixed', type: 'work_chat', corpId, allowedOrigins: ['https://a.com'], secret: SECRET }).expect(400);
      expect(mixed.body.errors.map((e: { field: string }) => e.field)).toEqual(['allowedOrigins', 'secret']);
      const retype = await api('put', `${C}/chat/channel/${first.body.id}`).send({ name: 'Corp inbox', type: 'api', secret: SECRET }).expect(400);
      expect(retype.body.errors).toEqual([{ field: 'type', messages: ['type is fixed at creation: channel "Corp inbox" is work_chat; create a new channel for api.'] }]);
      const origins = await api('post', `${C}/chat/channel`).send({ name: 'Too many', type: 'web_widget', allowedOrigins: ['https://a.com', 'https://b.com', 'https://c.com'] }).expect(400);
      expect(origins.body.errors).toEqual([{ field: 'allowedOrigins', messages: ['allowedOrigins has 3 origins; at most 2 are allowed (CHAT_CHANNEL_MAX_ALLOWED_ORIGINS).'] }]);
      const insecure = await api('post', `${C}/chat/channel`).send({ name: 'Insecure', type: 'web_widget', allowedOrigins: ['http://shop.example.com'] }).expect(400);
      expect(insecure.body.errors[0].field).toBe('allowedOrigins[0]');
      await api('post', `${C}/chat/channel`).send({ name: 'Bad type', type: 'fax' }).expect(400);
      await api('post', `${C}/chat/channel`).send({ name: 'Bad colour', type: 'web_widget', allowedOrigins: ['https://a.com'], themeColor: 'blue' }).expect(400);
      expect((await api('post', `${C}/chat/channel`).send({ name: 'Corp inbox', type: 'api', secret: SECRET }).expect(409)).body.detail).toBe('The tenant already has a channel named "Corp inbox".');
    });

    it('lists with type, name and enabled filters and allowed sorts; 404 and 400 for bad ids', async () => {
      await api('post', `${C}/chat/channel`).send({ name: 'List me A', type: 'web_widget', allowedOrigins: ['https://a.example.com'], enabled: false }).expect(200);
      await api('post', `${C}/chat/channel`).send({ name: 'List me B', type: 'web_widget', allowedOrigins: ['https://b.example.com'] }).expect(200);
      const named = await api('get', `${C}/chat/channel?name=list%20ME&sort=name,desc`).expect(200);
      expect(named.body.content.map((c: { name: string }) => c.name)).toEqual(['List me B', 'List me A']);
      expect((await api('get', `${C}/chat/channel?name=list&enabled=false`).expect(200)).body.content.map((c: { name: string }) => c.name)).toEqual(['List me A']);
      expect((await api('get', `${C}/chat/channel?type=work_chat`).expect(200)).body.content.every((c: { type: string }) => c.type === 'work_chat')).toBe(true);
      await api('get', `${C}/chat/channel?type=fax`).expect(400);
      await api('get', `${C}/chat/channel?sort=secret,asc`).expect(400);
      await api('get', `${C}/chat/channel/${randomUUID()}`).expect(404);
      await api('put', `${C}/chat/channel/${randomUUID()}`).send({ name: 'x', type: 'api', secret: SECRET }).expect(404);
      await api('delete', `${C}/chat/channel/${randomUUID()}`).expect(404);
      await api('get', `${C}/chat/channel/nope`).expect(400);
    });
  });

  describe('chat groups', () => {
    it('creates under {C}, reads and replaces by id without a tenant segment, lists and deletes', async () => {
      const [channelA, channelB] = [await newWidget(), await newWidget()];
      const member = await newStaffUser();
      const staff = await dataSource.getRepository(DigitalStaffEntity).save({ tenantId: 'acme', name: 'Team staff', persona: 'You help.', description: null, welcomeMessage: null, enabled: true });
      const created = await api('post', `${C}/chat/group`)
        .send({ name: 'After-sales team', description: 'Orders', channelIds: [channelB, channelA], memberUserIds: [member], digitalStaffId: staff.id, routingStrategy: 'least_busy', maxConcurrentChatsPerMember: 5 })
        .expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'After-sales team',
        description: 'Orders',
        channelIds: [channelA, channelB].sort(),
        memberUserIds: [member],
        digitalStaffId: staff.id,
        routingStrategy: 'least_busy',
        maxConcurrentChatsPerMember: 5,
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${G}/${created.body.id}`).expect(200)).body).toEqual(created.body);
      expect((await api('get', `${C}/chat/channel/${channelA}`).expect(200)).body.chatGroupId).toBe(created.body.id);
      const replaced = await api('put', `${G}/${created.body.id}`).send({ name: 'After-sales team', channelIds: [channelA], digitalStaffId: staff.id }).expect(200);
      expect(replaced.body).toMatchObject({ channelIds: [channelA], memberUserIds: [], routingStrategy: 'round_robin', maxConcurrentChatsPerMember: null, description: null });
      expect((await api('get', `${C}/chat/channel/${channelB}`).expect(200)).body.chatGroupId).toBeNull();
      expect((await api('get', `${C}/chat/group?channelId=${channelA}`).expect(200)).body.content.map((g: { id: string }) => g.id)).toEqual([created.body.id]);
      expect((await api('get', `${C}/chat/group?memberUserId=${member}`).expect(200)).body.totalElements).toBe(0);
      expect((await api('get', `${C}/chat/group?name=AFTER`).expect(200)).body.totalElements).toBe(1);
      await api('get', `${C}/chat/group?sort=channelIds,asc`).expect(400);
      expect((await api('delete', `${G}/${created.body.id}`).expect(200)).text).toBe('');
      await api('get', `${G}/${created.body.id}`).expect(404);
      await api('put', `${G}/${created.body.id}`).send({ name: 'x', enabled: false }).expect(404);
      await api('delete', `${G}/${created.body.id}`).expect(404);
      await api('get', `${G}/nope`).expect(400);
    });

    it('validates the team: unknown channels, members and digital staff (400), caps, someone to answer, duplicates', async () => {
      const [ghostChannel, ghostMember, ghostStaff] = [randomUUID(), randomUUID(), randomUUID()];
      const unknown = await api('post', `${C}/chat/group`).send({ name: 'Ghosts', channelIds: [ghostChannel], memberUserIds: [ghostMember], digitalStaffId: ghostStaff }).expect(400);
      expect(unknown.body.errors).toEqual([
        { field: 'channelIds', messages: [`No channel ${ghostChannel} in this tenant.`] },
        { field: 'memberUserIds', messages: [`No staff user ${ghostMember} in this tenant.`] },
        { field: 'digitalStaffId', messages: [`No digital staff ${ghostStaff} in this tenant.`] },
      ]);
      const nobody = await api('post', `${C}/chat/group`).send({ name: 'Nobody' }).expect(400);
      expect(nobody.body.errors).toEqual([
        { field: 'memberUserIds', messages: ['An enabled chat group needs someone to answer: give memberUserIds, a digitalStaffId, or both (or save it with enabled false).'] },
      ]);
      await api('post', `${C}/chat/group`).send({ name: 'Parked', enabled: false }).expect(200);
      const caps = await api('post', `${C}/chat/group`).send({ name: 'Big', channelIds: [randomUUID(), randomUUID(), randomUUID(), randomUUID()], memberUserIds: [randomUUID(), randomUUID(), randomUUID()] }).expect(400);
      expect(caps.body.errors.map((e: { messages: string[] }) => e.messages[0])).toEqual([
        'channelIds has 4 channels; at most 3 are allowed (CHAT_GROUP_MAX_CHANNELS).',
        'memberUserIds has 3 members; at most 2 are allowed (CHAT_GROUP_MAX_MEMBERS).',
      ]);
      const member = await newStaffUser();
      await api('post', `${C}/chat/group`).send({ name: 'Dup', memberUserIds: [member, member] }).expect(400);
      await api('post', `${C}/chat/group`).send({ name: 'Bad strategy', memberUserIds: [member], routingStrategy: 'random' }).expect(400);
      await api('post', `${C}/chat/group`).send({ name: 'Parked', memberUserIds: [member] }).expect(409);
    });

    it('gives a channel to at most one chat group (409 naming it), also when two groups claim it at once', async () => {
      const member = await newStaffUser();
      const channel = await newWidget();
      const owner = await api('post', `${C}/chat/group`).send({ name: 'Owner team', channelIds: [channel], memberUserIds: [member] }).expect(200);
      const refused = await api('post', `${C}/chat/group`).send({ name: 'Thief team', channelIds: [channel], memberUserIds: [member] }).expect(409);
      const channelName = (await api('get', `${C}/chat/channel/${channel}`).expect(200)).body.name;
      expect(refused.body.detail).toBe(`A channel belongs to at most one chat group: channel "${channelName}" is handled by chat group "Owner team" (${owner.body.id}). Remove it from that group first.`);
      // Re-saving the owner with the same channel is fine.
      await api('put', `${G}/${owner.body.id}`).send({ name: 'Owner team', channelIds: [channel], memberUserIds: [member] }).expect(200);

      for (let round = 0; round < 5; round++) {
        const contested = await newWidget();
        const claims = await Promise.all([1, 2, 3].map((i) => api('post', `${C}/chat/group`).send({ name: `Race ${round}.${i}`, channelIds: [contested], memberUserIds: [member] })));
        expect(claims.map((r) => r.status).sort()).toEqual([200, 409, 409]);
        const holders = await dataSource.query(`SELECT id FROM chat_chat_group WHERE tenant_id = 'acme' AND channel_ids @> $1::jsonb`, [JSON.stringify([contested])]);
        expect(holders).toHaveLength(1);
      }
    });

    it('refuses to delete a channel a chat group handles (409 naming the group), and deletes it once released', async () => {
      const member = await newStaffUser();
      const channel = await newWidget();
      const group = await api('post', `${C}/chat/group`).send({ name: 'Holding team', channelIds: [channel], memberUserIds: [member] }).expect(200);
      const refused = await api('delete', `${C}/chat/channel/${channel}`).expect(409);
      expect(refused.body.detail).toMatch(new RegExp(`is handled by chat group "Holding team"; remove it from the group's channelIds \\(PUT /api/console/chat/group/${group.body.id}\\) first\\.$`));
      await api('put', `${G}/${group.body.id}`).send({ name: 'Holding team', memberUserIds: [member] }).expect(200);
      await api('delete', `${C}/chat/channel/${channel}`).expect(200);
      await api('get', `${C}/chat/channel/${channel}`).expect(404);
    });
  });

  describe('tenant isolation and scopes', () => {
    it('refuses another tenant\'s token on acme paths (403); acme ids are unknown to globex, also on the tenant-less paths (404)', async () => {
      const member = await newStaffUser();
      const channel = await newWidget();
      const group = (await api('post', `${C}/chat/group`).send({ name: 'Isolated team', channelIds: [channel], memberUserIds: [member] }).expect(200)).body.id;
      await api('get', `${C}/chat/channel/${channel}`, otherToken).expect(403);
      await api('put', `${C}/chat/channel/${channel}`, otherToken).send({ name: 'x', type: 'web_widget', allowedOrigins: ['https://x.com'] }).expect(403);
      await api('post', `${C}/chat/group`, otherToken).send({ name: 'x', enabled: false }).expect(403);
      await api('get', `${C}/chat/group`, otherToken).expect(403);
      const OG = '/api/globex/console';
      await api('get', `${OG}/chat/channel/${channel}`, otherToken).expect(404);
      await api('put', `${OG}/chat/channel/${channel}`, otherToken).send({ name: 'x', type: 'web_widget', allowedOrigins: ['https://x.com'] }).expect(404);
      await api('delete', `${OG}/chat/channel/${channel}`, otherToken).expect(404);
      expect((await api('get', `${G}/${group}`, otherToken).expect(404)).body.detail).toBe(`No chat group ${group} in this tenant.`);
      await api('put', `${G}/${group}`, otherToken).send({ name: 'Stolen', enabled: false }).expect(404);
      await api('delete', `${G}/${group}`, otherToken).expect(404);
      // globex cannot claim acme's channel or staff user, and its own groups are invisible to acme.
      const claim = await api('post', `${OG}/chat/group`, otherToken).send({ name: 'Claim', channelIds: [channel], memberUserIds: [member] }).expect(400);
      expect(claim.body.errors.map((e: { field: string }) => e.field)).toEqual(['channelIds', 'memberUserIds']);
      const globexChannel = await newWidget(otherToken, 'globex');
      const globexGroup = (await api('post', `${OG}/chat/group`, otherToken).send({ name: 'Globex team', channelIds: [globexChannel], enabled: false }).expect(200)).body.id;
      expect((await api('get', `${G}/${globexGroup}`, otherToken).expect(200)).body.tenantId).toBe('globex');
      await api('get', `${G}/${globexGroup}`).expect(404);
      expect((await api('get', `${G}/${group}`).expect(200)).body.name).toBe('Isolated team');
    });

    it('serves reads to a chat:read token and refuses its writes (403)', async () => {
      const channel = await newWidget();
      const group = (await api('post', `${C}/chat/group`).send({ name: 'Read team', enabled: false }).expect(200)).body.id;
      await api('get', `${C}/chat/channel/${channel}`, readOnlyToken).expect(200);
      await api('get', `${C}/chat/channel`, readOnlyToken).expect(200);
      await api('get', `${G}/${group}`, readOnlyToken).expect(200);
      await api('get', `${C}/chat/group`, readOnlyToken).expect(200);
      const writes = await Promise.all([
        api('post', `${C}/chat/channel`, readOnlyToken).send({ name: 'ro', type: 'api', secret: SECRET }),
        api('put', `${C}/chat/channel/${channel}`, readOnlyToken).send({ name: 'ro', type: 'web_widget', allowedOrigins: ['https://x.com'] }),
        api('delete', `${C}/chat/channel/${channel}`, readOnlyToken),
        api('post', `${C}/chat/group`, readOnlyToken).send({ name: 'ro', enabled: false }),
        api('put', `${G}/${group}`, readOnlyToken).send({ name: 'ro', enabled: false }),
        api('delete', `${G}/${group}`, readOnlyToken),
      ]);
      expect(writes.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 403]);
      await api('get', `${C}/chat/channel/${channel}`).expect(200);
    });
  });

  it('documents every operation with its operationId in the served OpenAPI document', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { operationId: string; security?: unknown }>> };
    const ids = (path: string) => Object.fromEntries(Object.entries(document.paths[path] ?? {}).map(([method, operation]) => [method, operation.operationId]));
    expect(ids('/api/{tenant}/console/chat/channel')).toEqual({ post: 'createChatChannel', get: 'pageChatChannels' });
    expect(ids('/api/{tenant}/console/chat/channel/{id}')).toEqual({ get: 'getChatChannel', put: 'updateChatChannel', delete: 'deleteChatChannel' });
    expect(ids('/api/{tenant}/console/chat/group')).toEqual({ post: 'createChatGroup', get: 'pageChatGroups' });
    expect(ids('/api/console/chat/group/{id}')).toEqual({ get: 'getChatGroup', put: 'updateChatGroup', delete: 'deleteChatGroup' });
    expect(document.paths['/api/console/chat/group/{id}'].put.security).toEqual([{ oauth2: ['chat:write'] }]);
  });
});
