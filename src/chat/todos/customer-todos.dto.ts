import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { CUSTOMER_TODO_STATUSES, CustomerTodoEntity, CustomerTodoStatus } from './customer-todo.entity';

/** Longest operator note on a processed to-do, characters. */
export const TODO_NOTE_MAX_CHARS = 2000;

/**
 * Body of `POST {T}/v1/chat/digitalStaff/customer/todo/process` (chat-management-api.md: ProcessTodoRequest, "manual
 * handling of a digital staff customer to-do"; the spec names the schema only, this is its design): the operator has
 * looked at the customer, closes the to-do, and may switch the contact's AI replies back on.
 */
export class ProcessTodoRequest {
  @ApiProperty({ description: 'The to-do to close (CustomerTodoDto id).', format: 'uuid' })
  @IsUUID()
  todoId: string;

  @ApiPropertyOptional({ description: 'Switch the contact\'s AI replies back on, in the same transaction as closing the to-do. Default false (the AI stays as it is).', default: false })
  @IsOptional() @IsBoolean()
  enableAi?: boolean;

  @ApiPropertyOptional({ description: 'What the operator did or decided.', maxLength: TODO_NOTE_MAX_CHARS, example: 'Called the customer; refund issued.' })
  @IsOptional() @IsString() @MaxLength(TODO_NOTE_MAX_CHARS)
  note?: string;
}

/** A digital-staff customer to-do as returned. */
export class CustomerTodoDto {
  @ApiProperty({ description: 'Id of the to-do (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'The customer (ChatContactsExternalDto id).', format: 'uuid' }) contactId: string;
  @ApiProperty({ description: 'The digital staff answering the contact when it was opened, or null.', type: String, format: 'uuid', nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'The human-intervention rule that opened it, or null.', type: String, format: 'uuid', nullable: true }) ruleId: string | null;
  @ApiProperty({ description: 'The inbound message that caused it (ChatContactsMessageDto id), or null.', type: String, format: 'uuid', nullable: true }) sourceMessageId: string | null;
  @ApiProperty({ description: 'Why a person must look at the customer.', example: 'Customer asked for a human' }) reason: string;
  @ApiProperty({ description: '`open` until an operator processes it.', enum: CUSTOMER_TODO_STATUSES }) status: CustomerTodoStatus;
  @ApiProperty({ description: 'Who processed it (the access token\'s subject), or null while open.', type: String, nullable: true }) processedBy: string | null;
  @ApiProperty({ description: 'When it was processed (ISO 8601), or null while open.', type: String, format: 'date-time', nullable: true }) processedAt: string | null;
  @ApiProperty({ description: 'The operator\'s note, or null.', type: String, nullable: true }) note: string | null;
  @ApiProperty({ description: 'Whether processing switched the contact\'s AI replies back on.' }) aiReEnabled: boolean;
  @ApiProperty({ description: 'Opened (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Sort fields of the to-do list. */
export const CUSTOMER_TODO_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', processedAt: 'processedAt' } as const;

/** Query of `GET {T}/v1/chat/digitalStaff/customer/todo`. */
export class CustomerTodoPageQuery extends PageBoundsQueryDto {
  @SortParam(CUSTOMER_TODO_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only to-dos in this state. Sort fields: createdAt, updatedAt, processedAt (default createdAt,desc).', enum: CUSTOMER_TODO_STATUSES })
  @IsOptional() @IsIn(CUSTOMER_TODO_STATUSES)
  status?: CustomerTodoStatus;

  @ApiPropertyOptional({ description: 'Only to-dos of this contact.', format: 'uuid' })
  @IsOptional() @IsUUID()
  contactId?: string;

  @ApiPropertyOptional({ description: 'Only to-dos of this digital staff.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;
}

/** Maps a row to its response. */
export function toCustomerTodoDto(row: CustomerTodoEntity): CustomerTodoDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    contactId: row.contactId,
    digitalStaffId: row.digitalStaffId,
    ruleId: row.ruleId,
    sourceMessageId: row.sourceMessageId,
    reason: row.reason,
    status: row.status,
    processedBy: row.processedBy,
    processedAt: row.processedAt ? row.processedAt.toISOString() : null,
    note: row.note,
    aiReEnabled: row.aiReEnabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
