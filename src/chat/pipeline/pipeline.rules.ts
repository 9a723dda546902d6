/**
 * Pure decisions of the inbound AI reply pipeline (issue 6, "The inbound pipeline"): what to do with a newly stored
 * inbound customer message, how a reply-state row reads as an outcome, and when a failed reply is tried again.
 * No I/O.
 */

/** States of a reply-state row (chat_ai_reply.status). `queued` and `composing` are open; the rest are final. */
export const AI_REPLY_STATUSES = ['queued', 'composing', 'sent', 'out_of_hours', 'intervened', 'skipped', 'failed'] as const;
export type AiReplyStatus = (typeof AI_REPLY_STATUSES)[number];

/** Open states: a reply job owns the row (or will). */
export const OPEN_AI_REPLY_STATUSES: readonly AiReplyStatus[] = ['queued', 'composing'];

/** What the pipeline knows about a message's contact when it decides. */
export interface InboundFacts {
  /** The contact's AI reply switch. */
  aiEnabled: boolean;
  /** The contact's staff user is bound to a digital staff. */
  staffBound: boolean;
  /** That digital staff is enabled (ignored when not bound). */
  staffEnabled: boolean;
  /** The digital staff is in service time now (ignored when not bound). */
  inService: boolean;
  /** A keyword/regex human-intervention rule matched the message. */
  intervention: { reasons: readonly string[] } | null;
  /** The staff user's platform userid (for the reasons). */
  workChatUserId?: string;
}

/** What to do with the message: one of the pipeline's steps b–d, or nothing (with the reason). */
export type InboundAction =
  | { kind: 'intervene'; reason: string }
  | { kind: 'reply' }
  | { kind: 'out_of_hours' }
  | { kind: 'skip'; reason: string };

/**
 * Decides the pipeline step for a newly stored inbound message, in this order: a matching human-intervention rule
 * wins (AI off, to-do, no reply) even when the AI is already off; then the contact's AI switch; then the digital
 * staff binding and its enabled flag; then service time (out of service → the out-of-hours message); else a reply.
 */
export function decideInboundAction(facts: InboundFacts): InboundAction {
  if (facts.intervention) return { kind: 'intervene', reason: interventionReason(facts.intervention.reasons) };
  if (!facts.aiEnabled) return { kind: 'skip', reason: 'AI replies are switched off for this contact.' };
  const who = facts.workChatUserId ? `"${facts.workChatUserId}"` : 'of this contact';
  if (!facts.staffBound) return { kind: 'skip', reason: `The staff user ${who} is bound to no digital staff, so no one replies; bind a digital staff to the staff user.` };
  if (!facts.staffEnabled) return { kind: 'skip', reason: `The digital staff bound to staff user ${who} is disabled.` };
  if (!facts.inService) return { kind: 'out_of_hours' };
  return { kind: 'reply' };
}

/** The readable reason recorded for an intervention: the matching rules' reasons, each once. */
export function interventionReason(reasons: readonly string[]): string {
  const unique = [...new Set(reasons.map((reason) => reason.trim()).filter(Boolean))];
  return unique.length === 0 ? 'A human-intervention rule matched the message.' : unique.join('; ');
}

/** The outcome of one inbound message, as ChatInboundPipeline.waitForOutcome returns it (pipeline contract). */
export type ReplyOutcome =
  | { status: 'replied'; messageId: string; text: string }
  | { status: 'out_of_hours'; messageId: string | null; text: string | null }
  | { status: 'intervened'; reason: string }
  | { status: 'skipped'; reason: string }
  | { status: 'failed'; reason: string };

/** What {@link toReplyOutcome} reads of a reply-state row (and its reply message's text). */
export interface ReplyStateView {
  status: AiReplyStatus;
  replyMessageId: string | null;
  reason: string | null;
  /** The content of the reply message (`replyMessageId`), when there is one. */
  replyText: string | null;
}

/**
 * Maps a reply-state row to its outcome: `sent` → replied (message id and text), `out_of_hours` → out_of_hours
 * (message null when none was sent: already sent in this window, or no message configured), `intervened`,
 * `skipped` and `failed` with their reason; null while the row is still open (`queued`, `composing`).
 */
export function toReplyOutcome(row: ReplyStateView): ReplyOutcome | null {
  switch (row.status) {
    case 'queued':
    case 'composing':
      return null;
    case 'sent':
      return { status: 'replied', messageId: row.replyMessageId ?? '', text: row.replyText ?? '' };
    case 'out_of_hours':
      return { status: 'out_of_hours', messageId: row.replyMessageId, text: row.replyMessageId ? (row.replyText ?? '') : null };
    case 'intervened':
      return { status: 'intervened', reason: row.reason ?? 'A human-intervention rule matched.' };
    case 'skipped':
      return { status: 'skipped', reason: row.reason ?? 'No reply.' };
    case 'failed':
      return { status: 'failed', reason: row.reason ?? 'The reply failed.' };
  }
}

/**
 * After a failed compose attempt: `retry` after `delayMs` (exponential backoff: `baseDelayMs × 2^(attempt-1)`,
 * capped at `maxDelayMs`) while attempts remain and the failure is retryable; `fail` otherwise.
 * @param attempt the attempt that just failed, 1-based
 * @param maxAttempts attempts allowed in total (CHAT_AI_REPLY_ATTEMPTS)
 * @param baseDelayMs delay before the second attempt, ms (CHAT_AI_REPLY_RETRY_DELAY_MS)
 */
export function nextAttempt(attempt: number, options: { maxAttempts: number; baseDelayMs: number; retryable: boolean; maxDelayMs?: number }): { kind: 'retry'; delayMs: number } | { kind: 'fail' } {
  if (!options.retryable || attempt >= options.maxAttempts) return { kind: 'fail' };
  const delayMs = Math.min(options.baseDelayMs * 2 ** Math.max(0, attempt - 1), options.maxDelayMs ?? 10 * 60_000);
  return { kind: 'retry', delayMs };
}
