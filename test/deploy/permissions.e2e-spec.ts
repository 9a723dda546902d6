import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { deployArchive, joinAgent, newAgent, TestAgent } from '../support/deploy-factories';
import { rawTarGz } from '../support/raw-tar';
import { startTestApp, TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

type Credential = 'none' | 'revoked' | 'missing-permission' | 'right-permission' | 'owner';
const ALL = ['deploy', 'exec', 'list', 'delete'];

interface EndpointCase {
  name: string;
  /** agent permission required; 'owner' for admin routes */
  needs: 'deploy' | 'exec' | 'list' | 'delete' | 'owner';
  send(app: TestApp, authorization: string | undefined, agent: TestAgent): request.Test;
  /** status when the credential is accepted */
  okStatus: number;
}

const auth = (test: request.Test, authorization?: string) => (authorization ? test.set('Authorization', authorization) : test);

const endpoints: EndpointCase[] = [
  {
    name: 'POST /api/deploy',
    needs: 'deploy',
    okStatus: 201,
    send: (app, authorization, agent) => {
      const test = deployArchive(app.baseUrl, 'x', rawTarGz([{ name: 'index.html', content: '<p>hi</p>' }]), { projectName: 'matrix', contactId: agent.contactId });
      return authorization ? test.set('Authorization', authorization) : test.unset('Authorization');
    },
  },
  {
    name: 'POST /api/upload',
    needs: 'deploy',
    okStatus: 201,
    send: (app, authorization) =>
      // relative to the caller's namespace workspace (issue 12, item 3: uploads go to the caller's own workspace)
      auth(request(app.baseUrl).post('/api/upload').field('path', 'matrix.txt').attach('file', Buffer.from('hello'), 'matrix.txt'), authorization),
  },
  { name: 'POST /api/exec', needs: 'exec', okStatus: 200, send: (app, authorization) => auth(request(app.baseUrl).post('/api/exec').send({ command: 'echo hi' }), authorization) },
  { name: 'GET /api/deployments', needs: 'list', okStatus: 200, send: (app, authorization) => auth(request(app.baseUrl).get('/api/deployments'), authorization) },
  // an unknown id of the caller's namespace: 404 proves the credential passed
  { name: 'DELETE /api/deploy/{id}', needs: 'delete', okStatus: 404, send: (app, authorization) => auth(request(app.baseUrl).delete(`/api/deploy/${randomUUID()}`), authorization) },
  { name: 'GET /api/admin/tokens', needs: 'owner', okStatus: 200, send: (app, authorization) => auth(request(app.baseUrl).get('/api/admin/tokens'), authorization) },
  { name: 'DELETE /api/admin/tokens/{prefix}', needs: 'owner', okStatus: 404, send: (app, authorization) => auth(request(app.baseUrl).delete('/api/admin/tokens/00000000'), authorization) },
  { name: 'GET /api/admin/audit', needs: 'owner', okStatus: 200, send: (app, authorization) => auth(request(app.baseUrl).get('/api/admin/audit').query({ date: '2026-01-01' }), authorization) },
];

function expectedStatus(endpoint: EndpointCase, credential: Credential): number {
  if (credential === 'none' || credential === 'revoked') return 401;
  if (endpoint.needs === 'owner') return credential === 'owner' ? endpoint.okStatus : 403;
  if (credential === 'owner' || credential === 'missing-permission') return 403;
  return endpoint.okStatus;
}

describe('permission matrix (deployment-gateway.md, Endpoints and Authentication)', () => {
  let testApp: TestApp;
  const tokens = {} as Record<Credential, (needs: EndpointCase['needs']) => string | undefined>;
  let fullAgent: TestAgent;

  beforeAll(async () => {
    testApp = await startTestApp();
    fullAgent = await newAgent(testApp.baseUrl);
    const revoked = await newAgent(testApp.baseUrl);
    await request(testApp.baseUrl).delete(`/api/admin/tokens/${revoked.tokenPrefix}`).set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).expect(204);
    const lacking: Record<string, TestAgent> = {};
    for (const permission of ALL) {
      // joining fullAgent's namespace needs the owner's join grant (issue 12, item 3)
      lacking[permission] = await joinAgent(testApp.baseUrl, fullAgent.contactId, { permissions: ALL.filter((p) => p !== permission) });
    }
    tokens.none = () => undefined;
    tokens.revoked = () => `Bearer ${revoked.token}`;
    tokens['missing-permission'] = (needs) => `Bearer ${needs === 'owner' ? fullAgent.token : lacking[needs].token}`;
    tokens['right-permission'] = () => `Bearer ${fullAgent.token}`;
    tokens.owner = () => `Bearer ${TEST_OWNER_TOKEN}`;
  });
  afterAll(() => testApp?.close());

  const credentials: Credential[] = ['none', 'revoked', 'missing-permission', 'right-permission', 'owner'];
  const matrix = endpoints.flatMap((endpoint) => credentials.map((credential) => [endpoint.name, credential, endpoint] as const));

  it.each(matrix)('%s with %s', async (_name, credential, endpoint) => {
    const response = await endpoint.send(testApp, tokens[credential](endpoint.needs), fullAgent);
    expect(response.status).toBe(expectedStatus(endpoint, credential));
    if (response.status >= 400) expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('GET /api/health needs no credential and reports the database', async () => {
    const response = await request(testApp.baseUrl).get('/api/health').expect(200);
    expect(response.body).toEqual({ status: 'ok', database: 'up' });
  });

  it('POST /api/auth/register takes only the registration key', async () => {
    await request(testApp.baseUrl).post('/api/auth/register').send({}).expect(400);
    await request(testApp.baseUrl).post('/api/auth/register').send({ registrationKey: 'wrong-key-wrong-key' }).expect(401);
    await request(testApp.baseUrl).post('/api/auth/register').send({ registrationKey: TEST_OWNER_TOKEN }).expect(401);
    await request(testApp.baseUrl).post('/api/auth/register').send({ registrationKey: TEST_REGISTRATION_KEY, permissions: ['root'] }).expect(400);
    // the key is valid for nothing else
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${TEST_REGISTRATION_KEY}`).expect(401);
    await request(testApp.baseUrl).get('/api/admin/tokens').set('Authorization', `Bearer ${TEST_REGISTRATION_KEY}`).expect(401);
  });

  it('a new registration of the same agent revokes its previous token (one token per agent)', async () => {
    const first = await newAgent(testApp.baseUrl, { agentId: 'repeat-agent' });
    // re-registering an existing agentId needs its current token (issue 12, item 3: rotation)
    const second = await newAgent(testApp.baseUrl, { agentId: 'repeat-agent', contactId: first.contactId, authorization: first.token });
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${first.token}`).expect(401);
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${second.token}`).expect(200);
  });

  it('lists tokens without secrets and stores only hashes', async () => {
    const response = await request(testApp.baseUrl).get('/api/admin/tokens').set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).query({ size: 200 }).expect(200);
    const body = JSON.stringify(response.body);
    expect(body).not.toContain(fullAgent.token);
    expect(body).not.toMatch(/secretHash|secret_hash/);
    expect(response.body.content.find((row: { prefix: string }) => row.prefix === fullAgent.tokenPrefix)).toMatchObject({
      agentId: fullAgent.agentId,
      namespace: fullAgent.contactId,
      permissions: ALL,
      revokedAt: null,
    });
  });

  it('a revoked token stops working at once', async () => {
    const agent = await newAgent(testApp.baseUrl);
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${agent.token}`).expect(200);
    await request(testApp.baseUrl).delete(`/api/admin/tokens/${agent.tokenPrefix}`).set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).expect(204);
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${agent.token}`).expect(401);
  });

  describe('namespace isolation', () => {
    it('keeps two agents apart: list, publish and delete', async () => {
      const alice = await newAgent(testApp.baseUrl);
      const bob = await newAgent(testApp.baseUrl);
      const site = rawTarGz([{ name: 'index.html', content: 'alice' }]);
      const published = await deployArchive(testApp.baseUrl, alice.token, site, { projectName: 'alice-site', contactId: alice.contactId }).expect(201);
      await deployArchive(testApp.baseUrl, bob.token, site, { projectName: 'squat', contactId: alice.contactId }).expect(403);

      const bobList = await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${bob.token}`).expect(200);
      expect(bobList.body.totalElements).toBe(0);
      await request(testApp.baseUrl).delete(`/api/deploy/${published.body.id}`).set('Authorization', `Bearer ${bob.token}`).expect(404);

      const aliceList = await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${alice.token}`).expect(200);
      expect(aliceList.body.content.map((row: { id: string }) => row.id)).toEqual([published.body.id]);
      expect((await fetch(published.body.url)).status).toBe(200);
    });
  });

  it('answers bad input with problem+json 400, never 500', async () => {
    const bad = await request(testApp.baseUrl).post('/api/exec').set('Authorization', `Bearer ${fullAgent.token}`).send({ command: 'ls', extra: true }).expect(400);
    expect(bad.body).toMatchObject({ status: 400, title: 'Bad Request', type: 'about:blank' });
    expect(bad.body.errors).toEqual([{ field: 'extra', messages: [expect.stringContaining('should not exist')] }]);
    await request(testApp.baseUrl).post('/api/exec').set('Authorization', `Bearer ${fullAgent.token}`).set('Content-Type', 'application/json').send('{"command":').expect(400);
    await request(testApp.baseUrl).get('/api/admin/audit').set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).query({ date: '2026-02-30' }).expect(400);
    await request(testApp.baseUrl).get('/api/admin/audit').set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).query({ date: '21-11-2026' }).expect(400);
    await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${fullAgent.token}`).query({ sort: 'secretHash,asc' }).expect(400);
    await request(testApp.baseUrl).delete('/api/deploy/not-a-uuid').set('Authorization', `Bearer ${fullAgent.token}`).expect(400);
    const missing = await request(testApp.baseUrl).get('/api/nothing-here').expect(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
