import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { UserConversationsService } from '../../src/chat/conversations/user-conversations.service';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../../src/chat/staff-users/work-chat-user.entity';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

type Method = 'get' | 'post' | 'put' | 'delete';

/** A seeded customer: a contact added to a staff user, optionally bound to a digital staff. */
interface Customer {
  contactId: string;
  digitalStaffId: string;
  corpId: string;
}

/**
 * Issue 6, Configuration resources: conversations (`{C}/userConversations`): create (digital staff defaulting to
 * the one bound to the contact's staff user), read, change, delete, list with filters, the state machine
 * (pending → active → terminated, terminated final) with 409 naming the state and allowed moves, concurrent
 * activate/terminate (exactly one wins where they conflict), one open conversation per contact (also under
 * concurrency), tenant isolation and the chat:write scope. Contacts, staff users and digital staff are seeded as
 * rows of their areas (their APIs belong to other engineers).
 */
describe('conversations ({C}/userConversations)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let groupId: string;
  let seq = 0;
  const C = '/api/acme/console';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });

  /** A corp through the API, a digital staff, a staff user (bound unless `bound` is false) and a contact added to them. */
  async function newCustomer(tenant = 'acme', bearer = token, options: { bound?: boolean } = {}): Promise<Customer> {
    const n = ++seq;
    const corp = await api('post', `/api/${tenant}/console/workChat/corps`, bearer).send({ corpName: `Corp ${n}`, workChatCorpId: `wwconv${n}` }).expect(200);
    const staff = await dataSource.getRepository(DigitalStaffEntity).save({ tenantId: tenant, name: `Aria ${n}`, persona: 'You are Aria.', description: null, welcomeMessage: null, enabled: true });
    await dataSource.getRepository(WorkChatUserEntity).save({
      tenantId: tenant, corpId: corp.body.id, workChatUserId: `staff${n}`, userId: null, name: `Staff ${n}`, mobile: null, email: null, online: true,
      digitalStaffId: options.bound === false ? null : staff.id,
    });
    const contact = await dataSource.getRepository(ExternalContactEntity).save({
      tenantId: tenant, corpId: corp.body.id, externalUserId: `wmconv${n}`, openId: null, unionId: null, workChatUserId: `staff${n}`, name: `Customer ${n}`, avatarUrl: null, type: 1, gender: 0,
      customerCorpName: null, remark: null, description: null, remarkCompany: null, mobile: null, tags: [], state: null, stateAt: null, addWay: 1, addedAt: new Date(), aiEnabled: true, profile: {}, lastMessageAt: null,
    });
    return { contactId: contact.id, digitalStaffId: staff.id, corpId: corp.body.id };
  }

  /** Opens a conversation through the API; returns the response body. */
  async function open(customer: Customer, body: Record<string, unknown> = {}) {
    return (await api('post', `${C}/userConversations`).send({ contactId: customer.contactId, conversationGroupId: groupId, ...body }).expect(200)).body;
  }

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    groupId = (await api('post', `${C}/userConversationGroups`).send({ name: 'Default flow' }).expect(200)).body.id;
  });
  afterAll(() => testApp?.close());

  it('opens a pending conversation with the digital staff bound to the contact\'s staff user, and reads it', async () => {
    const customer = await newCustomer();
    const created = await open(customer, { subject: 'Refund for order 1042', remark: 'VIP' });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      contactId: customer.contactId,
      digitalStaffId: customer.digitalStaffId,
      conversationGroupId: groupId,
      status: 'pending',
      allowedActions: ['activate', 'terminate'],
      subject: 'Refund for order 1042',
      remark: 'VIP',
      activatedAt: null,
      terminatedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect((await api('get', `${C}/userConversations/${created.id}`).expect(200)).body).toEqual(created);
    const rows = await dataSource.query('SELECT tenant_id, status FROM chat_user_conversation WHERE id = $1', [created.id]);
    expect(rows).toEqual([{ tenant_id: 'acme', status: 'pending' }]);
  });

  it('walks pending → active → terminated; repeats are idempotent; terminated is final (409 naming state and moves)', async () => {
    const conversation = await open(await newCustomer());
    const activated = await api('put', `${C}/userConversations/${conversation.id}/activate`).expect(200);
    expect(activated.body).toMatchObject({ status: 'active', allowedActions: ['terminate'], activatedAt: expect.any(String), terminatedAt: null });
    const again = await api('put', `${C}/userConversations/${conversation.id}/activate`).expect(200);
    expect(again.body).toEqual(activated.body);
    const terminated = await api('put', `${C}/userConversations/${conversation.id}/terminate`).expect(200);
    expect(terminated.body).toMatchObject({ status: 'terminated', allowedActions: [], activatedAt: activated.body.activatedAt, terminatedAt: expect.any(String) });
    expect((await api('put', `${C}/userConversations/${conversation.id}/terminate`).expect(200)).body).toEqual(terminated.body);
    const refused = await api('put', `${C}/userConversations/${conversation.id}/activate`).expect(409);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body.detail).toBe(`Conversation ${conversation.id} is terminated; it cannot activate (terminated is final, no move is allowed; create a new conversation instead).`);
    // A pending conversation may be terminated without ever being active.
    const skipped = await open(await newCustomer());
    expect((await api('put', `${C}/userConversations/${skipped.id}/terminate`).expect(200)).body).toMatchObject({ status: 'terminated', activatedAt: null });
  });

  it('lets exactly one of a concurrent activate and terminate win where they conflict, every time', async () => {
    for (let round = 0; round < 10; round++) {
      const conversation = await open(await newCustomer());
      const [activate, terminate] = await Promise.all([
        api('put', `${C}/userConversations/${conversation.id}/activate`),
        api('put', `${C}/userConversations/${conversation.id}/terminate`),
      ]);
      const final = (await api('get', `${C}/userConversations/${conversation.id}`).expect(200)).body;
      expect(terminate.status).toBe(200);
      expect(final.status).toBe('terminated');
      if (activate.status === 200) {
        // activate ran first: it moved pending → active, terminate then ended it.
        expect(activate.body.status).toBe('active');
        expect(final.activatedAt).toBe(activate.body.activatedAt);
      } else {
        // terminate ran first: activate lost and says why.
        expect(activate.status).toBe(409);
        expect(activate.body.detail).toContain('is terminated; it cannot activate');
        expect(final.activatedAt).toBeNull();
      }
    }
  });

  it('keeps one open conversation per contact (409 naming it), also under concurrent creation, and allows a new one after termination', async () => {
    const customer = await newCustomer();
    const first = await open(customer);
    const second = await api('post', `${C}/userConversations`).send({ contactId: customer.contactId, conversationGroupId: groupId }).expect(409);
    expect(second.body.detail).toBe(`Contact ${customer.contactId} already has an open conversation ${first.id} (pending); a contact has at most one. Terminate it first, or use it.`);
    await api('put', `${C}/userConversations/${first.id}/terminate`).expect(200);
    const next = await open(customer, { activate: true });
    expect(next).toMatchObject({ status: 'active', activatedAt: expect.any(String) });

    const racer = await newCustomer();
    const responses = await Promise.all(Array.from({ length: 5 }, () => api('post', `${C}/userConversations`).send({ contactId: racer.contactId, conversationGroupId: groupId })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    const list = await api('get', `${C}/userConversations?contactId=${racer.contactId}`).expect(200);
    expect(list.body.totalElements).toBe(1);
  });

  it('validates references: unknown contact, group or digital staff, no bound digital staff (400), a disabled group (409)', async () => {
    const unbound = await newCustomer('acme', token, { bound: false });
    const noStaff = await api('post', `${C}/userConversations`).send({ contactId: unbound.contactId, conversationGroupId: groupId }).expect(400);
    expect(noStaff.body.errors).toEqual([
      { field: 'digitalStaffId', messages: [`The contact's staff user "staff${seq}" is bound to no digital staff, so there is none to default to: give digitalStaffId, or bind the staff user first.`] },
    ]);
    await open(unbound, { digitalStaffId: unbound.digitalStaffId });
    const dangling = await newCustomer();
    await dataSource.getRepository(DigitalStaffEntity).delete({ id: dangling.digitalStaffId });
    const gone = await api('post', `${C}/userConversations`).send({ contactId: dangling.contactId, conversationGroupId: groupId }).expect(400);
    expect(gone.body.errors).toEqual([
      { field: 'digitalStaffId', messages: [`The contact's staff user "staff${seq}" is bound to digital staff ${dangling.digitalStaffId}, which no longer exists: give digitalStaffId, or rebind the staff user first.`] },
    ]);
    const [contactId, ghostGroup, ghostStaff] = [randomUUID(), randomUUID(), randomUUID()];
    const unknown = await api('post', `${C}/userConversations`).send({ contactId, conversationGroupId: ghostGroup, digitalStaffId: ghostStaff }).expect(400);
    expect(unknown.body.errors).toEqual([
      { field: 'conversationGroupId', messages: [`No conversation group ${ghostGroup} in this tenant.`] },
      { field: 'contactId', messages: [`No external contact ${contactId} in this tenant.`] },
      { field: 'digitalStaffId', messages: [`No digital staff ${ghostStaff} in this tenant.`] },
    ]);
    const fields = await api('post', `${C}/userConversations`).send({ contactId: 'x', status: 'active', subject: 'y'.repeat(201) }).expect(400);
    expect(fields.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['contactId', 'conversationGroupId', 'status', 'subject']);
    const disabled = (await api('post', `${C}/userConversationGroups`).send({ name: 'Closed flow', enabled: false }).expect(200)).body.id;
    const refused = await api('post', `${C}/userConversations`).send({ contactId: (await newCustomer()).contactId, conversationGroupId: disabled }).expect(409);
    expect(refused.body.detail).toBe('Conversation group "Closed flow" is disabled, so no conversation may enter it; enable it or choose another group.');
  });

  it('changes an open conversation (group, digital staff, subject, remark) but not a terminated one (409)', async () => {
    const customer = await newCustomer();
    const conversation = await open(customer, { subject: 'Old', remark: 'note' });
    const otherGroup = (await api('post', `${C}/userConversationGroups`).send({ name: 'Escalations' }).expect(200)).body.id;
    const otherStaff = (await newCustomer()).digitalStaffId;
    const changed = await api('put', `${C}/userConversations/${conversation.id}`).send({ conversationGroupId: otherGroup, digitalStaffId: otherStaff, subject: '' }).expect(200);
    expect(changed.body).toMatchObject({ conversationGroupId: otherGroup, digitalStaffId: otherStaff, subject: null, remark: 'note', status: 'pending' });
    await api('put', `${C}/userConversations/${conversation.id}`).send({ status: 'active' }).expect(400);
    await api('put', `${C}/userConversations/${conversation.id}`).send({ digitalStaffId: randomUUID() }).expect(400);
    await api('put', `${C}/userConversations/${conversation.id}/terminate`).expect(200);
    const refused = await api('put', `${C}/userConversations/${conversation.id}`).send({ remark: 'late' }).expect(409);
    expect(refused.body.detail).toBe(`Conversation ${conversation.id} is terminated; a terminated conversation is history and cannot be changed.`);
  });

  it('deletes pending and terminated conversations, refuses an active one (409), answers 404 and 400 for bad ids', async () => {
    const pending = await open(await newCustomer());
    await api('delete', `${C}/userConversations/${pending.id}`).expect(200);
    await api('get', `${C}/userConversations/${pending.id}`).expect(404);
    const active = await open(await newCustomer(), { activate: true });
    const refused = await api('delete', `${C}/userConversations/${active.id}`).expect(409);
    expect(refused.body.detail).toBe(`Conversation ${active.id} is active; terminate it first (PUT .../userConversations/${active.id}/terminate), then delete it.`);
    await api('put', `${C}/userConversations/${active.id}/terminate`).expect(200);
    expect((await api('delete', `${C}/userConversations/${active.id}`).expect(200)).text).toBe('');
    const ghost = randomUUID();
    expect((await api('delete', `${C}/userConversations/${ghost}`).expect(404)).body.detail).toBe(`No conversation ${ghost} in this tenant.`);
    await api('put', `${C}/userConversations/${ghost}/activate`).expect(404);
    await api('put', `${C}/userConversations/${ghost}/terminate`).expect(404);
    await api('get', `${C}/userConversations/nope`).expect(400);
  });

  it('lists with filters (contact, status, group, digital staff, open) and allowed sort fields', async () => {
    const customer = await newCustomer();
    const listGroup = (await api('post', `${C}/userConversationGroups`).send({ name: 'Listing flow' }).expect(200)).body.id;
    const old = await open(customer, { conversationGroupId: listGroup });
    await api('put', `${C}/userConversations/${old.id}/terminate`).expect(200);
    const current = await open(customer, { conversationGroupId: listGroup, activate: true });
    const byContact = await api('get', `${C}/userConversations?contactId=${customer.contactId}&sort=createdAt,asc`).expect(200);
    expect(byContact.body.content.map((c: { id: string }) => c.id)).toEqual([old.id, current.id]);
    expect((await api('get', `${C}/userConversations?conversationGroupId=${listGroup}&status=active`).expect(200)).body.content.map((c: { id: string }) => c.id)).toEqual([current.id]);
    expect((await api('get', `${C}/userConversations?contactId=${customer.contactId}&open=false`).expect(200)).body.content.map((c: { id: string }) => c.id)).toEqual([old.id]);
    expect((await api('get', `${C}/userConversations?contactId=${customer.contactId}&open=true`).expect(200)).body.content.map((c: { id: string }) => c.id)).toEqual([current.id]);
    expect((await api('get', `${C}/userConversations?contactId=${customer.contactId}&open=true&status=terminated`).expect(200)).body.totalElements).toBe(0);
    expect((await api('get', `${C}/userConversations?digitalStaffId=${customer.digitalStaffId}`).expect(200)).body.totalElements).toBe(2);
    const paged = await api('get', `${C}/userConversations?contactId=${customer.contactId}&size=1&page=1&sort=createdAt,asc`).expect(200);
    expect(paged.body).toMatchObject({ page: 1, size: 1, totalElements: 2, totalPages: 2, content: [expect.objectContaining({ id: current.id })] });
    await api('get', `${C}/userConversations?status=open`).expect(400);
    await api('get', `${C}/userConversations?sort=contactId,asc`).expect(400);
    await api('get', `${C}/userConversations?size=201`).expect(400);
  });

  it('starts or reuses the open conversation of a contact for the reply pipeline (startForContact, openForContact)', async () => {
    const service = testApp.app.get(UserConversationsService);
    const customer = await newCustomer();
    expect(await service.openForContact('acme', customer.contactId)).toBeNull();
    const started = await service.startForContact('acme', customer.contactId, customer.digitalStaffId, groupId);
    expect(started).toMatchObject({ status: 'active', contactId: customer.contactId, conversationGroupId: groupId });
    expect((await service.startForContact('acme', customer.contactId, customer.digitalStaffId, groupId)).id).toBe(started.id);
    await api('put', `${C}/userConversations/${started.id}/terminate`).expect(200);
    const pending = await open(customer);
    const activated = await service.startForContact('acme', customer.contactId, customer.digitalStaffId, groupId);
    expect(activated).toMatchObject({ id: pending.id, status: 'active' });
    expect((await service.openForContact('acme', customer.contactId))?.id).toBe(pending.id);
    expect(await service.openForContact('globex', customer.contactId)).toBeNull();
  });

  it('isolates tenants: another tenant\'s token is refused (403), acme ids are unknown on globex paths (404)', async () => {
    const conversation = await open(await newCustomer());
    await api('get', `${C}/userConversations/${conversation.id}`, otherToken).expect(403);
    await api('put', `${C}/userConversations/${conversation.id}/terminate`, otherToken).expect(403);
    const G = '/api/globex/console';
    await api('get', `${G}/userConversations/${conversation.id}`, otherToken).expect(404);
    await api('put', `${G}/userConversations/${conversation.id}`, otherToken).send({ remark: 'x' }).expect(404);
    await api('put', `${G}/userConversations/${conversation.id}/activate`, otherToken).expect(404);
    await api('put', `${G}/userConversations/${conversation.id}/terminate`, otherToken).expect(404);
    await api('delete', `${G}/userConversations/${conversation.id}`, otherToken).expect(404);
    expect((await api('get', `${G}/userConversations`, otherToken).expect(200)).body.totalElements).toBe(0);
    // acme's contact and group are unknown to globex.
    const globexGroup = (await api('post', `${G}/userConversationGroups`, otherToken).send({ name: 'G flow' }).expect(200)).body.id;
    const leak = await api('post', `${G}/userConversations`, otherToken).send({ contactId: conversation.contactId, conversationGroupId: groupId }).expect(400);
    expect(leak.body.errors.map((e: { field: string }) => e.field)).toEqual(['conversationGroupId', 'contactId']);
    await api('post', `${G}/userConversations`, otherToken).send({ contactId: conversation.contactId, conversationGroupId: globexGroup }).expect(400);
    expect((await api('get', `${C}/userConversations/${conversation.id}`).expect(200)).body.status).toBe('pending');
  });

  it('serves reads to a chat:read token and refuses its writes (403)', async () => {
    const customer = await newCustomer();
    const conversation = await open(customer);
    await api('get', `${C}/userConversations/${conversation.id}`, readOnlyToken).expect(200);
    await api('get', `${C}/userConversations`, readOnlyToken).expect(200);
    const writes = await Promise.all([
      api('post', `${C}/userConversations`, readOnlyToken).send({ contactId: customer.contactId, conversationGroupId: groupId }),
      api('put', `${C}/userConversations/${conversation.id}`, readOnlyToken).send({ remark: 'x' }),
      api('put', `${C}/userConversations/${conversation.id}/activate`, readOnlyToken),
      api('put', `${C}/userConversations/${conversation.id}/terminate`, readOnlyToken),
      api('delete', `${C}/userConversations/${conversation.id}`, readOnlyToken),
    ]);
    expect(writes.map((r) => r.status)).toEqual([403, 403, 403, 403, 403]);
    expect((await api('get', `${C}/userConversations/${conversation.id}`).expect(200)).body.status).toBe('pending');
  });

  it('documents every operation with its operationId in the served OpenAPI document', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = (path: string) => Object.fromEntries(Object.entries(document.paths[path] ?? {}).map(([method, operation]) => [method, operation.operationId]));
    expect(ids('/api/{tenant}/console/userConversations')).toEqual({ post: 'createUserConversation', get: 'pageUserConversations' });
    expect(ids('/api/{tenant}/console/userConversations/{id}')).toEqual({ get: 'getUserConversation', put: 'updateUserConversation', delete: 'deleteUserConversation' });
    expect(ids('/api/{tenant}/console/userConversations/{id}/activate')).toEqual({ put: 'activateUserConversation' });
    expect(ids('/api/{tenant}/console/userConversations/{id}/terminate')).toEqual({ put: 'terminateUserConversation' });
  });
});
