import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ChatChannelEntity } from '../channels/chat-channel.entity';
import { UserConversationEntity } from '../conversations/user-conversation.entity';
import { GroupWayEntity } from '../group-ways/group-way.entity';
import { ConversationGroupEntity } from './conversation-group.entity';
import { uniqueViolation } from '../common/db-support';
import {
  CONVERSATION_GROUP_SORT_FIELDS,
  toUserConversationGroupDto,
  UserConversationGroupDTO,
  UserConversationGroupPageQuery,
  UserConversationGroupPayload,
} from './conversation-group.dto';
import { ConversationEventDefinitionEntity } from './event-definition.entity';
import { lockConversationGroups } from './group-locks';
import { plural, quotedList } from './id-lists';
import { ConversationTriggerEntity } from './trigger.entity';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/** Everything the reply pipeline needs of a conversation group (see {@link ConversationGroupsService.configuration}). */
export interface ConversationGroupConfiguration {
  group: ConversationGroupEntity;
  /** All event definitions of the group, by name. */
  eventDefinitions: ConversationEventDefinitionEntity[];
  /** The group's ENABLED triggers, in the order they run (priority ascending, then name). */
  triggers: ConversationTriggerEntity[];
}

/**
 * Conversation groups of a tenant (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/userConversationGroups/{id}`, plus the create and list the spec leaves out). Every query filters by the
 * tenant, so another tenant's ids answer 404.
 *
 * Exported from ChatModule for the reply pipeline: {@link configuration} (a group with its event definitions and
 * enabled triggers).
 */
@Injectable()
export class ConversationGroupsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /** @throws ConflictException (409) the tenant already has a group with this name */
  async create(tenantId: string, input: UserConversationGroupPayload): Promise<UserConversationGroupDTO> {
    const row = this.dataSource.getRepository(ConversationGroupEntity).create({ tenantId });
    applyPayload(row, input);
    await this.saveUnique(this.dataSource.manager, row);
    return toUserConversationGroupDto(row, { triggers: 0, eventDefinitions: 0 });
  }

  /**
   * The tenant's groups, newest first; `name` filters by case-insensitive substring, `enabled` by state.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: UserConversationGroupPageQuery): Promise<Page<UserConversationGroupDTO>> {
    const order = toOrder(query.sort, CONVERSATION_GROUP_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(ConversationGroupEntity).createQueryBuilder('g').where('g.tenant_id = :tenantId', { tenantId });
    if (query.name) builder.andWhere(...containsMatch('g.name', 'name', query.name));
    if (query.enabled !== undefined) builder.andWhere('g.enabled = :enabled', { enabled: query.enabled });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`g.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name) });
    return toPage(await this.toDtos(tenantId, rows), slice, query);
  }

  /** @throws NotFoundException (404) no such group in the tenant */
  async get(tenantId: string, id: string): Promise<UserConversationGroupDTO> {
    return (await this.toDtos(tenantId, [await this.find(tenantId, id)]))[0];
  }

  /**
   * Replaces the group's settings (omitted optional fields take their defaults). Its triggers, event definitions
   * and conversations are kept. The row is locked `FOR UPDATE` first, so a concurrent delete cannot be undone.
   * @throws NotFoundException (404); ConflictException (409) another group of the tenant has the new name
   */
  async update(tenantId: string, id: string, input: UserConversationGroupPayload): Promise<UserConversationGroupDTO> {
    const row = await this.dataSource.transaction(async (manager) => {
      const locked = (await lockConversationGroups(manager, tenantId, [id], 'update')).get(id);
      if (!locked) throw notFound(id);
      applyPayload(locked, input);
      await this.saveUnique(manager, locked);
      return locked;
    });
    return (await this.toDtos(tenantId, [row]))[0];
  }

  /**
   * Deletes a group with its triggers and event definitions, in one transaction. Refused while anything points at
   * it: conversations (in any state: a terminated conversation keeps its group as history), channels that put new
   * conversations in it, switch-group triggers of other groups, group ways. The message names them; disabling the
   * group (PUT with `enabled: false`) is the way to retire one that has history. The group row is locked `FOR
   * UPDATE` first, so a conversation, channel or trigger being saved against it (which holds it `FOR SHARE` or
   * `FOR UPDATE`) either commits first and is counted, or waits and then finds no group.
   * @throws NotFoundException (404) no such group in the tenant
   * @throws ConflictException (409) the group is referenced (the message lists by whom)
   */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = (await lockConversationGroups(manager, tenantId, [id], 'update')).get(id);
      if (!row) throw notFound(id);
      const references = await this.references(manager, tenantId, id);
      if (references.length) {
        throw new ConflictException(
          `Conversation group "${row.name}" is still referenced by ${references.join('; ')}. Move or delete those first, or disable the group (PUT with enabled false) to keep its history.`,
        );
      }
      await manager.getRepository(ConversationTriggerEntity).delete({ tenantId, conversationGroupId: id });
      await manager.getRepository(ConversationEventDefinitionEntity).delete({ tenantId, conversationGroupId: id });
      await manager.getRepository(ConversationGroupEntity).delete({ tenantId, id });
    });
  }

  /**
   * A group with its event definitions and enabled triggers (in run order), for the reply pipeline; null when the
   * tenant has no such group. Disabled groups are returned too (check `group.enabled`).
   */
  async configuration(tenantId: string, groupId: string): Promise<ConversationGroupConfiguration | null> {
    const group = await this.dataSource.getRepository(ConversationGroupEntity).findOneBy({ tenantId, id: groupId });
    if (!group) return null;
    const [eventDefinitions, triggers] = await Promise.all([
      this.dataSource.getRepository(ConversationEventDefinitionEntity).find({ where: { tenantId, conversationGroupId: groupId }, order: { name: 'ASC' } }),
      this.dataSource.getRepository(ConversationTriggerEntity).find({ where: { tenantId, conversationGroupId: groupId, enabled: true }, order: { priority: 'ASC', name: 'ASC' } }),
    ]);
    return { group, eventDefinitions, triggers };
  }

  /** A group of the tenant by id, or null (for other chat areas). */
  findById(tenantId: string, id: string): Promise<ConversationGroupEntity | null> {
    return this.dataSource.getRepository(ConversationGroupEntity).findOneBy({ tenantId, id });
  }

  /** Readable descriptions of what points at a group (empty when nothing does). */
  private async references(manager: EntityManager, tenantId: string, id: string): Promise<string[]> {
    // One after another: the queries share the transaction's connection.
    const byStatus = await manager
      .getRepository(UserConversationEntity)
      .createQueryBuilder('c')
      .select('c.status', 'status')
      .addSelect('count(*)::int', 'count')
      .where('c.tenant_id = :tenantId AND c.conversation_group_id = :id', { tenantId, id })
      .groupBy('c.status')
      .orderBy('c.status')
      .getRawMany<{ status: string; count: number }>();
    const channels = await manager.getRepository(ChatChannelEntity).find({ select: { name: true }, where: { tenantId, conversationGroupId: id }, order: { name: 'ASC' }, take: 10 });
    const channelCount = await manager.getRepository(ChatChannelEntity).count({ where: { tenantId, conversationGroupId: id } });
    const triggers = await manager.getRepository(ConversationTriggerEntity).find({ select: { name: true }, where: { tenantId, targetConversationGroupId: id }, order: { name: 'ASC' }, take: 10 });
    const triggerCount = await manager.getRepository(ConversationTriggerEntity).count({ where: { tenantId, targetConversationGroupId: id } });
    const ways = await manager.getRepository(GroupWayEntity).find({ select: { id: true }, where: { tenantId, conversationGroupId: id }, order: { id: 'ASC' }, take: 10 });
    const wayCount = await manager.getRepository(GroupWayEntity).count({ where: { tenantId, conversationGroupId: id } });
    const found: string[] = [];
    const conversations = byStatus.reduce((sum, entry) => sum + Number(entry.count), 0);
    if (conversations) found.push(`${plural(conversations, 'conversation')} (${byStatus.map((entry) => `${entry.count} ${entry.status}`).join(', ')})`);
    if (channelCount) found.push(`${plural(channelCount, 'channel')} (${quotedList(channels.map((c) => c.name), channelCount)})`);
    if (triggerCount) found.push(`${plural(triggerCount, 'switch_group trigger')} of other groups (${quotedList(triggers.map((t) => t.name), triggerCount)})`);
    if (wayCount) found.push(`${plural(wayCount, 'group way')} (ids ${ways.map((w) => w.id).join(', ')}${wayCount > ways.length ? ', …' : ''})`);
    return found;
  }

  private async find(tenantId: string, id: string): Promise<ConversationGroupEntity> {
    const row = await this.findById(tenantId, id);
    if (!row) throw notFound(id);
    return row;
  }

  /** Saves the row; a duplicate name becomes 409. */
  private async saveUnique(manager: EntityManager, row: ConversationGroupEntity): Promise<void> {
    try {
      await manager.getRepository(ConversationGroupEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_conversation_group_tenant_name') throw new ConflictException(`The tenant already has a conversation group named "${row.name}".`);
      throw error;
    }
  }

  /** Responses with trigger and event definition counts (two queries for any number of rows). */
  private async toDtos(tenantId: string, rows: ConversationGroupEntity[]): Promise<UserConversationGroupDTO[]> {
    const ids = rows.map((row) => row.id);
    if (ids.length === 0) return [];
    const countBy = async (table: 'chat_conversation_trigger' | 'chat_conversation_event_definition') => {
      const counts: { id: string; count: number }[] = await this.dataSource.query(
        `SELECT conversation_group_id AS id, count(*)::int AS count FROM ${table} WHERE tenant_id = $1 AND conversation_group_id = ANY($2::uuid[]) GROUP BY conversation_group_id`,
        [tenantId, ids],
      );
      return new Map(counts.map((c) => [c.id, Number(c.count)]));
    };
    const [triggers, definitions] = await Promise.all([countBy('chat_conversation_trigger'), countBy('chat_conversation_event_definition')]);
    return rows.map((row) => toUserConversationGroupDto(row, { triggers: triggers.get(row.id) ?? 0, eventDefinitions: definitions.get(row.id) ?? 0 }));
  }
}

/** Copies a payload onto a row: PUT replaces, so omitted optional fields take their defaults. */
function applyPayload(row: ConversationGroupEntity, input: UserConversationGroupPayload): void {
  row.name = input.name;
  row.description = input.description || null;
  row.systemPrompt = input.systemPrompt || null;
  row.replyMode = input.replyMode ?? 'auto';
  row.replyDelaySeconds = input.replyDelaySeconds ?? 0;
  row.historyMessageCount = input.historyMessageCount ?? 20;
  row.maxReplyChars = input.maxReplyChars ?? null;
  row.enabled = input.enabled ?? true;
}

function notFound(id: string): NotFoundException {
  return new NotFoundException(`No conversation group ${id} in this tenant.`);
}
