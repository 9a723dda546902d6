import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { newCorp, newStaffUser } from '../chat/support/way-factories';

const API_KEY = 'eval-api-key-bad-input-0123456789';

/**
 * Issue 22, acceptance 2: each class of ordinary bad input that used to answer 500 now answers 400 or 409 as
 * problem+json, and the stored row is unchanged (read back after the refused write).
 */
describe('ordinary bad input never answers 500 (issue 22)', () => {
  let testApp: TestApp;
  let chatToken: string;
  let adminToken: string;
  const evalApi = (method: 'get' | 'post' | 'patch', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const chatApi = (method: 'get' | 'post' | 'put' | 'patch', path: string, token = chatToken) => request(testApp.baseUrl)[method](path).auth(token, { type: 'bearer' });

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY });
    await newTenant(testApp, 'acme');
    chatToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    adminToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { platformAdmin: true }))).access_token;
  });
  afterAll(() => testApp?.close());

  const expectProblem = (response: request.Response, status: number) => {
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.status).toBe(status);
  };

  describe('null in a field that is not declared nullable → 400 naming the field, row unchanged', () => {
    it.each([
      ['scenario', '/api/scenarios', { name: 'Refunds', cases: [{ id: 'a', input: 'hi', rules: [] }] }, 'name'],
      ['target', '/api/targets', { name: 'Agent', kind: 'http', http: { url: 'http://127.0.0.1:9/chat', body_template: { message: '{{message}}' }, reply_path: '$.reply' } }, 'name'],
      ['model config', '/api/model-configs', { name: 'judge', base_url: 'http://127.0.0.1:9/v1', model: 'm' }, 'name'],
      ['file category', '/api/file-categories', { name: 'Docs' }, 'name'],
    ])('evaluation %s (%s): PATCH with the field null', async (_label, path, body, field) => {
      const created = await evalApi('post', path).send(body);
      expect([created.status, created.body.detail]).toEqual([201, undefined]);
      const refused = await evalApi('patch', `${path}/${created.body.id}`).send({ [field]: null });
      expectProblem(refused, 400);
      expect(refused.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
      const after = await evalApi('get', `${path}/${created.body.id}`).expect(200);
      expect(after.body[field]).toBe(created.body[field]);
    });

    it('chat digital staff: PUT {"name": null}', async () => {
      const created = await chatApi('post', '/api/acme/v1/chat/staff').send({ name: 'Ava', persona: 'You are Ava.' }).expect(200);
      expectProblem(await chatApi('put', `/api/acme/v1/chat/staff/${created.body.id}`).send({ name: null }), 400);
      expect((await chatApi('get', `/api/acme/v1/chat/staff/${created.body.id}`).expect(200)).body.name).toBe('Ava');
    });

    it('chat tag rule: PUT {"name": null}', async () => {
      const rules = '/api/acme/console/customers/tagRule';
      const created = await chatApi('post', rules).send({ name: 'Price', keywords: ['price'], tagNames: ['price'] }).expect(200);
      expectProblem(await chatApi('put', `${rules}/${created.body.id}`).send({ name: null, keywords: ['price'] }), 400);
      expect((await chatApi('get', `${rules}/${created.body.id}`).expect(200)).body.name).toBe('Price');
    });

    it('platform tenant: PATCH {"name": null}', async () => {
      await chatApi('post', '/api/platform/tenants', adminToken).send({ id: 'nullco', name: 'Null Co' }).expect(201);
      expectProblem(await chatApi('patch', '/api/platform/tenants/nullco', adminToken).send({ name: null }), 400);
      expect((await chatApi('get', '/api/platform/tenants/nullco', adminToken).expect(200)).body.name).toBe('Null Co');
    });
  });

  it('a console intervention rule without `action` or `scope` → 400 naming it, nothing stored', async () => {
    const path = '/api/acme/console/customers/interventionRule';
    const base = { name: 'No action', matchType: 'keywords', patterns: ['lawyer'] };
    const noAction = await chatApi('post', path).send({ ...base, scope: { allContacts: true } });
    expectProblem(noAction, 400);
    expect(noAction.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'action' })]));
    const noScope = await chatApi('post', path).send({ ...base, action: { reason: 'r' } });
    expectProblem(noScope, 400);
    expect(noScope.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'scope' })]));
    expect((await chatApi('get', path).expect(200)).body.totalElements).toBe(0);
  });

  it('a group-way id past the int64 (and exact JSON number) range → 400, not a database error', async () => {
    for (const id of [9223372036854775807, 1e30, 2 ** 53]) {
      const refused = await chatApi('put', '/api/acme/v1/chat/group/way/conversationGroupId').send({ id, conversationGroupId: 'vip' });
      expectProblem(refused, 400);
    }
  });

  it('contact-way creation for a corp without a platform secret → 409 naming the setting (the client can fix it)', async () => {
    const bare = await newCorp(testApp, chatToken, 'acme', 'Acme Bare', { secret: null });
    await newStaffUser(testApp, bare, 'sunqi', { name: 'Sun Qi' });
    const refused = await chatApi('post', '/api/acme/v1/chat/contact/way').send({ corpName: 'Acme Bare', name: 'x', workChatUserIds: ['sunqi'] });
    expectProblem(refused, 409);
    expect(refused.body.detail).toContain('Set `secret` on the corp');
    expect((await chatApi('get', '/api/acme/v1/chat/contact/way').expect(200)).body.totalElements).toBe(0);
  });

  it('a unique violation the service did not foresee is 409 (SQLSTATE 23505 in the one filter), not 500', async () => {
    await evalApi('post', '/api/file-categories').send({ name: 'Twin' }).expect(201);
    const twin = await evalApi('post', '/api/file-categories').send({ name: 'Twin' });
    expectProblem(twin, 409);
  });
});
