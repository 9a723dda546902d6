import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { ExternalContactTagDto } from '../contacts/external-contacts.dto';
import type { ChatContactsMessageDto } from '../messages/chat-messages.dto';

/**
 * Request and response shapes of the tool-style endpoints (chat-management-api.md, "Tool-style endpoints":
 * SendMessageRequest, SendGroupMessageRequest, SendMessageResponse, AddCustomerTagRequest,
 * DeleteCustomerTagRequest; their fields are "not shown" in the spec and designed here). The MCP tools take the
 * same fields (chat-tools.schemas.ts mirrors these classes; a unit test keeps the two in step).
 */

/** Platform ids (staff userid, customer external userid): 1..64 characters without spaces. */
export const TOOL_PLATFORM_ID = /^\S{1,64}$/;
/** Platform corp tag ids (as keyword tag rules take them). */
export const TOOL_TAG_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Tag and tag-group names: 1..64 characters, not blank at either end. */
export const TOOL_TAG_NAME = /^\S(.{0,62}\S)?$/u;
/** Hard cap of a text's length in the request (characters); the configured CHAT_MESSAGE_MAX_TEXT_CHARS applies below it. */
export const TOOL_TEXT_HARD_MAX_CHARS = 64 * 1024;
/** Hard cap of tag ids and of tag names in one request; the configured CHAT_MCP_MAX_TAGS applies below it. */
export const TOOL_TAGS_HARD_MAX = 200;
/** Something that is not only white space. */
export const NOT_BLANK = /\S/;

const ID_MESSAGE = (field: string) => `${field} must be 1..64 characters without spaces`;

/** The text and reply fields shared by both sends. */
export class ToolTextFields {
  @ApiProperty({
    description: 'The text to send, as it will appear to the customer. Not blank; at most CHAT_MESSAGE_MAX_TEXT_CHARS characters (default 4000; the console send has the same limit).',
    maxLength: TOOL_TEXT_HARD_MAX_CHARS,
    example: 'Hi Lily, your order ships tomorrow.',
  })
  @IsString() @MaxLength(TOOL_TEXT_HARD_MAX_CHARS) @Matches(NOT_BLANK, { message: 'content must not be blank' })
  content: string;

  @ApiPropertyOptional({ description: 'Id (uuid) of an earlier message of the same conversation to quote (a `messageId` or a console message id).', format: 'uuid' })
  @IsOptional() @IsUUID()
  quoteChatMsgId?: string;

  @ApiPropertyOptional({ description: 'The calling agent\'s conversation id, stored with the message (for tracing agent runs).', maxLength: 128, example: 'run-2024-0001' })
  @IsOptional() @IsString() @MaxLength(128)
  agentChatId?: string;
}

/**
 * Body of `POST {T}/mcp/chat/contact/message/send` (SendMessageRequest): a text from the digital staff to one
 * contact. The contact is named by `contactId`, or by `workChatUserId` + `externalUserId`.
 */
export class SendMessageRequest extends ToolTextFields {
  @ApiPropertyOptional({ description: 'Atrium contact id (uuid): the relation of one customer with one staff member (`contactId` of the console paths). Give this, or `workChatUserId` + `externalUserId`.', format: 'uuid' })
  @IsOptional() @IsUUID()
  contactId?: string;

  @ApiPropertyOptional({ description: 'The staff member\'s platform userid: who the message is sent as. Required with `externalUserId`; with `contactId` it must be the contact\'s staff member (404 otherwise).', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(TOOL_PLATFORM_ID, { message: ID_MESSAGE('workChatUserId') })
  workChatUserId?: string;

  @ApiPropertyOptional({ description: 'The customer\'s platform id (`external_userid`); needs `workChatUserId`.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(TOOL_PLATFORM_ID, { message: ID_MESSAGE('externalUserId') })
  externalUserId?: string;
}

/** Body of `POST {T}/mcp/chat/contact/message/send-group` (SendGroupMessageRequest): a text into a customer group chat. */
export class SendGroupMessageRequest extends ToolTextFields {
  @ApiProperty({ description: 'The group room id (uuid, the `contactId` of the console room paths `{C}/workChat/{workChatUserId}/contact/room/{contactId}/...`; rooms come from guide syncGroup).', format: 'uuid' })
  @IsUUID()
  roomId: string;

  @ApiPropertyOptional({ description: 'The staff member who sends (platform userid): the room\'s owner or one of its staff members (404 otherwise). Default: the room\'s owner.', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(TOOL_PLATFORM_ID, { message: ID_MESSAGE('workChatUserId') })
  workChatUserId?: string;
}

/** SendMessageResponse: the stored message; delivery to the platform follows in the background. */
export class SendMessageResponse {
  @ApiProperty({ description: 'Id of the stored message (chatMsgId); it shows in the conversation history like a console send.', format: 'uuid' })
  messageId: string;

  @ApiProperty({ enum: ['single', 'group'], description: '`single`: to one contact; `group`: into a group room.' })
  chatType: 'single' | 'group';

  @ApiProperty({ description: 'The contact id (single) or the group room id (group).', format: 'uuid' })
  contactId: string;

  @ApiProperty({ description: 'Atrium corp id.', format: 'uuid' })
  corpId: string;

  @ApiProperty({ description: 'The staff member the message is sent as (platform userid).', example: 'zhangsan' })
  workChatUserId: string;

  @ApiProperty({ enum: ['ai'], description: 'Who wrote it: always `ai` — a tool call is the digital staff acting (the console send records `staff`).' })
  sender: string;

  @ApiProperty({ enum: ['text'] })
  msgType: string;

  @ApiProperty({ description: 'The text as stored and sent.' })
  content: string;

  @ApiProperty({ enum: ['pending', 'sent', 'failed'], description: '`pending` on return: a durable job delivers it through the chat platform, then it becomes `sent` (with `platformMsgId`, `sentAt`) or `failed` (with `failureReason`).' })
  status: string;

  @ApiProperty({ nullable: true, type: String, description: 'The platform\'s message id once sent.' })
  platformMsgId: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'Why delivery failed, when failed.' })
  failureReason: string | null;

  @ApiProperty({ description: 'When it was stored (ISO 8601).', format: 'date-time' })
  createdAt: string;

  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'When the platform accepted it, once sent.' })
  sentAt: string | null;
}

/** Maps a stored message to the tool response. */
export function toSendMessageResponse(message: ChatContactsMessageDto, chatType: 'single' | 'group'): SendMessageResponse {
  return {
    messageId: message.id,
    chatType,
    contactId: message.contactId,
    corpId: message.corpId,
    workChatUserId: message.workChatUserId,
    sender: message.sender,
    msgType: message.msgType,
    content: message.content ?? '',
    status: message.status,
    platformMsgId: message.platformMsgId,
    failureReason: message.failureReason,
    createdAt: message.createdAt,
    sentAt: message.sentAt,
  };
}

/** The fields of both tag requests: which contact, which tags. */
export class CustomerTagFields {
  @ApiPropertyOptional({ description: 'Atrium contact id (uuid). Give this, or `workChatUserId` + `externalUserId`. Tags are per contact: each staff member keeps their own tags of a customer.', format: 'uuid' })
  @IsOptional() @IsUUID()
  contactId?: string;

  @ApiPropertyOptional({ description: 'The staff member\'s platform userid. Required with `externalUserId`; with `contactId` it must be the contact\'s staff member.', example: 'zhangsan' })
  @IsOptional() @IsString() @Matches(TOOL_PLATFORM_ID, { message: ID_MESSAGE('workChatUserId') })
  workChatUserId?: string;

  @ApiPropertyOptional({ description: 'The customer\'s platform id (`external_userid`); needs `workChatUserId`.', example: 'wmXXXXXXXXXXXXXXXX' })
  @IsOptional() @IsString() @Matches(TOOL_PLATFORM_ID, { message: ID_MESSAGE('externalUserId') })
  externalUserId?: string;

  @ApiPropertyOptional({ description: 'The platform\'s corp tag ids. With `tagNames`: at least one tag in all, at most CHAT_MCP_MAX_TAGS (default 20).', type: [String], example: ['etXXXXXXXXXXXXXXXX'] })
  @IsOptional() @IsArray() @ArrayMaxSize(TOOL_TAGS_HARD_MAX) @IsString({ each: true }) @Matches(TOOL_TAG_ID, { each: true, message: 'each tag id must be 1..64 letters, digits, "_" or "-"' })
  tagIds?: string[];

  @ApiPropertyOptional({ description: 'Tag names (exact, case-sensitive), 1..64 characters each.', type: [String], example: ['VIP'] })
  @IsOptional() @IsArray() @ArrayMaxSize(TOOL_TAGS_HARD_MAX) @IsString({ each: true }) @Matches(TOOL_TAG_NAME, { each: true, message: 'each tag name must be 1..64 characters without leading or trailing spaces' })
  tagNames?: string[];

  @ApiPropertyOptional({ description: 'Only match `tagNames` within the tag group of this name (for names used in several groups).', example: 'Level' })
  @IsOptional() @IsString() @Matches(TOOL_TAG_NAME, { message: 'groupName must be 1..64 characters without leading or trailing spaces' })
  groupName?: string;
}

/**
 * Body of `POST {T}/mcp/chat/contact/customer/tag/add` (AddCustomerTagRequest): marks corp tags of the corp's tag
 * library on the contact. Ids and names must exist in the library (400 naming the unknown ones; a name in several
 * groups needs `groupName`). Tags the contact already has are left alone: adding again changes nothing.
 */
export class AddCustomerTagRequest extends CustomerTagFields {}

/**
 * Body of `POST {T}/mcp/chat/contact/customer/tag/delete` (DeleteCustomerTagRequest): removes tags the contact holds:
 * corp tags by id or name (unmarked on the platform), personal tags by name. Tags the contact does not hold are
 * ignored: deleting again changes nothing.
 */
export class DeleteCustomerTagRequest extends CustomerTagFields {}

/**
 * What a tag change did (the MCP tools' structured result; the REST endpoints answer 200 without a body, as the
 * spec's "-" says).
 */
export class CustomerTagsResultDto {
  @ApiProperty({ description: 'The contact whose tags were changed.', format: 'uuid' })
  contactId: string;

  @ApiProperty({ description: 'False when the contact already was as asked (nothing sent to the platform).' })
  changed: boolean;

  @ApiProperty({ description: 'Corp tag ids marked on the platform by this call.', type: [String] })
  addedTagIds: string[];

  @ApiProperty({ description: 'Tags removed by this call.', type: [ExternalContactTagDto] })
  removed: ExternalContactTagDto[];

  @ApiProperty({ description: 'The contact\'s tags now.', type: [ExternalContactTagDto] })
  tags: ExternalContactTagDto[];
}
