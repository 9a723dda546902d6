import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource, EntityManager, In, IsNull } from 'typeorm';
import { sha256Hex } from '../../../common/crypto/secrets';
import { APP_CONFIG, type AppConfig } from '../../../config/app-config';
import { ChatPlatformError } from '../chat-platform.error';
import { ChatPlatformEvents, type ExternalContactAddedEvent, type InboundMedia, type InboundMessageEvent, type InboundMessageType, INBOUND_MESSAGE_TYPES } from '../chat-platform-events';
import type {
  ChatCorpContext,
  ChatPlatform,
  ChatPlatformPage,
  ChatTenantContext,
  ContactWayInput,
  CreatedWay,
  CreateTagsInput,
  GroupWayInput,
  ListExternalContactsInput,
  ListGroupChatsInput,
  MarkCustomerTagsInput,
  OutboundMessage,
  PlatformContactWay,
  PlatformCustomerTag,
  PlatformExternalContact,
  PlatformExternalContactDetail,
  PlatformExternalContactOfStaff,
  PlatformFollow,
  PlatformGroupChat,
  PlatformGroupChatRef,
  PlatformGroupWay,
  PlatformStaff,
  PlatformStaffStatus,
  PlatformTagGroup,
  RobotMessageInput,
  SendGroupMessageInput,
  SendMessageInput,
  SentMessage,
  UpdateCustomerRemarkInput,
} from '../chat-platform.port';
import { SimContactWayEntity } from './sim-contact-way.entity';
import { SimExternalContactEntity } from './sim-external-contact.entity';
import { SimFollowEntity } from './sim-follow.entity';
import { SimGroupChatEntity, type SimGroupMember } from './sim-group-chat.entity';
import { simIds } from './sim-ids';
import { SimMessageEntity, type SimMessageMedia } from './sim-message.entity';
import { SimStaffEntity } from './sim-staff.entity';
import { SimTagEntity } from './sim-tag.entity';

/** Limits the simulated platform enforces like the real one (characters / counts). */
export const SIM_LIMITS = {
  stateChars: 30,
  remarkChars: 30,
  contactWayUsers: 100,
  joinWayChats: 5,
  contactsPerPage: 100,
  staffPerContactsQuery: 100,
  groupsPerPage: 1000,
  tagNameChars: 30,
  customerRemarkChars: 20,
  /** Most messages listMessages returns. */
  listMessages: 500,
} as const;

/** Robot webhook keys the simulator accepts (the real ones are UUIDs). */
const ROBOT_KEY = /^[A-Za-z0-9-]{8,128}$/;

/** A customer added by injection; see ChatPlatformSimulator.injectCustomer. */
export interface InjectCustomerInput {
  /** The staff member the customer adds. May be omitted with `contactWayConfigId` (then the way's first staff member). */
  userId?: string;
  /** The contact way the customer scanned: gives the relation its `state`. */
  contactWayConfigId?: string;
  /** The relation's state when no contact way is given. */
  state?: string;
  /** An existing customer adding another staff member; a new id is generated when omitted. */
  externalUserId?: string;
  name: string;
  type?: 1 | 2;
  gender?: 0 | 1 | 2;
  avatarUrl?: string;
  unionId?: string;
  corpName?: string;
  /** When the customer added the staff member; default now. */
  addedAt?: Date;
}

/** A group chat created by injection. */
export interface InjectGroupChatInput {
  /** Generated when omitted. */
  chatId?: string;
  name: string;
  ownerUserId: string;
  /** Other staff members in the group. */
  memberUserIds?: string[];
  /** Customers in the group (must exist). */
  memberExternalUserIds?: string[];
  notice?: string;
}

/** An inbound customer message created by injection; see ChatPlatformSimulator.injectInboundMessage. */
export interface InjectInboundMessageInput {
  externalUserId: string;
  /** The staff member written to (single chat); may be omitted when the customer has exactly one. */
  userId?: string;
  /** A group chat the customer writes in (the customer must be a member). */
  chatId?: string;
  /** Default `text`. */
  msgType?: InboundMessageType;
  /** Required for text messages. */
  content?: string;
  media?: InboundMedia;
  /** A platform message id: an id already stored is a redelivery — the stored message is published again. */
  msgId?: string;
  /** Default now. */
  sentAt?: Date;
}

/** A staff member created or updated by injection. */
export interface InjectStaffInput {
  userId: string;
  name?: string;
  mobile?: string;
  departmentIds?: number[];
  status?: PlatformStaffStatus;
}

/** A message as the simulated platform recorded it (listMessages). */
export interface SimulatedMessage {
  msgId: string;
  direction: 'inbound' | 'outbound';
  chatType: 'single' | 'group' | 'robot';
  userId?: string;
  externalUserId?: string;
  chatId?: string;
  msgType: string;
  content?: string;
  media?: SimMessageMedia;
  mentions?: { userIds: string[]; mobiles: string[] };
  sentAt: Date;
}

/**
 * The built-in chat platform (default adapter of the port; DESIGN.md, External peers): the platform's side lives in
 * the `chat_sim_*` tables, keyed by tenant and platform corp id. It enforces the platform's rules that matter to the
 * wing (contact relations, known tags and chats, lengths) and refuses with the same errcodes as the real platform,
 * so the wing's error handling is exercised in simulator mode too.
 *
 * Beyond the port it lets a test or demo act as the platform's outside world: injectStaff, injectCustomer (a
 * customer scans a contact way), injectGroupChat, injectInboundMessage (a customer writes), each publishing the
 * matching event on ChatPlatformEvents; listMessages shows what was sent. These inject methods answer 404 while
 * CHAT_PLATFORM_MODE is not `simulator`.
 *
 * The simulator accepts any non-empty corp id and secret (there is no real account behind it).
 */
@Injectable()
export class ChatPlatformSimulator implements ChatPlatform {
  readonly mode = 'simulator' as const;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: ChatPlatformEvents,
  ) {}

  /** True when the simulator is the configured adapter (its inject methods work only then). */
  get enabled(): boolean {
    return this.config.chatPlatform.mode === 'simulator';
  }

  // ---------------------------------------------------------------- the port

  async verifyCredentials(ctx: ChatCorpContext): Promise<void> {
    checkCredentials(ctx, 'verifyCredentials');
  }

  async createContactWay(ctx: ChatCorpContext, input: ContactWayInput): Promise<CreatedWay> {
    const op = 'createContactWay';
    checkCredentials(ctx, op);
    if (input.type !== 1 && input.type !== 2) throw invalid(op, 'type must be 1 or 2');
    if (input.scene !== 1 && input.scene !== 2) throw invalid(op, 'scene must be 1 or 2');
    checkWayUsers(op, input.type, input.userIds, input.departmentIds);
    checkLength(op, 'state', input.state, SIM_LIMITS.stateChars);
    checkLength(op, 'remark', input.remark, SIM_LIMITS.remarkChars);
    const configId = simIds.configId();
    const qrCode = this.qrUrl();
    await this.dataSource.transaction(async (manager) => {
      await this.ensureStaff(manager, ctx, input.userIds);
      await manager.insert(SimContactWayEntity, {
        ...scope(ctx),
        configId,
        kind: 'contact_way',
        type: input.type,
        scene: input.scene,
        state: input.state ?? null,
        remark: input.remark ?? null,
        skipVerify: input.skipVerify ?? true,
        userIds: input.userIds,
        departmentIds: input.departmentIds ?? [],
        chatIds: [],
        options: input.style === undefined ? {} : { style: input.style },
        qrCode,
      });
    });
    return { configId, qrCode };
  }

  async getContactWay(ctx: ChatCorpContext, configId: string): Promise<PlatformContactWay> {
    checkCredentials(ctx, 'getContactWay');
    const way = await this.findWay(this.dataSource.manager, ctx, 'getContactWay', configId, 'contact_way');
    return {
      configId: way.configId,
      type: way.type === 2 ? 2 : 1,
      scene: way.scene === 1 ? 1 : 2,
      qrCode: way.qrCode,
      state: way.state ?? undefined,
      remark: way.remark ?? undefined,
      skipVerify: way.skipVerify,
      userIds: way.userIds,
      departmentIds: way.departmentIds,
    };
  }

  async updateContactWay(ctx: ChatCorpContext, configId: string, input: Partial<Omit<ContactWayInput, 'type' | 'scene'>>): Promise<void> {
    const op = 'updateContactWay';
    checkCredentials(ctx, op);
    checkLength(op, 'state', input.state, SIM_LIMITS.stateChars);
    checkLength(op, 'remark', input.remark, SIM_LIMITS.remarkChars);
    await this.dataSource.transaction(async (manager) => {
      const way = await this.findWay(manager, ctx, op, configId, 'contact_way', true);
      if (input.userIds !== undefined || input.departmentIds !== undefined) {
        checkWayUsers(op, way.type === 2 ? 2 : 1, input.userIds ?? way.userIds, input.departmentIds ?? way.departmentIds);
        await this.ensureStaff(manager, ctx, input.userIds ?? []);
      }
      if (input.userIds !== undefined) way.userIds = input.userIds;
      if (input.departmentIds !== undefined) way.departmentIds = input.departmentIds;
      if (input.state !== undefined) way.state = input.state;
      if (input.remark !== undefined) way.remark = input.remark;
      if (input.skipVerify !== undefined) way.skipVerify = input.skipVerify;
      if (input.style !== undefined) way.options = { ...way.options, style: input.style };
      await manager.save(way);
    });
  }

  async deleteContactWay(ctx: ChatCorpContext, configId: string): Promise<void> {
    checkCredentials(ctx, 'deleteContactWay');
    await this.deleteWay(ctx, 'deleteContactWay', configId, 'contact_way');
  }

  async createGroupWay(ctx: ChatCorpContext, input: GroupWayInput): Promise<CreatedWay> {
    const op = 'createGroupWay';
    checkCredentials(ctx, op);
    await this.checkGroupWay(op, ctx, input);
    const configId = simIds.configId();
    const qrCode = this.qrUrl();
    await this.dataSource.manager.insert(SimContactWayEntity, {
      ...scope(ctx),
      configId,
      kind: 'join_way',
      type: null,
      scene: input.scene,
      state: input.state ?? null,
      remark: input.remark ?? null,
      skipVerify: true,
      userIds: [],
      departmentIds: [],
      chatIds: input.chatIds,
      options: groupWayOptions(input),
      qrCode,
    });
    return { configId, qrCode };
  }

  async getGroupWay(ctx: ChatCorpContext, configId: string): Promise<PlatformGroupWay> {
    checkCredentials(ctx, 'getGroupWay');
    const way = await this.findWay(this.dataSource.manager, ctx, 'getGroupWay', configId, 'join_way');
    return {
      configId: way.configId,
      qrCode: way.qrCode,
      scene: way.scene === 1 ? 1 : 2,
      chatIds: way.chatIds,
      remark: way.remark ?? undefined,
      state: way.state ?? undefined,
      autoCreateRoom: way.options.autoCreateRoom === true,
      roomBaseName: way.options.roomBaseName,
      roomBaseId: way.options.roomBaseId,
    };
  }

  async updateGroupWay(ctx: ChatCorpContext, configId: string, input: GroupWayInput): Promise<void> {
    const op = 'updateGroupWay';
    checkCredentials(ctx, op);
    await this.checkGroupWay(op, ctx, input);
    await this.dataSource.transaction(async (manager) => {
      const way = await this.findWay(manager, ctx, op, configId, 'join_way', true);
      Object.assign(way, { scene: input.scene, chatIds: input.chatIds, remark: input.remark ?? null, state: input.state ?? null, options: groupWayOptions(input) });
      await manager.save(way);
    });
  }

  async deleteGroupWay(ctx: ChatCorpContext, configId: string): Promise<void> {
    checkCredentials(ctx, 'deleteGroupWay');
    await this.deleteWay(ctx, 'deleteGroupWay', configId, 'join_way');
  }

  async listStaff(ctx: ChatCorpContext): Promise<PlatformStaff[]> {
    checkCredentials(ctx, 'listStaff');
    const rows = await this.dataSource.getRepository(SimStaffEntity).find({ where: scope(ctx), order: { userId: 'ASC' } });
    return rows.map(toStaff);
  }

  async listExternalContacts(ctx: ChatCorpContext, input: ListExternalContactsInput): Promise<ChatPlatformPage<PlatformExternalContactOfStaff>> {
    const op = 'listExternalContacts';
    checkCredentials(ctx, op);
    if (input.userIds.length === 0 || input.userIds.length > SIM_LIMITS.staffPerContactsQuery) throw invalid(op, `userid_list must name 1..${SIM_LIMITS.staffPerContactsQuery} staff members`);
    const limit = pageLimit(input.limit, SIM_LIMITS.contactsPerPage);
    const after = decodeCursor(op, input.cursor);
    const query = this.dataSource
      .getRepository(SimFollowEntity)
      .createQueryBuilder('follow')
      .where('follow.tenantId = :tenantId AND follow.platformCorpId = :platformCorpId', scope(ctx))
      .andWhere('follow.userId IN (:...userIds)', { userIds: input.userIds })
      .orderBy('follow.id', 'ASC')
      .take(limit + 1);
    if (after) query.andWhere('follow.id > :after', { after });
    const follows = await query.getMany();
    const page = follows.slice(0, limit);
    const contacts = await this.contactsById(ctx, page.map((follow) => follow.externalUserId));
    return {
      items: page.map((follow) => ({ contact: toContact(contacts.get(follow.externalUserId)!), follow: toFollow(follow, follow.tagIds.map((tagId) => ({ tagId, type: 1 }))) })),
      nextCursor: follows.length > limit ? encodeCursor(page[page.length - 1].id) : undefined,
    };
  }

  async getExternalContact(ctx: ChatCorpContext, externalUserId: string): Promise<PlatformExternalContactDetail> {
    const op = 'getExternalContact';
    checkCredentials(ctx, op);
    const contact = await this.findContact(this.dataSource.manager, ctx, op, externalUserId);
    const follows = await this.dataSource.getRepository(SimFollowEntity).find({ where: { ...scope(ctx), externalUserId }, order: { addedAt: 'ASC', id: 'ASC' } });
    const tagIds = [...new Set(follows.flatMap((follow) => follow.tagIds))];
    const tags = tagIds.length ? await this.dataSource.getRepository(SimTagEntity).find({ where: { ...scope(ctx), tagId: In(tagIds) } }) : [];
    const groupIds = [...new Set(tags.map((tag) => tag.groupId).filter((id): id is string => id !== null))];
    const groups = groupIds.length ? await this.dataSource.getRepository(SimTagEntity).find({ where: { ...scope(ctx), tagId: In(groupIds) } }) : [];
    const tagById = new Map(tags.map((tag) => [tag.tagId, tag]));
    const groupName = new Map(groups.map((group) => [group.tagId, group.name]));
    return {
      contact: toContact(contact),
      followers: follows.map((follow) =>
        toFollow(
          follow,
          follow.tagIds.map((tagId): PlatformCustomerTag => {
            const tag = tagById.get(tagId);
            return { tagId, tagName: tag?.name, groupName: tag?.groupId ? groupName.get(tag.groupId) : undefined, type: 1 };
          }),
        ),
      ),
    };
  }

  async listGroupChats(ctx: ChatCorpContext, input: ListGroupChatsInput): Promise<ChatPlatformPage<PlatformGroupChatRef>> {
    const op = 'listGroupChats';
    checkCredentials(ctx, op);
    const limit = pageLimit(input.limit, SIM_LIMITS.groupsPerPage);
    const after = decodeCursor(op, input.cursor);
    const query = this.dataSource
      .getRepository(SimGroupChatEntity)
      .createQueryBuilder('chat')
      .where('chat.tenantId = :tenantId AND chat.platformCorpId = :platformCorpId', scope(ctx))
      .orderBy('chat.id', 'ASC')
      .take(limit + 1);
    if (input.ownerUserIds?.length) query.andWhere('chat.ownerUserId IN (:...owners)', { owners: input.ownerUserIds });
    if (after) query.andWhere('chat.id > :after', { after });
    const chats = await query.getMany();
    const page = chats.slice(0, limit);
    return {
      items: page.map((chat) => ({ chatId: chat.chatId, status: chat.status as PlatformGroupChatRef['status'] })),
      nextCursor: chats.length > limit ? encodeCursor(page[page.length - 1].id) : undefined,
    };
  }

  async getGroupChat(ctx: ChatCorpContext, chatId: string): Promise<PlatformGroupChat> {
    checkCredentials(ctx, 'getGroupChat');
    return toGroupChat(await this.findChat(this.dataSource.manager, ctx, 'getGroupChat', chatId));
  }

  async updateCustomerRemark(ctx: ChatCorpContext, input: UpdateCustomerRemarkInput): Promise<void> {
    const op = 'updateCustomerRemark';
    checkCredentials(ctx, op);
    checkLength(op, 'remark', input.remark, SIM_LIMITS.customerRemarkChars);
    checkLength(op, 'description', input.description, 150);
    checkLength(op, 'remark_company', input.remarkCompany, 20);
    if (input.remarkMobiles && input.remarkMobiles.some((mobile) => !/^\+?[0-9-]{3,32}$/.test(mobile))) throw invalid(op, 'remark_mobiles must be phone numbers');
    await this.dataSource.transaction(async (manager) => {
      const follow = await this.findFollow(manager, ctx, op, input.userId, input.externalUserId);
      if (input.remark !== undefined) follow.remark = input.remark || null;
      if (input.description !== undefined) follow.description = input.description || null;
      if (input.remarkCompany !== undefined) follow.remarkCompany = input.remarkCompany || null;
      if (input.remarkMobiles !== undefined) follow.remarkMobiles = input.remarkMobiles;
      await manager.save(follow);
    });
  }

  async listTags(ctx: ChatCorpContext, filter: { tagIds?: string[]; groupIds?: string[] } = {}): Promise<PlatformTagGroup[]> {
    checkCredentials(ctx, 'listTags');
    const rows = await this.dataSource.getRepository(SimTagEntity).find({ where: scope(ctx), order: { sortOrder: 'ASC', createdAt: 'ASC', id: 'ASC' } });
    let groups = rows.filter((row) => row.kind === 'group');
    let tags = rows.filter((row) => row.kind === 'tag');
    // As the platform: group ids win over tag ids; tag ids return only those tags, in their groups.
    if (filter.groupIds?.length) {
      groups = groups.filter((group) => filter.groupIds!.includes(group.tagId));
    } else if (filter.tagIds?.length) {
      tags = tags.filter((tag) => filter.tagIds!.includes(tag.tagId));
      groups = groups.filter((group) => tags.some((tag) => tag.groupId === group.tagId));
    }
    return groups.map((group) => toTagGroup(group, tags.filter((tag) => tag.groupId === group.tagId)));
  }

  async createTags(ctx: ChatCorpContext, input: CreateTagsInput): Promise<PlatformTagGroup> {
    const op = 'createTags';
    checkCredentials(ctx, op);
    if (input.tags.length === 0) throw invalid(op, 'tag must name at least one tag');
    for (const tag of input.tags) checkName(op, tag.name);
    const names = input.tags.map((tag) => tag.name);
    if (new Set(names).size !== names.length) throw ChatPlatformError.errcode(op, 40071, 'tag names repeat');
    return this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(SimTagEntity);
      let group: SimTagEntity | null;
      if (input.groupId !== undefined) {
        group = await repository.findOne({ where: { ...scope(ctx), kind: 'group', tagId: input.groupId }, lock: { mode: 'pessimistic_write' } });
        if (!group) throw ChatPlatformError.errcode(op, 40068, 'invalid group_id');
      } else if (input.groupName !== undefined) {
        checkName(op, input.groupName);
        group = await repository.findOne({ where: { ...scope(ctx), kind: 'group', name: input.groupName }, lock: { mode: 'pessimistic_write' } });
        group ??= await repository.save(repository.create({ ...scope(ctx), kind: 'group', tagId: simIds.tagId(), groupId: null, name: input.groupName, sortOrder: 0 }));
      } else {
        throw invalid(op, 'group_id or group_name is required');
      }
      const existing = await repository.find({ where: { ...scope(ctx), kind: 'tag', groupId: group.tagId, name: In(names) } });
      if (existing.length > 0) throw ChatPlatformError.errcode(op, 40071, `tag name exists: ${existing[0].name}`);
      const created = await repository.save(
        input.tags.map((tag) => repository.create({ ...scope(ctx), kind: 'tag', tagId: simIds.tagId(), groupId: group.tagId, name: tag.name, sortOrder: tag.order ?? 0 })),
      );
      return toTagGroup(group, created);
    });
  }

  async renameTag(ctx: ChatCorpContext, id: string, name: string): Promise<void> {
    const op = 'renameTag';
    checkCredentials(ctx, op);
    checkName(op, name);
    await this.dataSource.transaction(async (manager) => {
      const repository = manager.getRepository(SimTagEntity);
      const row = await repository.findOne({ where: { ...scope(ctx), tagId: id }, lock: { mode: 'pessimistic_write' } });
      if (!row) throw ChatPlatformError.errcode(op, 40068, 'invalid tag id');
      // Tag names are unique within their group, group names among groups.
      const clash = await repository.findOne({ where: { ...scope(ctx), kind: row.kind, groupId: row.groupId ?? IsNull(), name } });
      if (clash && clash.id !== row.id) throw ChatPlatformError.errcode(op, 40071, 'name exists');
      row.name = name;
      await repository.save(row);
    });
  }

  async markCustomerTags(ctx: ChatCorpContext, input: MarkCustomerTagsInput): Promise<void> {
    const op = 'markCustomerTags';
    checkCredentials(ctx, op);
    const add = input.addTagIds ?? [];
    const remove = input.removeTagIds ?? [];
    if (add.length === 0 && remove.length === 0) throw invalid(op, 'add_tag and remove_tag are both empty');
    await this.dataSource.transaction(async (manager) => {
      const ids = [...new Set([...add, ...remove])];
      const known = await manager.getRepository(SimTagEntity).find({ where: { ...scope(ctx), kind: 'tag', tagId: In(ids) } });
      if (known.length !== ids.length) throw ChatPlatformError.errcode(op, 40068, 'invalid tagid');
      const follow = await this.findFollow(manager, ctx, op, input.userId, input.externalUserId);
      follow.tagIds = [...new Set([...follow.tagIds, ...add])].filter((tagId) => !remove.includes(tagId));
      await manager.save(follow);
    });
  }

  async sendMessage(ctx: ChatCorpContext, input: SendMessageInput): Promise<SentMessage> {
    const op = 'sendMessage';
    checkCredentials(ctx, op);
    checkOutbound(op, input.message);
    return this.dataSource.transaction(async (manager) => {
      await this.findFollow(manager, ctx, op, input.senderUserId, input.externalUserId);
      return this.recordOutbound(manager, ctx, { chatType: 'single', userId: input.senderUserId, externalUserId: input.externalUserId, message: input.message });
    });
  }

  async sendGroupMessage(ctx: ChatCorpContext, input: SendGroupMessageInput): Promise<SentMessage> {
    const op = 'sendGroupMessage';
    checkCredentials(ctx, op);
    checkOutbound(op, input.message);
    return this.dataSource.transaction(async (manager) => {
      const chat = await this.findChat(manager, ctx, op, input.chatId);
      const inGroup = chat.ownerUserId === input.senderUserId || chat.members.some((member) => member.type === 1 && member.userId === input.senderUserId);
      if (!inGroup) throw invalid(op, 'sender is not a staff member of the group chat');
      return this.recordOutbound(manager, ctx, { chatType: 'group', userId: input.senderUserId, chatId: input.chatId, message: input.message });
    });
  }

  async sendRobotMessage(ctx: ChatTenantContext, input: RobotMessageInput): Promise<void> {
    const op = 'sendRobotMessage';
    if (!ROBOT_KEY.test(input.webhookKey)) throw ChatPlatformError.errcode(op, 93000, 'invalid webhook url');
    if (!input.content.trim()) throw ChatPlatformError.errcode(op, 44004, 'empty content');
    await this.dataSource.manager.insert(SimMessageEntity, {
      tenantId: ctx.tenantId,
      platformCorpId: null,
      msgId: simIds.msgId(),
      direction: 'outbound',
      chatType: 'robot',
      userId: null,
      externalUserId: null,
      chatId: null,
      robotKeyHash: sha256Hex(input.webhookKey),
      msgType: input.msgType,
      content: input.content,
      media: null,
      mentions: { userIds: input.mentionedUserIds ?? [], mobiles: input.mentionedMobiles ?? [] },
      sentAt: new Date(),
    });
  }

  // ---------------------------------------------------------------- the outside world (simulator only)

  /**
   * Creates or updates a staff member on the simulated platform (staff sync then lists them).
   * @throws NotFoundException when the simulator is off
   */
  async injectStaff(ctx: ChatCorpContext, input: InjectStaffInput): Promise<PlatformStaff> {
    this.assertEnabled();
    if (!input.userId.trim()) throw new BadRequestException('userId must not be empty');
    const repository = this.dataSource.getRepository(SimStaffEntity);
    await repository.upsert(
      {
        ...scope(ctx),
        userId: input.userId,
        name: input.name ?? input.userId,
        mobile: input.mobile ?? null,
        departmentIds: input.departmentIds ?? [1],
        status: input.status ?? 1,
      },
      ['tenantId', 'platformCorpId', 'userId'],
    );
    return toStaff(await repository.findOneByOrFail({ ...scope(ctx), userId: input.userId }));
  }

  /**
   * A customer adds a staff member, e.g. by scanning a contact way: creates the customer (or reuses
   * `externalUserId`) and the relation with the way's state, then publishes `external_contact.added` on
   * ChatPlatformEvents (after the rows are committed). Staff members named here are created when unknown.
   * @returns the customer, the relation and the published event
   * @throws NotFoundException simulator off, unknown contact way or customer id
   * @throws BadRequestException neither `userId` nor `contactWayConfigId`, or `userId` not on the given contact way
   * @throws AggregateError when a listener failed (the customer is stored nonetheless)
   */
  async injectCustomer(ctx: ChatCorpContext, input: InjectCustomerInput): Promise<{ contact: PlatformExternalContact; follow: PlatformFollow; event: ExternalContactAddedEvent }> {
    this.assertEnabled();
    if (!input.name.trim()) throw new BadRequestException('name must not be empty');
    if (input.state !== undefined && input.state.length > SIM_LIMITS.stateChars) throw new BadRequestException(`state must be at most ${SIM_LIMITS.stateChars} characters`);
    const result = await this.dataSource.transaction(async (manager) => {
      let userId = input.userId;
      let state = input.state;
      if (input.contactWayConfigId !== undefined) {
        const way = await manager.findOne(SimContactWayEntity, { where: { ...scope(ctx), kind: 'contact_way', configId: input.contactWayConfigId } });
        if (!way) throw new NotFoundException(`The simulator has no contact way ${input.contactWayConfigId} in platform corp ${ctx.platformCorpId}.`);
        if (userId !== undefined && !way.userIds.includes(userId)) throw new BadRequestException(`Staff member ${userId} is not on contact way ${way.configId} (it lists ${way.userIds.join(', ') || 'departments only'}).`);
        userId ??= way.userIds[0];
        if (userId === undefined) throw new BadRequestException(`Contact way ${way.configId} lists no staff member; give userId.`);
        state ??= way.state ?? undefined;
      }
      if (userId === undefined) throw new BadRequestException('Give userId (the staff member the customer adds) or contactWayConfigId (the contact way the customer scans).');
      await this.ensureStaff(manager, ctx, [userId]);
      let contact: SimExternalContactEntity;
      if (input.externalUserId !== undefined) {
        const existing = await manager.findOne(SimExternalContactEntity, { where: { ...scope(ctx), externalUserId: input.externalUserId } });
        if (!existing) throw new NotFoundException(`The simulator has no customer ${input.externalUserId}; omit externalUserId to create one.`);
        contact = existing;
      } else {
        contact = await manager.save(
          manager.create(SimExternalContactEntity, {
            ...scope(ctx),
            externalUserId: simIds.externalUserId(),
            name: input.name,
            type: input.type ?? 1,
            gender: input.gender ?? 0,
            avatarUrl: input.avatarUrl ?? null,
            unionId: input.unionId ?? null,
            corpName: input.corpName ?? null,
          }),
        );
      }
      const addedAt = input.addedAt ?? new Date();
      const addWay = input.contactWayConfigId ? 1 : 0;
      // A customer adding the same staff member again keeps the relation's remark and tags, as on the platform.
      const existing = await manager.findOne(SimFollowEntity, { where: { ...scope(ctx), userId, externalUserId: contact.externalUserId }, lock: { mode: 'pessimistic_write' } });
      const follow = existing
        ? await manager.save(Object.assign(existing, { state: state ?? null, addWay, addedAt }))
        : await manager.save(
            manager.create(SimFollowEntity, { ...scope(ctx), userId, externalUserId: contact.externalUserId, remark: null, description: null, remarkCompany: null, remarkMobiles: [], tagIds: [], state: state ?? null, addWay, addedAt }),
          );
      return { contact, follow };
    });
    const event: ExternalContactAddedEvent = {
      type: 'external_contact.added',
      tenantId: ctx.tenantId,
      corpId: ctx.corpId,
      platformCorpId: ctx.platformCorpId,
      userId: result.follow.userId,
      externalUserId: result.contact.externalUserId,
      state: result.follow.state ?? undefined,
      occurredAt: result.follow.addedAt,
    };
    await this.events.publish(event);
    return { contact: toContact(result.contact), follow: toFollow(result.follow, []), event };
  }

  /**
   * Creates a customer group chat owned by a staff member, with staff and customer members.
   * @throws NotFoundException simulator off or an unknown customer; ConflictException the chat id exists
   */
  async injectGroupChat(ctx: ChatCorpContext, input: InjectGroupChatInput): Promise<PlatformGroupChat> {
    this.assertEnabled();
    if (!input.name.trim()) throw new BadRequestException('name must not be empty');
    return this.dataSource.transaction(async (manager) => {
      const chatId = input.chatId ?? simIds.chatId();
      if (await manager.exists(SimGroupChatEntity, { where: { ...scope(ctx), chatId } })) throw new ConflictException(`The simulator already has group chat ${chatId}.`);
      const staffIds = [...new Set([input.ownerUserId, ...(input.memberUserIds ?? [])])];
      await this.ensureStaff(manager, ctx, staffIds);
      const customerIds = [...new Set(input.memberExternalUserIds ?? [])];
      const customers = await this.contactsById(ctx, customerIds, manager);
      const missing = customerIds.filter((id) => !customers.has(id));
      if (missing.length > 0) throw new NotFoundException(`The simulator has no customer ${missing.join(', ')}.`);
      const now = new Date();
      const members: SimGroupMember[] = [
        ...staffIds.map((userId) => ({ userId, type: 1 as const, joinedAt: now.toISOString(), joinScene: 1 })),
        ...customerIds.map((userId) => ({ userId, type: 2 as const, joinedAt: now.toISOString(), joinScene: 1, name: customers.get(userId)!.name })),
      ];
      const chat = await manager.save(
        manager.create(SimGroupChatEntity, { ...scope(ctx), chatId, name: input.name, ownerUserId: input.ownerUserId, notice: input.notice ?? null, status: 0, members, adminUserIds: [], createdAt: now }),
      );
      return toGroupChat(chat);
    });
  }

  /**
   * A customer writes to a staff member (or into a group chat): stores the inbound message and publishes
   * `message.received` on ChatPlatformEvents after commit. With a `msgId` that is already stored, nothing new is
   * stored and the stored message is published again (a platform redelivery, for idempotency tests).
   * @returns the published event
   * @throws NotFoundException simulator off, unknown customer or group chat, or the customer is not a contact of
   *   the staff member
   * @throws BadRequestException missing text, unknown type, several staff members and no `userId`, not a member of
   *   the group chat
   * @throws ConflictException `msgId` belongs to a different message
   * @throws AggregateError when a listener failed (the message is stored nonetheless)
   */
  async injectInboundMessage(ctx: ChatCorpContext, input: InjectInboundMessageInput): Promise<InboundMessageEvent> {
    this.assertEnabled();
    const msgType = input.msgType ?? 'text';
    if (!(INBOUND_MESSAGE_TYPES as readonly string[]).includes(msgType)) throw new BadRequestException(`msgType must be one of ${INBOUND_MESSAGE_TYPES.join(', ')}`);
    if (msgType === 'text' && !input.content?.trim()) throw new BadRequestException('content is required for a text message');
    if (input.msgId !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(input.msgId)) throw new BadRequestException('msgId must be 1..64 letters, digits, "_" or "-"');
    const stored = await this.dataSource.transaction(async (manager) => {
      if (input.msgId !== undefined) {
        const previous = await manager.findOne(SimMessageEntity, { where: { tenantId: ctx.tenantId, msgId: input.msgId } });
        if (previous) {
          const same = previous.direction === 'inbound' && previous.platformCorpId === ctx.platformCorpId && previous.externalUserId === input.externalUserId;
          if (!same) throw new ConflictException(`Message id ${input.msgId} already belongs to another message.`);
          return previous;
        }
      }
      const contact = await manager.findOne(SimExternalContactEntity, { where: { ...scope(ctx), externalUserId: input.externalUserId } });
      if (!contact) throw new NotFoundException(`The simulator has no customer ${input.externalUserId} in platform corp ${ctx.platformCorpId}; inject the customer first.`);
      let userId: string;
      let chatId: string | null = null;
      if (input.chatId !== undefined) {
        const chat = await manager.findOne(SimGroupChatEntity, { where: { ...scope(ctx), chatId: input.chatId } });
        if (!chat) throw new NotFoundException(`The simulator has no group chat ${input.chatId}.`);
        if (!chat.members.some((member) => member.type === 2 && member.userId === input.externalUserId)) throw new BadRequestException(`Customer ${input.externalUserId} is not a member of group chat ${input.chatId}.`);
        userId = chat.ownerUserId;
        chatId = chat.chatId;
      } else {
        const follows = await manager.find(SimFollowEntity, { where: { ...scope(ctx), externalUserId: input.externalUserId } });
        const follow = input.userId === undefined ? undefined : follows.find((candidate) => candidate.userId === input.userId);
        if (input.userId !== undefined && !follow) throw new NotFoundException(`Customer ${input.externalUserId} is not a contact of staff member ${input.userId}.`);
        if (input.userId === undefined && follows.length !== 1) {
          throw new BadRequestException(follows.length === 0 ? `Customer ${input.externalUserId} has added no staff member.` : `Customer ${input.externalUserId} is a contact of several staff members; give userId.`);
        }
        userId = follow?.userId ?? follows[0].userId;
      }
      return manager.save(
        manager.create(SimMessageEntity, {
          tenantId: ctx.tenantId,
          platformCorpId: ctx.platformCorpId,
          msgId: input.msgId ?? simIds.msgId(),
          direction: 'inbound',
          chatType: chatId ? 'group' : 'single',
          userId,
          externalUserId: input.externalUserId,
          chatId,
          robotKeyHash: null,
          msgType,
          content: input.content ?? null,
          media: input.media ? { ...input.media } : null,
          mentions: null,
          sentAt: input.sentAt ?? new Date(),
        }),
      );
    });
    const event: InboundMessageEvent = {
      type: 'message.received',
      tenantId: ctx.tenantId,
      corpId: ctx.corpId,
      platformCorpId: ctx.platformCorpId,
      msgId: stored.msgId,
      chatType: stored.chatType === 'group' ? 'group' : 'single',
      userId: stored.userId!,
      externalUserId: stored.externalUserId!,
      ...(stored.chatId ? { chatId: stored.chatId } : {}),
      msgType: stored.msgType as InboundMessageType,
      ...(stored.content !== null ? { content: stored.content } : {}),
      ...(stored.media ? { media: stored.media } : {}),
      occurredAt: stored.sentAt,
    };
    await this.events.publish(event);
    return event;
  }

  /**
   * Messages of the corp on the simulated platform, oldest first: the latest `limit` (default 50, at most 500)
   * matching the filter.
   * @throws NotFoundException when the simulator is off
   */
  async listMessages(ctx: ChatCorpContext, filter: { externalUserId?: string; chatId?: string; direction?: 'inbound' | 'outbound'; limit?: number } = {}): Promise<SimulatedMessage[]> {
    this.assertEnabled();
    const limit = Math.min(Math.max(1, filter.limit ?? 50), SIM_LIMITS.listMessages);
    const where: Record<string, unknown> = { ...scope(ctx) };
    if (filter.externalUserId !== undefined) where.externalUserId = filter.externalUserId;
    if (filter.chatId !== undefined) where.chatId = filter.chatId;
    if (filter.direction !== undefined) where.direction = filter.direction;
    const rows = await this.dataSource.getRepository(SimMessageEntity).find({ where, order: { sentAt: 'DESC', createdAt: 'DESC' }, take: limit });
    return rows.reverse().map(toSimulatedMessage);
  }

  /**
   * Robot webhook messages of the tenant, oldest first (the latest `limit`, default 50, at most 500), optionally only
   * those sent with `webhookKey`.
   * @throws NotFoundException when the simulator is off
   */
  async listRobotMessages(ctx: ChatTenantContext, filter: { webhookKey?: string; limit?: number } = {}): Promise<SimulatedMessage[]> {
    this.assertEnabled();
    const limit = Math.min(Math.max(1, filter.limit ?? 50), SIM_LIMITS.listMessages);
    const query = this.dataSource
      .getRepository(SimMessageEntity)
      .createQueryBuilder('message')
      .where('message.tenantId = :tenantId', { tenantId: ctx.tenantId })
      .andWhere('message.chatType = :robot', { robot: 'robot' })
      .orderBy('message.sentAt', 'DESC')
      .take(limit);
    if (filter.webhookKey !== undefined) query.andWhere('message.robotKeyHash = :hash', { hash: sha256Hex(filter.webhookKey) });
    return (await query.getMany()).reverse().map(toSimulatedMessage);
  }

  // ---------------------------------------------------------------- internals

  private assertEnabled(): void {
    if (!this.enabled) throw new NotFoundException('The chat platform simulator is off: CHAT_PLATFORM_MODE is not "simulator".');
  }

  private qrUrl(): string {
    return `${this.config.chatPlatform.simulatorQrBaseUrl}/${simIds.qrCode()}`;
  }

  /** Registers staff members the platform is told about and does not know yet (named after their user id). */
  private async ensureStaff(manager: EntityManager, ctx: ChatCorpContext, userIds: string[]): Promise<void> {
    const ids = [...new Set(userIds)];
    if (ids.length === 0) return;
    await manager
      .createQueryBuilder()
      .insert()
      .into(SimStaffEntity)
      .values(ids.map((userId) => ({ ...scope(ctx), userId, name: userId, mobile: null, departmentIds: [1], status: 1 as const })))
      .orIgnore()
      .execute();
  }

  private async findWay(manager: EntityManager, ctx: ChatCorpContext, op: string, configId: string, kind: SimContactWayEntity['kind'], lock = false): Promise<SimContactWayEntity> {
    const way = await manager.findOne(SimContactWayEntity, { where: { ...scope(ctx), configId, kind }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!way) throw invalid(op, 'invalid config_id');
    return way;
  }

  private async deleteWay(ctx: ChatCorpContext, op: string, configId: string, kind: SimContactWayEntity['kind']): Promise<void> {
    const result = await this.dataSource.manager.delete(SimContactWayEntity, { ...scope(ctx), configId, kind });
    if (!result.affected) throw invalid(op, 'invalid config_id');
  }

  private async checkGroupWay(op: string, ctx: ChatCorpContext, input: GroupWayInput): Promise<void> {
    if (input.scene !== 1 && input.scene !== 2) throw invalid(op, 'scene must be 1 or 2');
    if (input.chatIds.length === 0 || input.chatIds.length > SIM_LIMITS.joinWayChats) throw invalid(op, `chat_id_list must hold 1..${SIM_LIMITS.joinWayChats} group chats`);
    checkLength(op, 'state', input.state, SIM_LIMITS.stateChars);
    checkLength(op, 'remark', input.remark, SIM_LIMITS.remarkChars);
    const found = await this.dataSource.getRepository(SimGroupChatEntity).count({ where: { ...scope(ctx), chatId: In([...new Set(input.chatIds)]) } });
    if (found !== new Set(input.chatIds).size) throw invalid(op, 'invalid chat_id');
  }

  private async findContact(manager: EntityManager, ctx: ChatCorpContext, op: string, externalUserId: string): Promise<SimExternalContactEntity> {
    const contact = await manager.findOne(SimExternalContactEntity, { where: { ...scope(ctx), externalUserId } });
    if (!contact) throw ChatPlatformError.errcode(op, 40096, 'invalid external userid');
    return contact;
  }

  /** The relation (locked for update). @throws ChatPlatformError 40096 unknown customer, 84061 no relation */
  private async findFollow(manager: EntityManager, ctx: ChatCorpContext, op: string, userId: string, externalUserId: string): Promise<SimFollowEntity> {
    const follow = await manager.findOne(SimFollowEntity, { where: { ...scope(ctx), userId, externalUserId }, lock: { mode: 'pessimistic_write' } });
    if (follow) return follow;
    await this.findContact(manager, ctx, op, externalUserId);
    throw ChatPlatformError.errcode(op, 84061, 'not external contact');
  }

  private async findChat(manager: EntityManager, ctx: ChatCorpContext, op: string, chatId: string): Promise<SimGroupChatEntity> {
    const chat = await manager.findOne(SimGroupChatEntity, { where: { ...scope(ctx), chatId } });
    if (!chat) throw invalid(op, 'invalid chat_id');
    return chat;
  }

  private async contactsById(ctx: ChatCorpContext, externalUserIds: string[], manager: EntityManager = this.dataSource.manager): Promise<Map<string, SimExternalContactEntity>> {
    if (externalUserIds.length === 0) return new Map();
    const rows = await manager.find(SimExternalContactEntity, { where: { ...scope(ctx), externalUserId: In(externalUserIds) } });
    return new Map(rows.map((row) => [row.externalUserId, row]));
  }

  /** Stores an outbound message; attachments are recorded by size and SHA-256 with a new media id. */
  private async recordOutbound(
    manager: EntityManager,
    ctx: ChatCorpContext,
    target: { chatType: 'single' | 'group'; userId: string; externalUserId?: string; chatId?: string; message: OutboundMessage },
  ): Promise<SentMessage> {
    const { message } = target;
    const media: SimMessageMedia | null =
      message.msgType === 'text'
        ? null
        : {
            mediaId: simIds.mediaId(),
            fileName: message.media.fileName,
            contentType: message.media.contentType,
            sizeBytes: message.media.data.length,
            sha256: createHash('sha256').update(message.media.data).digest('hex'),
          };
    const msgId = simIds.msgId();
    await manager.insert(SimMessageEntity, {
      tenantId: ctx.tenantId,
      platformCorpId: ctx.platformCorpId,
      msgId,
      direction: 'outbound',
      chatType: target.chatType,
      userId: target.userId,
      externalUserId: target.externalUserId ?? null,
      chatId: target.chatId ?? null,
      robotKeyHash: null,
      msgType: message.msgType,
      content: message.msgType === 'text' ? message.content : null,
      media,
      mentions: null,
      sentAt: new Date(),
    });
    return media?.mediaId ? { msgId, mediaId: media.mediaId } : { msgId };
  }
}

// ---------------------------------------------------------------- pure helpers

function scope(ctx: ChatCorpContext): { tenantId: string; platformCorpId: string } {
  return { tenantId: ctx.tenantId, platformCorpId: ctx.platformCorpId };
}

/** errcode 40058 (invalid parameter) with the platform-style reason. */
function invalid(op: string, reason: string): ChatPlatformError {
  return ChatPlatformError.errcode(op, 40058, reason);
}

function checkCredentials(ctx: ChatCorpContext, op: string): void {
  if (!ctx.platformCorpId?.trim()) throw ChatPlatformError.errcode(op, 41002, 'corpid missing');
  if (!ctx.secret?.trim()) throw ChatPlatformError.errcode(op, 41004, 'corpsecret missing');
}

function checkLength(op: string, member: string, value: string | undefined, max: number): void {
  if (value !== undefined && [...value].length > max) throw invalid(op, `${member} exceeds ${max} characters`);
}

function checkName(op: string, name: string): void {
  if (!name.trim()) throw invalid(op, 'name is empty');
  checkLength(op, 'name', name, SIM_LIMITS.tagNameChars);
}

function checkWayUsers(op: string, type: 1 | 2, userIds: string[], departmentIds: number[] | undefined): void {
  if (userIds.some((userId) => typeof userId !== 'string' || !userId.trim())) throw ChatPlatformError.errcode(op, 40003, 'invalid userid');
  if (type === 1 && (userIds.length !== 1 || departmentIds?.length)) throw invalid(op, 'a single-staff contact way (type 1) takes exactly one user');
  if (type === 2 && userIds.length + (departmentIds?.length ?? 0) === 0) throw invalid(op, 'user or party is required');
  if (userIds.length > SIM_LIMITS.contactWayUsers) throw invalid(op, `user exceeds ${SIM_LIMITS.contactWayUsers} entries`);
}

function checkOutbound(op: string, message: OutboundMessage): void {
  if (message.msgType === 'text') {
    if (!message.content?.trim()) throw ChatPlatformError.errcode(op, 44004, 'empty content');
  } else if (!message.media?.data?.length) {
    throw ChatPlatformError.errcode(op, 44001, 'empty media data');
  }
}

/** Page size as the platform takes it: default 100, clamped to 1..max (as the HTTP adapter sends it). */
function pageLimit(limit: number | undefined, max: number): number {
  if (limit === undefined || !Number.isFinite(limit)) return Math.min(100, max);
  return Math.min(Math.max(1, Math.trunc(limit)), max);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

function decodeCursor(op: string, cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!UUID.test(id)) throw invalid(op, 'invalid cursor');
  return id;
}

function groupWayOptions(input: GroupWayInput): SimContactWayEntity['options'] {
  const options: SimContactWayEntity['options'] = { autoCreateRoom: input.autoCreateRoom === true };
  if (input.roomBaseName !== undefined) options.roomBaseName = input.roomBaseName;
  if (input.roomBaseId !== undefined) options.roomBaseId = input.roomBaseId;
  return options;
}

function toStaff(row: SimStaffEntity): PlatformStaff {
  return { userId: row.userId, name: row.name, ...(row.mobile ? { mobile: row.mobile } : {}), departmentIds: row.departmentIds, status: row.status };
}

function toContact(row: SimExternalContactEntity): PlatformExternalContact {
  return {
    externalUserId: row.externalUserId,
    name: row.name,
    type: row.type === 2 ? 2 : 1,
    gender: row.gender === 1 || row.gender === 2 ? row.gender : 0,
    avatarUrl: row.avatarUrl ?? undefined,
    unionId: row.unionId ?? undefined,
    corpName: row.corpName ?? undefined,
  };
}

function toFollow(row: SimFollowEntity, tags: PlatformCustomerTag[]): PlatformFollow {
  return {
    userId: row.userId,
    remark: row.remark ?? undefined,
    description: row.description ?? undefined,
    remarkMobiles: row.remarkMobiles,
    createdAt: row.addedAt,
    state: row.state ?? undefined,
    addWay: row.addWay,
    tags,
  };
}

function toGroupChat(row: SimGroupChatEntity): PlatformGroupChat {
  return {
    chatId: row.chatId,
    name: row.name,
    ownerUserId: row.ownerUserId,
    createdAt: row.createdAt,
    notice: row.notice ?? undefined,
    members: row.members.map((member) => ({ userId: member.userId, type: member.type, joinedAt: new Date(member.joinedAt), joinScene: member.joinScene, name: member.name })),
    adminUserIds: row.adminUserIds,
  };
}

function toTagGroup(group: SimTagEntity, tags: SimTagEntity[]): PlatformTagGroup {
  return {
    groupId: group.tagId,
    groupName: group.name,
    order: group.sortOrder,
    createdAt: group.createdAt,
    tags: tags.map((tag) => ({ tagId: tag.tagId, name: tag.name, order: tag.sortOrder, createdAt: tag.createdAt })),
  };
}

function toSimulatedMessage(row: SimMessageEntity): SimulatedMessage {
  return {
    msgId: row.msgId,
    direction: row.direction,
    chatType: row.chatType,
    ...(row.userId ? { userId: row.userId } : {}),
    ...(row.externalUserId ? { externalUserId: row.externalUserId } : {}),
    ...(row.chatId ? { chatId: row.chatId } : {}),
    msgType: row.msgType,
    ...(row.content !== null ? { content: row.content } : {}),
    ...(row.media ? { media: row.media } : {}),
    ...(row.mentions ? { mentions: row.mentions } : {}),
    sentAt: row.sentAt,
  };
}
