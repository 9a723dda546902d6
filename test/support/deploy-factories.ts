import request from 'supertest';
import { TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY } from './test-app';

/** A registered agent as tests use it. */
export interface TestAgent {
  token: string;
  tokenPrefix: string;
  agentId: string;
  contactId: string;
}

let counter = 0;

/** Registers a new agent through the API (factory, DESIGN.md: tests build data with factories). */
export async function newAgent(
  baseUrl: string,
  overrides: { agentId?: string; contactId?: string; permissions?: string[]; joinGrant?: string; authorization?: string } = {},
): Promise<TestAgent> {
  counter += 1;
  const agentId = overrides.agentId ?? `agent-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const contactId = overrides.contactId ?? `c-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const registration = request(baseUrl).post('/api/auth/register');
  if (overrides.authorization) registration.set('Authorization', `Bearer ${overrides.authorization}`);
  const response = await registration
    .send({
      registrationKey: TEST_REGISTRATION_KEY,
      agentId,
      contactId,
      ...(overrides.permissions ? { permissions: overrides.permissions } : {}),
      ...(overrides.joinGrant ? { joinGrant: overrides.joinGrant } : {}),
    })
    .expect(201);
  return { token: response.body.token, tokenPrefix: response.body.tokenPrefix, agentId, contactId };
}

/** Sends a site archive to `POST /api/deploy`. */
export function deployArchive(baseUrl: string, token: string, archive: Buffer, fields: { projectName: string; contactId: string }) {
  return request(baseUrl)
    .post('/api/deploy')
    .set('Authorization', `Bearer ${token}`)
    .field('projectName', fields.projectName)
    .field('contactId', fields.contactId)
    .attach('archive', archive, { filename: 'site.tar.gz', contentType: 'application/gzip' });
}

/** Issues a one-time join grant for `namespace` as the owner (issue 12, item 3) and returns its code. */
export async function issueJoinGrant(baseUrl: string, namespace: string, body: { ttlMs?: number; note?: string; permissions?: string[] } = {}): Promise<string> {
  const response = await request(baseUrl).post(`/api/admin/namespaces/${namespace}/grants`).set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`).send(body).expect(201);
  return response.body.code as string;
}

/** Registers a new agent into the existing namespace `contactId` with a fresh join grant from the owner. */
export async function joinAgent(baseUrl: string, contactId: string, overrides: { agentId?: string; permissions?: string[] } = {}): Promise<TestAgent> {
  return newAgent(baseUrl, { ...overrides, contactId, joinGrant: await issueJoinGrant(baseUrl, contactId) });
}
