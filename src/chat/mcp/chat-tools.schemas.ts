import * as z from 'zod';
import { MESSAGE_STATUSES } from '../messages/chat-message.entity';
import { NOT_BLANK, TOOL_PLATFORM_ID, TOOL_TAG_ID, TOOL_TAG_NAME, TOOL_TAGS_HARD_MAX, TOOL_TEXT_HARD_MAX_CHARS } from './chat-tools.dto';

/**
 * Input and output schemas (zod 4) of the MCP tools (issue 6, "Tool-style endpoints": the same four operations
 * over the Model Context Protocol). They mirror the REST DTOs of chat-tools.dto.ts field by field, with the same
 * patterns and hard caps (chat-tools.schemas.spec.ts runs both on the same inputs); the cross-field rules and the
 * configured limits are the service's, so both surfaces share them. Objects are strict: unknown keys are refused,
 * as the REST ValidationPipe does (`forbidNonWhitelisted`).
 */

const platformId = (what: string) => z.string().regex(TOOL_PLATFORM_ID, `${what} must be 1..64 characters without spaces`);
const text = z.string().max(TOOL_TEXT_HARD_MAX_CHARS).regex(NOT_BLANK, 'content must not be blank');

const textFields = {
  content: text.describe('The text to send, as the customer will see it. Not blank; at most CHAT_MESSAGE_MAX_TEXT_CHARS characters (default 4000).'),
  quoteChatMsgId: z.guid().optional().describe('Id (uuid) of an earlier message of the same conversation to quote.'),
  agentChatId: z.string().max(128).optional().describe('Your conversation id, stored with the message for tracing.'),
};

const contactFields = {
  contactId: z.guid().optional().describe('Atrium contact id (uuid) of the customer-and-staff-member relation. Give this, or workChatUserId + externalUserId.'),
  workChatUserId: platformId('workChatUserId').optional().describe('The staff member\'s platform userid. Required with externalUserId; with contactId it must be the contact\'s staff member.'),
  externalUserId: platformId('externalUserId').optional().describe('The customer\'s platform id (external_userid); needs workChatUserId.'),
};

/** Input of `send_message` (SendMessageRequest). */
export const SEND_MESSAGE_INPUT = z.strictObject({ ...contactFields, ...textFields });

/** Input of `send_group_message` (SendGroupMessageRequest). */
export const SEND_GROUP_MESSAGE_INPUT = z.strictObject({
  roomId: z.guid().describe('The group room id (uuid), as listed by the console room paths (rooms come from guide syncGroup).'),
  workChatUserId: platformId('workChatUserId').optional().describe('The staff member who sends: the room\'s owner or one of its staff members. Default: the owner.'),
  ...textFields,
});

const tagFields = {
  ...contactFields,
  tagIds: z.array(z.string().regex(TOOL_TAG_ID, 'each tag id must be 1..64 letters, digits, "_" or "-"')).max(TOOL_TAGS_HARD_MAX).optional().describe('The platform\'s corp tag ids. With tagNames: at least one tag in all, at most CHAT_MCP_MAX_TAGS (default 20).'),
  tagNames: z.array(z.string().regex(TOOL_TAG_NAME, 'each tag name must be 1..64 characters without leading or trailing spaces')).max(TOOL_TAGS_HARD_MAX).optional().describe('Tag names (exact, case-sensitive).'),
  groupName: z.string().regex(TOOL_TAG_NAME, 'groupName must be 1..64 characters without leading or trailing spaces').optional().describe('Only match tagNames within the tag group of this name.'),
};

/** Input of `add_customer_tags` (AddCustomerTagRequest). */
export const ADD_CUSTOMER_TAGS_INPUT = z.strictObject(tagFields);

/** Input of `delete_customer_tags` (DeleteCustomerTagRequest). */
export const DELETE_CUSTOMER_TAGS_INPUT = z.strictObject(tagFields);

/** Structured result of both send tools (SendMessageResponse). */
export const SEND_MESSAGE_OUTPUT = z.object({
  messageId: z.string().describe('Id of the stored message.'),
  chatType: z.enum(['single', 'group']),
  contactId: z.string().describe('The contact id (single) or the group room id (group).'),
  corpId: z.string(),
  workChatUserId: z.string().describe('The staff member the message is sent as.'),
  sender: z.string().describe('Always "ai": the digital staff.'),
  msgType: z.string(),
  content: z.string(),
  status: z.enum(MESSAGE_STATUSES).describe('"pending" on return; delivery to the platform follows in the background.'),
  platformMsgId: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().nullable(),
});

const tag = z.object({
  tagId: z.string().optional(),
  tagName: z.string().optional(),
  groupId: z.string().optional(),
  groupName: z.string().optional(),
  type: z.number().describe('1 corp tag, 2 personal tag.'),
});

/** Structured result of both tag tools (CustomerTagsResultDto). */
export const CUSTOMER_TAGS_OUTPUT = z.object({
  contactId: z.string(),
  changed: z.boolean().describe('False when the contact already was as asked.'),
  addedTagIds: z.array(z.string()),
  removed: z.array(tag),
  tags: z.array(tag).describe('The contact\'s tags now.'),
});
