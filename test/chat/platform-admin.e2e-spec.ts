import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient } from './support/chat-test-app';

/**
 * The platform administrator's API (issue 5, Tenancy: "an endpoint under a platform-admin scope"): tenants with
 * slug ids that cannot be reserved path segments, and the built-in server's OAuth2 clients.
 */
describe('platform API (/api/platform/*, scope platform:admin)', () => {
  let testApp: TestApp;
  let admin: string;
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).auth(admin, { type: 'bearer' });

  beforeAll(async () => {
    testApp = await startTestApp();
    admin = (await builtInToken(testApp.baseUrl, await newClient(testApp, { platformAdmin: true }))).access_token;
  });
  afterAll(() => testApp?.close());

  it('creates tenants (201) and refuses reserved, malformed and duplicate ids', async () => {
    const created = await api('post', '/api/platform/tenants').send({ id: 'acme', name: ' Acme Retail ' }).expect(201);
    expect(created.body).toEqual({ id: 'acme', name: 'Acme Retail', status: 'active', createdAt: expect.any(String), updatedAt: expect.any(String) });
    const reserved = await api('post', '/api/platform/tenants').send({ id: 'runs', name: 'Runs' }).expect(400);
    expect(reserved.body.detail).toBe('Tenant id "runs" is reserved: it is a fixed path segment of the API (/api/runs/...). Choose another id.');
    const malformed = await api('post', '/api/platform/tenants').send({ id: 'Acme_Corp', name: 'x' }).expect(400);
    expect(malformed.body.errors).toEqual([expect.objectContaining({ field: 'id' })]);
    const duplicate = await api('post', '/api/platform/tenants').send({ id: 'acme', name: 'Again' }).expect(409);
    expect(duplicate.body.detail).toBe('Tenant "acme" already exists.');
  });

  it('reads, lists (paged, filtered by status) and renames or disables tenants', async () => {
    await api('post', '/api/platform/tenants').send({ id: 'globex', name: 'Globex' }).expect(201);
    await api('get', '/api/platform/tenants/acme').expect(200);
    expect((await api('get', '/api/platform/tenants/initech').expect(404)).body.detail).toBe('No tenant "initech".');
    const renamed = await api('patch', '/api/platform/tenants/globex').send({ name: 'Globex Corp', status: 'disabled' }).expect(200);
    expect(renamed.body).toMatchObject({ id: 'globex', name: 'Globex Corp', status: 'disabled' });
    await api('patch', '/api/platform/tenants/globex').send({ status: 'archived' }).expect(400);
    const disabled = await api('get', '/api/platform/tenants?status=disabled').expect(200);
    expect(disabled.body).toMatchObject({ totalElements: 1, content: [expect.objectContaining({ id: 'globex' })] });
    const page = await api('get', '/api/platform/tenants?size=1&sort=id,asc').expect(200);
    expect(page.body).toMatchObject({ page: 0, size: 1, totalElements: 2, totalPages: 2, content: [expect.objectContaining({ id: 'acme' })] });
    await api('get', '/api/platform/tenants?size=201').expect(400);
  });

  it('creates clients with the secret shown once, and refuses inconsistent requests', async () => {
    const created = await api('post', '/api/platform/clients').send({ tenantId: 'acme', scopes: ['chat:read'] }).expect(201);
    expect(created.body).toMatchObject({ clientId: expect.stringMatching(/^atc_[0-9a-f]{24}$/), tenantId: 'acme', scopes: ['chat:read'], name: 'acme client', clientSecret: expect.any(String) });
    const token = await builtInToken(testApp.baseUrl, created.body);
    expect(token.scope).toBe('chat:read');
    const listed = await api('get', '/api/platform/clients?tenantId=acme').expect(200);
    expect(listed.body.content).toEqual([expect.objectContaining({ clientId: created.body.clientId })]);
    expect(listed.body.content[0]).not.toHaveProperty('clientSecret');

    expect((await api('post', '/api/platform/clients').send({}).expect(400)).body.detail).toBe(
      'Give either tenantId (a tenant client) or platformAdmin: true (a platform-admin client).',
    );
    await api('post', '/api/platform/clients').send({ tenantId: 'acme', platformAdmin: true }).expect(400);
    await api('post', '/api/platform/clients').send({ platformAdmin: true, scopes: ['chat:read'] }).expect(400);
    await api('post', '/api/platform/clients').send({ tenantId: 'acme', scopes: ['platform:admin'] }).expect(400);
    expect((await api('post', '/api/platform/clients').send({ tenantId: 'initech' }).expect(404)).body.detail).toBe('No tenant "initech"; create it first.');
    expect((await api('post', '/api/platform/clients').send({ tenantId: 'globex' }).expect(409)).body.detail).toBe('Tenant "globex" is disabled; enable it before creating clients.');

    await api('delete', `/api/platform/clients/${created.body.clientId}`).expect(204);
    expect((await api('get', '/api/platform/clients?tenantId=acme').expect(200)).body.totalElements).toBe(0);
    const withRevoked = await api('get', '/api/platform/clients?tenantId=acme&includeRevoked=true').expect(200);
    expect(withRevoked.body.content).toEqual([expect.objectContaining({ clientId: created.body.clientId, revokedAt: expect.any(String) })]);
  });
});
