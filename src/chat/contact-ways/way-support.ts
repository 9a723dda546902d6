import { ConflictException, NotFoundException } from '@nestjs/common';
import { EntityManager, In } from 'typeorm';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import type { ChatCorpContext } from '../platform/chat-platform.port';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';

/**
 * Lookups and checks shared by the contact way and group way services (issue 5; corps by name: contacts/corp-lookup):
 * staff users and digital staff referenced from a request, the platform corp context, the per-scope lock of
 * setDefault and unique-index violations. Every lookup filters by the tenant, so another tenant's objects are
 * "not found".
 */

/** The tenant's corps by id (missing ids are simply absent). */
export async function corpsById(manager: EntityManager, tenantId: string, ids: string[]): Promise<Map<string, WorkChatCorpEntity>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await manager.findBy(WorkChatCorpEntity, { tenantId, id: In(unique) });
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * The corp context of the platform port; the secret goes to the platform only.
 * @throws ConflictException (409) the corp is disabled (kept, but not used to reach the platform)
 */
export function platformContext(corp: WorkChatCorpEntity): ChatCorpContext {
  if (!corp.enabled) throw new ConflictException(`Corp "${corp.corpName}" is disabled; enable it before changing its scene codes on the chat platform.`);
  return { tenantId: corp.tenantId, corpId: corp.id, platformCorpId: corp.workChatCorpId, secret: corp.secret ?? '' };
}

/**
 * The staff users of the corp with these platform userids, keyed by userid.
 * @throws NotFoundException (404) naming the userids the corp has no staff user for
 */
export async function requireStaffUsers(manager: EntityManager, corp: WorkChatCorpEntity, workChatUserIds: string[]): Promise<Map<string, WorkChatUserEntity>> {
  const unique = [...new Set(workChatUserIds)];
  const rows = unique.length ? await manager.findBy(WorkChatUserEntity, { tenantId: corp.tenantId, corpId: corp.id, workChatUserId: In(unique) }) : [];
  const found = new Map(rows.map((row) => [row.workChatUserId, row]));
  const missing = unique.filter((userId) => !found.has(userId));
  if (missing.length > 0) {
    throw new NotFoundException(`Corp "${corp.corpName}" has no staff user ${missing.map((id) => `"${id}"`).join(', ')}; create or sync the staff users first.`);
  }
  return found;
}

/**
 * The tenant's digital staff with this id.
 * @throws NotFoundException (404) no such digital staff in the tenant
 */
export async function requireDigitalStaff(manager: EntityManager, tenantId: string, id: string): Promise<DigitalStaffEntity> {
  const row = await manager.findOneBy(DigitalStaffEntity, { tenantId, id });
  if (!row) throw new NotFoundException(`No digital staff ${id} in this tenant.`);
  return row;
}

/** The tenant's digital staff by id (missing ids are simply absent). */
export async function digitalStaffById(manager: EntityManager, tenantId: string, ids: (string | null)[]): Promise<Map<string, DigitalStaffEntity>> {
  const unique = [...new Set(ids.filter((id): id is string => Boolean(id)))];
  if (unique.length === 0) return new Map();
  const rows = await manager.findBy(DigitalStaffEntity, { tenantId, id: In(unique) });
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Takes the transaction-scoped advisory lock of a default scope (released at commit or rollback). Must run inside
 * a transaction.
 * @param key see defaultScopeLockKey (contact-way.rules.ts)
 */
export async function lockDefaultScope(manager: EntityManager, key: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}
