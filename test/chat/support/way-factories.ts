import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DigitalStaffEntity } from '../../../src/chat/digital-staff/digital-staff.entity';
import type { ChatCorpContext } from '../../../src/chat/platform/chat-platform.port';
import { WorkChatUserEntity } from '../../../src/chat/staff-users/work-chat-user.entity';
import type { TestApp } from '../../support/test-app';
import { builtInToken, newClient, newTenant } from './chat-test-app';

/**
 * Factories of the contact way and group way e2e tests (issue 5): corps through the corps API, staff users and
 * digital staff stored directly (their own APIs are tested elsewhere), and the platform corp context of a corp.
 */

/** The secret every factory corp is created with (the simulator only needs a non-empty one). */
export const CORP_SECRET = 'corp-app-secret-for-way-tests-0123456789';

export interface TestCorp {
  id: string;
  corpName: string;
  workChatCorpId: string;
  tenantId: string;
}

/** The app's DataSource. */
export function dataSourceOf(testApp: TestApp): DataSource {
  return testApp.app.get<DataSource>(getDataSourceToken());
}

/**
 * Creates a corp through `POST {C}/workChat/corps` (with a secret unless `secret: null`).
 * @throws Error when the API refuses
 */
export async function newCorp(testApp: TestApp, token: string, tenantId: string, corpName: string, options: { secret?: string | null; workChatCorpId?: string } = {}): Promise<TestCorp> {
  const workChatCorpId = options.workChatCorpId ?? `ww${corpName.replace(/[^A-Za-z0-9]/g, '').toLowerCase()}${Math.random().toString(36).slice(2, 8)}`;
  const response = await request(testApp.baseUrl)
    .post(`/api/${tenantId}/console/workChat/corps`)
    .auth(token, { type: 'bearer' })
    .send({ corpName, workChatCorpId, ...(options.secret === null ? {} : { secret: options.secret ?? CORP_SECRET }) });
  if (response.status !== 200) throw new Error(`corp creation failed: ${response.status} ${JSON.stringify(response.body)}`);
  return { id: response.body.id, corpName, workChatCorpId, tenantId };
}

/** Stores a staff user of the corp (the platform userid `workChatUserId`). */
export async function newStaffUser(testApp: TestApp, corp: TestCorp, workChatUserId: string, fields: { name?: string; mobile?: string | null; digitalStaffId?: string | null } = {}): Promise<WorkChatUserEntity> {
  const repository = dataSourceOf(testApp).getRepository(WorkChatUserEntity);
  return repository.save(
    repository.create({
      tenantId: corp.tenantId,
      corpId: corp.id,
      workChatUserId,
      userId: null,
      name: fields.name ?? workChatUserId,
      mobile: fields.mobile ?? null,
      email: null,
      online: true,
      digitalStaffId: fields.digitalStaffId ?? null,
    }),
  );
}

/** Stores a digital staff of the tenant. */
export async function newDigitalStaff(testApp: TestApp, tenantId: string, name: string): Promise<DigitalStaffEntity> {
  const repository = dataSourceOf(testApp).getRepository(DigitalStaffEntity);
  return repository.save(repository.create({ tenantId, name, persona: `You are ${name}, a helpful shop assistant.`, description: null, welcomeMessage: null, enabled: true }));
}

/** The platform port's context of a factory corp. */
export function corpContext(corp: TestCorp): ChatCorpContext {
  return { tenantId: corp.tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId, secret: CORP_SECRET };
}

/** Two tenants with their tokens, one corp each and staff user `zhangsan` in both (see {@link newTwoTenantChat}). */
export interface TwoTenantChat {
  /** Read-write token of acme. */
  token: string;
  /** acme token with chat:read only. */
  readOnly: string;
  /** Read-write token of globex. */
  otherToken: string;
  acme: TestCorp;
  globex: TestCorp;
}

/**
 * The usual cast of a chat e2e suite: tenants `acme` and `globex`, a client and token for each (and a read-only one
 * for acme), corps "Acme Retail" and "Globex Retail", and staff user `zhangsan` in both corps.
 */
export async function newTwoTenantChat(testApp: TestApp): Promise<TwoTenantChat> {
  await newTenant(testApp, 'acme');
  await newTenant(testApp, 'globex');
  const token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
  const readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
  const otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
  const acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
  const globex = await newCorp(testApp, otherToken, 'globex', 'Globex Retail');
  await newStaffUser(testApp, acme, 'zhangsan');
  await newStaffUser(testApp, globex, 'zhangsan');
  return { token, readOnly, otherToken, acme, globex };
}
