import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { toBoolean } from '../conversation-groups/conversation-group.dto';
import { allowedActions, CONVERSATION_ACTIONS, CONVERSATION_STATUSES, type ConversationAction, type ConversationStatus } from './conversation-state.rules';
import { UserConversationEntity } from './user-conversation.entity';

/** Body of `POST {C}/userConversations` (not in the spec; the create a user needs). */
export class CreateUserConversationRequest {
  @ApiProperty({ description: 'The customer: id of an external contact of the tenant (ChatContactsExternalDto id, the spec\'s contactId). At most one open (pending or active) conversation per contact.', format: 'uuid' })
  @IsUUID()
  contactId: string;

  @ApiProperty({ description: 'The conversation group whose configuration applies (UserConversationGroupDTO.id); it must be enabled.', format: 'uuid' })
  @IsUUID()
  conversationGroupId: string;

  @ApiPropertyOptional({ description: 'The digital staff answering (ChatStaffDto.id). Default: the digital staff bound to the staff user the contact is added to.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'What the conversation is about.', maxLength: 200, example: 'Refund for order 1042' })
  @IsOptional() @IsString() @MaxLength(200)
  subject?: string;

  @ApiPropertyOptional({ description: 'Operator\'s note.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  remark?: string;

  @ApiPropertyOptional({ description: 'Create it `active` at once instead of `pending`.', default: false })
  @IsOptional() @IsBoolean()
  activate?: boolean;
}

/**
 * Body of `PUT {C}/userConversations/{id}` (chat-management-api.md: UpdateUserConversationRequest): the fields to
 * change; omitted fields keep their value, "" clears subject and remark. The status changes only through `activate`
 * and `terminate`. Only open (pending, active) conversations can be changed.
 */
export class UpdateUserConversationRequest {
  @ApiPropertyOptional({ description: 'Move the conversation to another (enabled) conversation group of the tenant.', format: 'uuid' })
  @IsOptional() @IsUUID()
  conversationGroupId?: string;

  @ApiPropertyOptional({ description: 'Hand the conversation to another digital staff of the tenant.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'What the conversation is about; "" clears it.', maxLength: 200 })
  @IsOptional() @IsString() @MaxLength(200)
  subject?: string;

  @ApiPropertyOptional({ description: 'Operator\'s note; "" clears it.', maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  remark?: string;
}

/** Sort fields of the conversation list. */
export const USER_CONVERSATION_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', activatedAt: 'activatedAt', terminatedAt: 'terminatedAt' } as const;

/** Query of `GET {C}/userConversations`. */
export class UserConversationPageQuery extends PageBoundsQueryDto {
  @SortParam(USER_CONVERSATION_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only conversations of this contact.', format: 'uuid' })
  @IsOptional() @IsUUID()
  contactId?: string;

  @ApiPropertyOptional({ description: 'Only conversations in this state.', enum: CONVERSATION_STATUSES })
  @IsOptional() @IsIn(CONVERSATION_STATUSES)
  status?: ConversationStatus;

  @ApiPropertyOptional({ description: 'Only conversations of this conversation group.', format: 'uuid' })
  @IsOptional() @IsUUID()
  conversationGroupId?: string;

  @ApiPropertyOptional({ description: 'Only conversations answered by this digital staff.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;

  @ApiPropertyOptional({ description: 'true: only open (pending or active) conversations; false: only terminated ones.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  open?: boolean;
}

/** A conversation as returned (chat-management-api.md: UserConversationDTO). */
export class UserConversationDTO {
  @ApiProperty({ description: 'Id of the conversation (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'The customer (external contact id).', format: 'uuid' }) contactId: string;
  @ApiProperty({ description: 'The digital staff answering.', format: 'uuid' }) digitalStaffId: string;
  @ApiProperty({ description: 'The conversation group whose configuration applies.', format: 'uuid' }) conversationGroupId: string;
  @ApiProperty({ description: 'pending → active → terminated (final). A contact has at most one open (pending or active) conversation.', enum: CONVERSATION_STATUSES }) status: ConversationStatus;
  @ApiProperty({ description: 'The state changes allowed now (empty once terminated).', enum: CONVERSATION_ACTIONS, isArray: true, example: ['terminate'] }) allowedActions: ConversationAction[];
  @ApiProperty({ description: 'What it is about, or null.', type: String, nullable: true }) subject: string | null;
  @ApiProperty({ description: 'Operator\'s note, or null.', type: String, nullable: true }) remark: string | null;
  @ApiProperty({ description: 'When it became active (ISO 8601), or null while pending.', type: String, format: 'date-time', nullable: true }) activatedAt: string | null;
  @ApiProperty({ description: 'When it was terminated (ISO 8601), or null.', type: String, format: 'date-time', nullable: true }) terminatedAt: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response. */
export function toUserConversationDto(row: UserConversationEntity): UserConversationDTO {
  return {
    id: row.id,
    tenantId: row.tenantId,
    contactId: row.contactId,
    digitalStaffId: row.digitalStaffId,
    conversationGroupId: row.conversationGroupId,
    status: row.status,
    allowedActions: allowedActions(row.status),
    subject: row.subject,
    remark: row.remark,
    activatedAt: row.activatedAt?.toISOString() ?? null,
    terminatedAt: row.terminatedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
