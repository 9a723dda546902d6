import { ConflictException, NotFoundException } from '@nestjs/common';
import { prepareOnFirstUse } from '../../database/guarded-pg';
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

/** What a contact way's view shows of its staff users (by corp, then platform userid) and digital staff (by id). */
export interface WayPeople {
  staffUsers: Map<string, Map<string, { id: string; name: string; mobile: string | null }>>;
  digitalStaffNames: Map<string, string>;
}

/** The staff users and digital staff of a page of ways, in one statement (a constant text: prepared once per connection). */
const WAY_PEOPLE_SQL = `SELECT 'staff' AS kind, corp_id::text AS corp_id, work_chat_user_id AS key, id::text AS id, name, mobile
    FROM chat_work_user WHERE tenant_id = $1 AND corp_id = ANY($2::uuid[]) AND work_chat_user_id = ANY($3::text[])
  UNION ALL
  SELECT 'digital', NULL, id::text, id::text, name, NULL FROM chat_digital_staff WHERE tenant_id = $1 AND id = ANY($4::uuid[])`;

/**
 * The staff users (id, name, mobile) and digital staff names a page of contact ways shows, read in one round trip
 * (issue 14 item 1: the two entity lookups it replaces cost a third of a contact-way list's app CPU).
 * @param ways each way's corp, platform userids and digital staff
 */
export async function wayPeopleOf(manager: EntityManager, tenantId: string, ways: ReadonlyArray<{ corpId: string; workChatUserIds: string[]; digitalStaffId: string | null }>): Promise<WayPeople> {
  const corpIds = [...new Set(ways.filter((way) => way.workChatUserIds.length > 0).map((way) => way.corpId))];
  const userIds = [...new Set(ways.flatMap((way) => way.workChatUserIds))];
  const digitalStaffIds = [...new Set(ways.map((way) => way.digitalStaffId).filter((id): id is string => Boolean(id)))];
  const people: WayPeople = { staffUsers: new Map(), digitalStaffNames: new Map() };
  if (userIds.length === 0 && digitalStaffIds.length === 0) return people;
  prepareOnFirstUse(WAY_PEOPLE_SQL);
  const rows = (await manager.query(WAY_PEOPLE_SQL, [tenantId, corpIds, userIds, digitalStaffIds])) as Array<{ kind: string; corp_id: string | null; key: string; id: string; name: string; mobile: string | null }>;
  for (const row of rows) {
    if (row.kind === 'digital') {
      people.digitalStaffNames.set(row.key, row.name);
      continue;
    }
    let byUser = people.staffUsers.get(row.corp_id!);
    if (!byUser) people.staffUsers.set(row.corp_id!, (byUser = new Map()));
    byUser.set(row.key, { id: row.id, name: row.name, mobile: row.mobile });
  }
  return people;
}

/**
 * Takes the transaction-scoped advisory lock of a default scope (released at commit or rollback). Must run inside
 * a transaction.
 * @param key see defaultScopeLockKey (contact-way.rules.ts)
 */
export async function lockDefaultScope(manager: EntityManager, key: string): Promise<void> {
  await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key]);
}
