import { BadRequestException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { requireStaffUser } from '../contacts/contact-sync.service';
import { corpContext, findCorpById } from '../contacts/corp-lookup';
import { SyncGroupRequest, SyncGroupResultDto } from '../contacts/guide-sync.dto';
import { updateReturning } from '../contacts/update-returning';
import type { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { CHAT_PLATFORM, type ChatPlatform, type PlatformGroupChat } from '../platform';
import { GroupMemberEntity } from './group-member.entity';
import { diffGroupMembers } from './group-members.rules';
import { GroupRoomAccessEntity } from './group-room-access.entity';
import { GroupRoomEntity } from './group-room.entity';
import { DedupQuery, DedupResultDto, GROUP_ROOM_SORT_FIELDS, GroupRoomDetailDto, GroupRoomDto, GroupRoomPageQuery, toGroupRoomDetailDto, toGroupRoomDto } from './group-rooms.dto';
import { searchMatch, searchScopeCondition, type ListSearch } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Group rooms (customer group chats) and their members (issue 5, External contacts: the per-room AI switch, guide
 * `syncGroup`, the deprecated group-member dedup). A staff user "has" a room when they own it or are one of its
 * staff members. Every query filters by the tenant.
 */
@Injectable()
export class GroupRoomsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Rooms the staff user owns or is a staff member of, newest first (issue 23 acceptance 1). They are the staff
   * member's rows of `chat_group_room_access` (migration 1795600760000), which carry the rooms' sort keys and names, each
   * joined to its room by primary key. Without a keyword, or with one common among the staff member's rooms, a page
   * walks those rows in the page's order (`(tenant, staff member, key, room id)`), checking the keyword on the row's
   * copied name; a rare keyword reads its candidates from the rows' grams, scoped by tenant and staff member, and sorts
   * them. Either way the cost grows neither with the tenant's rooms nor with the staff member's. The order is the rooms'
   * own (the keys are copies kept in the writer's transaction), the room id last.
   */
  async listForStaff(tenantId: string, workChatUserId: string, query: GroupRoomPageQuery): Promise<Page<GroupRoomDto>> {
    const order = Object.entries(toOrder(query.sort, GROUP_ROOM_SORT_FIELDS, { createdAt: 'DESC' }));
    const search = groupRoomSearch(tenantId, workChatUserId);
    const commonKeyword = query.keyword ? await this.pager.isCommonTerm(this.dataSource, search, query.keyword) : true;
    const builder = this.dataSource
      .getRepository(GroupRoomEntity)
      .createQueryBuilder('room')
      .innerJoin(GroupRoomAccessEntity, 'access', 'access.group_room_id = room.id')
      .where(...searchScopeCondition(search, !commonKeyword))
      .andWhere('room.tenant_id = :tenantId');
    if (query.corpId) builder.andWhere('room.corp_id = :corpId', { corpId: query.corpId });
    if (query.aiEnabled !== undefined) builder.andWhere('room.ai_enabled = :aiEnabled', { aiEnabled: query.aiEnabled });
    if (query.keyword) {
      // The name contains it, or the chat id is it: that room by the rooms' (tenant_id, chat_id) index, then its access
      // row by the primary key (the scope is repeated in this arm so that the key serves it when the scope is a plain filter).
      const orElse: [string, Record<string, unknown>] = [
        '(access.tenant_id = :tenantId AND access.work_chat_user_id = :workChatUserId AND access.group_room_id = ANY(ARRAY(SELECT keyed.id FROM chat_group_room keyed WHERE keyed.tenant_id = :tenantId AND keyed.chat_id = :keyword)))',
        { keyword: query.keyword },
      ];
      builder.andWhere(...searchMatch(search, 'pattern', query.keyword, { common: commonKeyword, orElse }));
    }
    for (const [property, direction] of order) builder.addOrderBy(`access.${property}`, direction);
    // The access indexes end with the room id: named as the tie-breaker, a cursor's seek stays inside them.
    builder.addOrderBy('access.groupRoomId', order[0]?.[1] ?? 'DESC');
    // Without a keyword the total is counted once per change of the tenant's rooms (list generations, migration 1795600800000).
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.keyword), candidates: !commonKeyword, tenantId });
    return toPage(rows.map(toGroupRoomDto), slice, query);
  }

  /** @throws NotFoundException (404) no such room of the staff user in the tenant */
  async getForStaff(tenantId: string, workChatUserId: string, roomId: string): Promise<GroupRoomDetailDto> {
    const room = await this.dataSource
      .getRepository(GroupRoomEntity)
      .createQueryBuilder('room')
      .where('room.tenant_id = :tenantId AND room.id = :roomId', { tenantId, roomId })
      .andWhere(staffHasRoom('room'), { workChatUserId })
      .getOne();
    if (!room) throw roomNotFound(roomId, workChatUserId);
    const members = await this.dataSource.getRepository(GroupMemberEntity).find({ where: { tenantId, groupRoomId: room.id }, order: { updatedAt: 'DESC' } });
    return toGroupRoomDetailDto(room, members);
  }

  /**
   * Flips a room's AI reply switch in one statement (`SET ai_enabled = NOT ai_enabled … RETURNING`).
   * @returns the new value
   * @throws NotFoundException (404) no such room of the staff user in the tenant
   */
  async toggleAi(tenantId: string, workChatUserId: string, roomId: string): Promise<boolean> {
    const [row] = await updateReturning<{ ai_enabled: boolean }>(
      this.dataSource.manager,
      `UPDATE chat_group_room room SET ai_enabled = NOT ai_enabled, updated_at = now()
        WHERE room.tenant_id = $1 AND room.id = $2 AND ${staffHasRoom('room').replace(/:workChatUserId/g, '$3')}
        RETURNING ai_enabled`,
      [tenantId, roomId, workChatUserId],
    );
    if (!row) throw roomNotFound(roomId, workChatUserId);
    return row.ai_enabled;
  }

  /**
   * Guide `syncGroup`: pulls the group chats the staff user owns (cursor paging, at most CHAT_SYNC_MAX_ITEMS), reads
   * each with its members and upserts the room and its members. Each room is written in one transaction with the
   * room row locked, so concurrent syncs neither duplicate rooms nor members; running it again changes nothing.
   * @throws NotFoundException (404) unknown corp or staff user; ConflictException (409) disabled corp;
   *   ChatPlatformError (mapped)
   */
  async syncGroups(tenantId: string, input: SyncGroupRequest): Promise<SyncGroupResultDto> {
    const corp = await findCorpById(this.dataSource.manager, tenantId, input.corpId);
    await requireStaffUser(this.dataSource.manager, corp, input.workChatUserId);
    const ctx = corpContext(corp);
    const { syncMaxItems, syncPageSize } = this.config.chatContacts;
    const result: SyncGroupResultDto = { fetched: 0, created: 0, updated: 0, unchanged: 0, membersAdded: 0, membersUpdated: 0, membersRemoved: 0, truncated: false };
    let cursor: string | undefined;
    do {
      const page = await this.platform.listGroupChats(ctx, { ownerUserIds: [input.workChatUserId], cursor, limit: syncPageSize });
      const refs = page.items.slice(0, syncMaxItems - result.fetched);
      for (const ref of refs) {
        const chat = await this.platform.getGroupChat(ctx, ref.chatId);
        const outcome = await this.writeRoom(corp, chat, ref.status);
        result[outcome.room] += 1;
        result.membersAdded += outcome.added;
        result.membersUpdated += outcome.updated;
        result.membersRemoved += outcome.removed;
      }
      result.fetched += refs.length;
      cursor = page.nextCursor;
      if (result.fetched >= syncMaxItems && (cursor || refs.length < page.items.length)) {
        result.truncated = true;
        break;
      }
    } while (cursor);
    return result;
  }

  /**
   * Deprecated one-off cleanup: removes duplicate member rows (same room and member), keeping each group's most
   * recently updated row, for at most `limit` groups (ordered by room and member), in one transaction serialized per
   * tenant. `limit` defaults to 100 (or CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT when lower). Idempotent: with no
   * duplicates left it deletes nothing.
   * @throws BadRequestException (400) limit over CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT; NotFoundException (404) unknown chatGroupId
   */
  async dedupMembers(tenantId: string, query: DedupQuery): Promise<DedupResultDto> {
    const max = this.config.chatContacts.dedupMaxLimit;
    if (query.limit !== undefined && query.limit > max) throw new BadRequestException(`limit must be at most ${max} (CHAT_GROUP_MEMBER_DEDUP_MAX_LIMIT); got ${query.limit}.`);
    const limit = query.limit ?? Math.min(DEDUP_DEFAULT_LIMIT, max);
    return this.dataSource.transaction(async (manager) => {
      if (query.chatGroupId && !(await manager.existsBy(GroupRoomEntity, { tenantId, chatId: query.chatGroupId }))) {
        throw new NotFoundException(`No group room with chat id ${query.chatGroupId} in this tenant.`);
      }
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext('chat_group_member_dedup:' || $1))`, [tenantId]);
      const chatFilter = query.chatGroupId ? 'AND chat_id = $3' : '';
      const parameters = query.chatGroupId ? [tenantId, limit, query.chatGroupId] : [tenantId, limit];
      const [counts] = await manager.query(
        `WITH dup AS (
           SELECT group_room_id, member_user_id FROM chat_group_member
            WHERE tenant_id = $1 ${chatFilter}
            GROUP BY group_room_id, member_user_id HAVING count(*) > 1
            ORDER BY group_room_id, member_user_id LIMIT $2),
         ranked AS (
           SELECT m.id, row_number() OVER (PARTITION BY m.group_room_id, m.member_user_id ORDER BY m.updated_at DESC, m.created_at DESC, m.id) AS rank
             FROM chat_group_member m JOIN dup USING (group_room_id, member_user_id)
            WHERE m.tenant_id = $1),
         deleted AS (
           DELETE FROM chat_group_member WHERE tenant_id = $1 AND id IN (SELECT id FROM ranked WHERE rank > 1) RETURNING 1)
         SELECT (SELECT count(*) FROM dup)::int AS groups, (SELECT count(*) FROM deleted)::int AS deleted`,
        parameters,
      );
      const [remaining] = await manager.query(
        `SELECT count(*)::int AS groups FROM (
           SELECT 1 FROM chat_group_member WHERE tenant_id = $1 ${chatFilter.replace('$3', '$2')}
            GROUP BY group_room_id, member_user_id HAVING count(*) > 1) d`,
        query.chatGroupId ? [tenantId, query.chatGroupId] : [tenantId],
      );
      return { duplicateGroups: counts.groups, deletedRows: counts.deleted, remainingDuplicateGroups: remaining.groups, limit };
    });
  }

  /** Upserts one room and its members in a transaction, the room row locked. */
  private async writeRoom(corp: WorkChatCorpEntity, chat: PlatformGroupChat, status: number): Promise<{ room: 'created' | 'updated' | 'unchanged'; added: number; updated: number; removed: number }> {
    return this.dataSource.transaction(async (manager) => {
      const inserted = await manager
        .createQueryBuilder()
        .insert()
        .into(GroupRoomEntity)
        .values({ tenantId: corp.tenantId, corpId: corp.id, chatId: chat.chatId, name: chat.name, ownerWorkChatUserId: chat.ownerUserId, notice: chat.notice ?? null, status, memberCount: 0, platformCreatedAt: chat.createdAt })
        .orIgnore()
        .returning(['id'])
        .execute();
      const created = inserted.raw.length > 0;
      const room = await manager.findOneOrFail(GroupRoomEntity, { where: { tenantId: corp.tenantId, corpId: corp.id, chatId: chat.chatId }, lock: { mode: 'pessimistic_write' } });
      const members = await this.writeMembers(manager, room, chat);
      const fields = { name: chat.name, ownerWorkChatUserId: chat.ownerUserId, notice: chat.notice ?? null, status, memberCount: new Set(chat.members.map((member) => member.userId)).size, platformCreatedAt: chat.createdAt };
      const changed =
        room.name !== fields.name ||
        room.ownerWorkChatUserId !== fields.ownerWorkChatUserId ||
        room.notice !== fields.notice ||
        room.status !== fields.status ||
        room.memberCount !== fields.memberCount ||
        room.platformCreatedAt?.getTime() !== fields.platformCreatedAt.getTime();
      const membersChanged = members.added + members.updated + members.removed > 0;
      await manager.update(GroupRoomEntity, { tenantId: corp.tenantId, id: room.id }, changed || membersChanged ? { ...fields, syncedAt: new Date() } : { syncedAt: new Date(), updatedAt: room.updatedAt });
      return { room: created ? 'created' : changed || membersChanged ? 'updated' : 'unchanged', ...members };
    });
  }

  private async writeMembers(manager: EntityManager, room: GroupRoomEntity, chat: PlatformGroupChat): Promise<{ added: number; updated: number; removed: number }> {
    const stored = await manager.find(GroupMemberEntity, { where: { tenantId: room.tenantId, groupRoomId: room.id }, order: { updatedAt: 'DESC', createdAt: 'DESC', id: 'ASC' } });
    const diff = diffGroupMembers(stored, chat.members);
    const columns = (member: PlatformGroupChat['members'][number]) => ({ memberType: member.type, name: member.name ?? null, joinScene: member.joinScene, joinedAt: member.joinedAt });
    if (diff.insert.length > 0) {
      await manager.insert(
        GroupMemberEntity,
        diff.insert.map((member) => ({ tenantId: room.tenantId, corpId: room.corpId, groupRoomId: room.id, chatId: room.chatId, memberUserId: member.userId, ...columns(member) })),
      );
    }
    for (const { id, member } of diff.update) await manager.update(GroupMemberEntity, { tenantId: room.tenantId, id }, columns(member));
    if (diff.deleteIds.length > 0) await manager.query(`DELETE FROM chat_group_member WHERE tenant_id = $1 AND id = ANY($2::uuid[])`, [room.tenantId, diff.deleteIds]);
    return { added: diff.insert.length, updated: diff.update.length, removed: diff.deleteIds.length };
  }
}

/** Duplicate groups one dedup call handles when `limit` is not given (spec: "default 100"). */
const DEDUP_DEFAULT_LIMIT = 100;

/**
 * The group room keyword search's one description: the staff member's access rows (migration 1795600760000), scoped
 * by tenant and staff member, over the room names they carry.
 */
function groupRoomSearch(tenantId: string, workChatUserId: string): ListSearch {
  return {
    table: 'chat_group_room_access',
    alias: 'access',
    scope: [
      { column: 'tenant_id', parameter: 'tenantId', value: tenantId },
      { column: 'work_chat_user_id', parameter: 'workChatUserId', value: workChatUserId },
    ],
    columns: ['name'],
  };
}

/** SQL condition: the staff user (`:workChatUserId`) owns the room or is one of its staff members. */
function staffHasRoom(alias: string): string {
  return `(${alias}.owner_work_chat_user_id = :workChatUserId OR EXISTS (
    SELECT 1 FROM chat_group_member m WHERE m.tenant_id = ${alias}.tenant_id AND m.group_room_id = ${alias}.id AND m.member_user_id = :workChatUserId AND m.member_type = 1))`;
}

function roomNotFound(roomId: string, workChatUserId: string): NotFoundException {
  return new NotFoundException(`Staff member ${workChatUserId} has no group room ${roomId} in this tenant.`);
}
