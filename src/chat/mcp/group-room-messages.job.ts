import { defineJob } from '../../jobs/job-definition';

/** Delivers one outbound group-room message (chat_message.id whose contact is a group room); see GroupRoomMessages. */
export const DELIVER_GROUP_ROOM_MESSAGE = defineJob<{ tenantId: string; messageId: string }>('chat.group-message-deliver');
