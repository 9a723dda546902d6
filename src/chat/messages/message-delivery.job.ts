import { defineJob } from '../../jobs/job-definition';

/** Delivers one outbound chat message (chat_message.id) through the platform port; see MessageDelivery. */
export const DELIVER_CHAT_MESSAGE = defineJob<{ tenantId: string; messageId: string }>('chat.message-deliver');
