import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, SelectQueryBuilder } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ChatListPager } from '../common/list-pager';
import { listShape } from '../../common/paging/list-pager';
import { findCorpByName } from '../contacts/corp-lookup';
import { ChatCorpDirectory } from '../corps/corp-directory';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { ChatPlatformError } from '../platform/chat-platform.error';
import { CHAT_PLATFORM, type ChatPlatform } from '../platform/chat-platform.port';
import { parseChatTimestamp } from '../common/chat-timestamp';
import {
  CONTACT_WAY_SORT_FIELDS,
  ChatContactWayRefreshDto,
  ContactWayView,
  SceneCodeDefaultDto,
  toSceneCodeDefaultDto,
} from './contact-way.dto';
import { ContactWayEntity } from './contact-way.entity';
import { contactWayDefaultScope, defaultScopeLockKey, generateWayState } from './contact-way.rules';
import { int64ToNumber } from './int64-id';
import { uniqueViolation } from '../common/db-support';
import {
  corpsById,
  lockDefaultScope,
  platformContext,
  requireDigitalStaff,
  requireStaffUsers,
  wayPeopleOf,
} from './way-support';
import { containsMatch, searchMatch, searchScopeCondition, type ListSearch } from '../../database/like-contains';

/**
 * What creating or updating a contact way takes, whichever API family the request came from (ContactWayRequestV1,
 * ChatContactWayRequestV1, ContactWayRequest, the guide requests). `undefined` = not given (update: keep), `null` =
 * clear.
 */
export interface ContactWayWrite {
  corpName: string;
  name: string;
  workChatUserIds: string[];
  type?: 1 | 2;
  scene?: 1 | 2;
  state?: string;
  remark?: string | null;
  skipVerify?: boolean;
  digitalStaffId?: string | null;
  channelName?: string | null;
  relevanceCode?: string | null;
  hidden?: boolean;
}

/** The filters of the three contact way lists, merged (each family exposes its own subset). */
export interface ContactWayFilter {
  corpName?: string;
  /** A corp name that must exist (404), for the workChat family where `corpName` is required. */
  requiredCorpName?: string;
  mobile?: string;
  id?: string;
  name?: string;
  relevanceCode?: string;
  state?: string;
  channelName?: string;
  startCreateTime?: string;
  endCreateTime?: string;
  userName?: string;
  workChatUserId?: string;
  includeHidden?: boolean;
  page: number;
  size: number;
  sort?: string[];
}

/** Messages of the unique indexes a contact way write can hit. */
const DUPLICATE_MESSAGES: Record<string, (row: ContactWayEntity) => string> = {
  ux_chat_contact_way_tenant_corp_state: (row) => `The corp already has a contact way with state "${row.state}"; choose another state.`,
  ux_chat_contact_way_tenant_corp_config: (row) => `The corp already has a contact way with platform config id "${row.configId}".`,
};

/** How many times setDefault re-reads a way whose scope changed while it waited for the scope lock. */
const SET_DEFAULT_ATTEMPTS = 3;

/**
 * Contact ways (scene codes) of a tenant (chat-management-api.md, "Contact way (scene code)"; issue 5, Areas:
 * contact ways). One store behind three API families; every query filters by the tenant (another tenant's ids
 * answer 404). Creating and updating go through the chat platform port (config id + QR code); platform refusals
 * surface as the port's problem details (ChatPlatformError). Default rule: at most one default way per scope
 * (contact-way.rules.ts), kept under concurrent setDefault requests by a per-scope advisory lock plus a partial
 * unique index.
 */
@Injectable()
export class ContactWaysService {
  private readonly logger = new Logger(ContactWaysService.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly pager: ChatListPager,
    private readonly corpDirectory: ChatCorpDirectory,
  ) {}

  // ---------------------------------------------------------------- writes

  /**
   * Creates the way on the platform, then stores it with the platform's config id and QR code. If storing fails
   * (a concurrent request took the state), the platform way is deleted again.
   * @throws NotFoundException (404) unknown corp, staff user or digital staff
   * @throws BadRequestException (400) type 1 with several staff users
   * @throws ConflictException (409) state already used in the corp; corp disabled
   * @throws ChatPlatformError (400/409/502/504) the platform refused or failed
   */
  async create(tenantId: string, input: ContactWayWrite): Promise<ContactWayEntity> {
    const manager = this.dataSource.manager;
    const corp = await findCorpByName(manager, tenantId, input.corpName);
    const ctx = platformContext(corp);
    await requireStaffUsers(manager, corp, input.workChatUserIds);
    if (input.digitalStaffId) await requireDigitalStaff(manager, tenantId, input.digitalStaffId);
    const type = input.type ?? (input.workChatUserIds.length === 1 ? 1 : 2);
    assertTypeFits(type, input.workChatUserIds);
    const scene = input.scene ?? 2;
    const state = input.state ?? generateWayState('cw');
    await this.assertStateFree(manager, corp, state);
    const remark = input.remark ?? null;
    const skipVerify = input.skipVerify ?? true;

    const created = await this.platform.createContactWay(ctx, { type, scene, userIds: input.workChatUserIds, state, ...(remark ? { remark } : {}), skipVerify });
    const row = manager.create(ContactWayEntity, {
      tenantId,
      corpId: corp.id,
      name: input.name,
      type,
      scene,
      state,
      workChatUserIds: input.workChatUserIds,
      digitalStaffId: input.digitalStaffId ?? null,
      configId: created.configId,
      qrCode: created.qrCode || null,
      remark,
      skipVerify,
      channelName: input.channelName ?? null,
      relevanceCode: input.relevanceCode ?? null,
      isDefault: false,
      defaultScope: null,
      hidden: input.hidden ?? false,
    });
    try {
      await manager.save(row);
    } catch (error) {
      await this.platform.deleteContactWay(ctx, created.configId).catch((cleanup: unknown) => this.logger.warn(`Could not delete platform contact way ${created.configId} after a failed save: ${String(cleanup)}`));
      throw duplicateOr(error, row);
    }
    return row;
  }

  /**
   * Changes a way on the platform and here, in one transaction holding the row lock. `corpName` must name the way's
   * corp; `type` and `scene` cannot change (the platform cannot change them). A way whose default scope changes,
   * or that is hidden, stops being the default.
   * @throws NotFoundException (404) unknown way, corp, staff user or digital staff
   * @throws BadRequestException (400) another corp, a type or scene change, type 1 with several staff users
   * @throws ConflictException (409) state already used in the corp; corp disabled
   * @throws ChatPlatformError the platform refused or failed
   */
  async update(tenantId: string, id: string, input: ContactWayWrite): Promise<ContactWayEntity> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      const corp = await findCorpByName(manager, tenantId, input.corpName);
      if (corp.id !== row.corpId) throw new BadRequestException(`Contact way ${id} belongs to another corp; a contact way cannot move to corp "${corp.corpName}".`);
      const ctx = platformContext(corp);
      await requireStaffUsers(manager, corp, input.workChatUserIds);
      if (input.digitalStaffId) await requireDigitalStaff(manager, tenantId, input.digitalStaffId);
      if (input.type !== undefined && input.type !== row.type) throw new BadRequestException(`Contact way ${id} has type ${row.type}; the platform cannot change a contact way's type. Create a new way instead.`);
      if (input.scene !== undefined && input.scene !== row.scene) throw new BadRequestException(`Contact way ${id} has scene ${row.scene}; the platform cannot change a contact way's scene. Create a new way instead.`);
      assertTypeFits(row.type === 1 ? 1 : 2, input.workChatUserIds);
      const stateChanges = input.state !== undefined && input.state !== row.state;
      if (stateChanges) await this.assertStateFree(manager, corp, input.state!, row.id);

      await this.platform.updateContactWay(ctx, row.configId, {
        userIds: input.workChatUserIds,
        ...(stateChanges ? { state: input.state } : {}),
        ...(input.remark !== undefined ? { remark: input.remark ?? '' } : {}),
        ...(input.skipVerify !== undefined ? { skipVerify: input.skipVerify } : {}),
      });

      row.name = input.name;
      row.workChatUserIds = input.workChatUserIds;
      if (stateChanges) row.state = input.state!;
      if (input.remark !== undefined) row.remark = input.remark || null;
      if (input.skipVerify !== undefined) row.skipVerify = input.skipVerify;
      if (input.digitalStaffId !== undefined) row.digitalStaffId = input.digitalStaffId;
      if (input.channelName !== undefined) row.channelName = input.channelName;
      if (input.relevanceCode !== undefined) row.relevanceCode = input.relevanceCode;
      if (input.hidden !== undefined) row.hidden = input.hidden;
      if (row.isDefault && (row.hidden || contactWayDefaultScope(row) !== row.defaultScope)) {
        row.isDefault = false;
        row.defaultScope = null;
      }
      try {
        await manager.save(row);
      } catch (error) {
        throw duplicateOr(error, row);
      }
      return row;
    });
  }

  /**
   * Deletes a way on the platform, then here.
   * @throws NotFoundException (404); ChatPlatformError the platform refused or failed (the way is kept)
   */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, id: row.corpId });
      if (corp) await this.platform.deleteContactWay(platformContext(corp), row.configId);
      await manager.delete(ContactWayEntity, { tenantId, id: row.id });
    });
  }

  /**
   * Makes the way the default of its scope and clears the previous default(s) of that scope, atomically; concurrent
   * requests in one scope are serialised by an advisory lock, so exactly one default remains.
   * @returns the affected ways: the previous default(s) (isDefault false) then this way (isDefault true); only this
   *   way when it already was the default
   * @throws NotFoundException (404) no such way in the tenant
   * @throws ConflictException (409) the way is hidden, or has several staff users and no digital staff (no scope)
   */
  async setDefault(tenantId: string, id: string): Promise<SceneCodeDefaultDto[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((manager) => this.setDefaultOnce(manager, tenantId, id));
      } catch (error) {
        if (error instanceof ScopeChanged && attempt < SET_DEFAULT_ATTEMPTS) continue;
        if (error instanceof ScopeChanged || uniqueViolation(error) === 'ux_chat_contact_way_tenant_default_scope') {
          throw new ConflictException(`Contact way ${id} or the default of its scope was changed by another request at the same time; try again.`);
        }
        throw error;
      }
    }
  }

  /**
   * One attempt of setDefault inside a transaction. Locks in a fixed order — the scope's advisory lock, then the
   * way's row, then the previous default's row — so concurrent setDefault requests never deadlock.
   * @throws ScopeChanged the way's scope changed between the first read and the row lock (the caller retries)
   */
  private async setDefaultOnce(manager: EntityManager, tenantId: string, id: string): Promise<SceneCodeDefaultDto[]> {
    const scope = contactWayDefaultScope(await this.find(manager, tenantId, id));
    if (scope) await lockDefaultScope(manager, defaultScopeLockKey('chat_contact_way', tenantId, scope));
    const row = await this.findLocked(manager, tenantId, id);
    if (contactWayDefaultScope(row) !== scope) throw new ScopeChanged();
    if (row.hidden) throw new ConflictException(`Contact way ${id} is hidden; show it again (update with hidden: false) before making it the default.`);
    if (!scope) throw new ConflictException(`Contact way ${id} has several staff users and no digital staff, so it can be nobody's default; give it a digital staff or a single staff user.`);
    if (row.isDefault && row.defaultScope === scope) return [toSceneCodeDefaultDto(row)];
    const previous = await manager.find(ContactWayEntity, { where: { tenantId, defaultScope: scope, isDefault: true }, lock: { mode: 'pessimistic_write' }, order: { id: 'ASC' } });
    const cleared = previous.filter((other) => other.id !== row.id);
    if (cleared.length > 0) await manager.update(ContactWayEntity, { tenantId, id: In(cleared.map((other) => other.id)) }, { isDefault: false, defaultScope: null });
    row.isDefault = true;
    row.defaultScope = scope;
    await manager.save(row);
    return [...cleared.map((other) => toSceneCodeDefaultDto({ ...other, isDefault: false, defaultScope: null })), toSceneCodeDefaultDto(row)];
  }

  /**
   * Hides a way from lists (idempotent); a hidden way stops being the default. Show it again with an update
   * (`hidden: false`).
   * @throws NotFoundException (404)
   */
  async hide(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      if (row.hidden && !row.isDefault) return;
      await manager.update(ContactWayEntity, { tenantId, id: row.id }, { hidden: true, isDefault: false, defaultScope: null });
    });
  }

  /**
   * Re-reads the QR codes of the given ways from the platform and stores those that changed. Each way is answered
   * on its own: a platform refusal for one way is reported in its item (`refreshed: false`, `error`) and does not
   * stop the others.
   * @param ids int64 ids as decimal strings
   * @throws BadRequestException (400) more ids than CHAT_CONTACT_WAY_REFRESH_MAX_IDS
   * @throws NotFoundException (404) naming the ids the tenant has no way for (nothing is refreshed then)
   */
  async refresh(tenantId: string, ids: string[]): Promise<ChatContactWayRefreshDto[]> {
    const max = this.config.chatContactWays.refreshMaxIds;
    if (ids.length > max) throw new BadRequestException(`One refresh takes at most ${max} ids (CHAT_CONTACT_WAY_REFRESH_MAX_IDS), not ${ids.length}; split the request.`);
    const manager = this.dataSource.manager;
    const rows = await manager.findBy(ContactWayEntity, { tenantId, id: In(ids) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0) throw new NotFoundException(`No contact way ${missing.join(', ')} in this tenant.`);
    const corps = await corpsById(manager, tenantId, rows.map((row) => row.corpId));
    const results: ChatContactWayRefreshDto[] = [];
    for (const id of ids) {
      const row = byId.get(id)!;
      const base = { id: int64ToNumber(row.id), configId: row.configId, previousQrCode: row.qrCode };
      try {
        const corp = corps.get(row.corpId);
        if (!corp) throw new NotFoundException('The way\'s corp is no longer linked to the tenant.');
        const way = await this.platform.getContactWay(platformContext(corp), row.configId);
        const qrCode = way.qrCode || null;
        const changed = qrCode !== row.qrCode;
        if (changed) await manager.update(ContactWayEntity, { tenantId, id: row.id }, { qrCode });
        results.push({ ...base, qrCode, refreshed: true, changed, error: null, platformErrorCode: null });
      } catch (error) {
        if (!(error instanceof ChatPlatformError) && !(error instanceof NotFoundException) && !(error instanceof ConflictException)) throw error;
        results.push({ ...base, qrCode: row.qrCode, refreshed: false, changed: false, error: error.message, platformErrorCode: error instanceof ChatPlatformError ? (error.errcode ?? null) : null });
      }
    }
    return results;
  }

  // ---------------------------------------------------------------- reads

  /** @throws NotFoundException (404) no such way in the tenant */
  async get(tenantId: string, id: string): Promise<ContactWayEntity> {
    return this.find(this.dataSource.manager, tenantId, id);
  }

  /**
   * One page of the tenant's ways matching `filter`, newest first unless sorted otherwise; hidden ways only with
   * `includeHidden`.
   * @throws NotFoundException (404) `requiredCorpName` names no corp of the tenant
   * @throws BadRequestException (400) unknown sort field; endCreateTime before startCreateTime
   */
  async page(tenantId: string, filter: ContactWayFilter): Promise<Page<ContactWayView>> {
    const order = toOrder(filter.sort, CONTACT_WAY_SORT_FIELDS, { createdAt: 'DESC' });
    const manager = this.dataSource.manager;
    // A name rare among the tenant's ways is found through the tenant's scoped grams index alone (the tenant is then a
    // plain filter: searchScopeCondition); a common one by walking the sort index with the ILIKE (a page is found early).
    const search = contactWaySearch(tenantId);
    const commonName = filter.name !== undefined ? await this.pager.isCommonTerm(manager, search, filter.name) : true;
    const builder = manager.createQueryBuilder(ContactWayEntity, 'way').where(...searchScopeCondition(search, !commonName));
    const corpName = filter.requiredCorpName ?? filter.corpName;
    if (corpName !== undefined) {
      const corp = filter.requiredCorpName !== undefined ? await this.corpDirectory.byName(tenantId, corpName) : await this.corpDirectory.findByName(tenantId, corpName);
      if (!corp) return toPage([], 0, filter);
      builder.andWhere('way.corpId = :corpId', { corpId: corp.id });
    }
    // No staff user of the tenant matches the staff filters: no way can, and the EXISTS of applyFilters would walk
    // every way of the tenant to find none (1M rows: 60-80 ms for a userName nobody has).
    if ((filter.mobile !== undefined || filter.userName !== undefined) && !(await anyStaffMatches(manager, tenantId, filter))) {
      return toPage([], { page: filter.page, total: 0, totalExact: true, nextCursor: null }, filter);
    }
    applyFilters(builder, search, filter, commonName);
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`way.${property}`, direction);
    // Ties: the pager adds the id in the first key's direction (one index per sort serves both directions).
    // A name/userName search counts exactly only up to PAGING_SEARCH_TOTAL_EXACT_CAP (docs/lists-and-search.md).
    // Without a search term the statement's shape is which filters are given and the sort: named, the pager skips
    // rendering the builder's SQL per request (issue 14 item 1). A search's SQL depends on its term: not named.
    const searched = filter.name !== undefined || filter.userName !== undefined;
    // applyFilters adds a condition for each filter that is not undefined (includeHidden: when false).
    const optional = [corpName, filter.id, filter.relevanceCode, filter.state, filter.channelName, filter.workChatUserId, filter.startCreateTime, filter.endCreateTime, filter.mobile];
    const shape = searched ? undefined : listShape('contact-ways', [!filter.includeHidden, ...optional.map((value) => value !== undefined)], order);
    const { rows, ...slice } = await this.pager.page(builder, filter, { search: searched, shape, candidates: !commonName, tenantId });
    return toPage(await this.views(tenantId, rows), slice, filter);
  }

  /** The ways with their corp names, staff users and digital staff names, for the DTO mappers. */
  async views(tenantId: string, rows: ContactWayEntity[]): Promise<ContactWayView[]> {
    const corpNames = await this.corpDirectory.names(tenantId, rows.map((row) => row.corpId));
    const people = await wayPeopleOf(this.dataSource.manager, tenantId, rows);
    const none = new Map<string, { id: string; name: string; mobile: string | null }>();
    return rows.map((row) => ({
      row,
      corpName: corpNames.get(row.corpId),
      staffUsers: people.staffUsers.get(row.corpId) ?? none,
      digitalStaffName: row.digitalStaffId ? people.digitalStaffNames.get(row.digitalStaffId) : undefined,
    }));
  }

  // ---------------------------------------------------------------- staff-user guide

  /**
   * Sets the default scene code of a staff user (`{C}/workChat/user/guide/setDefaultScene`): the way must belong to
   * the staff user's corp and list the staff user; it becomes the default of its scope (see setDefault).
   * @throws NotFoundException (404) unknown corp, staff user or way; BadRequestException (400) the way is of another
   *   corp or does not list the staff user; ConflictException (409) as setDefault
   */
  async setStaffDefaultScene(tenantId: string, input: { corpName: string; workChatUserId: string; contactWayId: string }): Promise<SceneCodeDefaultDto[]> {
    const manager = this.dataSource.manager;
    const corp = await findCorpByName(manager, tenantId, input.corpName);
    await requireStaffUsers(manager, corp, [input.workChatUserId]);
    const way = await this.find(manager, tenantId, input.contactWayId);
    if (way.corpId !== corp.id) throw new BadRequestException(`Contact way ${input.contactWayId} belongs to another corp than "${corp.corpName}".`);
    if (!way.workChatUserIds.includes(input.workChatUserId)) throw new BadRequestException(`Contact way ${input.contactWayId} does not list staff user "${input.workChatUserId}"; choose one of their ways or add them to it.`);
    return this.setDefault(tenantId, input.contactWayId);
  }

  /**
   * The digital staff bound to a staff user of the corp, or null.
   * @throws NotFoundException (404) unknown corp or staff user
   */
  async boundDigitalStaff(tenantId: string, corpName: string, workChatUserId: string): Promise<{ digitalStaffId: string | null; staffName: string }> {
    const manager = this.dataSource.manager;
    const corp = await findCorpByName(manager, tenantId, corpName);
    const staff = (await requireStaffUsers(manager, corp, [workChatUserId])).get(workChatUserId)!;
    return { digitalStaffId: staff.digitalStaffId, staffName: staff.name };
  }

  // ---------------------------------------------------------------- internals

  private async find(manager: EntityManager, tenantId: string, id: string): Promise<ContactWayEntity> {
    const row = await manager.findOneBy(ContactWayEntity, { tenantId, id });
    if (!row) throw notFound(id);
    return row;
  }

  private async findLocked(manager: EntityManager, tenantId: string, id: string): Promise<ContactWayEntity> {
    const row = await manager.findOne(ContactWayEntity, { where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
    if (!row) throw notFound(id);
    return row;
  }

  /** @throws ConflictException (409) another way of the corp has this state */
  private async assertStateFree(manager: EntityManager, corp: WorkChatCorpEntity, state: string, exceptId?: string): Promise<void> {
    const other = await manager.findOneBy(ContactWayEntity, { tenantId: corp.tenantId, corpId: corp.id, state });
    if (other && other.id !== exceptId) throw new ConflictException(`Corp "${corp.corpName}" already has a contact way with state "${state}" (id ${other.id}); choose another state.`);
  }
}

/** setDefault: the way's default scope changed while the request waited for the scope lock (retried). */
class ScopeChanged extends Error {}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No contact way ${id} in this tenant.`);
}

/** A single-staff way (type 1) takes exactly one staff user. @throws BadRequestException (400) */
function assertTypeFits(type: 1 | 2, workChatUserIds: string[]): void {
  if (type === 1 && workChatUserIds.length !== 1) {
    throw new BadRequestException(`A single-staff contact way (type 1) takes exactly one staff user, not ${workChatUserIds.length}; use type 2 for several.`);
  }
}

/** A unique-index violation as 409 with a readable reason; anything else unchanged. */
function duplicateOr(error: unknown, row: ContactWayEntity): unknown {
  const message = DUPLICATE_MESSAGES[uniqueViolation(error) ?? ''];
  return message ? new ConflictException(message(row)) : error;
}

/** Whether a staff user of the tenant has the filter's mobile and a name containing its userName (either given). */
async function anyStaffMatches(manager: EntityManager, tenantId: string, filter: ContactWayFilter): Promise<boolean> {
  const builder = manager.createQueryBuilder().select('1').from('chat_work_user', 'staff').where('staff.tenant_id = :tenantId', { tenantId });
  if (filter.mobile !== undefined) builder.andWhere('staff.mobile = :mobile', { mobile: filter.mobile });
  if (filter.userName !== undefined) builder.andWhere(...containsMatch('staff.name', 'userNamePattern', filter.userName));
  return (await builder.limit(1).getRawMany()).length > 0;
}

/** Adds the optional filters of the three list families to the query (the tenant's ways, `search`; `commonName`: see ListPager.isCommonTerm). */
function applyFilters(builder: SelectQueryBuilder<ContactWayEntity>, search: ListSearch, filter: ContactWayFilter, commonName: boolean): void {
  if (!filter.includeHidden) builder.andWhere('way.hidden = false');
  if (filter.id !== undefined) builder.andWhere('way.id = :id', { id: filter.id });
  // The tenant's scoped grams index (migration 1795600700000): a rare name costs its matches in the tenant, not the table's.
  if (filter.name !== undefined) builder.andWhere(...searchMatch(search, 'namePattern', filter.name, { common: commonName }));
  if (filter.relevanceCode !== undefined) builder.andWhere('way.relevanceCode = :relevanceCode', { relevanceCode: filter.relevanceCode });
  if (filter.state !== undefined) builder.andWhere('way.state = :state', { state: filter.state });
  if (filter.channelName !== undefined) builder.andWhere('way.channelName = :channelName', { channelName: filter.channelName });
  if (filter.workChatUserId !== undefined) builder.andWhere('way.work_chat_user_ids @> CAST(:userIdJson AS jsonb)', { userIdJson: JSON.stringify([filter.workChatUserId]) });
  const start = filter.startCreateTime === undefined ? undefined : parseChatTimestamp(filter.startCreateTime);
  const end = filter.endCreateTime === undefined ? undefined : parseChatTimestamp(filter.endCreateTime);
  if (start && end && end < start) throw new BadRequestException(`endCreateTime (${filter.endCreateTime}) is before startCreateTime (${filter.startCreateTime}).`);
  if (start) builder.andWhere('way.createdAt >= :start', { start });
  // The filter has whole seconds: "at or before 10:00:00" takes everything up to 10:00:00.999.
  if (end) builder.andWhere('way.createdAt < :endExclusive', { endExclusive: new Date(end.getTime() + 1000) });
  if (filter.mobile !== undefined || filter.userName !== undefined) {
    const conditions = ['staff.tenant_id = way.tenant_id', 'staff.corp_id = way.corp_id', 'way.work_chat_user_ids @> jsonb_build_array(staff.work_chat_user_id)'];
    if (filter.mobile !== undefined) conditions.push('staff.mobile = :mobile');
    const userName = filter.userName !== undefined ? containsMatch('staff.name', 'userNamePattern', filter.userName) : undefined;
    if (userName) conditions.push(userName[0]);
    builder.andWhere(`EXISTS (SELECT 1 FROM chat_work_user staff WHERE ${conditions.join(' AND ')})`, {
      ...(filter.mobile !== undefined ? { mobile: filter.mobile } : {}),
      ...userName?.[1],
    });
  }
}

/** The contact way name search's one description (migration 1795600700000): scoped by tenant (`:tenantId`), over the name. */
function contactWaySearch(tenantId: string): ListSearch {
  return { table: 'chat_contact_way', alias: 'way', scope: [{ column: 'tenant_id', parameter: 'tenantId', value: tenantId }], columns: ['name'] };
}
