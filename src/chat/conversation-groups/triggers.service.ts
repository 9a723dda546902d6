import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, In, Not } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ConversationGroupEntity } from './conversation-group.entity';
import { uniqueViolation } from '../common/db-support';
import { ConversationEventDefinitionEntity } from './event-definition.entity';
import { lockConversationGroups } from './group-locks';
import { FieldProblem, fieldProblems, missingIds, sortedUnique } from './id-lists';
import { ConversationGroupTriggerDto, ConversationGroupTriggerPageQuery, ConversationGroupTriggerPayload, toConversationGroupTriggerDto, TRIGGER_SORT_FIELDS } from './trigger.dto';
import { ConversationTriggerEntity } from './trigger.entity';
import { normalizeTriggerAction } from './trigger.rules';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Triggers of a conversation group (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/conversationGroups/{groupId}/triggers/{id}`, plus create and list under the group). A trigger is addressed
 * through its group: an id of another group (or tenant) answers 404. It may only react to event definitions of its
 * own group.
 */
@Injectable()
export class TriggersService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Adds a trigger to a group; see {@link save} for the checks. The group row is locked `FOR UPDATE` while
   * counting, so concurrent creations cannot exceed the cap.
   * @throws NotFoundException (404) no such group in the tenant
   * @throws BadRequestException (400) see {@link save}
   * @throws ConflictException (409) the group has CHAT_CONVERSATION_GROUP_MAX_TRIGGERS already, or one with this name
   */
  async create(tenantId: string, groupId: string, input: ConversationGroupTriggerPayload): Promise<ConversationGroupTriggerDto> {
    return this.dataSource.transaction(async (manager) => {
      const groups = await this.lockGroups(manager, tenantId, groupId, input);
      const max = this.config.chatConversations.maxTriggersPerGroup;
      const count = await manager.getRepository(ConversationTriggerEntity).count({ where: { tenantId, conversationGroupId: groupId } });
      if (count >= max) throw new ConflictException(`Conversation group ${groupId} already has ${count} triggers, the most allowed (CHAT_CONVERSATION_GROUP_MAX_TRIGGERS=${max}); delete one first.`);
      const row = manager.getRepository(ConversationTriggerEntity).create({ tenantId, conversationGroupId: groupId });
      await this.save(manager, row, input, groups);
      return toConversationGroupTriggerDto(row);
    });
  }

  /**
   * The group's triggers in run order (priority, then name) unless sorted otherwise; `action` and `enabled` filter.
   * @throws NotFoundException (404) no such group; BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, groupId: string, query: ConversationGroupTriggerPageQuery): Promise<Page<ConversationGroupTriggerDto>> {
    const order = toOrder(query.sort, TRIGGER_SORT_FIELDS, { priority: 'ASC', name: 'ASC' });
    if (!(await this.dataSource.getRepository(ConversationGroupEntity).existsBy({ tenantId, id: groupId }))) throw groupNotFound(groupId);
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(ConversationTriggerEntity), {
      where: {
        tenantId,
        conversationGroupId: groupId,
        ...(query.action ? { action: query.action } : {}),
        ...(query.enabled !== undefined ? { enabled: query.enabled } : {}),
      },
      order,
    }, query);
    return toPage(rows.map(toConversationGroupTriggerDto), slice, query);
  }

  /** @throws NotFoundException (404) no such trigger in the group */
  async get(tenantId: string, groupId: string, id: string): Promise<ConversationGroupTriggerDto> {
    return toConversationGroupTriggerDto(await this.find(this.dataSource.manager, tenantId, groupId, id));
  }

  /**
   * Replaces a trigger; see {@link save} for the checks.
   * @throws NotFoundException (404); BadRequestException (400); ConflictException (409) another trigger of the
   *   group has the new name
   */
  async update(tenantId: string, groupId: string, id: string, input: ConversationGroupTriggerPayload): Promise<ConversationGroupTriggerDto> {
    return this.dataSource.transaction(async (manager) => {
      const groups = await this.lockGroups(manager, tenantId, groupId, input);
      const row = await this.find(manager, tenantId, groupId, id, true);
      await this.save(manager, row, input, groups);
      return toConversationGroupTriggerDto(row);
    });
  }

  /** @throws NotFoundException (404) no such trigger in the group */
  async remove(tenantId: string, groupId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ConversationTriggerEntity).delete({ tenantId, conversationGroupId: groupId, id });
    if (!result.affected) throw triggerNotFound(groupId, id);
  }

  /**
   * Locks the trigger's group and (switch_group) the target group `FOR UPDATE`, in id order, before any trigger or
   * event definition row (the order every writer of this area follows, so none deadlock).
   * @returns the locked groups by id
   * @throws NotFoundException (404) the trigger's group is not in the tenant
   */
  private async lockGroups(manager: EntityManager, tenantId: string, groupId: string, input: ConversationGroupTriggerPayload) {
    const target = input.action === 'switch_group' ? input.targetConversationGroupId : undefined;
    const groups = await lockConversationGroups(manager, tenantId, target ? [groupId, target] : [groupId], 'update');
    if (!groups.has(groupId)) throw groupNotFound(groupId);
    return groups;
  }

  /**
   * Checks and writes a trigger inside the caller's transaction, with its groups locked ({@link lockGroups}):
   * 1. the action fields must fit the action (trigger.rules.ts), and a switch_group target must be a group of the
   *    tenant — 400 listing every problem;
   * 2. locks the named event definitions `FOR SHARE` and requires each to belong to the trigger's group — 400 naming
   *    the others (and the group they do belong to); the share lock keeps a definition from being deleted under
   *    the write.
   * @throws ConflictException (409) another trigger of the group has the name
   */
  private async save(manager: EntityManager, row: ConversationTriggerEntity, input: ConversationGroupTriggerPayload, groups: Map<string, unknown>): Promise<void> {
    const { tenantId, conversationGroupId: groupId } = row;
    const { actionConfig, targetConversationGroupId, problems } = normalizeTriggerAction(input, groupId);
    if (targetConversationGroupId && targetConversationGroupId !== groupId && !groups.has(targetConversationGroupId)) {
      problems.push({ field: 'targetConversationGroupId', message: `targetConversationGroupId ${targetConversationGroupId} is not a conversation group of this tenant.` });
    }
    problems.push(...(await this.foreignDefinitions(manager, tenantId, groupId, input.eventDefinitionIds)));
    if (problems.length) throw fieldProblems('Invalid trigger', problems);
    row.name = input.name;
    row.description = input.description || null;
    row.eventDefinitionIds = sortedUnique(input.eventDefinitionIds);
    row.action = input.action;
    row.actionConfig = actionConfig;
    row.targetConversationGroupId = targetConversationGroupId;
    row.priority = input.priority ?? 100;
    row.cooldownSeconds = input.cooldownSeconds ?? 0;
    row.enabled = input.enabled ?? true;
    try {
      await manager.getRepository(ConversationTriggerEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_conversation_trigger_group_name') throw new ConflictException(`Conversation group ${groupId} already has a trigger named "${row.name}".`);
      throw error;
    }
  }

  /**
   * Locks the event definitions of `groupId` among `ids` `FOR SHARE` and describes the ids that are not among them:
   * those of another group of the tenant name that group; others are unknown.
   */
  private async foreignDefinitions(manager: EntityManager, tenantId: string, groupId: string, ids: string[]): Promise<FieldProblem[]> {
    const own = await manager.getRepository(ConversationEventDefinitionEntity).find({
      select: { id: true },
      where: { tenantId, conversationGroupId: groupId, id: In(ids) },
      order: { id: 'ASC' },
      lock: { mode: 'pessimistic_read' },
    });
    const missing = missingIds(ids, own.map((definition) => definition.id));
    if (missing.length === 0) return [];
    const elsewhere = await manager.getRepository(ConversationEventDefinitionEntity).find({
      select: { id: true, name: true, conversationGroupId: true },
      where: { tenantId, conversationGroupId: Not(groupId), id: In(missing) },
    });
    const owner = new Map(elsewhere.map((definition) => [definition.id, definition]));
    return missing.map((id) => {
      const other = owner.get(id);
      return {
        field: 'eventDefinitionIds',
        message: other
          ? `Event definition ${id} ("${other.name}") belongs to conversation group ${other.conversationGroupId}; a trigger may only use event definitions of its own group (${groupId}).`
          : `Event definition ${id} does not exist in conversation group ${groupId}.`,
      };
    });
  }

  private async find(manager: EntityManager, tenantId: string, groupId: string, id: string, lock = false): Promise<ConversationTriggerEntity> {
    const row = await manager.getRepository(ConversationTriggerEntity).findOne({ where: { tenantId, conversationGroupId: groupId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw triggerNotFound(groupId, id);
    return row;
  }
}

function groupNotFound(groupId: string): NotFoundException {
  return new NotFoundException(`No conversation group ${groupId} in this tenant.`);
}

function triggerNotFound(groupId: string, id: string): NotFoundException {
  return new NotFoundException(`No trigger ${id} in conversation group ${groupId} of this tenant.`);
}
