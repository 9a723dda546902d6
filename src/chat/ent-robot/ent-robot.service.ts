import { ConflictException, Inject, Injectable, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { uniqueViolation } from '../common/db-support';
import { fieldProblems } from '../conversation-groups/id-lists';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { ChatPlatformError } from '../platform/chat-platform.error';
import { CHAT_PLATFORM, type ChatPlatform } from '../platform/chat-platform.port';
import {
  ENT_ROBOT_GROUP_SORT_FIELDS,
  ENT_ROBOT_MESSAGE_SORT_FIELDS,
  type EntRobotMessageLogPageQuery,
  EntRobotChatGroupDto,
  EntRobotChatGroupPageQuery,
  EntRobotChatGroupRequestV1,
  EntRobotChatMessageLogDto,
  EntRobotChatMessageSendRequestV1,
  toEntRobotChatGroupDto,
  toEntRobotChatMessageLogDto,
} from './ent-robot.dto';
import { EntRobotGroupEntity } from './ent-robot-group.entity';
import { EntRobotMessageLogEntity } from './ent-robot-message-log.entity';
import { checkRobotMessage, maskWebhookKey } from './ent-robot.rules';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Enterprise robot chat groups and sending through them (chat-management-api.md, `POST {T}/v1/entrobot/group`,
 * `POST {T}/v1/entrobot/message/sendMsg`, plus the list, read, update and delete the spec leaves out; issue 6,
 * Messages). Every query filters by the tenant, so another tenant's ids answer 404. The webhook key is write-only:
 * it is passed to the platform port and nowhere else (never returned, logged or put in an error).
 */
@Injectable()
export class EntRobotService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
  ) {}

  /**
   * Registers a robot chat group.
   * @throws BadRequestException (400) no webhookKey, unknown corp
   * @throws ConflictException (409) the name is taken
   */
  async create(tenantId: string, input: EntRobotChatGroupRequestV1): Promise<EntRobotChatGroupDto> {
    if (!input.webhookKey) throw fieldProblems('Invalid robot chat group', [{ field: 'webhookKey', message: "webhookKey is required: the key= value of the robot's webhook address." }]);
    const row = this.dataSource.getRepository(EntRobotGroupEntity).create({ tenantId });
    await this.save(this.dataSource.manager, row, input);
    return toEntRobotChatGroupDto(row);
  }

  /**
   * The tenant's robot chat groups, newest first; `name` (case-insensitive substring) and `enabled` filter.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: EntRobotChatGroupPageQuery): Promise<Page<EntRobotChatGroupDto>> {
    const order = toOrder(query.sort, ENT_ROBOT_GROUP_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(EntRobotGroupEntity).createQueryBuilder('g').where('g.tenant_id = :tenantId', { tenantId });
    if (query.name) builder.andWhere(...containsMatch('g.name', 'name', query.name));
    if (query.enabled !== undefined) builder.andWhere('g.enabled = :enabled', { enabled: query.enabled });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`g.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name) });
    return toPage(rows.map(toEntRobotChatGroupDto), slice, query);
  }

  /** @throws NotFoundException (404) no such group in the tenant */
  async get(tenantId: string, id: string): Promise<EntRobotChatGroupDto> {
    return toEntRobotChatGroupDto(await this.find(this.dataSource.manager, tenantId, id));
  }

  /**
   * Replaces a group's fields; an omitted webhookKey keeps the stored one.
   * @throws NotFoundException (404); BadRequestException (400) unknown corp; ConflictException (409) name taken
   */
  async update(tenantId: string, id: string, input: EntRobotChatGroupRequestV1): Promise<EntRobotChatGroupDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const current = await this.find(manager, tenantId, id, true);
      await this.save(manager, current, input);
      return current;
    });
    return toEntRobotChatGroupDto(row);
  }

  /** Deletes a group and its message log (one transaction). @throws NotFoundException (404) */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      await this.find(manager, tenantId, id, true);
      await manager.getRepository(EntRobotMessageLogEntity).delete({ tenantId, groupId: id });
      await manager.getRepository(EntRobotGroupEntity).delete({ tenantId, id });
    });
  }

  /**
   * The message log of a group, newest first.
   * @throws NotFoundException (404) no such group in the tenant
   */
  async messages(tenantId: string, id: string, query: EntRobotMessageLogPageQuery): Promise<Page<EntRobotChatMessageLogDto>> {
    await this.find(this.dataSource.manager, tenantId, id);
    const order = toOrder(query.sort, ENT_ROBOT_MESSAGE_SORT_FIELDS, { createdAt: 'DESC' });
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(EntRobotMessageLogEntity), {
      where: { tenantId, groupId: id },
      order,
    }, query);
    return toPage(rows.map(toEntRobotChatMessageLogDto), slice, query);
  }

  /**
   * Sends a text or markdown message through a registered robot group (the platform port's `sendRobotMessage`)
   * and logs the outcome. A platform refusal is logged as `failed` and rethrown (its problem details: status,
   * `platformErrorCode`, `platformErrorMessage`).
   * @throws BadRequestException (400) blank content, mentions on markdown, too many mentions
   * @throws PayloadTooLargeException (413) content over the type's byte limit
   * @throws NotFoundException (404) unknown group; ConflictException (409) the group is disabled
   * @throws ChatPlatformError the platform refused or failed
   */
  async send(tenantId: string, input: EntRobotChatMessageSendRequestV1): Promise<void> {
    const verdict = checkRobotMessage(input, this.config.chatEntRobot);
    if (verdict.kind === 'invalid') throw fieldProblems('Invalid robot message', [{ field: verdict.field, message: verdict.reason }]);
    if (verdict.kind === 'too_large') throw new PayloadTooLargeException(verdict.reason);
    const group = await this.dataSource.getRepository(EntRobotGroupEntity).findOneBy({ tenantId, id: input.groupId });
    if (!group) throw new NotFoundException(`No robot chat group ${input.groupId} in this tenant; register it with POST /api/${tenantId}/v1/entrobot/group.`);
    if (!group.enabled) throw new ConflictException(`Robot chat group "${group.name}" is disabled; enable it (PUT /api/${tenantId}/v1/entrobot/group/${group.id}) before sending.`);
    const mentionCount = (input.mentionedUserIds?.length ?? 0) + (input.mentionedMobiles?.length ?? 0);
    const log = { tenantId, groupId: group.id, msgType: input.msgType, contentBytes: verdict.contentBytes, mentionCount };
    try {
      await this.platform.sendRobotMessage(
        { tenantId },
        {
          webhookKey: group.webhookKey,
          msgType: input.msgType,
          content: input.content,
          ...(input.msgType === 'text' && input.mentionedUserIds?.length ? { mentionedUserIds: input.mentionedUserIds } : {}),
          ...(input.msgType === 'text' && input.mentionedMobiles?.length ? { mentionedMobiles: input.mentionedMobiles } : {}),
        },
      );
    } catch (error) {
      if (error instanceof ChatPlatformError) {
        await this.dataSource.getRepository(EntRobotMessageLogEntity).insert({ ...log, status: 'failed', platformErrorCode: error.errcode ?? null, platformError: error.message });
      }
      throw error;
    }
    await this.dataSource.getRepository(EntRobotMessageLogEntity).insert({ ...log, status: 'sent', platformErrorCode: null, platformError: null });
  }

  /** Checks the references and writes the row (inside the caller's transaction, if any). */
  private async save(manager: EntityManager, row: EntRobotGroupEntity, input: EntRobotChatGroupRequestV1): Promise<void> {
    if (input.corpId && !(await manager.getRepository(WorkChatCorpEntity).existsBy({ tenantId: row.tenantId, id: input.corpId }))) {
      throw fieldProblems('Invalid robot chat group', [{ field: 'corpId', message: `No corp ${input.corpId} in this tenant.` }]);
    }
    row.name = input.name;
    if (input.webhookKey) {
      row.webhookKey = input.webhookKey;
      row.keyHint = maskWebhookKey(input.webhookKey);
    }
    row.corpId = input.corpId ?? null;
    row.description = input.description ?? null;
    row.enabled = input.enabled ?? true;
    try {
      await manager.getRepository(EntRobotGroupEntity).save(row);
    } catch (error) {
      if (uniqueViolation(error) === 'ux_chat_ent_robot_group_tenant_name') throw new ConflictException(`The tenant already has a robot chat group named "${row.name}".`);
      throw error;
    }
  }

  private async find(manager: EntityManager, tenantId: string, id: string, lock = false): Promise<EntRobotGroupEntity> {
    const row = await manager.getRepository(EntRobotGroupEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No robot chat group ${id} in this tenant.`);
    return row;
  }
}

