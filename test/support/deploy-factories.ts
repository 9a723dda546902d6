import request from 'supertest';
import { TEST_REGISTRATION_KEY } from './test-app';

/** A registered agent as tests use it. */
export interface TestAgent {
  token: string;
  tokenPrefix: string;
  agentId: string;
  contactId: string;
}

let counter = 0;

/** Registers a new agent through the API (factory, DESIGN.md: tests build data with factories). */
export async function newAgent(baseUrl: string, overrides: { agentId?: string; contactId?: string; permissions?: string[] } = {}): Promise<TestAgent> {
  counter += 1;
  const agentId = overrides.agentId ?? `agent-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const contactId = overrides.contactId ?? `c-${counter}-${Math.random().toString(36).slice(2, 8)}`;
  const response = await request(baseUrl)
    .post('/api/auth/register')
    .send({ registrationKey: TEST_REGISTRATION_KEY, agentId, contactId, ...(overrides.permissions ? { permissions: overrides.permissions } : {}) })
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
