import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import type { InterventionMatch } from '../intervention-rules/intervention-rules.rules';
import { ChatMessageEntity } from '../messages/chat-message.entity';
import { DELIVER_CHAT_MESSAGE } from '../messages/message-delivery.job';
import type { TagsForMessage } from '../tag-rules/tag-rules.rules';
import { CustomerTodosService } from '../todos/customer-todos.service';
import { storedReplyProblem } from '../ai-reply/ai-reply.rules';
import { AI_REPLY } from './ai-reply.job';
import type { AiReplyTrigger } from './chat-ai-reply.entity';
import { interventionReason, type AiReplyStatus } from './pipeline.rules';

/**
 * Thrown by {@link AiReplyStore.insertAiMessage} when a model answer is over CHAT_AI_REPLY_MAX_CHARS: nothing is
 * written (issue 19 item 2). The reply job counts it as a failed attempt.
 */
export class ReplyOverCapError extends Error {}

/** The contact fields the pipeline's writes need. */
export interface PipelineContact {
  id: string;
  tenantId: string;
  corpId: string;
  workChatUserId: string;
}

/** An AI message to write (an AI reply or an out-of-hours message). */
export interface AiMessageInput {
  contact: PipelineContact;
  /** The inbound message answered (chat_message.id). */
  inReplyToMessageId: string;
  content: string;
  /** The model's raw answer; null for the out-of-hours message. */
  originalAiContent: string | null;
  /** Use this id for the new row (to reference it before it is written); default a new UUID. */
  id?: string;
}

/**
 * The pipeline's writes, each inside the caller's transaction (`manager`), shared by the inbound step
 * (ChatInboundPipeline) and the reply job (AiReplyWorker): the reply-state row, tags, the intervention (AI off +
 * to-do), the AI message with its delivery job. Jobs enqueued here exist only if the caller's transaction commits;
 * the caller wakes the workers after the commit (JobsService.notify).
 */
@Injectable()
export class AiReplyStore {
  constructor(
    private readonly jobs: JobsService,
    private readonly todos: CustomerTodosService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Writes the reply-state row of an inbound message (one per message: a second insert does nothing).
   * `queued` rows get a lease of CHAT_AI_REPLY_STALE_MS and their job.
   * @returns whether the row was written
   */
  async insertState(
    manager: EntityManager,
    row: { tenantId: string; inboundMessageId: string; contactId: string; digitalStaffId: string | null; trigger?: AiReplyTrigger; status: AiReplyStatus; reason?: string | null; replyMessageId?: string | null },
  ): Promise<boolean> {
    const queued = row.status === 'queued';
    const inserted = await manager.query(
      `INSERT INTO chat_ai_reply (tenant_id, inbound_message_id, contact_id, digital_staff_id, trigger, status, reason, reply_message_id, lease_until, finished_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, CASE WHEN $9::boolean THEN now() + $10::int * interval '1 millisecond' END, CASE WHEN $9::boolean THEN NULL ELSE now() END)
       ON CONFLICT (tenant_id, inbound_message_id) DO NOTHING RETURNING id`,
      [row.tenantId, row.inboundMessageId, row.contactId, row.digitalStaffId, row.trigger ?? 'inbound', row.status, row.reason ?? null, row.replyMessageId ?? null, queued, this.config.chatPipeline.staleMs],
    );
    const written = (inserted as unknown[]).length > 0;
    if (written && queued) await this.enqueueReply(manager, row.tenantId, row.inboundMessageId);
    return written;
  }

  /** Enqueues the reply job of an inbound message, optionally after `delayMs`. */
  async enqueueReply(manager: EntityManager, tenantId: string, inboundMessageId: string, delayMs = 0): Promise<void> {
    await this.jobs.enqueue(AI_REPLY, { tenantId, inboundMessageId }, { manager, ...(delayMs > 0 ? { startAfterSeconds: delayMs / 1000 } : {}) });
  }

  /**
   * Adds tags to the contact, keeping the ones it has (a tag name already present, or a platform tag id already
   * present, is not added again), in one UPDATE. Names become personal tags (`type` 2), platform ids corp tags
   * (`type` 1). Atrium's stored tags only: nothing is sent to the platform.
   */
  async addTags(manager: EntityManager, contact: PipelineContact, tags: Pick<TagsForMessage, 'tagNames' | 'platformTagIds'>): Promise<void> {
    const add = [...tags.platformTagIds.map((tagId) => ({ tagId, type: 1 })), ...tags.tagNames.map((tagName) => ({ tagName, type: 2 }))];
    if (add.length === 0) return;
    await manager.query(
      `UPDATE chat_external_contact c
          SET tags = c.tags || COALESCE((
                SELECT jsonb_agg(n.tag ORDER BY n.ord) FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS n(tag, ord)
                 WHERE NOT EXISTS (
                   SELECT 1 FROM jsonb_array_elements(c.tags) AS e(tag)
                    WHERE (n.tag->>'tagId' IS NOT NULL AND e.tag->>'tagId' = n.tag->>'tagId')
                       OR (n.tag->>'tagId' IS NULL AND e.tag->>'tagName' = n.tag->>'tagName'))), '[]'::jsonb),
              updated_at = now()
        WHERE c.tenant_id = $1 AND c.id = $2`,
      [contact.tenantId, contact.id, JSON.stringify(add)],
    );
  }

  /**
   * Intervenes for matching human-intervention rules: switches the contact's AI off (when a rule says so) and opens
   * a digital-staff customer to-do for the inbound message (when a rule says so), whose reason is the record of why.
   * @returns the readable reason
   */
  async intervene(manager: EntityManager, input: { contact: PipelineContact; digitalStaffId: string | null; inboundMessageId: string; matches: readonly InterventionMatch[] }): Promise<string> {
    const reason = interventionReason(describeMatches(input.matches));
    if (input.matches.some((match) => match.switchAiOff)) {
      await manager.query(`UPDATE chat_external_contact SET ai_enabled = false, updated_at = now() WHERE tenant_id = $1 AND id = $2`, [input.contact.tenantId, input.contact.id]);
    }
    const todoRule = input.matches.find((match) => match.createTodo);
    if (todoRule) {
      await this.todos.open(input.contact.tenantId, { contactId: input.contact.id, digitalStaffId: input.digitalStaffId, ruleId: todoRule.ruleId, reason, sourceMessageId: input.inboundMessageId }, manager);
    }
    return reason;
  }

  /**
   * Writes an AI message (`out`, sender `ai`, `pending`) answering an inbound message and enqueues its delivery — only
   * when the inbound message has no AI message yet (partial unique index on `in_reply_to_message_id`); otherwise
   * nothing is written or enqueued, so a message is delivered by one delivery job only.
   * A model answer (`originalAiContent` set) over CHAT_AI_REPLY_MAX_CHARS, raw or rendered, is refused before
   * anything is written: every stored model answer is capped where it is stored (issue 19 item 2).
   * @returns the id of the AI message (the new or the existing one) and whether it was written now
   * @throws ReplyOverCapError a model answer over the cap
   */
  async insertAiMessage(manager: EntityManager, input: AiMessageInput): Promise<{ id: string; created: boolean }> {
    if (input.originalAiContent !== null) {
      const problem = storedReplyProblem({ content: input.content, originalAiContent: input.originalAiContent }, this.config.chatReplyStorage.maxReplyChars);
      if (problem) throw new ReplyOverCapError(problem);
    }
    const id = input.id ?? randomUUID();
    const inserted = await manager
      .createQueryBuilder()
      .insert()
      .into(ChatMessageEntity)
      .values({
        id,
        tenantId: input.contact.tenantId,
        corpId: input.contact.corpId,
        contactId: input.contact.id,
        workChatUserId: input.contact.workChatUserId,
        direction: 'out',
        sender: 'ai',
        msgType: 'text',
        content: input.content,
        originalAiContent: input.originalAiContent,
        status: 'pending',
        deliveryAttempts: 0,
        inReplyToMessageId: input.inReplyToMessageId,
      })
      .orIgnore()
      .returning(['id'])
      .execute();
    if ((inserted.raw as unknown[]).length === 0) {
      const existing = await manager.findOneByOrFail(ChatMessageEntity, { tenantId: input.contact.tenantId, inReplyToMessageId: input.inReplyToMessageId, sender: 'ai' });
      return { id: existing.id, created: false };
    }
    await manager.query(`UPDATE chat_external_contact SET last_message_at = now() WHERE tenant_id = $1 AND id = $2`, [input.contact.tenantId, input.contact.id]);
    await this.jobs.enqueue(DELIVER_CHAT_MESSAGE, { tenantId: input.contact.tenantId, messageId: id }, { manager });
    return { id, created: true };
  }

  /** Wakes this instance's reply and delivery workers (after the transaction that enqueued committed). */
  notifyWorkers(): void {
    this.jobs.notify(AI_REPLY);
    this.jobs.notify(DELIVER_CHAT_MESSAGE);
  }

  /** The AI message answering an inbound message, if any. */
  async existingReply(manager: EntityManager, tenantId: string, inboundMessageId: string): Promise<string | null> {
    const rows = await manager.query(`SELECT id FROM chat_message WHERE tenant_id = $1 AND in_reply_to_message_id = $2 AND sender = 'ai' LIMIT 1`, [tenantId, inboundMessageId]);
    return (rows as { id: string }[])[0]?.id ?? null;
  }
}

/** Readable reasons of matched rules: the rule's reason, then which rule and what matched. */
export function describeMatches(matches: readonly InterventionMatch[]): string[] {
  return matches.map((match) => `${match.reason} (rule "${match.ruleName}", ${match.matchType === 'keywords' ? 'keyword' : match.matchType}: ${match.matched.join(', ')})`);
}
