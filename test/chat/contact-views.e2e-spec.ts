import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ContactViewsService } from '../../src/chat/contact-views/contact-views.service';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Contact views (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/userChatContactView/{id}`, plus create
 * and list; issue 6, Contact views and acceptance 6): saved filters with a validated structure, owned by the token's
 * subject and optionally shared, the compiled filter run against real contacts, tenant isolation and the write scope.
 */
describe('contact views ({C}/userChatContactView)', () => {
  let testApp: TestApp;
  let alice: string;
  let aliceId: string;
  let bob: string;
  let reader: string;
  let otherToken: string;
  let dataSource: DataSource;
  const VIEWS = '/api/acme/console/userChatContactView';
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = alice) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const vipFilter = { match: 'all', conditions: [{ field: 'tags', operator: 'hasAny', value: ['VIP'] }, { field: 'aiEnabled', operator: 'eq', value: true }] };

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_CONTACT_VIEW_MAX_CONDITIONS: '4', CHAT_CONTACT_VIEW_MAX_PER_OWNER: '5' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    const aliceClient = await newClient(testApp, { tenantId: 'acme' });
    aliceId = aliceClient.clientId;
    alice = (await builtInToken(testApp.baseUrl, aliceClient)).access_token;
    bob = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    reader = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
  });
  afterAll(() => testApp?.close());

  it('creates, reads, replaces and deletes a view of the caller', async () => {
    const created = await api('post', VIEWS).send({ name: 'VIPs', description: 'Tagged VIP, AI on', filter: vipFilter, sort: [{ field: 'lastMessageAt', direction: 'desc' }] }).expect(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      name: 'VIPs',
      description: 'Tagged VIP, AI on',
      filter: vipFilter,
      sort: [{ field: 'lastMessageAt', direction: 'desc' }],
      shared: false,
      owner: aliceId,
      mine: true,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api('get', `${VIEWS}/${created.body.id}`).expect(200)).body).toEqual(created.body);
    const replaced = await api('put', `${VIEWS}/${created.body.id}`).send({ name: 'VIPs (all)', filter: { match: 'any', conditions: [] }, shared: true }).expect(200);
    expect(replaced.body).toMatchObject({ name: 'VIPs (all)', description: null, filter: { match: 'any', conditions: [] }, sort: [], shared: true });
    const deleted = await api('delete', `${VIEWS}/${created.body.id}`).expect(200);
    expect(deleted.text).toBe('');
    await api('get', `${VIEWS}/${created.body.id}`).expect(404);
    await api('delete', `${VIEWS}/${created.body.id}`).expect(404);
  });

  it('validates the filter: fields, operators that fit them and values that fit the operators (400 naming each)', async () => {
    const unknownField = await api('post', VIEWS).send({ name: 'Bad', filter: { match: 'all', conditions: [{ field: 'password', operator: 'eq', value: 'x' }] } }).expect(400);
    expect(unknownField.body.errors).toEqual([{ field: 'filter.conditions[0].field', messages: [expect.stringMatching(/^field must be one of name, remark, /)] }]);
    const mismatched = await api('post', VIEWS)
      .send({
        name: 'Bad',
        filter: {
          match: 'all',
          conditions: [
            { field: 'name', operator: 'before', value: '2026-01-01 00:00:00' },
            { field: 'createdAt', operator: 'after', value: '2026-01-01T00:00:00Z' },
            { field: 'gender', operator: 'in', value: [1, 5] },
          ],
        },
        sort: [{ field: 'name', direction: 'asc' }, { field: 'name', direction: 'desc' }],
      })
      .expect(400);
    expect(mismatched.body.errors).toEqual([
      { field: 'filter.conditions[0].operator', messages: ['Operator "before" does not apply to name; use one of eq, ne, contains, notContains, startsWith, in, notIn, isEmpty, isNotEmpty.'] },
      { field: 'filter.conditions[1].value', messages: ['createdAt after takes a timestamp "yyyy-MM-dd HH:mm:ss" (UTC), for example 2026-03-01 08:30:00.'] },
      { field: 'filter.conditions[2].value', messages: ['gender in takes a list of 1..100 values of 0, 1, 2.'] },
      { field: 'sort[1].field', messages: ['"name" is sorted by twice.'] },
    ]);
    const tooMany = await api('post', VIEWS).send({ name: 'Bad', filter: { match: 'all', conditions: Array.from({ length: 5 }, () => ({ field: 'mobile', operator: 'isNotEmpty' })) } }).expect(400);
    expect(tooMany.body.errors).toEqual([{ field: 'filter.conditions', messages: ['The filter has 5 conditions; at most 4 are allowed (CHAT_CONTACT_VIEW_MAX_CONDITIONS).'] }]);
    const shape = await api('post', VIEWS).send({ name: '', filter: { match: 'some', conditions: 'all' }, sort: [{ field: 'mobile', direction: 'up' }], owner: 'someone' }).expect(400);
    expect(shape.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['filter.conditions', 'filter.match', 'name', 'owner', 'sort[0].direction', 'sort[0].field']);
    await api('post', VIEWS).send({ name: 'No filter' }).expect(400);
    expect(await dataSource.query('SELECT count(*)::int AS n FROM chat_contact_view')).toEqual([{ n: 0 }]);
  });

  it('keeps views private to their owner unless shared; only the owner changes or deletes them', async () => {
    const privateView = (await api('post', VIEWS).send({ name: 'Mine only', filter: vipFilter }).expect(200)).body.id;
    const sharedView = (await api('post', VIEWS).send({ name: 'Team view', filter: vipFilter, shared: true }).expect(200)).body.id;
    const bobsView = (await api('post', VIEWS, bob).send({ name: 'Mine only', filter: vipFilter }).expect(200)).body.id;

    const hidden = await api('get', `${VIEWS}/${privateView}`, bob).expect(404);
    expect(hidden.body.detail).toBe(`No contact view ${privateView} visible to you in this tenant.`);
    await api('put', `${VIEWS}/${privateView}`, bob).send({ name: 'Taken', filter: vipFilter }).expect(404);
    expect((await api('get', `${VIEWS}/${sharedView}`, bob).expect(200)).body).toMatchObject({ name: 'Team view', mine: false, shared: true, owner: aliceId });
    const readOnly = await api('put', `${VIEWS}/${sharedView}`, bob).send({ name: 'Hijacked', filter: vipFilter }).expect(403);
    expect(readOnly.body.detail).toBe(`Contact view ${sharedView} is shared by ${aliceId}; only its owner may change or delete it.`);
    await api('delete', `${VIEWS}/${sharedView}`, bob).expect(403);

    const bobsList = await api('get', `${VIEWS}?sort=name,asc`, bob).expect(200);
    expect(bobsList.body.content.map((view: { id: string }) => view.id)).toEqual([bobsView, sharedView]);
    expect((await api('get', `${VIEWS}?scope=mine`, bob).expect(200)).body.content.map((view: { id: string }) => view.id)).toEqual([bobsView]);
    expect((await api('get', `${VIEWS}?scope=shared`, bob).expect(200)).body.content.map((view: { id: string }) => view.id)).toEqual([sharedView]);
    const alicesList = await api('get', `${VIEWS}?size=1&sort=createdAt,desc`).expect(200);
    expect(alicesList.body).toMatchObject({ page: 0, size: 1, totalElements: 2, totalPages: 2 });
    expect(alicesList.body.content[0].id).toBe(sharedView);
    await api('get', `${VIEWS}?scope=everyone`).expect(400);
    await api('get', `${VIEWS}?sort=filter,asc`).expect(400);

    const duplicate = await api('post', VIEWS).send({ name: 'Mine only', filter: vipFilter }).expect(409);
    expect(duplicate.body.detail).toBe('You already have a contact view named "Mine only".');
    await api('put', `${VIEWS}/${sharedView}`).send({ name: 'Mine only', filter: vipFilter }).expect(409);
    await api('delete', `${VIEWS}/${privateView}`).expect(200);
    await api('delete', `${VIEWS}/${sharedView}`).expect(200);
    await api('delete', `${VIEWS}/${bobsView}`, bob).expect(200);
  });

  it('caps the views of one owner (409), not of the tenant', async () => {
    for (let index = 0; index < 5; index += 1) await api('post', VIEWS).send({ name: `View ${index}`, filter: vipFilter }).expect(200);
    const over = await api('post', VIEWS).send({ name: 'View 5', filter: vipFilter }).expect(409);
    expect(over.body.detail).toBe('You already have 5 contact views; at most 5 are allowed (CHAT_CONTACT_VIEW_MAX_PER_OWNER).');
    await api('post', VIEWS, bob).send({ name: 'View 5', filter: vipFilter }).expect(200);
    await dataSource.query("DELETE FROM chat_contact_view WHERE name LIKE 'View %'");
  });

  it('compiles a view into the condition the contact list runs, selecting the right contacts', async () => {
    const corpId = '5a0e7f8c-1d2b-4c3a-9e8f-7a6b5c4d3e2f';
    const contacts = dataSource.getRepository(ExternalContactEntity);
    const save = (externalUserId: string, fields: Partial<ExternalContactEntity>) =>
      contacts.save({ tenantId: 'acme', corpId, externalUserId, workChatUserId: 'alice', name: externalUserId, tags: [], profile: {}, ...fields });
    const recent = new Date(Date.now() - 2 * 86_400_000);
    const old = new Date('2025-01-01T00:00:00Z');
    await save('vip-recent', { tags: [{ tagName: 'VIP', type: 2 }], lastMessageAt: recent, remark: 'Ann 100%' });
    await save('vip-old', { tags: [{ tagName: 'VIP', type: 2 }, { tagName: 'Wholesale', type: 2 }], lastMessageAt: old });
    await save('vip-ai-off', { tags: [{ tagName: 'VIP', type: 2 }], lastMessageAt: recent, aiEnabled: false });
    await save('plain', { lastMessageAt: recent, gender: 2 });
    await save('other-tenant-vip', { tenantId: 'globex', tags: [{ tagName: 'VIP', type: 2 }], lastMessageAt: recent });

    const run = async (filter: unknown, sort: unknown[] = []) => {
      const view = (await api('post', VIEWS).send({ name: `Run ${Math.random()}`, filter, sort }).expect(200)).body.id;
      const compiled = await testApp.app.get(ContactViewsService).compile('acme', aliceId, view, 'contact', new Date());
      const builder = contacts.createQueryBuilder('contact').where('contact.tenant_id = :tenantId', { tenantId: 'acme' }).andWhere(compiled.where, compiled.parameters);
      for (const [column, direction] of compiled.orderBy) builder.addOrderBy(column, direction);
      builder.addOrderBy('contact.external_user_id', 'ASC');
      await api('delete', `${VIEWS}/${view}`).expect(200);
      return (await builder.getMany()).map((contact) => contact.externalUserId);
    };

    expect(await run(vipFilter)).toEqual(['vip-old', 'vip-recent']);
    expect(await run({ match: 'all', conditions: [{ field: 'tags', operator: 'hasAny', value: ['VIP'] }, { field: 'lastMessageAt', operator: 'withinLastDays', value: 7 }] }, [{ field: 'name', direction: 'desc' }])).toEqual(['vip-recent', 'vip-ai-off']);
    expect(await run({ match: 'any', conditions: [{ field: 'gender', operator: 'eq', value: 2 }, { field: 'tags', operator: 'hasAll', value: ['VIP', 'Wholesale'] }] })).toEqual(['plain', 'vip-old']);
    expect(await run({ match: 'all', conditions: [{ field: 'tags', operator: 'isEmpty' }] })).toEqual(['plain']);
    expect(await run({ match: 'all', conditions: [{ field: 'remark', operator: 'contains', value: '100%' }] })).toEqual(['vip-recent']);
    expect(await run({ match: 'all', conditions: [{ field: 'remark', operator: 'ne', value: 'Ann 100%' }, { field: 'lastMessageAt', operator: 'before', value: '2025-06-01 00:00:00' }] })).toEqual(['vip-old']);
    expect(await run({ match: 'all', conditions: [] })).toEqual(['plain', 'vip-ai-off', 'vip-old', 'vip-recent']);
  });

  describe('tenant isolation and scopes of the token', () => {
    it('answers 403 for another tenant\'s paths and 404 for its ids', async () => {
      const foreign = (await api('post', '/api/globex/console/userChatContactView', otherToken).send({ name: 'Foreign', filter: vipFilter, shared: true }).expect(200)).body.id;
      const forbidden = await api('get', '/api/globex/console/userChatContactView').expect(403);
      expect(forbidden.body.detail).toBe('The access token is not valid for tenant "globex" (it is for: acme).');
      await api('post', '/api/globex/console/userChatContactView').send({ name: 'x', filter: vipFilter }).expect(403);
      await api('get', `${VIEWS}/${foreign}`).expect(404);
      await api('put', `${VIEWS}/${foreign}`).send({ name: 'Mine', filter: vipFilter }).expect(404);
      await api('delete', `${VIEWS}/${foreign}`).expect(404);
      expect((await api('get', `${VIEWS}?scope=shared`).expect(200)).body.content.map((view: { id: string }) => view.id)).not.toContain(foreign);
      expect((await api('get', `/api/globex/console/userChatContactView/${foreign}`, otherToken).expect(200)).body.name).toBe('Foreign');
    });

    it('answers 403 to writes without chat:write, and serves reads', async () => {
      const view = (await api('post', VIEWS).send({ name: 'Readable', filter: vipFilter, shared: true }).expect(200)).body.id;
      for (const [method, path, body] of [
        ['post', VIEWS, { name: 'x', filter: vipFilter }],
        ['put', `${VIEWS}/${view}`, { name: 'x', filter: vipFilter }],
        ['delete', `${VIEWS}/${view}`, undefined],
      ] as const) {
        const response = await api(method, path, reader).send(body);
        expect([method, response.status, response.body.detail]).toEqual([method, 403, `${method.toUpperCase()} operations need the chat:write scope, which the token lacks.`]);
      }
      expect((await api('get', `${VIEWS}/${view}`, reader).expect(200)).body.mine).toBe(false);
    });
  });
});
