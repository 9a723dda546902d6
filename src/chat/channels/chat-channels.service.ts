import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { uniqueViolation } from '../common/db-support';
import { lockConversationGroups } from '../conversation-groups/group-locks';
import { fieldProblems } from '../conversation-groups/id-lists';
import { WorkChatCorpEntity } from '../corps/work-chat-corp.entity';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { ChatChannelEntity } from './chat-channel.entity';
import { CHAT_CHANNEL_SORT_FIELDS, ChatChannelDto, ChatChannelPageQuery, ChatChannelRequest, toChatChannelDto } from './chat-channel.dto';
import { normalizeChannelSettings } from './channel.rules';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager } from '../../common/paging/list-pager';

/**
 * Inbound channels of a tenant (chat-management-api.md, Console endpoints: `PUT {C}/chat/channel/{id}`, plus the
 * create, list, read and delete the spec leaves out). Every query filters by the tenant, so another tenant's ids
 * answer 404.
 *
 * Exported from ChatModule for the inbound pipeline: {@link findForCorp}, {@link findByWidgetKey}.
 */
@Injectable()
export class ChatChannelsService {
  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Creates a channel; a web widget gets a new public widget key.
   * @throws BadRequestException (400) fields that do not fit the type, an api channel without secret, unknown corp,
   *   digital staff or conversation group (every problem in `errors`)
   * @throws ConflictException (409) the name is taken, or the corp already has a channel
   */
  async create(tenantId: string, input: ChatChannelRequest): Promise<ChatChannelDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const created = manager.getRepository(ChatChannelEntity).create({ tenantId, type: input.type, secret: null, widgetKey: input.type === 'web_widget' ? newWidgetKey() : null });
      await this.save(manager, created, input);
      return created;
    });
    return toChatChannelDto(row, null);
  }

  /**
   * The tenant's channels, newest first; `type`, `name` (case-insensitive substring) and `enabled` filter.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: ChatChannelPageQuery): Promise<Page<ChatChannelDto>> {
    const order = toOrder(query.sort, CHAT_CHANNEL_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(ChatChannelEntity).createQueryBuilder('c').where('c.tenant_id = :tenantId', { tenantId });
    if (query.type) builder.andWhere('c.type = :type', { type: query.type });
    if (query.name) builder.andWhere(...containsMatch('c.name', 'name', query.name));
    if (query.enabled !== undefined) builder.andWhere('c.enabled = :enabled', { enabled: query.enabled });
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`c.${property}`, direction);
    const { rows, ...slice } = await this.pager.page(builder, query, { search: Boolean(query.name) });
    const groups = await this.chatGroupsOf(this.dataSource.manager, tenantId, rows.map((row) => row.id));
    return toPage(rows.map((row) => toChatChannelDto(row, groups.get(row.id)?.id ?? null)), slice, query);
  }

  /** @throws NotFoundException (404) no such channel in the tenant */
  async get(tenantId: string, id: string): Promise<ChatChannelDto> {
    const row = await this.find(this.dataSource.manager, tenantId, id);
    const groups = await this.chatGroupsOf(this.dataSource.manager, tenantId, [id]);
    return toChatChannelDto(row, groups.get(id)?.id ?? null);
  }

  /**
   * Replaces a channel's settings. The type is fixed (a different type → 400); an omitted secret is kept; the
   * widget key stays. The row is locked `FOR UPDATE` first, so a concurrent delete cannot be undone by the write.
   * @throws NotFoundException (404); BadRequestException (400); ConflictException (409) name or corp taken
   */
  async update(tenantId: string, id: string, input: ChatChannelRequest): Promise<ChatChannelDto> {
    const row = await this.dataSource.transaction(async (manager) => {
      const current = await this.find(manager, tenantId, id, true);
      if (current.type !== input.type) {
        throw fieldProblems('Invalid channel', [{ field: 'type', message: `type is fixed at creation: channel "${current.name}" is ${current.type}; create a new channel for ${input.type}.` }]);
      }
      await this.save(manager, current, input);
      return current;
    });
    const groups = await this.chatGroupsOf(this.dataSource.manager, tenantId, [id]);
    return toChatChannelDto(row, groups.get(id)?.id ?? null);
  }

  /**
   * Deletes a channel unless a chat group handles it. The channel row is locked `FOR UPDATE` before the chat groups
   * are read; a chat group being saved with it locks it too, so either that save commits first and is seen (409),
   * or it waits and then finds the channel gone (400).
   * @throws NotFoundException (404); ConflictException (409) a chat group lists it (named)
   */
  async remove(tenantId: string, id: string): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const row = await this.find(manager, tenantId, id, true);
      const group = (await this.chatGroupsOf(manager, tenantId, [id])).get(id);
      if (group) throw new ConflictException(`Channel "${row.name}" is handled by chat group "${group.name}"; remove it from the group's channelIds (PUT /api/console/chat/group/${group.id}) first.`);
      await manager.getRepository(ChatChannelEntity).delete({ tenantId, id });
    });
  }

  /** The enabled work_chat channel of a corp, or null (for the inbound pipeline). */
  findForCorp(tenantId: string, corpId: string): Promise<ChatChannelEntity | null> {
    return this.dataSource.getRepository(ChatChannelEntity).findOneBy({ tenantId, corpId, type: 'work_chat', enabled: true });
  }

  /** The enabled web_widget channel with this public key, or null (for a widget endpoint). */
  findByWidgetKey(tenantId: string, widgetKey: string): Promise<ChatChannelEntity | null> {
    return this.dataSource.getRepository(ChatChannelEntity).findOneBy({ tenantId, widgetKey, type: 'web_widget', enabled: true });
  }

  /**
   * Checks a request against the row's type and writes it (inside the caller's transaction). The default
   * conversation group is held `FOR SHARE` until commit, so it cannot be deleted meanwhile.
   */
  private async save(manager: EntityManager, row: ChatChannelEntity, input: ChatChannelRequest): Promise<void> {
    const { tenantId } = row;
    const { settings, problems } = normalizeChannelSettings(input, this.config.chatChannels.maxAllowedOrigins);
    if (input.type === 'api' && !input.secret && !row.secret) problems.push({ field: 'secret', message: 'secret is required for a new api channel (16..256 characters).' });
    if (input.conversationGroupId && !(await lockConversationGroups(manager, tenantId, [input.conversationGroupId], 'share')).has(input.conversationGroupId)) {
      problems.push({ field: 'conversationGroupId', message: `No conversation group ${input.conversationGroupId} in this tenant.` });
    }
    if (input.corpId && !(await manager.getRepository(WorkChatCorpEntity).existsBy({ tenantId, id: input.corpId }))) {
      problems.push({ field: 'corpId', message: `No corp ${input.corpId} in this tenant.` });
    }
    if (input.digitalStaffId && !(await manager.getRepository(DigitalStaffEntity).existsBy({ tenantId, id: input.digitalStaffId }))) {
      problems.push({ field: 'digitalStaffId', message: `No digital staff ${input.digitalStaffId} in this tenant.` });
    }
    if (problems.length) throw fieldProblems('Invalid channel', problems);
    row.name = input.name;
    row.corpId = input.type === 'work_chat' ? input.corpId! : null;
    row.settings = settings;
    if (input.type === 'api' && input.secret) row.secret = input.secret;
    row.digitalStaffId = input.digitalStaffId ?? null;
    row.conversationGroupId = input.conversationGroupId ?? null;
    row.enabled = input.enabled ?? true;
    try {
      await manager.getRepository(ChatChannelEntity).save(row);
    } catch (error) {
      const index = uniqueViolation(error);
      if (index === 'ux_chat_channel_tenant_name') throw new ConflictException(`The tenant already has a channel named "${row.name}".`);
      if (index === 'ux_chat_channel_tenant_corp') throw new ConflictException(await this.corpTaken(tenantId, row.corpId!));
      throw error;
    }
  }

  /** The message for a corp that already has a channel, naming it. */
  private async corpTaken(tenantId: string, corpId: string): Promise<string> {
    const other = await this.dataSource.getRepository(ChatChannelEntity).findOneBy({ tenantId, corpId });
    return `Corp ${corpId} already has a channel${other ? ` ("${other.name}", ${other.id})` : ''}; a corp has at most one.`;
  }

  /** The chat group (id, name) listing each of `channelIds` (a channel is in at most one). */
  private async chatGroupsOf(manager: EntityManager, tenantId: string, channelIds: string[]): Promise<Map<string, { id: string; name: string }>> {
    if (channelIds.length === 0) return new Map();
    const rows: { id: string; name: string; channel_ids: string[] }[] = await manager.query(
      `SELECT id, name, channel_ids FROM chat_chat_group WHERE tenant_id = $1 AND channel_ids ?| $2::text[]`,
      [tenantId, channelIds],
    );
    const byChannel = new Map<string, { id: string; name: string }>();
    for (const row of rows) for (const channelId of row.channel_ids) if (channelIds.includes(channelId)) byChannel.set(channelId, { id: row.id, name: row.name });
    return byChannel;
  }

  private async find(manager: EntityManager, tenantId: string, id: string, lock = false): Promise<ChatChannelEntity> {
    const row = await manager.getRepository(ChatChannelEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No channel ${id} in this tenant.`);
    return row;
  }
}

/** A new public widget key: `wk_` + 32 hex digits (128 random bits). */
function newWidgetKey(): string {
  return `wk_${randomBytes(16).toString('hex')}`;
}
