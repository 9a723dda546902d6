import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { MESSAGE_DIRECTIONS, MESSAGE_SENDERS, MESSAGE_STATUSES, MESSAGE_TYPES, type ChatMessageEntity } from './chat-message.entity';
import type { MessageCommentEntity } from './message-comment.entity';

/**
 * The text fields of the message-send multipart body (chat-management-api.md, message-send multipart fields); the
 * attachment comes as `file`. `request` is read by parseSendRequest (message-send.rules.ts).
 */
export class SendChatContactMessageFieldsDto {
  @ApiProperty({ description: 'JSON text: `{"msgType":"text|image|video|file|emotion","msgBody":{"content":"…"},"quoteChatMsgId":"…"}`; `msgBody.content` only for text.', example: '{"msgType":"text","msgBody":{"content":"Hello"}}' })
  @IsString()
  @MaxLength(64 * 1024)
  request: string;

  @ApiPropertyOptional({ description: 'The AI-suggested content the operator started from (marks the message as AI-assisted, so it can be reviewed).', maxLength: 16000 })
  @IsOptional()
  @IsString()
  @MaxLength(16000)
  originalAiContent?: string;

  @ApiPropertyOptional({ description: 'Agent conversation id.', maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  agentChatId?: string;

  @ApiPropertyOptional({ description: 'Conversation type as the client names it.', maxLength: 32, example: 'single' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  contactType?: string;
}

/** OpenAPI schema of the multipart body. */
export const SEND_MESSAGE_MULTIPART_SCHEMA = {
  type: 'object',
  required: ['request'],
  properties: {
    request: { type: 'string', description: 'JSON text with `msgType` (text, image, video, file, emotion), `msgBody.content` for text, optional `quoteChatMsgId`.', example: '{"msgType":"text","msgBody":{"content":"Hello"}}' },
    originalAiContent: { type: 'string', description: 'Original AI-suggested content.' },
    agentChatId: { type: 'string', description: 'Agent conversation id.' },
    contactType: { type: 'string', description: 'Conversation type.' },
    file: { type: 'string', format: 'binary', description: 'The attachment: required for image, video, file and emotion (GIF), refused for text.' },
  },
};

/** An attachment's facts (the bytes stay in the file storage). */
export class MessageAttachmentDto {
  @ApiProperty({ description: 'File name as uploaded (display only).', example: 'menu.png' })
  fileName: string;

  @ApiProperty({ description: 'Content type decided from the bytes.', example: 'image/png' })
  contentType: string;

  @ApiProperty({ description: 'Size, bytes.', example: 1024 })
  sizeBytes: number;

  @ApiProperty({ description: 'SHA-256 of the content, lowercase hex.' })
  sha256: string;
}

/** A message between a staff member (or the digital staff) and a contact (chat-management-api.md, ChatContactsMessageDto). */
export class ChatContactsMessageDto {
  @ApiProperty({ description: 'Message id (chatMsgId).', format: 'uuid' })
  id: string;

  @ApiProperty({ description: 'Atrium corp id.', format: 'uuid' })
  corpId: string;

  @ApiProperty({ description: 'External contact id (contactId).', format: 'uuid' })
  contactId: string;

  @ApiProperty({ description: 'Staff member\'s platform userid.', example: 'zhangsan' })
  workChatUserId: string;

  @ApiProperty({ enum: MESSAGE_DIRECTIONS, description: '`in` from the customer, `out` to the customer.' })
  direction: string;

  @ApiProperty({ enum: MESSAGE_SENDERS, description: 'Who wrote it: customer, staff (console) or ai (digital staff).' })
  sender: string;

  @ApiProperty({ enum: MESSAGE_TYPES })
  msgType: string;

  @ApiProperty({ nullable: true, type: String, description: 'Text of a text message; null for attachments.' })
  content: string | null;

  @ApiProperty({ nullable: true, type: MessageAttachmentDto, description: 'The attachment, or null.' })
  attachment: MessageAttachmentDto | null;

  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'Quoted message id.' })
  quoteChatMsgId: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'What the AI suggested originally.' })
  originalAiContent: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'Agent conversation id.' })
  agentChatId: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'Conversation type.' })
  contactType: string | null;

  @ApiProperty({ enum: MESSAGE_STATUSES, description: 'Outbound: pending → sent | failed (delivery is a durable job; poll or read the history). Inbound: received.' })
  status: string;

  @ApiProperty({ nullable: true, type: String, description: 'The platform\'s message id once sent or received.' })
  platformMsgId: string | null;

  @ApiProperty({ nullable: true, type: String, description: 'Why delivery failed (the platform\'s reason), when failed.' })
  failureReason: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'When the platform accepted (outbound) or sent (inbound) it.' })
  sentAt: string | null;
}

/** Maps a message row to its DTO (never the storage key). */
export function toChatContactsMessageDto(row: ChatMessageEntity): ChatContactsMessageDto {
  return {
    id: row.id,
    corpId: row.corpId,
    contactId: row.contactId,
    workChatUserId: row.workChatUserId,
    direction: row.direction,
    sender: row.sender,
    msgType: row.msgType,
    content: row.content,
    attachment: row.attachmentKey
      ? { fileName: row.attachmentFileName ?? '', contentType: row.attachmentContentType ?? 'application/octet-stream', sizeBytes: Number(row.attachmentSizeBytes ?? 0), sha256: row.attachmentSha256 ?? '' }
      : null,
    quoteChatMsgId: row.quoteMessageId,
    originalAiContent: row.originalAiContent,
    agentChatId: row.agentChatId,
    contactType: row.contactType,
    status: row.status,
    platformMsgId: row.platformMsgId,
    failureReason: row.failureReason,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt ? row.sentAt.toISOString() : null,
  };
}

/** An operator's review of an AI message (chat-management-api.md, MessageCommentRequest). At least one field. */
export class MessageCommentRequest {
  @ApiPropertyOptional({ description: 'Rating 1 (bad) .. 5 (excellent).', minimum: 1, maximum: 5, example: 4 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(5)
  rating?: number;

  @ApiPropertyOptional({ description: 'Review text.', maxLength: 4000, example: 'Correct, but too formal.' })
  @IsOptional()
  @IsString()
  @MaxLength(4000)
  content?: string;

  @ApiPropertyOptional({ type: [String], description: 'Review tags, up to 20 of 1..50 characters.', example: ['tone'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MinLength(1, { each: true })
  @MaxLength(50, { each: true })
  tags?: string[];
}

/** A review comment (chat-management-api.md, MessageCommentDto). One per message and reviewer. */
export class MessageCommentDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'uuid', description: 'The reviewed message.' })
  messageId: string;

  @ApiProperty({ description: 'Who reviewed (the access token\'s subject).' })
  reviewer: string;

  @ApiProperty({ nullable: true, type: Number, minimum: 1, maximum: 5 })
  rating: number | null;

  @ApiProperty({ nullable: true, type: String })
  content: string | null;

  @ApiProperty({ type: [String] })
  tags: string[];

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ format: 'date-time' })
  updatedAt: string;
}

/** Maps a comment row to its DTO. */
export function toMessageCommentDto(row: MessageCommentEntity): MessageCommentDto {
  return { id: row.id, messageId: row.messageId, reviewer: row.reviewer, rating: row.rating, content: row.content, tags: row.tags, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
