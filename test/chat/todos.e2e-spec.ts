import request from 'supertest';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { CustomerTodoEntity } from '../../src/chat/todos/customer-todo.entity';
import { CustomerTodosService } from '../../src/chat/todos/customer-todos.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { dataSourceOf, newDigitalStaff, type TestCorp, newTwoTenantChat } from './support/way-factories';

type Json = Record<string, any>;

/**
 * Digital-staff customer to-dos (chat-management-api.md, Tenant API: `POST {T}/v1/chat/digitalStaff/customer/todo/process`
 * processDigitalStaffCustomerTodo, plus list and read; issue 6, "The inbound pipeline"): opened through the service
 * (the pipeline's entry, idempotent per source message, inside a caller's transaction), listed, read, processed
 * (409 the second time, AI switched back on in the same transaction), validation, scopes and tenant isolation.
 */
describe('digital-staff customer to-dos', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let contact: Json;
  let second: Json;
  let otherContact: Json;
  let staffId: string;
  const T = '/api/acme/v1/chat/digitalStaff/customer/todo';
  const api = (method: 'get' | 'post', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const todos = () => testApp.app.get(CustomerTodosService);
  const aiOf = async (id: string) => (await dataSourceOf(testApp).getRepository(ExternalContactEntity).findOneByOrFail({ id })).aiEnabled;
  const setAi = (id: string, aiEnabled: boolean) => dataSourceOf(testApp).getRepository(ExternalContactEntity).update({ id }, { aiEnabled });
  const uuid = () => crypto.randomUUID();

  beforeAll(async () => {
    testApp = await startTestApp();
    const cast = await newTwoTenantChat(testApp);
    ({ token, readOnly, otherToken, acme } = cast);
    const { globex } = cast;
    staffId = (await newDigitalStaff(testApp, 'acme', 'Mia')).id;
    const inject = async (corp: TestCorp, bearer: string, name: string) => {
      await api('post', `/api/${corp.tenantId}/console/simulator/corps/${corp.id}/staff`, bearer).send({ userId: 'zhangsan' });
      const response = await api('post', `/api/${corp.tenantId}/console/simulator/corps/${corp.id}/customers`, bearer).send({ name, userId: 'zhangsan' });
      if (response.status !== 200) throw new Error(`inject failed: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body.contact as Json;
    };
    contact = await inject(acme, token, 'Lily');
    second = await inject(acme, token, 'Bob');
    otherContact = await inject(globex, otherToken, 'Zed');
  });
  afterAll(() => testApp?.close());

  it('serves processDigitalStaffCustomerTodo and the list and read routes', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const base = '/api/{tenant}/v1/chat/digitalStaff/customer/todo';
    expect(document.paths[`${base}/process`].post.operationId).toBe('processDigitalStaffCustomerTodo');
    expect(document.paths[base].get.operationId).toBe('pageDigitalStaffCustomerTodos');
    expect(document.paths[`${base}/{id}`].get.operationId).toBe('getDigitalStaffCustomerTodo');
    expect(document.components.schemas.ProcessTodoRequest.required).toEqual(['todoId']);
  });

  it('opens idempotently per source message; without one every call opens a new to-do; rolls back with the caller', async () => {
    const messageId = uuid();
    const input = { contactId: contact.id, digitalStaffId: staffId, ruleId: uuid(), reason: 'Customer asked for a human', sourceMessageId: messageId };
    const first = await todos().open('acme', input);
    expect(first).toMatchObject({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId, ruleId: input.ruleId, sourceMessageId: messageId, reason: input.reason, status: 'open', processedBy: null, processedAt: null, note: null, aiReEnabled: false });
    const again = await todos().open('acme', { ...input, reason: 'another reason' });
    expect(again.id).toBe(first.id);
    expect(again.reason).toBe('Customer asked for a human');
    const raced = uuid();
    const racing = await Promise.all(Array.from({ length: 5 }, () => todos().open('acme', { ...input, sourceMessageId: raced })));
    expect(new Set(racing.map((row) => row.id)).size).toBe(1);
    const a = await todos().open('acme', { ...input, sourceMessageId: null, ruleId: null, digitalStaffId: null });
    const b = await todos().open('acme', { ...input, sourceMessageId: null, ruleId: null, digitalStaffId: null });
    expect(a.id).not.toBe(b.id);
    // The same source message id in another tenant is another to-do.
    const other = await todos().open('globex', { ...input, contactId: otherContact.id, digitalStaffId: null });
    expect(other.id).not.toBe(first.id);

    const rolledBack = uuid();
    await expect(
      dataSourceOf(testApp).transaction(async (manager) => {
        await todos().open('acme', { ...input, sourceMessageId: rolledBack }, manager);
        expect(await manager.countBy(CustomerTodoEntity, { sourceMessageId: rolledBack })).toBe(1);
        throw new Error('caller fails');
      }),
    ).rejects.toThrow('caller fails');
    expect(await dataSourceOf(testApp).getRepository(CustomerTodoEntity).countBy({ sourceMessageId: rolledBack })).toBe(0);
  });

  it('lists (paged, newest first, filters) and reads to-dos of the tenant only', async () => {
    const mine = await todos().open('acme', { contactId: second.id, digitalStaffId: staffId, ruleId: null, reason: 'Angry customer', sourceMessageId: uuid() });
    const page = await api('get', `${T}?contactId=${second.id}`).expect(200);
    expect(page.body).toMatchObject({ page: 0, size: 20, totalElements: 1, totalPages: 1 });
    expect(page.body.content[0]).toMatchObject({ id: mine.id, contactId: second.id, digitalStaffId: staffId, reason: 'Angry customer', status: 'open', aiReEnabled: false });

    const all = await api('get', `${T}?size=2`).expect(200);
    expect(all.body.size).toBe(2);
    expect(all.body.content).toHaveLength(2);
    expect(all.body.content[0].id).toBe(mine.id);
    expect(all.body.totalElements).toBeGreaterThanOrEqual(5);
    expect(all.body.content.every((row: Json) => row.tenantId === 'acme')).toBe(true);

    const byStaff = await api('get', `${T}?digitalStaffId=${staffId}&status=open&sort=createdAt,asc`).expect(200);
    expect(byStaff.body.content.every((row: Json) => row.digitalStaffId === staffId && row.status === 'open')).toBe(true);
    expect(byStaff.body.content.at(-1).id).toBe(mine.id);
    expect((await api('get', `${T}?status=processed&contactId=${second.id}`).expect(200)).body.totalElements).toBe(0);

    const read = await api('get', `${T}/${mine.id}`, readOnly).expect(200);
    expect(read.body).toMatchObject({ id: mine.id, status: 'open', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const globexList = await api('get', '/api/globex/v1/chat/digitalStaff/customer/todo', otherToken).expect(200);
    expect(globexList.body.content.every((row: Json) => row.tenantId === 'globex')).toBe(true);
  });

  it('processes a to-do once, switching the AI back on in the same transaction; a second time is 409', async () => {
    await setAi(contact.id, false);
    const todo = await todos().open('acme', { contactId: contact.id, digitalStaffId: staffId, ruleId: null, reason: 'Refund question', sourceMessageId: uuid() });
    const processed = await api('post', `${T}/process`).send({ todoId: todo.id, enableAi: true, note: 'Refund issued by phone.' }).expect(200);
    expect(processed.body).toMatchObject({ id: todo.id, status: 'processed', note: 'Refund issued by phone.', aiReEnabled: true, processedBy: expect.any(String), processedAt: expect.any(String) });
    expect(new Date(processed.body.processedAt).getTime()).toBeGreaterThanOrEqual(new Date(processed.body.createdAt).getTime());
    expect(await aiOf(contact.id)).toBe(true);
    const switchState = await api('get', `/api/acme/v1/workChat/contact/external/ai/switch?corpName=${encodeURIComponent(acme.corpName)}&userId=zhangsan&externalUserId=${contact.externalUserId}`).expect(200);
    expect(switchState.body).toBe(true);

    const twice = await api('post', `${T}/process`).send({ todoId: todo.id, enableAi: true }).expect(409);
    expect(twice.headers['content-type']).toContain('application/problem+json');
    expect(twice.body.detail).toContain('already processed');
    expect((await api('get', `${T}/${todo.id}`).expect(200)).body).toMatchObject({ status: 'processed', note: 'Refund issued by phone.' });
    expect((await api('get', `${T}?status=processed&contactId=${contact.id}`).expect(200)).body.content.map((row: Json) => row.id)).toContain(todo.id);
  });

  it('leaves the AI as it is without enableAi; of concurrent processings exactly one wins', async () => {
    await setAi(second.id, false);
    const todo = await todos().open('acme', { contactId: second.id, digitalStaffId: null, ruleId: null, reason: 'Complaint', sourceMessageId: uuid() });
    const responses = await Promise.all(Array.from({ length: 4 }, () => api('post', `${T}/process`).send({ todoId: todo.id })));
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = responses.find((response) => response.status === 200)!;
    expect(winner.body).toMatchObject({ status: 'processed', aiReEnabled: false, note: null });
    expect(await aiOf(second.id)).toBe(false);
  });

  it('refuses with 409 and changes nothing when the AI cannot be switched on (contact gone)', async () => {
    const todo = await todos().open('acme', { contactId: uuid(), digitalStaffId: null, ruleId: null, reason: 'Ghost', sourceMessageId: uuid() });
    const refused = await api('post', `${T}/process`).send({ todoId: todo.id, enableAi: true }).expect(409);
    expect(refused.body.detail).toContain('no longer exists');
    expect((await api('get', `${T}/${todo.id}`).expect(200)).body.status).toBe('open');
    await api('post', `${T}/process`).send({ todoId: todo.id }).expect(200);
  });

  it('validates the body, the query and the id (400), and answers 404 for unknown ids', async () => {
    const bad = await api('post', `${T}/process`).send({ todoId: 'nope', enableAi: 'yes', note: 'x'.repeat(2001) }).expect(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    const fields = (bad.body.errors as { field: string }[]).map((error) => error.field).sort();
    expect(fields).toEqual(['enableAi', 'note', 'todoId']);
    await api('post', `${T}/process`).send({}).expect(400);
    await api('get', `${T}?status=closed`).expect(400);
    await api('get', `${T}?contactId=nope`).expect(400);
    await api('get', `${T}?sort=reason,asc`).expect(400);
    await api('get', `${T}?size=201`).expect(400);
    await api('get', `${T}/not-a-uuid`).expect(400);
    await api('get', `${T}/${uuid()}`).expect(404);
    await api('post', `${T}/process`).send({ todoId: uuid() }).expect(404);
  });

  it('isolates tenants: another tenant\'s to-do is 404, another tenant\'s path is 403; read scope cannot process', async () => {
    const foreign = await todos().open('globex', { contactId: otherContact.id, digitalStaffId: null, ruleId: null, reason: 'Foreign', sourceMessageId: uuid() });
    await api('get', `${T}/${foreign.id}`).expect(404);
    await api('post', `${T}/process`).send({ todoId: foreign.id }).expect(404);
    expect((await api('get', `/api/globex/v1/chat/digitalStaff/customer/todo/${foreign.id}`, otherToken).expect(200)).body.status).toBe('open');
    await api('get', '/api/globex/v1/chat/digitalStaff/customer/todo').expect(403);
    await api('post', '/api/globex/v1/chat/digitalStaff/customer/todo/process').send({ todoId: foreign.id }).expect(403);

    const mine = await todos().open('acme', { contactId: contact.id, digitalStaffId: null, ruleId: null, reason: 'Read only', sourceMessageId: uuid() });
    await api('get', T, readOnly).expect(200);
    await api('post', `${T}/process`, readOnly).send({ todoId: mine.id }).expect(403);
    expect((await api('get', `${T}/${mine.id}`).expect(200)).body.status).toBe('open');
    await request(testApp.baseUrl).get(T).expect(401);
  });
});
