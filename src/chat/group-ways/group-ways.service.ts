import { BadRequestException, ConflictException, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { uniqueViolation } from '../common/db-support';
import { defaultScopeLockKey, generateWayState, groupWayDefaultScope } from '../contact-ways/contact-way.rules';
import {
  digitalStaffById,
  lockDefaultScope,
  platformContext,
  requireDigitalStaff,
} from '../contact-ways/way-support';
import { findCorpByName } from '../contacts/corp-lookup';
import { ChatCorpDirectory } from '../corps/corp-directory';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { CHAT_PLATFORM, type ChatPlatform, type GroupWayInput } from '../platform/chat-platform.port';
import { ChatGroupWayPageQuery, ChatGroupWayRequestV1, GROUP_WAY_SORT_FIELDS, GroupWaySceneCodeDefaultDto, GroupWayView, toGroupWaySceneCodeDefaultDto } from './group-way.dto';
import { GroupWayEntity } from './group-way.entity';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Messages of the unique indexes a group way write can hit. */
const DUPLICATE_MESSAGES: Record<string, (row: GroupWayEntity) => string> = {
  ux_chat_group_way_tenant_corp_state: (row) => `The corp already has a group way with state "${row.state}"; choose another state.`,
  ux_chat_group_way_tenant_corp_config: (row) => `The corp already has a group way with platform config id "${row.configId}".`,
};

/** How many times setDefault retries when the way's scope changed while it waited for the scope lock. */
const SET_DEFAULT_ATTEMPTS = 3;

/** setDefault: the way's default scope changed while the request waited for the scope lock (retried). */
class ScopeChanged extends Error {}

/**
 * Group ways (group join scene codes) of a tenant (chat-management-api.md, "Group way"; issue 5: "Group ways:
 * setDefault on both path layouts, conversation group assignment on both layouts"), plus the create, list, get,
 * update and delete a user needs. Every query filters by the tenant. Creating and updating go through the chat
 * platform port (config id + QR code). Default rule: at most one default group way per scope (its digital staff,
 * else its corp), serialised per scope by an advisory lock and backed by a partial unique index.
 */
@Injectable()
export class GroupWaysService {
  private readonly logger = new Logger(GroupWaysService.name);

  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    private readonly corpDirectory: ChatCorpDirectory,
  ) {}

  /**
   * Creates the way on the platform, then stores it (deleting the platform way again if storing fails).
   * @throws NotFoundException (404) unknown corp or digital staff
   * @throws ConflictException (409) state taken in the corp; corp disabled
   * @throws ChatPlatformError the platform refused (e.g. unknown group chat → 400) or failed
   */
  async create(tenantId: string, input: ChatGroupWayRequestV1): Promise<GroupWayEntity> {
    const manager = this.dataSource.manager;
    const corp = await findCorpByName(manager, tenantId, input.corpName);
    const ctx = platformContext(corp);
    if (input.digitalStaffId) await requireDigitalStaff(manager, tenantId, input.digitalStaffId);
    const state = input.state ?? generateWayState('gw');
    await this.assertStateFree(manager, corp, state);
    const fields = {
      scene: input.scene ?? 2,
      chatIds: input.chatIds,
      state,
      remark: input.remark ?? null,
      autoCreateRoom: input.autoCreateRoom ?? false,
      roomBaseName: input.roomBaseName ?? null,
      roomBaseId: input.roomBaseId ?? null,
    };
    const created = await this.platform.createGroupWay(ctx, toPlatformInput(fields));
    const row = manager.create(GroupWayEntity, {
      tenantId,
      corpId: corp.id,
      name: input.name,
      ...fields,
      conversationGroupId: input.conversationGroupId ?? null,
      digitalStaffId: input.digitalStaffId ?? null,
      configId: created.configId,
      qrCode: created.qrCode || null,
      isDefault: false,
      defaultScope: null,
    });
    try {
      await manager.save(row);
    } catch (error) {
      await this.platform.deleteGroupWay(ctx, created.configId).catch((cleanup: unknown) => this.logger.warn(`Could not delete platform group way ${created.configId} after a failed save: ${String(cleanup)}`));
      throw duplicateOr(error, row);
    }
    return row;
  }

  /**
   * Changes a way on the platform and here, in one transaction holding the row lock. A way whose default scope
   * changes (another digital staff) stops being the default.
   * @throws NotFoundException (404) unknown way, corp or digital staff; BadRequestException (400) another corp
   * @throws ConflictException (409) state taken; corp disabled. ChatPlatformError the platform refused or failed
   */
  async update(tenantId: string, id: string, input: ChatGroupWayRequestV1): Promise<GroupWayEntity> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      const corp = await findCorpByName(manager, tenantId, input.corpName);
      if (corp.id !== row.corpId) throw new BadRequestException(`Group way ${id} belongs to another corp; a group way cannot move to corp "${corp.corpName}".`);
      const ctx = platformContext(corp);
      if (input.digitalStaffId) await requireDigitalStaff(manager, tenantId, input.digitalStaffId);
      if (input.state !== undefined && input.state !== row.state) await this.assertStateFree(manager, corp, input.state, row.id);
      row.name = input.name;
      row.chatIds = input.chatIds;
      if (input.scene !== undefined) row.scene = input.scene;
      if (input.state !== undefined) row.state = input.state;
      if (input.remark !== undefined) row.remark = input.remark || null;
      if (input.autoCreateRoom !== undefined) row.autoCreateRoom = input.autoCreateRoom;
      if (input.roomBaseName !== undefined) row.roomBaseName = input.roomBaseName || null;
      if (input.roomBaseId !== undefined) row.roomBaseId = input.roomBaseId;
      if (input.digitalStaffId !== undefined) row.digitalStaffId = input.digitalStaffId;
      if (input.conversationGroupId !== undefined) row.conversationGroupId = input.conversationGroupId;
      await this.platform.updateGroupWay(ctx, row.configId, toPlatformInput(row));
      if (row.isDefault && groupWayDefaultScope(row) !== row.defaultScope) {
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

  /** Deletes a way on the platform, then here. @throws NotFoundException (404); ChatPlatformError (the way is kept) */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      const corp = await manager.findOneBy(WorkChatCorpEntity, { tenantId, id: row.corpId });
      if (corp) await this.platform.deleteGroupWay(platformContext(corp), row.configId);
      await manager.delete(GroupWayEntity, { tenantId, id: row.id });
    });
  }

  /**
   * Assigns the way to a conversation group (null removes the assignment). Local only: the platform knows no
   * conversation groups.
   * @throws NotFoundException (404) no such way in the tenant
   */
  async setConversationGroup(tenantId: string, id: string, conversationGroupId: string | null): Promise<GroupWayEntity> {
    return this.dataSource.transaction(async (manager) => {
      const row = await this.findLocked(manager, tenantId, id);
      row.conversationGroupId = conversationGroupId;
      await manager.save(row);
      return row;
    });
  }

  /**
   * Makes the way the default of its scope (its digital staff, else its corp) and clears the previous default(s),
   * atomically and safely under concurrent requests.
   * @returns the previous default(s) (isDefault false) then this way (isDefault true); only this way when it
   *   already was the default
   * @throws NotFoundException (404) no such way; ConflictException (409) a concurrent change that kept changing
   */
  async setDefault(tenantId: string, id: string): Promise<GroupWaySceneCodeDefaultDto[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.dataSource.transaction((manager) => this.setDefaultOnce(manager, tenantId, id));
      } catch (error) {
        if (error instanceof ScopeChanged && attempt < SET_DEFAULT_ATTEMPTS) continue;
        if (error instanceof ScopeChanged || uniqueViolation(error) === 'ux_chat_group_way_tenant_default_scope') {
          throw new ConflictException(`Group way ${id} or the default of its scope was changed by another request at the same time; try again.`);
        }
        throw error;
      }
    }
  }

  /** @throws NotFoundException (404) no such way in the tenant */
  async get(tenantId: string, id: string): Promise<GroupWayEntity> {
    const row = await this.dataSource.manager.findOneBy(GroupWayEntity, { tenantId, id });
    if (!row) throw notFound(id);
    return row;
  }

  /**
   * One page of the tenant's group ways, newest first unless sorted otherwise.
   * @throws BadRequestException (400) unknown sort field
   */
  async page(tenantId: string, query: ChatGroupWayPageQuery): Promise<Page<GroupWayView>> {
    const order = toOrder(query.sort, GROUP_WAY_SORT_FIELDS, { createdAt: 'DESC' });
    const manager = this.dataSource.manager;
    const builder = manager.createQueryBuilder(GroupWayEntity, 'way').where('way.tenantId = :tenantId', { tenantId });
    if (query.corpName !== undefined) {
      const corp = await this.corpDirectory.findByName(tenantId, query.corpName);
      if (!corp) return toPage([], 0, query);
      builder.andWhere('way.corpId = :corpId', { corpId: corp.id });
    }
    if (query.id !== undefined) builder.andWhere('way.id = :id', { id: query.id });
    if (query.name !== undefined) builder.andWhere(...containsMatch('way.name', 'namePattern', query.name));
    if (query.state !== undefined) builder.andWhere('way.state = :state', { state: query.state });
    if (query.digitalStaffId !== undefined) builder.andWhere('way.digitalStaffId = :digitalStaffId', { digitalStaffId: query.digitalStaffId });
    if (query.conversationGroupId !== undefined) builder.andWhere('way.conversationGroupId = :conversationGroupId', { conversationGroupId: query.conversationGroupId });
    if (query.isDefault !== undefined) builder.andWhere('way.isDefault = :isDefault', { isDefault: query.isDefault });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`way.${property}`, direction);
    // Ties: the pager adds the id in the first key's direction (one index per sort serves both directions).
    const { rows, ...slice } = await this.pager.page(builder, query, { search: query.name !== undefined });
    return toPage(await this.views(tenantId, rows), slice, query);
  }

  /** The ways with their corp and digital staff names, for the DTO mapper. */
  async views(tenantId: string, rows: GroupWayEntity[]): Promise<GroupWayView[]> {
    const corpNames = await this.corpDirectory.names(tenantId, rows.map((row) => row.corpId));
    const digitalStaff = await digitalStaffById(this.dataSource.manager, tenantId, rows.map((row) => row.digitalStaffId));
    return rows.map((row) => ({ row, corpName: corpNames.get(row.corpId), digitalStaffName: row.digitalStaffId ? digitalStaff.get(row.digitalStaffId)?.name : undefined }));
  }

  /** One attempt of setDefault: scope lock, then the row, then the previous default (the same order everywhere). */
  private async setDefaultOnce(manager: EntityManager, tenantId: string, id: string): Promise<GroupWaySceneCodeDefaultDto[]> {
    const first = await manager.findOneBy(GroupWayEntity, { tenantId, id });
    if (!first) throw notFound(id);
    const scope = groupWayDefaultScope(first);
    await lockDefaultScope(manager, defaultScopeLockKey('chat_group_way', tenantId, scope));
    const row = await this.findLocked(manager, tenantId, id);
    if (groupWayDefaultScope(row) !== scope) throw new ScopeChanged();
    if (row.isDefault && row.defaultScope === scope) return [toGroupWaySceneCodeDefaultDto(row)];
    const previous = await manager.find(GroupWayEntity, { where: { tenantId, defaultScope: scope, isDefault: true }, lock: { mode: 'pessimistic_write' }, order: { id: 'ASC' } });
    const cleared = previous.filter((other) => other.id !== row.id);
    if (cleared.length > 0) await manager.update(GroupWayEntity, { tenantId, id: In(cleared.map((other) => other.id)) }, { isDefault: false, defaultScope: null });
    row.isDefault = true;
    row.defaultScope = scope;
    await manager.save(row);
    return [...cleared.map((other) => toGroupWaySceneCodeDefaultDto({ ...other, isDefault: false, defaultScope: null })), toGroupWaySceneCodeDefaultDto(row)];
  }

  private async findLocked(manager: EntityManager, tenantId: string, id: string): Promise<GroupWayEntity> {
    const row = await manager.findOne(GroupWayEntity, { where: { tenantId, id }, lock: { mode: 'pessimistic_write' } });
    if (!row) throw notFound(id);
    return row;
  }

  /** @throws ConflictException (409) another group way of the corp has this state */
  private async assertStateFree(manager: EntityManager, corp: WorkChatCorpEntity, state: string, exceptId?: string): Promise<void> {
    const other = await manager.findOneBy(GroupWayEntity, { tenantId: corp.tenantId, corpId: corp.id, state });
    if (other && other.id !== exceptId) throw new ConflictException(`Corp "${corp.corpName}" already has a group way with state "${state}" (id ${other.id}); choose another state.`);
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No group way ${id} in this tenant.`);
}

/** The port's input from the stored (or about to be stored) fields. */
function toPlatformInput(fields: Pick<GroupWayEntity, 'scene' | 'chatIds' | 'state' | 'remark' | 'autoCreateRoom' | 'roomBaseName' | 'roomBaseId'>): GroupWayInput {
  return {
    scene: fields.scene === 1 ? 1 : 2,
    chatIds: fields.chatIds,
    ...(fields.state ? { state: fields.state } : {}),
    ...(fields.remark ? { remark: fields.remark } : {}),
    autoCreateRoom: fields.autoCreateRoom,
    ...(fields.roomBaseName ? { roomBaseName: fields.roomBaseName } : {}),
    ...(fields.roomBaseId !== null ? { roomBaseId: fields.roomBaseId } : {}),
  };
}

/** A unique-index violation as 409 with a readable reason; anything else unchanged. */
function duplicateOr(error: unknown, row: GroupWayEntity): unknown {
  const message = DUPLICATE_MESSAGES[uniqueViolation(error) ?? ''];
  return message ? new ConflictException(message(row)) : error;
}
