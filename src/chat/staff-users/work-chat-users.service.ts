import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Brackets, DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { uniqueViolation } from '../common/db-support';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from './work-chat-user.entity';
import {
  BindDigitalStaffDto,
  CreateWorkChatUserRelateRequest,
  toWorkChatUserRelateDto,
  UpdateWorkChatUserRelateRequest,
  WORK_CHAT_USER_SORT_FIELDS,
  WorkChatUserLinks,
  WorkChatUserPageQuery,
  WorkChatUserRelateDto,
} from './work-chat-users.dto';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** How many staff users a bind changed: bound from none, moved from another digital staff, already bound. */
export interface BindCounts {
  newlyBound: number;
  moved: number;
  unchanged: number;
}

/**
 * Staff users of a tenant's corps (chat-management-api.md, Console endpoints: `{C}/workChat/user`) and their binding
 * to digital staff (`{C}/workChat/user/guide/bindDigitalStaff`, `{T}/v1/chat/staff/bind`). Every query filters by
 * the tenant, so another tenant's ids answer 404.
 *
 * Binding and deleting a digital staff are serialized on the digital staff row: binds hold it `FOR SHARE` (so it
 * cannot be deleted under them), DigitalStaffService.remove takes it `FOR UPDATE` before counting bound users, so a
 * staff user is never left bound to a deleted digital staff.
 *
 * Exported from ChatModule: other chat areas look staff users up with {@link findById}, {@link findByWorkChatUserId}
 * and {@link findByWorkChatUserIds} (entities, for use inside services; never return them from a controller).
 */
@Injectable()
export class WorkChatUsersService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates a staff user in one of the tenant's corps, optionally bound to a digital staff.
   * @throws NotFoundException (404) no corp with this platform corp id, or no such digital staff, in the tenant
   * @throws ConflictException (409) the corp already has a staff user with this workChatUserId
   */
  async create(tenantId: string, input: CreateWorkChatUserRelateRequest): Promise<WorkChatUserRelateDto> {
    const corp = await this.dataSource.getRepository(WorkChatCorpEntity).findOneBy({ tenantId, workChatCorpId: input.workChatCorpId });
    if (!corp) throw new NotFoundException(`No corp with platform corp id "${input.workChatCorpId}" in this tenant.`);
    const row = await this.saveUnique(async (manager) => {
      if (input.digitalStaffId) await lockDigitalStaff(manager, tenantId, input.digitalStaffId);
      const created = manager.getRepository(WorkChatUserEntity).create({
        tenantId,
        corpId: corp.id,
        workChatUserId: input.workChatUserId,
        userId: input.userId || null,
        name: input.name,
        mobile: input.mobile || null,
        email: input.email || null,
        online: input.online ?? false,
        digitalStaffId: input.digitalStaffId ?? null,
      });
      return manager.getRepository(WorkChatUserEntity).save(created);
    }, () => ({ workChatUserId: input.workChatUserId, corpName: corp.corpName }));
    return (await this.toDtos(tenantId, [row]))[0];
  }

  /**
   * The tenant's staff users, newest first, filtered (all filters combine with AND): `workChatCorpId` (platform corp
   * id), `name` (case-insensitive substring), `mobile` and `userId` (exact), `online`, `keyword` (case-insensitive
   * substring of name, mobile, userId or workChatUserId), `workChatUserId` (any of a set), `digitalStaffId`.
   * @throws BadRequestException (400) more workChatUserId values than CHAT_STAFF_MAX_IDS, or an unknown sort field
   */
  async list(tenantId: string, query: WorkChatUserPageQuery): Promise<Page<WorkChatUserRelateDto>> {
    const ids = query.workChatUserId;
    if (ids && ids.length > this.config.chatStaff.maxIds) throw tooManyIds('workChatUserId', ids.length, this.config.chatStaff.maxIds);
    const order = toOrder(query.sort, WORK_CHAT_USER_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(WorkChatUserEntity).createQueryBuilder('u').where('u.tenant_id = :tenantId', { tenantId });
    if (query.workChatCorpId !== undefined) {
      builder.andWhere('u.corp_id IN (SELECT c.id FROM chat_work_corp c WHERE c.tenant_id = :tenantId AND c.work_chat_corp_id = :workChatCorpId)', {
        workChatCorpId: query.workChatCorpId,
      });
    }
    if (query.name) builder.andWhere(...containsMatch('u.name', 'name', query.name));
    if (query.mobile !== undefined) builder.andWhere('u.mobile = :mobile', { mobile: query.mobile });
    if (query.userId !== undefined) builder.andWhere('u.user_id = :userId', { userId: query.userId });
    if (query.online !== undefined) builder.andWhere('u.online = :online', { online: query.online });
    if (query.digitalStaffId) builder.andWhere('u.digital_staff_id = :digitalStaffId', { digitalStaffId: query.digitalStaffId });
    if (ids?.length) builder.andWhere('u.work_chat_user_id IN (:...ids)', { ids });
    if (query.keyword) {
      const keyword = query.keyword;
      builder.andWhere(
        new Brackets((or) =>
          or
            .where(...containsMatch('u.name', 'keyword', keyword))
            .orWhere(...containsMatch('u.mobile', 'keywordMobile', keyword))
            .orWhere(...containsMatch('u.user_id', 'keywordUserId', keyword))
            .orWhere(...containsMatch('u.work_chat_user_id', 'keywordWorkChatUserId', keyword)),
        ),
      );
    }
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`u.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name || query.keyword) });
    return toPage(await this.toDtos(tenantId, rows), slice, query);
  }

  /** @throws NotFoundException (404) no such staff user in the tenant */
  async get(tenantId: string, id: string): Promise<WorkChatUserRelateDto> {
    return (await this.toDtos(tenantId, [await this.find(this.dataSource.manager, tenantId, id)]))[0];
  }

  /**
   * Changes the given fields; "" clears userId, mobile and email; `digitalStaffId: null` unbinds.
   * @throws NotFoundException (404) no such staff user, or no such digital staff, in the tenant
   * @throws ConflictException (409) another staff user of the corp has the new workChatUserId
   */
  async update(tenantId: string, id: string, input: UpdateWorkChatUserRelateRequest): Promise<WorkChatUserRelateDto> {
    let corpName = '';
    const row = await this.saveUnique(async (manager) => {
      const existing = await this.find(manager, tenantId, id, true);
      corpName = (await manager.getRepository(WorkChatCorpEntity).findOneBy({ tenantId, id: existing.corpId }))?.corpName ?? '';
      if (input.digitalStaffId) await lockDigitalStaff(manager, tenantId, input.digitalStaffId);
      if (input.workChatUserId !== undefined) existing.workChatUserId = input.workChatUserId;
      if (input.name !== undefined) existing.name = input.name;
      if (input.userId !== undefined) existing.userId = input.userId || null;
      if (input.mobile !== undefined) existing.mobile = input.mobile || null;
      if (input.email !== undefined) existing.email = input.email || null;
      if (input.online !== undefined) existing.online = input.online;
      if (input.digitalStaffId !== undefined) existing.digitalStaffId = input.digitalStaffId;
      return manager.getRepository(WorkChatUserEntity).save(existing);
    }, () => ({ workChatUserId: input.workChatUserId ?? '', corpName }));
    return (await this.toDtos(tenantId, [row]))[0];
  }

  /** @throws NotFoundException (404) no such staff user in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(WorkChatUserEntity).delete({ tenantId, id });
    if (!result.affected) throw notFound(id);
  }

  /**
   * The guide's bindDigitalStaff: binds the staff users with these ids (duplicates count once) to the digital staff,
   * moving those bound to another one. All or nothing, in one transaction.
   * @throws BadRequestException (400) more ids than CHAT_STAFF_MAX_IDS
   * @throws NotFoundException (404) no such digital staff, or some ids are not staff users of the tenant (all listed)
   */
  async bindByIds(tenantId: string, digitalStaffId: string, staffUserIds: string[]): Promise<BindDigitalStaffDto> {
    const ids = [...new Set(staffUserIds)];
    if (ids.length > this.config.chatStaff.maxIds) throw tooManyIds('staffUserIds', ids.length, this.config.chatStaff.maxIds);
    const { staff, rows, counts } = await this.dataSource.transaction(async (manager) => {
      const staff = await lockDigitalStaff(manager, tenantId, digitalStaffId);
      const found = await manager.getRepository(WorkChatUserEntity).find({ where: { tenantId, id: In(ids) }, lock: { mode: 'pessimistic_write' }, order: { id: 'ASC' } });
      const missing = ids.filter((id) => !found.some((row) => row.id === id));
      if (missing.length) throw new NotFoundException(`No staff user ${missing.join(', ')} in this tenant; nothing was bound.`);
      const counts = await bindRows(manager, tenantId, digitalStaffId, found);
      return { staff, rows: found, counts };
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const ordered = ids.map((id) => byId.get(id)!);
    return { digitalStaffId, digitalStaffName: staff.name, staffUsers: await this.toDtos(tenantId, ordered), ...counts };
  }

  /**
   * `POST {T}/v1/chat/staff/bind`: binds the staff users with these platform userids in the corp named `corpName` to
   * the digital staff, moving those bound to another one. All or nothing, in one transaction.
   * @throws BadRequestException (400) more userids than CHAT_STAFF_MAX_IDS
   * @throws NotFoundException (404) no such corp or digital staff in the tenant, or some userids are not staff users of the corp (all listed)
   */
  async bindByWorkChatUserIds(tenantId: string, digitalStaffId: string, corpName: string, workChatUserIds: string[]): Promise<BindCounts> {
    const userIds = [...new Set(workChatUserIds)];
    if (userIds.length > this.config.chatStaff.maxIds) throw tooManyIds('workChatUserIds', userIds.length, this.config.chatStaff.maxIds);
    return this.dataSource.transaction(async (manager) => {
      const corp = await manager.getRepository(WorkChatCorpEntity).findOneBy({ tenantId, corpName });
      if (!corp) throw new NotFoundException(`No corp named "${corpName}" in this tenant.`);
      await lockDigitalStaff(manager, tenantId, digitalStaffId);
      const found = await manager
        .getRepository(WorkChatUserEntity)
        .find({ where: { tenantId, corpId: corp.id, workChatUserId: In(userIds) }, lock: { mode: 'pessimistic_write' }, order: { id: 'ASC' } });
      const missing = userIds.filter((userId) => !found.some((row) => row.workChatUserId === userId));
      if (missing.length) throw new NotFoundException(`No staff user ${missing.map((m) => `"${m}"`).join(', ')} in corp "${corpName}"; nothing was bound.`);
      return bindRows(manager, tenantId, digitalStaffId, found);
    });
  }

  /** A staff user of the tenant by id, or null (for other chat areas). */
  findById(tenantId: string, id: string): Promise<WorkChatUserEntity | null> {
    return this.dataSource.getRepository(WorkChatUserEntity).findOneBy({ tenantId, id });
  }

  /** A staff user of the tenant's corp (chat_work_corp.id) by platform userid, or null (for other chat areas). */
  findByWorkChatUserId(tenantId: string, corpId: string, workChatUserId: string): Promise<WorkChatUserEntity | null> {
    return this.dataSource.getRepository(WorkChatUserEntity).findOneBy({ tenantId, corpId, workChatUserId });
  }

  /** The staff users of the tenant's corp with these platform userids (those that exist; for other chat areas). */
  findByWorkChatUserIds(tenantId: string, corpId: string, workChatUserIds: string[]): Promise<WorkChatUserEntity[]> {
    if (workChatUserIds.length === 0) return Promise.resolve([]);
    return this.dataSource.getRepository(WorkChatUserEntity).findBy({ tenantId, corpId, workChatUserId: In(workChatUserIds) });
  }

  private async find(manager: EntityManager, tenantId: string, id: string, forUpdate = false): Promise<WorkChatUserEntity> {
    const row = await manager.getRepository(WorkChatUserEntity).findOne({ where: { tenantId, id }, ...(forUpdate ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw notFound(id);
    return row;
  }

  /** Runs `write` in a transaction; a duplicate (corp, workChatUserId) becomes 409. */
  private async saveUnique(write: (manager: EntityManager) => Promise<WorkChatUserEntity>, names: () => { workChatUserId: string; corpName: string }): Promise<WorkChatUserEntity> {
    try {
      return await this.dataSource.transaction(write);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_work_user_tenant_corp_user') {
        const { corpName, workChatUserId } = names();
        throw new ConflictException(`Corp "${corpName}" already has a staff user "${workChatUserId}".`);
      }
      throw error;
    }
  }

  /** Responses for rows of the tenant, with their corp and digital staff names (two queries for any number of rows). */
  private async toDtos(tenantId: string, rows: WorkChatUserEntity[]): Promise<WorkChatUserRelateDto[]> {
    const corpIds = [...new Set(rows.map((row) => row.corpId))];
    const staffIds = [...new Set(rows.flatMap((row) => (row.digitalStaffId ? [row.digitalStaffId] : [])))];
    const [corps, staff] = await Promise.all([
      corpIds.length ? this.dataSource.getRepository(WorkChatCorpEntity).find({ select: { id: true, corpName: true, workChatCorpId: true }, where: { tenantId, id: In(corpIds) } }) : [],
      staffIds.length ? this.dataSource.getRepository(DigitalStaffEntity).find({ select: { id: true, name: true }, where: { tenantId, id: In(staffIds) } }) : [],
    ]);
    const links: WorkChatUserLinks = {
      corps: new Map(corps.map((corp) => [corp.id, { corpName: corp.corpName, workChatCorpId: corp.workChatCorpId }])),
      digitalStaff: new Map(staff.map((s) => [s.id, s.name])),
    };
    return rows.map((row) => toWorkChatUserRelateDto(row, links));
  }
}

/**
 * Locks the tenant's digital staff row `FOR SHARE` for the rest of the transaction (it cannot be deleted meanwhile).
 * @throws NotFoundException (404) no such digital staff in the tenant
 */
async function lockDigitalStaff(manager: EntityManager, tenantId: string, digitalStaffId: string): Promise<DigitalStaffEntity> {
  const staff = await manager.getRepository(DigitalStaffEntity).findOne({ where: { tenantId, id: digitalStaffId }, lock: { mode: 'pessimistic_read' } });
  if (!staff) throw new NotFoundException(`No digital staff ${digitalStaffId} in this tenant.`);
  return staff;
}

/** Points the (locked) rows at the digital staff and counts what changed. */
async function bindRows(manager: EntityManager, tenantId: string, digitalStaffId: string, rows: WorkChatUserEntity[]): Promise<BindCounts> {
  const counts: BindCounts = { newlyBound: 0, moved: 0, unchanged: 0 };
  for (const row of rows) {
    if (row.digitalStaffId === digitalStaffId) counts.unchanged++;
    else if (row.digitalStaffId === null) counts.newlyBound++;
    else counts.moved++;
  }
  const changed = rows.filter((row) => row.digitalStaffId !== digitalStaffId).map((row) => row.id);
  if (changed.length) {
    await manager.getRepository(WorkChatUserEntity).update({ tenantId, id: In(changed) }, { digitalStaffId });
    const now = await manager.getRepository(WorkChatUserEntity).find({ where: { tenantId, id: In(changed) } });
    for (const fresh of now) Object.assign(rows.find((row) => row.id === fresh.id)!, fresh);
  }
  return counts;
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No staff user ${id} in this tenant.`);
}

function tooManyIds(field: string, count: number, max: number): BadRequestException {
  return new BadRequestException({
    message: `${field} names ${count} staff users; at most ${max} are allowed per request (CHAT_STAFF_MAX_IDS).`,
    errors: [{ field, messages: [`at most ${max} entries`] }],
  });
}
