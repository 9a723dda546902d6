import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ConversationGroupEntity } from './conversation-group.entity';
import { uniqueViolation } from '../common/db-support';
import {
  ConversationGroupEventDefinitionDto,
  ConversationGroupEventDefinitionPageQuery,
  ConversationGroupEventDefinitionPayload,
  EVENT_DEFINITION_SORT_FIELDS,
  toConversationGroupEventDefinitionDto,
} from './event-definition.dto';
import { ConversationEventDefinitionEntity } from './event-definition.entity';
import { normalizeEventCondition } from './event-definition.rules';
import { lockConversationGroups } from './group-locks';
import { fieldProblems, plural, quotedList } from './id-lists';
import { ConversationTriggerEntity } from './trigger.entity';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Event definitions of a conversation group (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/conversationGroups/{groupId}/eventDefinitions/{id}`, plus create and list under the group). A definition is
 * addressed through its group: an id of another group (or tenant) answers 404.
 */
@Injectable()
export class EventDefinitionsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Adds an event definition to a group. The group row is locked `FOR UPDATE` while counting, so concurrent
   * creations cannot exceed the cap.
   * @throws NotFoundException (404) no such group in the tenant
   * @throws BadRequestException (400) condition fields that do not fit `eventType` (listed in `errors`)
   * @throws ConflictException (409) the group has CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS already, or one
   *   with this name
   */
  async create(tenantId: string, groupId: string, input: ConversationGroupEventDefinitionPayload): Promise<ConversationGroupEventDefinitionDto> {
    return this.dataSource.transaction(async (manager) => {
      await this.requireGroup(manager, tenantId, groupId, 'update');
      const condition = checkedCondition(input);
      const max = this.config.chatConversations.maxEventDefinitionsPerGroup;
      const count = await manager.getRepository(ConversationEventDefinitionEntity).count({ where: { tenantId, conversationGroupId: groupId } });
      if (count >= max) throw new ConflictException(`Conversation group ${groupId} already has ${count} event definitions, the most allowed (CHAT_CONVERSATION_GROUP_MAX_EVENT_DEFINITIONS=${max}); delete one first.`);
      const row = manager.getRepository(ConversationEventDefinitionEntity).create({ tenantId, conversationGroupId: groupId });
      applyPayload(row, input, condition);
      await saveUnique(manager, row);
      return toConversationGroupEventDefinitionDto(row, 0);
    });
  }

  /**
   * The group's event definitions, by name; `eventType` filters.
   * @throws NotFoundException (404) no such group; BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, groupId: string, query: ConversationGroupEventDefinitionPageQuery): Promise<Page<ConversationGroupEventDefinitionDto>> {
    const order = toOrder(query.sort, EVENT_DEFINITION_SORT_FIELDS, { name: 'ASC' });
    await this.requireGroup(this.dataSource.manager, tenantId, groupId);
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(ConversationEventDefinitionEntity), {
      where: { tenantId, conversationGroupId: groupId, ...(query.eventType ? { eventType: query.eventType } : {}) },
      order,
    }, query);
    const usage = await this.usage(this.dataSource.manager, tenantId, groupId);
    return toPage(rows.map((row) => toConversationGroupEventDefinitionDto(row, usage.get(row.id)?.length ?? 0)), slice, query);
  }

  /** @throws NotFoundException (404) no such event definition in the group */
  async get(tenantId: string, groupId: string, id: string): Promise<ConversationGroupEventDefinitionDto> {
    const row = await this.find(this.dataSource.manager, tenantId, groupId, id);
    const usage = await this.usage(this.dataSource.manager, tenantId, groupId);
    return toConversationGroupEventDefinitionDto(row, usage.get(id)?.length ?? 0);
  }

  /**
   * Replaces an event definition (its id, and so the triggers using it, are kept).
   * @throws NotFoundException (404); BadRequestException (400) fields that do not fit `eventType`;
   *   ConflictException (409) another definition of the group has the new name
   */
  async update(tenantId: string, groupId: string, id: string, input: ConversationGroupEventDefinitionPayload): Promise<ConversationGroupEventDefinitionDto> {
    return this.dataSource.transaction(async (manager) => {
      await this.requireGroup(manager, tenantId, groupId, 'share');
      const row = await this.find(manager, tenantId, groupId, id, true);
      applyPayload(row, input, checkedCondition(input));
      await saveUnique(manager, row);
      const usage = await this.usage(manager, tenantId, groupId);
      return toConversationGroupEventDefinitionDto(row, usage.get(id)?.length ?? 0);
    });
  }

  /**
   * Deletes an event definition unless a trigger of its group reacts to it. The definition row is locked `FOR
   * UPDATE` before the triggers are read; a trigger being saved with it holds it `FOR SHARE`, so either the trigger
   * commits first and is seen here (409), or it waits and then finds the definition gone (400).
   * @throws NotFoundException (404) no such event definition in the group
   * @throws ConflictException (409) triggers use it (the message names them)
   */
  async remove(tenantId: string, groupId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, tenantId, groupId, id, true);
      const users = (await this.usage(manager, tenantId, groupId)).get(id) ?? [];
      if (users.length) {
        throw new ConflictException(
          `Event definition "${row.name}" is used by ${plural(users.length, 'trigger')} (${quotedList(users.map((trigger) => trigger.name))}); remove it from their eventDefinitionIds or delete them first.`,
        );
      }
      await manager.getRepository(ConversationEventDefinitionEntity).delete({ tenantId, conversationGroupId: groupId, id });
    });
  }

  /** Triggers of the group by the event definition ids they use (name order). */
  private async usage(manager: EntityManager, tenantId: string, groupId: string): Promise<Map<string, { id: string; name: string }[]>> {
    const triggers = await manager.getRepository(ConversationTriggerEntity).find({
      select: { id: true, name: true, eventDefinitionIds: true },
      where: { tenantId, conversationGroupId: groupId },
      order: { name: 'ASC' },
    });
    const byDefinition = new Map<string, { id: string; name: string }[]>();
    for (const trigger of triggers) {
      for (const definitionId of trigger.eventDefinitionIds) byDefinition.set(definitionId, [...(byDefinition.get(definitionId) ?? []), { id: trigger.id, name: trigger.name }]);
    }
    return byDefinition;
  }

  /** Checks the group exists in the tenant, locking it in `mode` when given (inside a transaction). @throws NotFoundException (404) */
  private async requireGroup(manager: EntityManager, tenantId: string, groupId: string, mode?: 'update' | 'share'): Promise<void> {
    const found = mode ? (await lockConversationGroups(manager, tenantId, [groupId], mode)).has(groupId) : await manager.existsBy(ConversationGroupEntity, { tenantId, id: groupId });
    if (!found) throw new NotFoundException(`No conversation group ${groupId} in this tenant.`);
  }

  private async find(manager: EntityManager, tenantId: string, groupId: string, id: string, lock = false): Promise<ConversationEventDefinitionEntity> {
    const row = await manager.getRepository(ConversationEventDefinitionEntity).findOne({ where: { tenantId, conversationGroupId: groupId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No event definition ${id} in conversation group ${groupId} of this tenant.`);
    return row;
  }
}

/** The normalised condition of a request. @throws BadRequestException (400) listing every problem */
function checkedCondition(input: ConversationGroupEventDefinitionPayload) {
  const { condition, problems } = normalizeEventCondition(input);
  if (problems.length) throw fieldProblems('Invalid event definition', problems);
  return condition;
}

/** Copies a payload onto a row (PUT replaces every field). */
function applyPayload(row: ConversationEventDefinitionEntity, input: ConversationGroupEventDefinitionPayload, condition: ConversationEventDefinitionEntity['condition']): void {
  row.name = input.name;
  row.description = input.description || null;
  row.eventType = input.eventType;
  row.condition = condition;
}

/** Saves the row; a duplicate name in the group becomes 409. */
async function saveUnique(manager: EntityManager, row: ConversationEventDefinitionEntity): Promise<void> {
  try {
    await manager.getRepository(ConversationEventDefinitionEntity).save(row);
  } catch (error) {
    if (uniqueViolation(error) === 'ux_chat_conversation_event_definition_group_name') throw new ConflictException(`Conversation group ${row.conversationGroupId} already has an event definition named "${row.name}".`);
    throw error;
  }
}
