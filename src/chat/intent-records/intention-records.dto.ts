import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsNotEmpty, IsNumber, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { INTENTION_RECORD_SOURCES, INTENTION_RECORD_STATUSES, IntentionRecordEntity, IntentionRecordSource, IntentionRecordStatus } from './intention-record.entity';

/** Intent names: letters, digits, spaces, `_`, `.`, `:`, `-`, 1..100, not starting with a space. */
export const INTENT_NAME_PATTERN = /^[\p{L}\p{N}_.:-][\p{L}\p{N} _.:-]{0,99}$/u;
const INTENT_NAME_MESSAGE = 'intentName must be 1..100 letters, digits, spaces, "_", ".", ":" or "-"';

/**
 * Body of `POST {C}/customers/intentionRecord`: an operator records an intent by hand (the inbound pipeline records
 * detected intents through IntentionRecordsService.recordDetected).
 */
export class CreateCustomerIntentionRecord {
  @ApiProperty({ description: 'The contact (ChatContactsExternalDto id) whose message showed the intent; a contact of the tenant.', format: 'uuid' })
  @IsUUID()
  contactId: string;

  @ApiProperty({ description: 'The intent\'s name.', maxLength: 100, example: 'cancel_order' })
  @IsString() @Matches(INTENT_NAME_PATTERN, { message: INTENT_NAME_MESSAGE })
  intentName: string;

  @ApiPropertyOptional({ description: 'Confidence 0..1, when known.', minimum: 0, maximum: 1, example: 0.9 })
  @IsOptional() @Type(() => Number) @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1)
  confidence?: number;

  @ApiPropertyOptional({ description: 'Id of the message the intent was seen in; one record per (message, intent) — 409 otherwise.', maxLength: 64 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(64)
  messageId?: string;

  @ApiPropertyOptional({ description: 'Review status; default open.', enum: INTENTION_RECORD_STATUSES, default: 'open' })
  @IsOptional() @IsIn(INTENTION_RECORD_STATUSES)
  status?: IntentionRecordStatus;

  @ApiPropertyOptional({ description: 'Operator\'s note.', maxLength: 1000 })
  @IsOptional() @IsString() @MaxLength(1000)
  operatorNote?: string;
}

/**
 * Body of `PUT {C}/customers/intentionRecord/{id}` (chat-management-api.md: ModifyCustomerIntentionRecord): the
 * operator's review. Omitted fields keep their value; at least one is given.
 */
export class ModifyCustomerIntentionRecord {
  @ApiPropertyOptional({ description: 'Review status: confirm or reject the detected intent, or reopen it.', enum: INTENTION_RECORD_STATUSES, example: 'confirmed' })
  @IsOptional() @IsIn(INTENTION_RECORD_STATUSES)
  status?: IntentionRecordStatus;

  @ApiPropertyOptional({ description: 'Operator\'s note; null clears it.', type: String, nullable: true, maxLength: 1000, example: 'Customer confirmed by phone.' })
  @IsOptional() @IsString() @MaxLength(1000)
  operatorNote?: string | null;

  @ApiPropertyOptional({ description: 'Corrected intent name (the detector\'s was wrong).', maxLength: 100, example: 'refund_request' })
  @IsOptional() @IsString() @Matches(INTENT_NAME_PATTERN, { message: INTENT_NAME_MESSAGE })
  intentName?: string;
}

/** An intent record as returned (CustomerIntentionRecordDto). */
export class CustomerIntentionRecordDto {
  @ApiProperty({ description: 'Id of the record (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'The contact whose message showed the intent.', format: 'uuid' }) contactId: string;
  @ApiProperty({ description: 'The intent\'s name.', example: 'cancel_order' }) intentName: string;
  @ApiProperty({ description: 'Detector confidence 0..1, or null.', type: Number, nullable: true, example: 0.92 }) confidence: number | null;
  @ApiProperty({ description: 'Id of the message, or null.', type: String, nullable: true }) messageId: string | null;
  @ApiProperty({ description: 'Review status.', enum: INTENTION_RECORD_STATUSES }) status: IntentionRecordStatus;
  @ApiProperty({ description: 'Who recorded it: the inbound pipeline or an operator.', enum: INTENTION_RECORD_SOURCES }) source: IntentionRecordSource;
  @ApiProperty({ description: 'Operator\'s note, or null.', type: String, nullable: true }) operatorNote: string | null;
  @ApiProperty({ description: 'When the current verdict (confirmed / rejected) was given (ISO 8601), or null while open.', type: String, format: 'date-time', nullable: true }) reviewedAt: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Sort fields of the intent record list. */
export const INTENTION_RECORD_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', intentName: 'intentName', confidence: 'confidence' } as const;

/** Query of `GET {C}/customers/intentionRecord`. */
export class IntentionRecordPageQuery extends PageBoundsQueryDto {
  @SortParam(INTENTION_RECORD_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only records of this contact. Sort fields: createdAt, updatedAt, intentName, confidence (default createdAt,desc).', format: 'uuid' })
  @IsOptional() @IsUUID()
  contactId?: string;

  @ApiPropertyOptional({ description: 'Only records in this review status.', enum: INTENTION_RECORD_STATUSES })
  @IsOptional() @IsIn(INTENTION_RECORD_STATUSES)
  status?: IntentionRecordStatus;

  @ApiPropertyOptional({ description: 'Only records of this intent (exact name).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  intentName?: string;
}

/** Maps a row to its response. */
export function toCustomerIntentionRecordDto(row: IntentionRecordEntity): CustomerIntentionRecordDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    contactId: row.contactId,
    intentName: row.intentName,
    confidence: row.confidence,
    messageId: row.messageId,
    status: row.status,
    source: row.source,
    operatorNote: row.operatorNote,
    reviewedAt: row.reviewedAt ? row.reviewedAt.toISOString() : null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
