import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ChatChannelEntity } from '../channels/chat-channel.entity';
import { uniqueViolation } from '../common/db-support';
import { FieldProblem, fieldProblems, missingIds, sortedUnique } from '../conversation-groups/id-lists';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { ChatGroupEntity } from './chat-group.entity';
import { CHAT_GROUP_SORT_FIELDS, ChatGroupDto, ChatGroupPageQuery, ChatGroupSaveRequest, toChatGroupDto } from './chat-group.dto';
import { checkChatGroupTeam } from './chat-group.rules';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Chat groups of a tenant (chat-management-api.md, "Paths without the tenant segment": `GET/PUT
 * /api/console/chat/group/{id}`, plus the create and list under `{C}/chat/group` and the delete the spec leaves
 * out). Every query filters by the tenant, so another tenant's ids answer 404.
 *
 * Exported from ChatModule for routing: {@link forChannel} (the enabled group handling a channel's chats).
 */
@Injectable()
export class ChatGroupsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * @throws BadRequestException (400) unknown channels, members or digital staff, caps, an enabled group with no one
   *   to answer (every problem in `errors`)
   * @throws ConflictException (409) the name is taken, or a channel is handled by another group (named)
   */
  async create(tenantId: string, input: ChatGroupSaveRequest): Promise<ChatGroupDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const created = manager.getRepository(ChatGroupEntity).create({ tenantId });
      await this.save(manager, created, input);
      return created;
    });
    return toChatGroupDto(row);
  }

  /**
   * The tenant's chat groups, newest first; `name` (case-insensitive substring), `enabled`, `channelId` and
   * `memberUserId` filter.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: ChatGroupPageQuery): Promise<Page<ChatGroupDto>> {
    const order = toOrder(query.sort, CHAT_GROUP_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(ChatGroupEntity).createQueryBuilder('g').where('g.tenant_id = :tenantId', { tenantId });
    if (query.name) builder.andWhere(...containsMatch('g.name', 'name', query.name));
    if (query.enabled !== undefined) builder.andWhere('g.enabled = :enabled', { enabled: query.enabled });
    if (query.channelId) builder.andWhere('g.channel_ids @> :channel::jsonb', { channel: JSON.stringify([query.channelId]) });
    if (query.memberUserId) builder.andWhere('g.member_user_ids @> :member::jsonb', { member: JSON.stringify([query.memberUserId]) });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`g.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name) });
    return toPage(rows.map(toChatGroupDto), slice, query);
  }

  /** @throws NotFoundException (404) no such chat group in the tenant */
  async get(tenantId: string, id: string): Promise<ChatGroupDto> {
    return toChatGroupDto(await this.find(this.dataSource.manager, tenantId, id));
  }

  /**
   * Replaces a chat group (the row locked `FOR UPDATE` first).
   * @throws NotFoundException (404); BadRequestException (400); ConflictException (409) as {@link create}
   */
  async update(tenantId: string, id: string, input: ChatGroupSaveRequest): Promise<ChatGroupDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const current = await this.find(manager, tenantId, id, true);
      await this.save(manager, current, input);
      return current;
    });
    return toChatGroupDto(row);
  }

  /** @throws NotFoundException (404) no such chat group in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ChatGroupEntity).delete({ tenantId, id });
    if (!result.affected) throw notFound(id);
  }

  /** The enabled chat group handling a channel's chats, or null (for routing). */
  async forChannel(tenantId: string, channelId: string): Promise<ChatGroupEntity | null> {
    return this.dataSource
      .getRepository(ChatGroupEntity)
      .createQueryBuilder('g')
      .where('g.tenant_id = :tenantId AND g.enabled AND g.channel_ids @> :channel::jsonb', { tenantId, channel: JSON.stringify([channelId]) })
      .getOne();
  }

  /**
   * Checks and writes a chat group inside the caller's transaction:
   * 1. the team rules (chat-group.rules.ts) — 400;
   * 2. locks the named channels `FOR UPDATE` in id order; unknown ones → 400; channels another group handles → 409
   *    (the lock makes two groups claiming one channel at once serialise, and a channel deletion wait or be seen);
   * 3. members must be staff users of the tenant, the digital staff a digital staff of the tenant — 400.
   */
  private async save(manager: EntityManager, row: ChatGroupEntity, input: ChatGroupSaveRequest): Promise<void> {
    const { tenantId } = row;
    const channelIds = sortedUnique(input.channelIds ?? []);
    const memberUserIds = sortedUnique(input.memberUserIds ?? []);
    const team = {
      enabled: input.enabled ?? true,
      channelIds,
      memberUserIds,
      digitalStaffId: input.digitalStaffId ?? null,
      routingStrategy: input.routingStrategy ?? 'round_robin',
      maxConcurrentChatsPerMember: input.maxConcurrentChatsPerMember ?? null,
    };
    const problems: FieldProblem[] = checkChatGroupTeam(team, { maxChannels: this.config.chatChannels.maxGroupChannels, maxMembers: this.config.chatChannels.maxGroupMembers });
    if (problems.length) throw fieldProblems('Invalid chat group', problems);
    const channels = channelIds.length
      ? await manager.getRepository(ChatChannelEntity).find({ select: { id: true, name: true }, where: { tenantId, id: In(channelIds) }, order: { id: 'ASC' }, lock: { mode: 'pessimistic_write' } })
      : [];
    for (const id of missingIds(channelIds, channels.map((channel) => channel.id))) problems.push({ field: 'channelIds', message: `No channel ${id} in this tenant.` });
    if (memberUserIds.length) {
      const users = await manager.getRepository(WorkChatUserEntity).find({ select: { id: true }, where: { tenantId, id: In(memberUserIds) } });
      for (const id of missingIds(memberUserIds, users.map((user) => user.id))) problems.push({ field: 'memberUserIds', message: `No staff user ${id} in this tenant.` });
    }
    if (team.digitalStaffId && !(await manager.getRepository(DigitalStaffEntity).existsBy({ tenantId, id: team.digitalStaffId }))) {
      problems.push({ field: 'digitalStaffId', message: `No digital staff ${team.digitalStaffId} in this tenant.` });
    }
    if (problems.length) throw fieldProblems('Invalid chat group', problems);
    if (channelIds.length) {
      const claimed: { id: string; name: string; channel_ids: string[] }[] = await manager.query(
        `SELECT id, name, channel_ids FROM chat_chat_group WHERE tenant_id = $1 AND channel_ids ?| $2::text[] ${row.id ? 'AND id <> $3' : ''} ORDER BY name`,
        row.id ? [tenantId, channelIds, row.id] : [tenantId, channelIds],
      );
      if (claimed.length) {
        const names = new Map(channels.map((channel) => [channel.id, channel.name]));
        const taken = claimed.flatMap((group) => group.channel_ids.filter((id) => channelIds.includes(id)).map((id) => `channel "${names.get(id)}" is handled by chat group "${group.name}" (${group.id})`));
        throw new ConflictException(`A channel belongs to at most one chat group: ${taken.join('; ')}. Remove it from that group first.`);
      }
    }
    row.name = input.name;
    row.description = input.description || null;
    row.channelIds = channelIds;
    row.memberUserIds = memberUserIds;
    row.digitalStaffId = team.digitalStaffId;
    row.routingStrategy = team.routingStrategy;
    row.maxConcurrentChatsPerMember = team.maxConcurrentChatsPerMember;
    row.enabled = team.enabled;
    try {
      await manager.getRepository(ChatGroupEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_chat_group_tenant_name') throw new ConflictException(`The tenant already has a chat group named "${row.name}".`);
      throw error;
    }
  }

  private async find(manager: EntityManager, tenantId: string, id: string, lock = false): Promise<ChatGroupEntity> {
    const row = await manager.getRepository(ChatGroupEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw notFound(id);
    return row;
  }
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No chat group ${id} in this tenant.`);
}
