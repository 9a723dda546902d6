import { ConflictException, Inject, Injectable, Logger, NotFoundException, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ModelNotConfiguredError } from '../ai-reply/ai-reply-composer.service';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { DigitalStaffServiceTimeEntity } from '../digital-staff/service-time.entity';
import { DigitalStaffService } from '../digital-staff/digital-staff.service';
import { GroupRoomEntity } from '../group-rooms/group-room.entity';
import type { InterventionMatch } from '../intervention-rules/intervention-rules.rules';
import { InterventionRulesService } from '../intervention-rules/intervention-rules.service';
import type { MessageType } from '../messages/chat-message.entity';
import { ChatMessagesService, type InboundMessageInput } from '../messages/chat-messages.service';
import { ChatPlatformEvents, type InboundMessageEvent } from '../platform/chat-platform-events';
import { WorkChatUserEntity } from '../staff-users/work-chat-user.entity';
import type { TagsForMessage } from '../tag-rules/tag-rules.rules';
import { TagRulesService } from '../tag-rules/tag-rules.service';
import { AiReplyStore, describeMatches, type PipelineContact } from './ai-reply.store';
import { outOfServiceWindowStart } from './out-of-hours.rules';
import { AiReplyStatus, decideInboundAction, OPEN_AI_REPLY_STATUSES, toReplyOutcome, type ReplyOutcome } from './pipeline.rules';
import { isUuidShaped } from '../../common/ids/uuid-shape';
import { updateReturning } from '../contacts/update-returning';
import { chatLlmSettings } from '../../llm/chat-llm-settings';

export type { ReplyOutcome } from './pipeline.rules';

/** How often waitForOutcome reads the reply state, ms. */
const OUTCOME_POLL_MS = 100;

/** What the pipeline read about an inbound message's contact before its transaction. */
interface Facts {
  tags: TagsForMessage;
  interventions: InterventionMatch[];
  digitalStaffId: string | null;
  staffEnabled: boolean;
  inService: boolean;
  outOfHours: { message: string | null; reason: string; windowStart: Date } | null;
}

/**
 * The inbound AI reply pipeline (issue 6, "The inbound pipeline"; pipeline contract). Subscribed to
 * ChatPlatformEvents `message.received` from module init to destroy (the simulator, the platform callback and the
 * sandbox all come through {@link receive}). For a single-chat message it stores the message (idempotent on the
 * platform msgId: a redelivery stops there) and, in the same transaction:
 * a. adds the tags of matching keyword tag rules to the contact (one UPDATE);
 * b. for matching keyword/regex human-intervention rules: switches the contact's AI off and opens a customer to-do
 *    with the rule and a readable reason — no reply (`intervened`);
 * c. when the contact's AI is on and its staff user is bound to an enabled digital staff in service time: writes
 *    the reply state `queued` and the durable reply job (`chat.ai-reply`, AiReplyWorker);
 * d. out of service time: sends the configured out-of-hours message once per out-of-service window per contact
 *    (out-of-hours.rules.ts; chat_out_of_hours_notice) — without a configured message nothing is sent;
 * otherwise the reply state ends `skipped` with the reason. Every inbound message it stores gets exactly one reply
 * state row (chat_ai_reply), which is what {@link waitForOutcome} reads.
 *
 * Group-chat messages (`chatType` group) are stored only when Atrium knows the group room and the customer is a
 * contact of the room's owner (stored on that contact, `contactType` `group`), with the reply state `skipped`: the
 * digital staff does not answer in group chats, and no rule runs on them.
 */
@Injectable()
export class ChatInboundPipeline implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ChatInboundPipeline.name);
  private unsubscribe?: () => void;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: ChatPlatformEvents,
    private readonly messages: ChatMessagesService,
    private readonly tagRules: TagRulesService,
    private readonly interventionRules: InterventionRulesService,
    private readonly digitalStaff: DigitalStaffService,
    private readonly store: AiReplyStore,
  ) {}

  /** Subscribes to `message.received`. */
  onModuleInit(): void {
    this.unsubscribe = this.events.subscribe(async (event) => {
      if (event.type !== 'message.received') return;
      if (event.chatType === 'group') {
        const stored = await this.receiveGroup(event);
        if (!stored) this.logger.debug(`Group message ${event.msgId} of chat ${event.chatId} not stored: no known group room or contact (tenant ${event.tenantId}).`);
        return;
      }
      await this.receive(event);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /**
   * Handles one inbound message event (see the class comment for the steps). Idempotent on (tenant, corp, msgId): a
   * redelivery returns `created: false` and does nothing else.
   * @returns the stored inbound message's id (chat_message.id) and whether it was stored now
   * @throws NotFoundException when no contact matches (corp, userId, externalUserId), or for a group message, no
   *   known group room or contact of its owner
   */
  async receive(event: InboundMessageEvent): Promise<{ messageId: string; created: boolean }> {
    if (event.chatType === 'group') {
      const stored = await this.receiveGroup(event);
      if (!stored) throw new NotFoundException(`Group chat ${event.chatId ?? '?'} is not a known group room of corp ${event.corpId}, or customer ${event.externalUserId} is not a contact of its owner ${event.userId}.`);
      return stored;
    }
    const contact = await this.dataSource.getRepository(ExternalContactEntity).findOneBy({ tenantId: event.tenantId, corpId: event.corpId, externalUserId: event.externalUserId, workChatUserId: event.userId });
    if (!contact) throw new NotFoundException(`Customer ${event.externalUserId} is not a known contact of staff user ${event.userId} in corp ${event.corpId}; sync the staff user's customers first.`);
    const facts = await this.facts(contact, event.content ?? '');
    const result = await this.dataSource.transaction(async (manager) => {
      const { message, created } = await this.messages.storeInbound(inboundMessage(event, contact), manager);
      if (!created) return { messageId: message.id, created };
      await this.process(manager, contact, message.id, facts);
      return { messageId: message.id, created };
    });
    if (result.created) this.store.notifyWorkers();
    return result;
  }

  /**
   * Resolves when the pipeline has finished with the inbound message `messageId` (chat_message.id), reading its
   * reply state from the database every 100 ms (so it works across processes).
   * @param options.timeoutMs longest wait, ms
   * @throws Error('timeout') after `timeoutMs`; rejects with `signal.reason` on abort
   */
  async waitForOutcome(tenantId: string, messageId: string, options: { timeoutMs: number; signal?: AbortSignal }): Promise<ReplyOutcome> {
    const deadline = Date.now() + options.timeoutMs;
    for (;;) {
      options.signal?.throwIfAborted();
      const outcome = isUuidShaped(messageId) ? await this.outcomeOf(tenantId, messageId) : null;
      if (outcome) return outcome;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timeout');
      // An abort during the wait rejects with the signal's reason, as at the top of the loop (not with AbortError).
      await delay(Math.min(OUTCOME_POLL_MS, left), undefined, { signal: options.signal }).catch((error: unknown) => {
        throw options.signal?.aborted ? options.signal.reason : error;
      });
    }
  }

  /** The outcome of an inbound message now, or null while it is open (or unknown). */
  async outcomeOf(tenantId: string, messageId: string): Promise<ReplyOutcome | null> {
    const rows = (await this.dataSource.query(
      `SELECT r.status, r.reply_message_id, r.reason, m.content AS reply_text
         FROM chat_ai_reply r LEFT JOIN chat_message m ON m.tenant_id = r.tenant_id AND m.id = r.reply_message_id
        WHERE r.tenant_id = $1 AND r.inbound_message_id = $2`,
      [tenantId, messageId],
    )) as { status: AiReplyStatus; reply_message_id: string | null; reason: string | null; reply_text: string | null }[];
    const row = rows[0];
    return row ? toReplyOutcome({ status: row.status, replyMessageId: row.reply_message_id, reason: row.reason, replyText: row.reply_text }) : null;
  }

  /**
   * An operator's immediate AI intervention (`POST {C}/workChat/{workChatUserId}/contact/external/{contactId}/ai-intervene`):
   * queues a reply to the contact's latest inbound customer message (single chat) even when the contact's AI is
   * off or the digital staff is out of service time.
   * @returns true when a reply was queued; false when the contact has no inbound message, or that message already
   *   has a reply (sent, or an out-of-hours message) or one queued or being composed
   * @throws NotFoundException (404) no such contact of the staff user in the tenant
   * @throws ModelNotConfiguredError (400) CHAT_LLM_BASE_URL / CHAT_LLM_MODEL unset
   * @throws ConflictException (409) the staff user is bound to no digital staff (no one to reply as)
   */
  async requestImmediateReply(tenantId: string, workChatUserId: string, contactId: string): Promise<boolean> {
    const contact = isUuidShaped(contactId) ? await this.dataSource.getRepository(ExternalContactEntity).findOneBy({ tenantId, id: contactId, workChatUserId }) : null;
    if (!contact) throw new NotFoundException(`No contact ${contactId} of staff user ${workChatUserId} in this tenant.`);
    if (!chatLlmSettings(this.config.chatLlm)) throw new ModelNotConfiguredError();
    const staffUser = await this.dataSource.getRepository(WorkChatUserEntity).findOneBy({ tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId });
    if (!staffUser?.digitalStaffId) throw new ConflictException(`Staff user "${contact.workChatUserId}" is bound to no digital staff, so there is no one to reply as; bind a digital staff first (POST {T}/v1/chat/staff/bind).`);
    const digitalStaffId = staffUser.digitalStaffId;
    const queued = await this.dataSource.transaction(async (manager) => {
      const [latest] = (await manager.query(
        `SELECT id FROM chat_message
          WHERE tenant_id = $1 AND contact_id = $2 AND direction = 'in' AND contact_type IS DISTINCT FROM 'group'
          ORDER BY created_at DESC, id DESC LIMIT 1`,
        [tenantId, contact.id],
      )) as { id: string }[];
      if (!latest) return false;
      // Serialise with the reply job and other requests on this message.
      await manager.query(`SELECT id FROM chat_message WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, latest.id]);
      if (await this.store.existingReply(manager, tenantId, latest.id)) return false;
      const inserted = await this.store.insertState(manager, { tenantId, inboundMessageId: latest.id, contactId: contact.id, digitalStaffId, trigger: 'operator', status: 'queued' });
      if (inserted) return true;
      const requeued = await updateReturning<{ id: string }>(
        manager,
        `UPDATE chat_ai_reply
            SET status = 'queued', trigger = 'operator', digital_staff_id = $3, attempts = 0, reason = NULL, worker_id = NULL, reply_message_id = NULL,
                lease_until = now() + $4::int * interval '1 millisecond', finished_at = NULL, updated_at = now()
          WHERE tenant_id = $1 AND inbound_message_id = $2 AND status NOT IN (${OPEN_AI_REPLY_STATUSES.map((status) => `'${status}'`).join(', ')}, 'sent')
          RETURNING id`,
        [tenantId, latest.id, digitalStaffId, this.config.chatPipeline.staleMs],
      );
      if (requeued.length === 0) return false;
      await this.store.enqueueReply(manager, tenantId, latest.id);
      return true;
    });
    if (queued) this.store.notifyWorkers();
    return queued;
  }

  // ---------------------------------------------------------------- internals

  /** Reads what the decision needs (rules, binding, service time) before the store transaction. */
  private async facts(contact: ExternalContactEntity, text: string): Promise<Facts> {
    const tenantId = contact.tenantId;
    const staffUser = await this.dataSource.getRepository(WorkChatUserEntity).findOneBy({ tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId });
    const staff = staffUser?.digitalStaffId ? await this.digitalStaff.findById(tenantId, staffUser.digitalStaffId) : null;
    const tags: TagsForMessage = text.trim() ? await this.tagRules.tagsFor(tenantId, text) : { tagNames: [], platformTagIds: [], matchedRuleIds: [] };
    const decision = text.trim() ? await this.interventionRules.matching(tenantId, { text, digitalStaffId: staff?.id ?? null }) : null;
    const interventions = (decision?.matches ?? []).filter((match) => match.matchType !== 'intent');
    let inService = true;
    let outOfHours: Facts['outOfHours'] = null;
    if (staff) {
      const now = new Date();
      const status = await this.digitalStaff.serviceTimeStatus(tenantId, staff.id, now);
      inService = status.inService;
      if (!inService) {
        const config = await this.dataSource.getRepository(DigitalStaffServiceTimeEntity).findOneBy({ tenantId, digitalStaffId: staff.id });
        const windowStart = (config && outOfServiceWindowStart(config, now)) ?? now;
        outOfHours = { message: status.outOfHoursMessage?.trim() ? status.outOfHoursMessage : null, reason: status.reason, windowStart };
      }
    }
    return { tags, interventions, digitalStaffId: staff?.id ?? null, staffEnabled: staff?.enabled ?? false, inService, outOfHours };
  }

  /** Steps a–d for a newly stored single-chat message, inside the store transaction. */
  private async process(manager: EntityManager, contact: ExternalContactEntity, messageId: string, facts: Facts): Promise<void> {
    const ref: PipelineContact = { id: contact.id, tenantId: contact.tenantId, corpId: contact.corpId, workChatUserId: contact.workChatUserId };
    const state = { tenantId: contact.tenantId, inboundMessageId: messageId, contactId: contact.id, digitalStaffId: facts.digitalStaffId };
    // The switch as of now, held until commit (a concurrent toggle waits for this message's decision).
    const [locked] = (await manager.query(`SELECT ai_enabled FROM chat_external_contact WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [contact.tenantId, contact.id])) as { ai_enabled: boolean }[];
    await this.store.addTags(manager, ref, facts.tags);
    const action = decideInboundAction({
      aiEnabled: locked?.ai_enabled ?? contact.aiEnabled,
      staffBound: facts.digitalStaffId !== null,
      staffEnabled: facts.staffEnabled,
      inService: facts.inService,
      intervention: facts.interventions.length > 0 ? { reasons: describeMatches(facts.interventions) } : null,
      workChatUserId: contact.workChatUserId,
    });
    switch (action.kind) {
      case 'intervene': {
        const reason = await this.store.intervene(manager, { contact: ref, digitalStaffId: facts.digitalStaffId, inboundMessageId: messageId, matches: facts.interventions });
        await this.store.insertState(manager, { ...state, status: 'intervened', reason });
        return;
      }
      case 'skip':
        await this.store.insertState(manager, { ...state, status: 'skipped', reason: action.reason });
        return;
      case 'reply':
        await this.store.insertState(manager, { ...state, status: 'queued' });
        return;
      case 'out_of_hours':
        await this.outOfHours(manager, ref, messageId, facts);
        return;
    }
  }

  /** Step d: the out-of-hours message, once per out-of-service window per contact. */
  private async outOfHours(manager: EntityManager, contact: PipelineContact, messageId: string, facts: Facts): Promise<void> {
    const state = { tenantId: contact.tenantId, inboundMessageId: messageId, contactId: contact.id, digitalStaffId: facts.digitalStaffId, status: 'out_of_hours' as const };
    const outOfHours = facts.outOfHours!;
    if (!outOfHours.message) {
      await this.store.insertState(manager, { ...state, reason: `${outOfHours.reason} No out-of-hours message is configured, so nothing was sent.` });
      return;
    }
    const replyId = randomUUID();
    const claimed = (await manager.query(
      `INSERT INTO chat_out_of_hours_notice (tenant_id, contact_id, digital_staff_id, window_start, inbound_message_id, message_id)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (tenant_id, contact_id, window_start) DO NOTHING RETURNING id`,
      [contact.tenantId, contact.id, facts.digitalStaffId, outOfHours.windowStart.toISOString(), messageId, replyId],
    )) as unknown[];
    if (claimed.length === 0) {
      await this.store.insertState(manager, { ...state, reason: `${outOfHours.reason} The out-of-hours message was already sent to this contact in this out-of-service window (since ${outOfHours.windowStart.toISOString()}).` });
      return;
    }
    const sent = await this.store.insertAiMessage(manager, { contact, inReplyToMessageId: messageId, content: outOfHours.message, originalAiContent: null, id: replyId });
    await this.store.insertState(manager, { ...state, replyMessageId: sent.id, reason: `${outOfHours.reason} Sent the out-of-hours message.` });
  }

  /** A group-chat message: stored on the owner's contact when the room is known; never answered. Null when not stored. */
  private async receiveGroup(event: InboundMessageEvent): Promise<{ messageId: string; created: boolean } | null> {
    if (!event.chatId) return null;
    const room = await this.dataSource.getRepository(GroupRoomEntity).findOneBy({ tenantId: event.tenantId, corpId: event.corpId, chatId: event.chatId });
    if (!room) return null;
    const contact = await this.dataSource.getRepository(ExternalContactEntity).findOneBy({ tenantId: event.tenantId, corpId: event.corpId, externalUserId: event.externalUserId, workChatUserId: event.userId });
    if (!contact) return null;
    return this.dataSource.transaction(async (manager) => {
      const { message, created } = await this.messages.storeInbound({ ...inboundMessage(event, contact), contactType: 'group' }, manager);
      if (created) {
        await this.store.insertState(manager, { tenantId: event.tenantId, inboundMessageId: message.id, contactId: contact.id, digitalStaffId: null, status: 'skipped', reason: `A message in group chat "${room.name}": the digital staff does not reply in group chats.` });
      }
      return { messageId: message.id, created };
    });
  }
}

/** The stored form of an inbound platform message on the contact it belongs to. */
function inboundMessage(event: InboundMessageEvent, contact: ExternalContactEntity): InboundMessageInput {
  return { tenantId: event.tenantId, corpId: event.corpId, contactId: contact.id, workChatUserId: contact.workChatUserId, msgType: event.msgType as MessageType, content: event.content ?? null, platformMsgId: event.msgId, sentAt: event.occurredAt };
}
