import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { IntentionRecordsService } from '../../src/chat/intent-records/intention-records.service';
import { TagRulesService } from '../../src/chat/tag-rules/tag-rules.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Keyword tag rules (`GET/PUT/DELETE {C}/customers/tagRule/{id}` + create and list) and intent records
 * (`PUT {C}/customers/intentionRecord/{id}` + list by contact, get, create, delete), chat-management-api.md, Console
 * endpoints: CRUD, field errors, limits from configuration, paging, tenant isolation and scopes, and the read / write
 * methods the inbound pipeline will use (`TagRulesService.tagsFor`, `IntentionRecordsService.recordDetected`).
 */
describe('keyword tag rules and intent records', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  let seq = 0;

  /** A contact row of `tenant` (the contacts area's entity), returning its id. */
  async function newContact(tenant: string): Promise<string> {
    const n = ++seq;
    const row = await dataSource.getRepository(ExternalContactEntity).save({
      tenantId: tenant, corpId: randomUUID(), externalUserId: `wmext${n}`, openId: null, unionId: null, workChatUserId: `staff${n}`, name: `Customer ${n}`, avatarUrl: null, type: 1, gender: 0,
      customerCorpName: null, remark: null, description: null, remarkCompany: null, mobile: null, tags: [], state: null, stateAt: null, addWay: 0, addedAt: null,
      aiEnabled: true, profile: {}, lastMessageAt: null,
    });
    return row.id;
  }

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_RULE_MAX_PATTERNS: '5', CHAT_RULE_MAX_PATTERN_LENGTH: '20' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
  });
  afterAll(() => testApp?.close());

  describe('tag rules ({C}/customers/tagRule)', () => {
    const rules = (tenant = 'acme') => `/api/${tenant}/console/customers/tagRule`;

    it('creates a rule (200) with defaults, reads it back, stores it under the tenant', async () => {
      const created = await api('post', rules()).send({ name: 'Price-sensitive', keywords: ['price', '优惠'], tagNames: ['price-sensitive'], platformTagIds: ['et_price'] }).expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Price-sensitive',
        description: null,
        keywords: ['price', '优惠'],
        matchMode: 'any',
        tagNames: ['price-sensitive'],
        platformTagIds: ['et_price'],
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${rules()}/${created.body.id}`).expect(200)).body).toEqual(created.body);
      expect(await dataSource.query('SELECT tenant_id, match_mode FROM chat_tag_rule WHERE id = $1', [created.body.id])).toEqual([{ tenant_id: 'acme', match_mode: 'any' }]);
    });

    it('answers 400 with field errors: missing, padded, repeated, too long or too many keywords, no tag, bad tag ids', async () => {
      const missing = await api('post', rules()).send({ tagNames: ['x'] }).expect(400);
      expect(missing.body.errors.map((entry: { field: string }) => entry.field).sort()).toEqual(['keywords', 'name']);
      const keywords = await api('post', rules()).send({ name: 'K', keywords: ['refund', 'REFUND', ' x', 'y'.repeat(21)], tagNames: ['t'] }).expect(400);
      expect(keywords.body.errors).toEqual([
        { field: 'keywords[1]', messages: ['repeats keywords[0] (compared case-insensitively)'] },
        { field: 'keywords[2]', messages: ['must not start or end with spaces'] },
        { field: 'keywords[3]', messages: ['is 21 characters long; at most 20 are allowed'] },
      ]);
      const many = await api('post', rules()).send({ name: 'K', keywords: ['a', 'b', 'c', 'd', 'e', 'f'], tagNames: ['t'] }).expect(400);
      expect(many.body.errors).toEqual([{ field: 'keywords', messages: ['has 6 entries; at most 5 are allowed'] }]);
      const noTag = await api('post', rules()).send({ name: 'K', keywords: ['a'] }).expect(400);
      expect(noTag.body.errors).toEqual([{ field: 'tagNames', messages: ['give at least one tag name or platform tag id to add'] }]);
      const badIds = await api('post', rules()).send({ name: 'K', keywords: ['a'], platformTagIds: ['has space'] }).expect(400);
      expect(badIds.body.errors).toEqual([expect.objectContaining({ field: 'platformTagIds' })]);
      await api('post', rules()).send({ name: 'K', keywords: ['a'], tagNames: ['t'], matchMode: 'most' }).expect(400);
      await api('post', rules()).send({ name: 'K', keywords: ['a'], tagNames: ['t'], priority: 1 }).expect(400);
    });

    it('updates (required fields again, omitted optional ones kept), refuses duplicate names (409)', async () => {
      const created = await api('post', rules()).send({ name: 'Refund risk', keywords: ['refund'], matchMode: 'all', tagNames: ['refund'], description: 'keep', enabled: false }).expect(200);
      const updated = await api('put', `${rules()}/${created.body.id}`).send({ name: 'Refund risk!', keywords: ['refund', 'broken'] }).expect(200);
      expect(updated.body).toMatchObject({ name: 'Refund risk!', keywords: ['refund', 'broken'], matchMode: 'all', tagNames: ['refund'], platformTagIds: [], description: 'keep', enabled: false });
      const changed = await api('put', `${rules()}/${created.body.id}`).send({ name: 'Refund risk!', keywords: ['refund', 'broken'], enabled: true, platformTagIds: ['et_r'], tagNames: [], description: null }).expect(200);
      expect(changed.body).toMatchObject({ enabled: true, tagNames: [], platformTagIds: ['et_r'], description: null });
      const duplicate = await api('put', `${rules()}/${created.body.id}`).send({ name: 'Price-sensitive', keywords: ['x'] }).expect(409);
      expect(duplicate.body.detail).toBe('The tenant already has a tag rule named "Price-sensitive".');
      await api('put', `${rules()}/${created.body.id}`).send({ name: 'Refund risk!', keywords: [] }).expect(400);
    });

    it('gives the pipeline the tags a message earns (tagsFor): any / all, case-insensitive, enabled only', async () => {
      const service = testApp.app.get(TagRulesService);
      await api('post', rules()).send({ name: 'Disabled', keywords: ['price'], tagNames: ['never'], enabled: false }).expect(200);
      expect(await service.tagsFor('acme', 'What is the PRICE? My phone is broken, refund please')).toEqual({
        tagNames: ['price-sensitive'],
        platformTagIds: ['et_price', 'et_r'],
        matchedRuleIds: [expect.any(String), expect.any(String)],
      });
      expect((await service.tagsFor('acme', 'refund only')).platformTagIds).toEqual([]);
      expect((await service.tagsFor('globex', 'price')).matchedRuleIds).toEqual([]);
    });

    it('pages, filters (enabled, name, keyword) and sorts; refuses size over 200 and unknown sort fields', async () => {
      const all = await api('get', rules()).expect(200);
      expect(all.body).toMatchObject({ page: 0, size: 20, totalElements: 3, totalPages: 1 });
      expect(all.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Price-sensitive', 'Refund risk!', 'Disabled']);
      const disabled = await api('get', `${rules()}?enabled=false`).expect(200);
      expect(disabled.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Disabled']);
      const byKeyword = await api('get', `${rules()}?keyword=broken`).expect(200);
      expect(byKeyword.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Refund risk!']);
      const byName = await api('get', `${rules()}?name=${encodeURIComponent('RISK')}`).expect(200);
      expect(byName.body.totalElements).toBe(1);
      const sorted = await api('get', `${rules()}?sort=name,asc&size=1&page=2`).expect(200);
      expect(sorted.body).toMatchObject({ page: 2, size: 1, totalElements: 3, totalPages: 3, content: [expect.objectContaining({ name: 'Refund risk!' })] });
      await api('get', `${rules()}?size=201`).expect(400);
      await api('get', `${rules()}?sort=keywords,asc`).expect(400);
    });

    it('keeps tenants apart (403 on another tenant\'s path, 404 for another tenant\'s ids) and needs chat:write to write', async () => {
      const id = (await api('get', `${rules()}?name=Price`).expect(200)).body.content[0].id;
      await api('get', rules(), otherToken).expect(403);
      await api('post', rules(), otherToken).send({ name: 'X', keywords: ['x'], tagNames: ['x'] }).expect(403);
      await api('get', `${rules('globex')}/${id}`, otherToken).expect(404);
      await api('put', `${rules('globex')}/${id}`, otherToken).send({ name: 'X', keywords: ['x'], tagNames: ['x'] }).expect(404);
      await api('delete', `${rules('globex')}/${id}`, otherToken).expect(404);
      await api('get', `${rules()}/${id}`, readOnlyToken).expect(200);
      await api('post', rules(), readOnlyToken).send({ name: 'X', keywords: ['x'], tagNames: ['x'] }).expect(403);
      await api('put', `${rules()}/${id}`, readOnlyToken).send({ name: 'X', keywords: ['x'], tagNames: ['x'] }).expect(403);
      await api('delete', `${rules()}/${id}`, readOnlyToken).expect(403);
      expect((await api('get', `${rules()}/${id}`).expect(200)).body.name).toBe('Price-sensitive');
    });

    it('deletes (200, no body), then 404', async () => {
      const id = (await api('get', `${rules()}?name=Disabled`).expect(200)).body.content[0].id;
      expect((await api('delete', `${rules()}/${id}`).expect(200)).text).toBe('');
      expect((await api('get', `${rules()}/${id}`).expect(404)).body.detail).toBe(`No tag rule ${id} in this tenant.`);
      await api('delete', `${rules()}/${id}`).expect(404);
    });
  });

  describe('intent records ({C}/customers/intentionRecord)', () => {
    const records = (tenant = 'acme') => `/api/${tenant}/console/customers/intentionRecord`;
    let contactA: string;
    let contactB: string;

    beforeAll(async () => {
      contactA = await newContact('acme');
      contactB = await newContact('acme');
    });

    it('records detected intents once per (message, intent), also when the pipeline retries', async () => {
      const service = testApp.app.get(IntentionRecordsService);
      const first = await service.recordDetected('acme', { contactId: contactA, intentName: 'cancel_order', confidence: 0.91, messageId: 'msg-1' });
      const retried = await service.recordDetected('acme', { contactId: contactA, intentName: 'cancel_order', confidence: 0.5, messageId: 'msg-1' });
      expect(retried.id).toBe(first.id);
      expect(retried).toMatchObject({ confidence: 0.91, status: 'open', source: 'pipeline' });
      await service.recordDetected('acme', { contactId: contactA, intentName: 'refund_request', confidence: 0.7, messageId: 'msg-1' });
      expect(await dataSource.query("SELECT count(*)::int AS n FROM chat_intention_record WHERE message_id = 'msg-1'")).toEqual([{ n: 2 }]);
      const read = await api('get', `${records()}/${first.id}`).expect(200);
      expect(read.body).toEqual({
        id: first.id, tenantId: 'acme', contactId: contactA, intentName: 'cancel_order', confidence: 0.91, messageId: 'msg-1', status: 'open', source: 'pipeline',
        operatorNote: null, reviewedAt: null, createdAt: expect.any(String), updatedAt: expect.any(String),
      });
    });

    it('lets an operator record one by hand (200); the contact must be the tenant\'s (400); one per (message, intent) (409)', async () => {
      const created = await api('post', records()).send({ contactId: contactB, intentName: 'complaint', messageId: 'msg-2', operatorNote: 'angry call' }).expect(200);
      expect(created.body).toMatchObject({ contactId: contactB, intentName: 'complaint', confidence: null, status: 'open', source: 'operator', operatorNote: 'angry call', reviewedAt: null });
      const confirmed = await api('post', records()).send({ contactId: contactB, intentName: 'greeting', status: 'confirmed' }).expect(200);
      expect(confirmed.body.reviewedAt).toEqual(expect.any(String));
      const foreignContact = await newContact('globex');
      const foreign = await api('post', records()).send({ contactId: foreignContact, intentName: 'x' }).expect(400);
      expect(foreign.body.errors).toEqual([{ field: 'contactId', messages: [`no contact ${foreignContact} in this tenant`] }]);
      const duplicate = await api('post', records()).send({ contactId: contactA, intentName: 'cancel_order', messageId: 'msg-1' }).expect(409);
      expect(duplicate.body.detail).toBe('Message msg-1 already has a record of the intent "cancel_order".');
    });

    it('answers 400 with field errors for bad fields', async () => {
      const bad = await api('post', records()).send({ contactId: 'nope', intentName: 'bad!', confidence: 1.5, status: 'maybe' }).expect(400);
      expect(bad.body.errors.map((entry: { field: string }) => entry.field).sort()).toEqual(['confidence', 'contactId', 'intentName', 'status']);
      await api('post', records()).send({ contactId: contactA, intentName: 'ok', source: 'pipeline' }).expect(400);
    });

    it('reviews a record (PUT): confirm stamps reviewedAt, reopen clears it, omitted fields kept; empty body 400; name clash 409', async () => {
      const id = (await api('get', `${records()}?contactId=${contactA}&intentName=cancel_order`).expect(200)).body.content[0].id;
      const confirmed = await api('put', `${records()}/${id}`).send({ status: 'confirmed', operatorNote: 'Customer confirmed by phone.' }).expect(200);
      expect(confirmed.body).toMatchObject({ status: 'confirmed', operatorNote: 'Customer confirmed by phone.', reviewedAt: expect.any(String), intentName: 'cancel_order' });
      const noted = await api('put', `${records()}/${id}`).send({ operatorNote: null }).expect(200);
      expect(noted.body).toMatchObject({ status: 'confirmed', operatorNote: null, reviewedAt: confirmed.body.reviewedAt });
      const reopened = await api('put', `${records()}/${id}`).send({ status: 'open' }).expect(200);
      expect(reopened.body).toMatchObject({ status: 'open', reviewedAt: null });
      const renamed = await api('put', `${records()}/${id}`).send({ intentName: 'cancel_subscription', status: 'rejected' }).expect(200);
      expect(renamed.body).toMatchObject({ intentName: 'cancel_subscription', status: 'rejected' });
      const empty = await api('put', `${records()}/${id}`).send({}).expect(400);
      expect(empty.body.detail).toBe('Give at least one of status, operatorNote, intentName.');
      await api('put', `${records()}/${id}`).send({ status: 'done' }).expect(400);
      const clash = await api('put', `${records()}/${id}`).send({ intentName: 'refund_request' }).expect(409);
      expect(clash.body.detail).toBe('Message msg-1 already has a record of the intent "refund_request".');
    });

    it('lists by contact and status, newest first unless sorted; refuses size over 200', async () => {
      const ofA = await api('get', `${records()}?contactId=${contactA}`).expect(200);
      expect(ofA.body).toMatchObject({ totalElements: 2, page: 0, size: 20 });
      expect(ofA.body.content.map((record: { intentName: string }) => record.intentName)).toEqual(['refund_request', 'cancel_subscription']);
      const open = await api('get', `${records()}?status=open`).expect(200);
      expect(open.body.content.map((record: { intentName: string }) => record.intentName).sort()).toEqual(['complaint', 'refund_request']);
      const byConfidence = await api('get', `${records()}?sort=confidence,desc&size=2`).expect(200);
      expect(byConfidence.body.content.map((record: { confidence: number | null }) => record.confidence)).toEqual([0.91, 0.7]);
      expect(byConfidence.body).toMatchObject({ totalElements: 4, totalPages: 2 });
      await api('get', `${records()}?size=201`).expect(400);
      await api('get', `${records()}?contactId=not-a-uuid`).expect(400);
      await api('get', `${records()}?sort=operatorNote,asc`).expect(400);
    });

    it('keeps tenants apart (403 / 404) and needs chat:write to write', async () => {
      const id = (await api('get', `${records()}?status=open`).expect(200)).body.content[0].id;
      await api('get', records(), otherToken).expect(403);
      await api('get', `${records('globex')}/${id}`, otherToken).expect(404);
      await api('put', `${records('globex')}/${id}`, otherToken).send({ status: 'rejected' }).expect(404);
      await api('delete', `${records('globex')}/${id}`, otherToken).expect(404);
      expect((await api('get', records('globex'), otherToken).expect(200)).body.totalElements).toBe(0);
      await api('get', `${records()}/${id}`, readOnlyToken).expect(200);
      await api('put', `${records()}/${id}`, readOnlyToken).send({ status: 'rejected' }).expect(403);
      await api('post', records(), readOnlyToken).send({ contactId: contactA, intentName: 'x' }).expect(403);
      await api('delete', `${records()}/${id}`, readOnlyToken).expect(403);
      expect((await api('get', `${records()}/${id}`).expect(200)).body.status).toBe('open');
    });

    it('deletes (200, no body), then 404', async () => {
      const id = (await api('get', `${records()}?contactId=${contactB}&intentName=greeting`).expect(200)).body.content[0].id;
      expect((await api('delete', `${records()}/${id}`).expect(200)).text).toBe('');
      expect((await api('get', `${records()}/${id}`).expect(404)).body.detail).toBe(`No intent record ${id} in this tenant.`);
      await api('delete', `${records()}/${id}`).expect(404);
    });
  });
});
