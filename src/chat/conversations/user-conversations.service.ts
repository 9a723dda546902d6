import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager, FindOptionsWhere, In, Not } from 'typeorm';
import { Page, toOrder, toPage } from '../../common/paging/page';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { ConversationGroupEntity } from '../conversation-groups/conversation-group.entity';
import { uniqueViolation } from '../common/db-support';
import { lockConversationGroups } from '../conversation-groups/group-locks';
import { FieldProblem, fieldProblems } from '../conversation-groups/id-lists';
import { DigitalStaffEntity } from '../digital-staff/digital-staff.entity';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import { canDelete, canEdit, type ConversationAction, type ConversationStatus, movableFrom, planTransition, refusalMessage, targetStatus } from './conversation-state.rules';
import {
  CreateUserConversationRequest,
  toUserConversationDto,
  UpdateUserConversationRequest,
  USER_CONVERSATION_SORT_FIELDS,
  UserConversationDTO,
  UserConversationPageQuery,
} from './user-conversation.dto';
import { UserConversationEntity } from './user-conversation.entity';
import { ListPager } from '../../common/paging/list-pager';

/** How often a transition re-reads and retries when the row changed between its UPDATE and the re-read. */
const TRANSITION_ATTEMPTS = 3;

/**
 * Conversations of a tenant (chat-management-api.md, Console endpoints: `GET/PUT/DELETE {C}/userConversations/{id}`,
 * `PUT .../activate`, `PUT .../terminate`, plus the create and list the spec leaves out). States and moves are
 * conversation-state.rules.ts; every move is one conditional UPDATE (`… WHERE status IN (states it may move from)`),
 * so of two conflicting concurrent requests exactly one wins and the other sees the new state. Every query filters
 * by the tenant, so another tenant's ids answer 404.
 *
 * Exported from ChatModule for the reply pipeline: {@link openForContact}, {@link startForContact}.
 */
@Injectable()
export class UserConversationsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly pager: ListPager,
  ) {}

  /**
   * Opens a conversation for a contact, `pending` (or `active` with `activate: true`). The group is held `FOR SHARE`
   * until the row is written, so it cannot be deleted meanwhile.
   * @throws BadRequestException (400) unknown contact, digital staff or group, or no digital staff to default to
   *   (every problem in `errors`)
   * @throws ConflictException (409) the group is disabled, or the contact already has an open conversation (named)
   */
  async create(tenantId: string, input: CreateUserConversationRequest): Promise<UserConversationDTO> {
    const row = await this.dataSource.transaction(async (manager) => {
      const problems: FieldProblem[] = [];
      const group = await this.usableGroup(manager, tenantId, input.conversationGroupId, problems);
      const contact = await manager.getRepository(ExternalContactEntity).findOneBy({ tenantId, id: input.contactId });
      if (!contact) problems.push({ field: 'contactId', message: `No external contact ${input.contactId} in this tenant.` });
      let digitalStaffId = input.digitalStaffId;
      if (digitalStaffId) {
        await this.checkDigitalStaff(manager, tenantId, digitalStaffId, problems);
      } else if (contact) {
        const staffUser = await manager.getRepository(WorkChatUserEntity).findOneBy({ tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId });
        digitalStaffId = staffUser?.digitalStaffId ?? undefined;
        if (!digitalStaffId) {
          problems.push({
            field: 'digitalStaffId',
            message: `The contact's staff user "${contact.workChatUserId}" is bound to no digital staff, so there is none to default to: give digitalStaffId, or bind the staff user first.`,
          });
        } else if (!(await manager.getRepository(DigitalStaffEntity).existsBy({ tenantId, id: digitalStaffId }))) {
          problems.push({
            field: 'digitalStaffId',
            message: `The contact's staff user "${contact.workChatUserId}" is bound to digital staff ${digitalStaffId}, which no longer exists: give digitalStaffId, or rebind the staff user first.`,
          });
        }
      }
      if (problems.length) throw fieldProblems('Invalid conversation', problems);
      const status = input.activate ? 'active' : 'pending';
      const created = manager.getRepository(UserConversationEntity).create({
        tenantId,
        contactId: input.contactId,
        digitalStaffId: digitalStaffId!,
        conversationGroupId: group!.id,
        status,
        subject: input.subject || null,
        remark: input.remark || null,
        activatedAt: status === 'active' ? new Date() : null,
        terminatedAt: null,
      });
      try {
        await manager.getRepository(UserConversationEntity).save(created);
      } catch (error) {
        if (uniqueViolation(error) === 'ux_chat_user_conversation_open_contact') throw await this.alreadyOpen(tenantId, input.contactId);
        throw error;
      }
      return created;
    });
    return toUserConversationDto(row);
  }

  /**
   * The tenant's conversations, newest first, filtered by contact, status, group, digital staff or open-ness.
   * @throws BadRequestException (400) unknown sort field
   */
  async list(tenantId: string, query: UserConversationPageQuery): Promise<Page<UserConversationDTO>> {
    const order = toOrder(query.sort, USER_CONVERSATION_SORT_FIELDS, { createdAt: 'DESC' });
    // `open` and `status` together: a status on the other side of `open` matches nothing.
    if (query.status && query.open !== undefined && (query.status === 'terminated') === query.open) return toPage([], 0, query);
    const where: FindOptionsWhere<UserConversationEntity> = { tenantId };
    if (query.status) where.status = query.status;
    else if (query.open !== undefined) where.status = query.open ? In(['pending', 'active'] as ConversationStatus[]) : 'terminated';
    if (query.contactId) where.contactId = query.contactId;
    if (query.conversationGroupId) where.conversationGroupId = query.conversationGroupId;
    if (query.digitalStaffId) where.digitalStaffId = query.digitalStaffId;
    const { rows, ...slice } = await this.pager.find(this.dataSource.getRepository(UserConversationEntity), {
      where,
      order,
    }, query);
    return toPage(rows.map(toUserConversationDto), slice, query);
  }

  /** @throws NotFoundException (404) no such conversation in the tenant */
  async get(tenantId: string, id: string): Promise<UserConversationDTO> {
    return toUserConversationDto(await this.find(this.dataSource.manager, tenantId, id));
  }

  /**
   * Changes group, digital staff, subject or remark of an open conversation. A new group is held `FOR SHARE` (taken
   * before the conversation row, the order every writer here follows), the conversation `FOR UPDATE`.
   * @throws NotFoundException (404)
   * @throws BadRequestException (400) unknown group or digital staff
   * @throws ConflictException (409) the conversation is terminated, or the new group is disabled
   */
  async update(tenantId: string, id: string, input: UpdateUserConversationRequest): Promise<UserConversationDTO> {
    const row = await this.dataSource.transaction(async (manager) => {
      const problems: FieldProblem[] = [];
      const group = input.conversationGroupId ? await this.usableGroup(manager, tenantId, input.conversationGroupId, problems) : undefined;
      const current = await this.find(manager, tenantId, id, true);
      if (!canEdit(current.status)) throw new ConflictException(`Conversation ${id} is ${current.status}; a terminated conversation is history and cannot be changed.`);
      if (input.digitalStaffId) await this.checkDigitalStaff(manager, tenantId, input.digitalStaffId, problems);
      if (problems.length) throw fieldProblems('Invalid conversation change', problems);
      if (group) current.conversationGroupId = group.id;
      if (input.digitalStaffId) current.digitalStaffId = input.digitalStaffId;
      if (input.subject !== undefined) current.subject = input.subject || null;
      if (input.remark !== undefined) current.remark = input.remark || null;
      return manager.getRepository(UserConversationEntity).save(current);
    });
    return toUserConversationDto(row);
  }

  /**
   * Applies `activate` or `terminate` (conversation-state.rules.ts) with one conditional UPDATE. When it changes
   * nothing the row is re-read: already in the target state → returned unchanged (PUT is idempotent); a state the
   * action cannot leave → 409; changed in between → tried again.
   * @throws NotFoundException (404) no such conversation in the tenant
   * @throws ConflictException (409) the move is not allowed (names the current state and the allowed moves)
   */
  async transition(tenantId: string, id: string, action: ConversationAction): Promise<UserConversationDTO> {
    const to = targetStatus(action);
    for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
      // The re-read runs in the UPDATE's transaction: after a move it sees the row as this move left it (the row
      // stays locked until commit), not as a concurrent request changed it right after.
      const { moved, row } = await this.dataSource.transaction(async (manager) => {
        const result = await manager
          .createQueryBuilder()
          .update(UserConversationEntity)
          .set({ status: to, ...(to === 'active' ? { activatedAt: () => 'statement_timestamp()' } : { terminatedAt: () => 'statement_timestamp()' }) })
          .where('tenant_id = :tenantId AND id = :id AND status IN (:...from)', { tenantId, id, from: movableFrom(action) })
          .execute();
        return { moved: Boolean(result.affected), row: await this.find(manager, tenantId, id) };
      });
      if (moved) return toUserConversationDto(row);
      const plan = planTransition(row.status, action);
      if (plan.kind === 'unchanged') return toUserConversationDto(row);
      if (plan.kind === 'refused') throw new ConflictException(refusalMessage(id, row.status, action));
    }
    throw new ConflictException(`Conversation ${id} kept changing state while it was being ${action}d; try again.`);
  }

  /**
   * Deletes a conversation unless it is active (one conditional DELETE, so it cannot race an activation).
   * @throws NotFoundException (404); ConflictException (409) it is active
   */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource
      .createQueryBuilder()
      .delete()
      .from(UserConversationEntity)
      .where('tenant_id = :tenantId AND id = :id AND status <> :active', { tenantId, id, active: 'active' })
      .execute();
    if (result.affected) return;
    const row = await this.find(this.dataSource.manager, tenantId, id);
    if (!canDelete(row.status)) throw new ConflictException(`Conversation ${id} is ${row.status}; terminate it first (PUT .../userConversations/${id}/terminate), then delete it.`);
  }

  /** The contact's open (pending or active) conversation, or null — "the" conversation the reply pipeline uses. */
  openForContact(tenantId: string, contactId: string): Promise<UserConversationEntity | null> {
    return this.dataSource.getRepository(UserConversationEntity).findOneBy({ tenantId, contactId, status: Not('terminated' as const) });
  }

  /**
   * The contact's open conversation, activated if pending; or a new active one in `conversationGroupId` when it
   * has none (for the reply pipeline: a customer who writes after a termination starts a new conversation).
   * Safe under concurrency: a duplicate insert loses to the unique index and the winner's row is returned.
   */
  async startForContact(tenantId: string, contactId: string, digitalStaffId: string, conversationGroupId: string): Promise<UserConversationEntity> {
    for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
      const open = await this.openForContact(tenantId, contactId);
      if (open?.status === 'active') return open;
      if (open) {
        const activated = await this.transition(tenantId, open.id, 'activate').catch((error: unknown) => (error instanceof ConflictException ? null : Promise.reject(error)));
        if (activated) return this.find(this.dataSource.manager, tenantId, open.id);
        continue; // terminated meanwhile: start a new one
      }
      const repository = this.dataSource.getRepository(UserConversationEntity);
      try {
        return await repository.save(repository.create({ tenantId, contactId, digitalStaffId, conversationGroupId, status: 'active', subject: null, remark: null, activatedAt: new Date(), terminatedAt: null }));
      } catch (error) {
        if (uniqueViolation(error) !== 'ux_chat_user_conversation_open_contact') throw error;
      }
    }
    throw new ConflictException(`The conversations of contact ${contactId} kept changing while one was being started; try again.`);
  }

  /**
   * The group a conversation may enter, held `FOR SHARE`: unknown → a problem (400 later), disabled → 409 at once.
   */
  private async usableGroup(manager: EntityManager, tenantId: string, groupId: string, problems: FieldProblem[]): Promise<ConversationGroupEntity | undefined> {
    const group = (await lockConversationGroups(manager, tenantId, [groupId], 'share')).get(groupId);
    if (!group) problems.push({ field: 'conversationGroupId', message: `No conversation group ${groupId} in this tenant.` });
    else if (!group.enabled) throw new ConflictException(`Conversation group "${group.name}" is disabled, so no conversation may enter it; enable it or choose another group.`);
    return group;
  }

  private async checkDigitalStaff(manager: EntityManager, tenantId: string, digitalStaffId: string, problems: FieldProblem[]): Promise<void> {
    if (!(await manager.getRepository(DigitalStaffEntity).existsBy({ tenantId, id: digitalStaffId }))) {
      problems.push({ field: 'digitalStaffId', message: `No digital staff ${digitalStaffId} in this tenant.` });
    }
  }

  /** The 409 for a contact that already has an open conversation, naming it. */
  private async alreadyOpen(tenantId: string, contactId: string): Promise<ConflictException> {
    const open = await this.openForContact(tenantId, contactId);
    return new ConflictException(
      open
        ? `Contact ${contactId} already has an open conversation ${open.id} (${open.status}); a contact has at most one. Terminate it first, or use it.`
        : `Contact ${contactId} already has an open conversation; a contact has at most one.`,
    );
  }

  private async find(manager: EntityManager, tenantId: string, id: string, lock = false): Promise<UserConversationEntity> {
    const row = await manager.getRepository(UserConversationEntity).findOne({ where: { tenantId, id }, ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}) });
    if (!row) throw new NotFoundException(`No conversation ${id} in this tenant.`);
    return row;
  }
}
