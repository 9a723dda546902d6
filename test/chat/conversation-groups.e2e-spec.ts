import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { GroupWayEntity } from '../../src/chat/group-ways/group-way.entity';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * Issue 6, Configuration resources: conversation groups (`{C}/userConversationGroups`), their event definitions and
 * triggers (`{C}/conversationGroups/{groupId}/eventDefinitions|triggers`): create, read, replace, delete, list,
 * validation, the same-group rule for trigger → event definitions (400), deleting a definition in use (409 naming
 * the triggers) including under concurrency, per-group caps under concurrency, deleting a referenced group (409
 * naming what references it), tenant isolation and the chat:write scope.
 */
describe('conversation groups, event definitions and triggers', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let seq = 0;
  const C = '/api/acme/console';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });

  /** A conversation group of acme through the API; returns its id. */
  async function newGroup(overrides: Record<string, unknown> = {}, bearer = token, base = C): Promise<string> {
    const response = await api('post', `${base}/userConversationGroups`, bearer).send({ name: `Group ${++seq}`, ...overrides }).expect(200);
    return response.body.id;
  }

  /** An event definition of a group through the API; returns its id. */
  async function newDefinition(groupId: string, overrides: Record<string, unknown> = {}): Promise<string> {
    const response = await api('post', `${C}/conversationGroups/${groupId}/eventDefinitions`).send({ name: `event_${++seq}`, eventType: 'message_received', ...overrides }).expect(200);
    return response.body.id;
  }

  /** A trigger of a group through the API; returns the response. */
  function postTrigger(groupId: string, body: Record<string, unknown>) {
    return api('post', `${C}/conversationGroups/${groupId}/triggers`).send({ name: `Trigger ${++seq}`, action: 'terminate', ...body });
  }

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_CONVERSATION_GROUP_MAX_TRIGGERS: '3', CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS: '4' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
  });
  afterAll(() => testApp?.close());

  describe('conversation groups ({C}/userConversationGroups)', () => {
    it('creates a group with defaults, reads it, and PUT replaces the settings (omitted fields back to defaults)', async () => {
      const created = await api('post', `${C}/userConversationGroups`)
        .send({ name: 'After-sales', description: 'Orders already received', systemPrompt: 'Ask for the order number first.', replyMode: 'suggest', replyDelaySeconds: 5, historyMessageCount: 40, maxReplyChars: 500 })
        .expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'After-sales',
        description: 'Orders already received',
        systemPrompt: 'Ask for the order number first.',
        replyMode: 'suggest',
        replyDelaySeconds: 5,
        historyMessageCount: 40,
        maxReplyChars: 500,
        enabled: true,
        triggerCount: 0,
        eventDefinitionCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${C}/userConversationGroups/${created.body.id}`).expect(200)).body).toEqual(created.body);
      const replaced = await api('put', `${C}/userConversationGroups/${created.body.id}`).send({ name: 'After-sales', enabled: false }).expect(200);
      expect(replaced.body).toMatchObject({ description: null, systemPrompt: null, replyMode: 'auto', replyDelaySeconds: 0, historyMessageCount: 20, maxReplyChars: null, enabled: false });
      const rows = await dataSource.query('SELECT tenant_id, enabled, reply_mode FROM chat_conversation_group WHERE id = $1', [created.body.id]);
      expect(rows).toEqual([{ tenant_id: 'acme', enabled: false, reply_mode: 'auto' }]);
    });

    it('validates the body (400 with field errors) and keeps names unique per tenant (409), not across tenants', async () => {
      const missing = await api('post', `${C}/userConversationGroups`).send({ replyMode: 'loud', replyDelaySeconds: 301, extra: 1 }).expect(400);
      expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(missing.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['extra', 'name', 'replyDelaySeconds', 'replyMode']);
      await api('post', `${C}/userConversationGroups`).send({ name: ' padded' }).expect(400);
      await api('post', `${C}/userConversationGroups`).send({ name: 'Unique one' }).expect(200);
      const duplicate = await api('post', `${C}/userConversationGroups`).send({ name: 'Unique one' }).expect(409);
      expect(duplicate.body.detail).toBe('The tenant already has a conversation group named "Unique one".');
      await api('post', '/api/globex/console/userConversationGroups', otherToken).send({ name: 'Unique one' }).expect(200);
    });

    it('pages, filters by name and enabled, sorts by allowed fields only', async () => {
      for (const name of ['Zeta list', 'Alpha list', 'Beta list']) await newGroup({ name, enabled: name !== 'Beta list' });
      const page = await api('get', `${C}/userConversationGroups?name=LIST&sort=name,asc&size=2`).expect(200);
      expect(page.body).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
      expect(page.body.content.map((g: { name: string }) => g.name)).toEqual(['Alpha list', 'Beta list']);
      const disabled = await api('get', `${C}/userConversationGroups?name=list&enabled=false`).expect(200);
      expect(disabled.body.content.map((g: { name: string }) => g.name)).toEqual(['Beta list']);
      expect((await api('get', `${C}/userConversationGroups?sort=systemPrompt,asc`).expect(400)).body.detail).toBe('Invalid request: sort (Cannot sort by "systemPrompt"; allowed: createdAt, updatedAt, name)');
      await api('get', `${C}/userConversationGroups?size=201`).expect(400);
      await api('get', `${C}/userConversationGroups?enabled=maybe`).expect(400);
    });

    it('answers 404 for unknown ids and 400 for ids that are not UUIDs', async () => {
      const unknown = randomUUID();
      expect((await api('get', `${C}/userConversationGroups/${unknown}`).expect(404)).body.detail).toBe(`No conversation group ${unknown} in this tenant.`);
      await api('put', `${C}/userConversationGroups/${unknown}`).send({ name: 'x' }).expect(404);
      await api('delete', `${C}/userConversationGroups/${unknown}`).expect(404);
      await api('get', `${C}/userConversationGroups/not-a-uuid`).expect(400);
    });
  });

  describe('event definitions ({C}/conversationGroups/{groupId}/eventDefinitions)', () => {
    it('creates each event type with its condition, lists by name, filters by type, and replaces', async () => {
      const groupId = await newGroup();
      const path = `${C}/conversationGroups/${groupId}/eventDefinitions`;
      const keyword = await api('post', path).send({ name: 'asks_refund', eventType: 'message_keyword', keywords: [' Refund ', 'refund', 'money back'], description: 'Refund words' }).expect(200);
      expect(keyword.body).toEqual({
        id: expect.any(String),
        tenantId: 'acme',
        conversationGroupId: groupId,
        name: 'asks_refund',
        description: 'Refund words',
        eventType: 'message_keyword',
        keywords: ['Refund', 'money back'],
        matchMode: 'contains',
        intents: null,
        tagNames: null,
        idleMinutes: null,
        usedByTriggerCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      await api('post', path).send({ name: 'idle', eventType: 'customer_idle', idleMinutes: 30 }).expect(200);
      await api('post', path).send({ name: 'intent', eventType: 'intent_detected', intents: ['refund_request'] }).expect(200);
      await api('post', path).send({ name: 'vip', eventType: 'tag_added', tagNames: ['VIP'] }).expect(200);
      const list = await api('get', path).expect(200);
      expect(list.body.content.map((d: { name: string }) => d.name)).toEqual(['asks_refund', 'idle', 'intent', 'vip']);
      const idle = await api('get', `${path}?eventType=customer_idle`).expect(200);
      expect(idle.body.content).toEqual([expect.objectContaining({ name: 'idle', idleMinutes: 30, keywords: null })]);
      const replaced = await api('put', `${path}/${keyword.body.id}`).send({ name: 'started', eventType: 'conversation_started' }).expect(200);
      expect(replaced.body).toMatchObject({ id: keyword.body.id, name: 'started', eventType: 'conversation_started', keywords: null, matchMode: null, description: null });
      expect((await api('get', `${path}/${keyword.body.id}`).expect(200)).body).toEqual(replaced.body);
      expect((await api('get', `${C}/userConversationGroups/${groupId}`).expect(200)).body.eventDefinitionCount).toBe(4);
    });

    it('refuses condition fields that do not fit the type, bad names and duplicates', async () => {
      const groupId = await newGroup();
      const path = `${C}/conversationGroups/${groupId}/eventDefinitions`;
      const mismatch = await api('post', path).send({ name: 'x', eventType: 'intent_detected', keywords: ['a'] }).expect(400);
      expect(mismatch.body.errors).toEqual([
        { field: 'keywords', messages: ['keywords does not apply to eventType intent_detected.'] },
        { field: 'intents', messages: ['intents is required for eventType intent_detected.'] },
      ]);
      expect((await api('post', path).send({ name: 'Bad Name', eventType: 'message_received' }).expect(400)).body.errors[0].field).toBe('name');
      expect((await api('post', path).send({ name: 'ok', eventType: 'nope' }).expect(400)).body.errors[0].field).toBe('eventType');
      expect((await api('post', path).send({ name: 'ok', eventType: 'customer_idle', idleMinutes: 0 }).expect(400)).body.errors[0].field).toBe('idleMinutes');
      await api('post', path).send({ name: 'dup', eventType: 'message_received' }).expect(200);
      expect((await api('post', path).send({ name: 'dup', eventType: 'message_received' }).expect(409)).body.detail).toBe(`Conversation group ${groupId} already has an event definition named "dup".`);
      await api('post', `${C}/conversationGroups/${randomUUID()}/eventDefinitions`).send({ name: 'x', eventType: 'message_received' }).expect(404);
    });

    it('caps the definitions of a group (CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS=4), also under concurrent creation', async () => {
      const groupId = await newGroup();
      const path = `${C}/conversationGroups/${groupId}/eventDefinitions`;
      const responses = await Promise.all(Array.from({ length: 7 }, (_, i) => api('post', path).send({ name: `concurrent_${i}`, eventType: 'message_received' })));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 409, 409, 409]);
      expect(responses.find((r) => r.status === 409)!.body.detail).toBe(
        `Conversation group ${groupId} already has 4 event definitions, the most allowed (CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS=4); delete one first.`,
      );
      expect((await api('get', path).expect(200)).body.totalElements).toBe(4);
    });
  });

  describe('triggers ({C}/conversationGroups/{groupId}/triggers)', () => {
    it('creates triggers on event definitions of the same group, lists them in run order, replaces and deletes them', async () => {
      const groupId = await newGroup();
      const otherGroupId = await newGroup();
      const refund = await newDefinition(groupId, { eventType: 'message_keyword', keywords: ['refund'] });
      const idle = await newDefinition(groupId, { eventType: 'customer_idle', idleMinutes: 10 });
      const path = `${C}/conversationGroups/${groupId}/triggers`;
      const handoff = await api('post', path).send({ name: 'Refund to a person', eventDefinitionIds: [refund, idle], action: 'handoff', handoffReason: 'Refund asked', priority: 5, cooldownSeconds: 60 }).expect(200);
      expect(handoff.body).toEqual({
        id: expect.any(String),
        tenantId: 'acme',
        conversationGroupId: groupId,
        name: 'Refund to a person',
        description: null,
        eventDefinitionIds: [refund, idle].sort(),
        action: 'handoff',
        text: null,
        scriptContentId: null,
        tagNames: null,
        handoffReason: 'Refund asked',
        targetConversationGroupId: null,
        priority: 5,
        cooldownSeconds: 60,
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const move = await api('post', path).send({ name: 'Idle: move', eventDefinitionIds: [idle], action: 'switch_group', targetConversationGroupId: otherGroupId }).expect(200);
      expect(move.body).toMatchObject({ priority: 100, targetConversationGroupId: otherGroupId });
      await api('post', path).send({ name: 'Tag', eventDefinitionIds: [refund], action: 'add_tags', tagNames: ['refund', 'Refund'], priority: 50, enabled: false }).expect(200);
      const list = await api('get', path).expect(200);
      expect(list.body.content.map((t: { name: string }) => t.name)).toEqual(['Refund to a person', 'Tag', 'Idle: move']);
      expect((await api('get', `${path}?action=add_tags`).expect(200)).body.content).toEqual([expect.objectContaining({ tagNames: ['refund'], enabled: false })]);
      expect((await api('get', `${path}?enabled=false`).expect(200)).body.totalElements).toBe(1);
      const definitions = await api('get', `${C}/conversationGroups/${groupId}/eventDefinitions?sort=createdAt,asc`).expect(200);
      expect(definitions.body.content.map((d: { usedByTriggerCount: number }) => d.usedByTriggerCount)).toEqual([2, 2]);

      const replaced = await api('put', `${path}/${handoff.body.id}`).send({ name: 'Refund text', eventDefinitionIds: [refund], action: 'send_text', text: 'We will refund you.' }).expect(200);
      expect(replaced.body).toMatchObject({ eventDefinitionIds: [refund], action: 'send_text', text: 'We will refund you.', handoffReason: null, priority: 100, cooldownSeconds: 0 });
      expect((await api('get', `${path}/${handoff.body.id}`).expect(200)).body).toEqual(replaced.body);
      expect((await api('get', `${C}/userConversationGroups/${groupId}`).expect(200)).body.triggerCount).toBe(3);
      await api('delete', `${path}/${handoff.body.id}`).expect(200);
      await api('get', `${path}/${handoff.body.id}`).expect(404);
      // A trigger is addressed through its own group only.
      await api('get', `${C}/conversationGroups/${otherGroupId}/triggers/${move.body.id}`).expect(404);
    });

    it('refuses event definitions of another group (naming it) or unknown, and action fields that do not fit (400)', async () => {
      const groupId = await newGroup();
      const otherGroupId = await newGroup();
      const own = await newDefinition(groupId);
      const foreign = await newDefinition(otherGroupId, { name: 'foreign_event' });
      const unknown = randomUUID();
      const refused = await postTrigger(groupId, { eventDefinitionIds: [own, foreign, unknown] }).expect(400);
      expect(refused.body.errors).toEqual([
        { field: 'eventDefinitionIds', messages: [`Event definition ${foreign} ("foreign_event") belongs to conversation group ${otherGroupId}; a trigger may only use event definitions of its own group (${groupId}).`] },
        { field: 'eventDefinitionIds', messages: [`Event definition ${unknown} does not exist in conversation group ${groupId}.`] },
      ]);
      const wrongFields = await postTrigger(groupId, { eventDefinitionIds: [own], action: 'send_text', tagNames: ['x'] }).expect(400);
      expect(wrongFields.body.errors).toEqual([
        { field: 'text', messages: ['text is required for action send_text.'] },
        { field: 'tagNames', messages: ['tagNames does not apply to action send_text.'] },
      ]);
      const self = await postTrigger(groupId, { eventDefinitionIds: [own], action: 'switch_group', targetConversationGroupId: groupId }).expect(400);
      expect(self.body.errors).toEqual([{ field: 'targetConversationGroupId', messages: ["targetConversationGroupId must be another conversation group than the trigger's own."] }]);
      const nowhere = randomUUID();
      const noTarget = await postTrigger(groupId, { eventDefinitionIds: [own], action: 'switch_group', targetConversationGroupId: nowhere }).expect(400);
      expect(noTarget.body.errors).toEqual([{ field: 'targetConversationGroupId', messages: [`targetConversationGroupId ${nowhere} is not a conversation group of this tenant.`] }]);
      await postTrigger(groupId, { eventDefinitionIds: [] }).expect(400);
      await postTrigger(groupId, { eventDefinitionIds: [own, own] }).expect(400);
      await postTrigger(groupId, { eventDefinitionIds: ['nope'] }).expect(400);
      // The same rule on PUT.
      const trigger = await postTrigger(groupId, { eventDefinitionIds: [own] }).expect(200);
      await api('put', `${C}/conversationGroups/${groupId}/triggers/${trigger.body.id}`).send({ name: 'x', action: 'terminate', eventDefinitionIds: [foreign] }).expect(400);
      const name = trigger.body.name;
      expect((await postTrigger(groupId, { name, eventDefinitionIds: [own] }).expect(409)).body.detail).toBe(`Conversation group ${groupId} already has a trigger named "${name}".`);
    });

    it('caps the triggers of a group (CHAT_CONVERSATION_GROUP_MAX_TRIGGERS=3), also under concurrent creation', async () => {
      const groupId = await newGroup();
      const definition = await newDefinition(groupId);
      const responses = await Promise.all(Array.from({ length: 6 }, () => postTrigger(groupId, { eventDefinitionIds: [definition] })));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 409, 409, 409]);
      expect(responses.find((r) => r.status === 409)!.body.detail).toMatch(/already has 3 triggers, the most allowed \(CHAT_CONVERSATION_GROUP_MAX_TRIGGERS=3\)/);
    });
  });

  describe('deleting an event definition in use', () => {
    it('is refused (409) naming the triggers, and allowed once no trigger uses it', async () => {
      const groupId = await newGroup();
      const used = await newDefinition(groupId, { name: 'used_event' });
      const spare = await newDefinition(groupId);
      const first = await postTrigger(groupId, { name: 'B uses it', eventDefinitionIds: [used, spare] }).expect(200);
      await postTrigger(groupId, { name: 'A uses it', eventDefinitionIds: [used] }).expect(200);
      const refused = await api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${used}`).expect(409);
      expect(refused.body.detail).toBe('Event definition "used_event" is used by 2 triggers ("A uses it", "B uses it"); remove it from their eventDefinitionIds or delete them first.');
      const triggers = await api('get', `${C}/conversationGroups/${groupId}/triggers`).expect(200);
      for (const trigger of triggers.body.content) {
        if (trigger.id === first.body.id) await api('put', `${C}/conversationGroups/${groupId}/triggers/${trigger.id}`).send({ name: trigger.name, action: 'terminate', eventDefinitionIds: [spare] }).expect(200);
        else await api('delete', `${C}/conversationGroups/${groupId}/triggers/${trigger.id}`).expect(200);
      }
      await api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${used}`).expect(200);
      await api('get', `${C}/conversationGroups/${groupId}/eventDefinitions/${used}`).expect(404);
      await api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${spare}`).expect(409);
    });

    it('races a trigger creation: exactly one of the two wins, and no trigger is left pointing at a deleted definition', async () => {
      const groupId = await newGroup();
      for (let round = 0; round < 8; round++) {
        const definition = await newDefinition(groupId);
        const [trigger, deletion] = await Promise.all([
          postTrigger(groupId, { eventDefinitionIds: [definition] }),
          api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${definition}`),
        ]);
        const outcome = `${trigger.status}/${deletion.status}`;
        expect(['200/409', '400/200']).toContain(outcome);
        if (trigger.status === 200) await api('delete', `${C}/conversationGroups/${groupId}/triggers/${trigger.body.id}`).expect(200);
        if (deletion.status === 409) await api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${definition}`).expect(200);
      }
      const dangling = await dataSource.query(
        `SELECT t.id FROM chat_conversation_trigger t, jsonb_array_elements_text(t.event_definition_ids) d
          WHERE NOT EXISTS (SELECT 1 FROM chat_conversation_event_definition e WHERE e.id::text = d)`,
      );
      expect(dangling).toEqual([]);
    });
  });

  describe('deleting a conversation group', () => {
    it('deletes an unreferenced group with its triggers and event definitions', async () => {
      const groupId = await newGroup();
      const definition = await newDefinition(groupId);
      await postTrigger(groupId, { eventDefinitionIds: [definition] }).expect(200);
      await api('delete', `${C}/userConversationGroups/${groupId}`).expect(200);
      await api('get', `${C}/userConversationGroups/${groupId}`).expect(404);
      await api('get', `${C}/conversationGroups/${groupId}/triggers`).expect(404);
      const left = await dataSource.query(
        'SELECT (SELECT count(*) FROM chat_conversation_trigger WHERE conversation_group_id = $1)::int AS triggers, (SELECT count(*) FROM chat_conversation_event_definition WHERE conversation_group_id = $1)::int AS definitions',
        [groupId],
      );
      expect(left).toEqual([{ triggers: 0, definitions: 0 }]);
    });

    it('is refused (409) while conversations, channels, switch_group triggers or group ways reference it, naming them', async () => {
      const groupId = await newGroup({ name: 'Referenced group' });
      const corp = await api('post', `${C}/workChat/corps`).send({ corpName: 'Ref corp', workChatCorpId: 'wwref' }).expect(200);
      const staff = await dataSource.getRepository(DigitalStaffEntity).save({ tenantId: 'acme', name: 'Ref staff', persona: 'You help.', description: null, welcomeMessage: null, enabled: true });
      const contact = await dataSource.getRepository(ExternalContactEntity).save({
        tenantId: 'acme', corpId: corp.body.id, externalUserId: 'wmref', openId: null, unionId: null, workChatUserId: 'refstaff', name: 'Ref customer', avatarUrl: null, type: 1, gender: 0,
        customerCorpName: null, remark: null, description: null, remarkCompany: null, mobile: null, tags: [], state: null, stateAt: null, addWay: 0, addedAt: null, aiEnabled: true, profile: {}, lastMessageAt: null,
      });
      const conversation = await api('post', `${C}/userConversations`).send({ contactId: contact.id, conversationGroupId: groupId, digitalStaffId: staff.id, activate: true }).expect(200);
      await api('post', `${C}/chat/channel`).send({ name: 'Ref widget', type: 'web_widget', allowedOrigins: ['https://ref.example.com'], conversationGroupId: groupId }).expect(200);
      const sourceGroup = await newGroup();
      const definition = await newDefinition(sourceGroup);
      await postTrigger(sourceGroup, { name: 'Move here', eventDefinitionIds: [definition], action: 'switch_group', targetConversationGroupId: groupId }).expect(200);
      const way = await dataSource.getRepository(GroupWayEntity).save({
        tenantId: 'acme', corpId: corp.body.id, name: 'Ref way', scene: 2, state: null, chatIds: ['wrchat1'], conversationGroupId: groupId, digitalStaffId: null,
        configId: 'cfgref', qrCode: null, remark: null, autoCreateRoom: false, roomBaseName: null, roomBaseId: null, isDefault: false, defaultScope: null,
      });
      const refused = await api('delete', `${C}/userConversationGroups/${groupId}`).expect(409);
      expect(refused.body.detail).toBe(
        `Conversation group "Referenced group" is still referenced by 1 conversation (1 active); 1 channel ("Ref widget"); 1 switch_group trigger of other groups ("Move here"); 1 group way (ids ${way.id}). Move or delete those first, or disable the group (PUT with enabled false) to keep its history.`,
      );
      await api('put', `${C}/userConversations/${conversation.body.id}/terminate`).expect(200);
      const stillRefused = await api('delete', `${C}/userConversationGroups/${groupId}`).expect(409);
      expect(stillRefused.body.detail).toContain('1 conversation (1 terminated)');
      await api('get', `${C}/userConversationGroups/${groupId}`).expect(200);
    });
  });

  describe('tenant isolation and scopes', () => {
    it('refuses another tenant\'s token on acme paths (403) and answers 404 for acme ids on globex paths', async () => {
      const groupId = await newGroup();
      const definition = await newDefinition(groupId);
      const trigger = (await postTrigger(groupId, { eventDefinitionIds: [definition] }).expect(200)).body.id;
      await api('get', `${C}/userConversationGroups/${groupId}`, otherToken).expect(403);
      await api('get', `${C}/userConversationGroups`, otherToken).expect(403);
      await api('post', `${C}/conversationGroups/${groupId}/triggers`, otherToken).send({ name: 'x', action: 'terminate', eventDefinitionIds: [definition] }).expect(403);
      const G = '/api/globex/console';
      await api('get', `${G}/userConversationGroups/${groupId}`, otherToken).expect(404);
      await api('put', `${G}/userConversationGroups/${groupId}`, otherToken).send({ name: 'stolen' }).expect(404);
      await api('delete', `${G}/userConversationGroups/${groupId}`, otherToken).expect(404);
      await api('get', `${G}/conversationGroups/${groupId}/triggers/${trigger}`, otherToken).expect(404);
      await api('get', `${G}/conversationGroups/${groupId}/eventDefinitions/${definition}`, otherToken).expect(404);
      await api('delete', `${G}/conversationGroups/${groupId}/eventDefinitions/${definition}`, otherToken).expect(404);
      await api('get', `${G}/conversationGroups/${groupId}/triggers`, otherToken).expect(404);
      // A globex trigger cannot use acme's definitions or groups.
      const globexGroup = await newGroup({}, otherToken, G);
      const leak = await api('post', `${G}/conversationGroups/${globexGroup}/triggers`, otherToken).send({ name: 'x', action: 'switch_group', targetConversationGroupId: groupId, eventDefinitionIds: [definition] }).expect(400);
      expect(leak.body.errors.map((e: { messages: string[] }) => e.messages[0])).toEqual([
        `targetConversationGroupId ${groupId} is not a conversation group of this tenant.`,
        `Event definition ${definition} does not exist in conversation group ${globexGroup}.`,
      ]);
      expect((await api('get', `${C}/userConversationGroups/${groupId}`).expect(200)).body.name).not.toBe('stolen');
    });

    it('serves reads to a chat:read token and refuses its writes (403)', async () => {
      const groupId = await newGroup();
      const definition = await newDefinition(groupId);
      await api('get', `${C}/userConversationGroups/${groupId}`, readOnlyToken).expect(200);
      await api('get', `${C}/conversationGroups/${groupId}/eventDefinitions`, readOnlyToken).expect(200);
      await api('get', `${C}/conversationGroups/${groupId}/triggers`, readOnlyToken).expect(200);
      const writes = [
        api('post', `${C}/userConversationGroups`, readOnlyToken).send({ name: 'ro' }),
        api('put', `${C}/userConversationGroups/${groupId}`, readOnlyToken).send({ name: 'ro' }),
        api('delete', `${C}/userConversationGroups/${groupId}`, readOnlyToken),
        api('post', `${C}/conversationGroups/${groupId}/eventDefinitions`, readOnlyToken).send({ name: 'ro', eventType: 'message_received' }),
        api('delete', `${C}/conversationGroups/${groupId}/eventDefinitions/${definition}`, readOnlyToken),
        api('post', `${C}/conversationGroups/${groupId}/triggers`, readOnlyToken).send({ name: 'ro', action: 'terminate', eventDefinitionIds: [definition] }),
      ];
      for (const response of await Promise.all(writes)) {
        expect(response.status).toBe(403);
        expect(response.body.detail).toMatch(/operations need the chat:write scope, which the token lacks\.$/);
      }
      await api('get', `${C}/userConversationGroups/${groupId}`).expect(200);
    });
  });

  it('documents every operation with its operationId in the served OpenAPI document', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = (path: string) => Object.fromEntries(Object.entries(document.paths[path] ?? {}).map(([method, operation]) => [method, operation.operationId]));
    expect(ids('/api/{tenant}/console/userConversationGroups')).toEqual({ post: 'createUserConversationGroup', get: 'pageUserConversationGroups' });
    expect(ids('/api/{tenant}/console/userConversationGroups/{id}')).toEqual({ get: 'getUserConversationGroup', put: 'updateUserConversationGroup', delete: 'deleteUserConversationGroup' });
    expect(ids('/api/{tenant}/console/conversationGroups/{groupId}/triggers')).toEqual({ post: 'createConversationGroupTrigger', get: 'pageConversationGroupTriggers' });
    expect(ids('/api/{tenant}/console/conversationGroups/{groupId}/triggers/{id}')).toEqual({ get: 'getConversationGroupTrigger', put: 'updateConversationGroupTrigger', delete: 'deleteConversationGroupTrigger' });
    expect(ids('/api/{tenant}/console/conversationGroups/{groupId}/eventDefinitions')).toEqual({ post: 'createConversationGroupEventDefinition', get: 'pageConversationGroupEventDefinitions' });
    expect(ids('/api/{tenant}/console/conversationGroups/{groupId}/eventDefinitions/{id}')).toEqual({
      get: 'getConversationGroupEventDefinition',
      put: 'updateConversationGroupEventDefinition',
      delete: 'deleteConversationGroupEventDefinition',
    });
  });
});
