import { defineJob } from '../../jobs/job-definition';

/**
 * Composes and sends the AI reply to one inbound customer message (chat_message.id); see AiReplyWorker. The job
 * only points at the reply-state row (chat_ai_reply), which decides whether there is anything left to do, so a
 * duplicate or late job is harmless.
 */
export const AI_REPLY = defineJob<{ tenantId: string; inboundMessageId: string }>('chat.ai-reply');
