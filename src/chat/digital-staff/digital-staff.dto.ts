import { ApiProperty, ApiPropertyOptional, PartialType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMinSize, IsArray, IsBoolean, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { DigitalStaffEntity } from './digital-staff.entity';

/** Longest persona (system prompt), characters. */
export const PERSONA_MAX_CHARS = 20_000;
/** Longest welcome or out-of-hours message, characters. */
export const MESSAGE_MAX_CHARS = 2_000;
/** A platform userid (WeCom: 1..64 letters, digits, `_`, `-`, `.`, `@`). */
export const WORK_CHAT_USER_ID_PATTERN = /^[A-Za-z0-9_.@-]{1,64}$/;

/** `true`/`false` query strings (and real booleans) to booleans; anything else is left for @IsBoolean to refuse. */
export const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** Body of `POST {T}/v1/chat/staff` (chat-management-api.md: ChatStaffCreateRequestV1). */
export class ChatStaffCreateRequestV1 {
  @ApiProperty({ description: 'Name of the digital staff as customers and operators see it; unique within the tenant.', maxLength: 100, example: 'Ava (after-sales)' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiProperty({
    description: 'Persona: the system prompt of its replies (who it is, its tone, what it may and may not promise).',
    maxLength: PERSONA_MAX_CHARS,
    example: 'You are Ava, the after-sales assistant of Acme Retail. Answer briefly and politely; never promise refunds, hand those to a person.',
  })
  @IsString() @IsNotEmpty() @MaxLength(PERSONA_MAX_CHARS)
  persona: string;

  @ApiPropertyOptional({ description: 'Operator\'s description.', maxLength: 500, example: 'Answers after-sales questions for the retail corp.' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({ description: 'First message sent to a customer who adds a bound staff user; none when omitted or "".', maxLength: MESSAGE_MAX_CHARS, example: 'Hi, I am Ava. How can I help?' })
  @IsOptional() @IsString() @MaxLength(MESSAGE_MAX_CHARS)
  welcomeMessage?: string;

  @ApiPropertyOptional({ description: 'A disabled digital staff keeps its bindings and service time but does not reply.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Body of `PUT {T}/v1/chat/staff/{id}`: the fields to change; omitted fields keep their value ("" clears description and welcomeMessage). */
export class ChatStaffUpdateRequestV1 extends PartialType(ChatStaffCreateRequestV1) {}

/** Sort fields of the digital staff list (`sort=field,asc|desc`). */
export const CHAT_STAFF_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {T}/v1/chat/staff`. */
export class ChatStaffPageQueryV1 extends PageBoundsQueryDto {
  @SortParam(CHAT_STAFF_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only digital staff whose name contains this text (case-insensitive).', maxLength: 100, example: 'Ava' })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;

  @ApiPropertyOptional({ description: 'Only enabled (true) or disabled (false) digital staff.', type: Boolean })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  enabled?: boolean;
}

/** Body of `POST {T}/v1/chat/staff/bind` (chat-management-api.md: ChatStaffBindRequestV1). */
export class ChatStaffBindRequestV1 {
  @ApiProperty({ description: 'Id of the digital staff to bind (ChatStaffDto.id).', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' })
  @IsUUID()
  staffId: string;

  @ApiProperty({ description: 'Name of the tenant\'s corp the staff users belong to (WorkChatCorpRelateDto.corpName).', maxLength: 100, example: 'Acme Retail Ltd' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  corpName: string;

  @ApiProperty({
    description: 'Platform userids of the staff users to bind (WorkChatUserRelateDto.workChatUserId), at least one, at most CHAT_STAFF_MAX_IDS (default 200). A staff user bound to another digital staff is moved to this one.',
    type: [String],
    example: ['zhangsan', 'lisi'],
  })
  @IsArray() @ArrayMinSize(1) @IsString({ each: true }) @Matches(WORK_CHAT_USER_ID_PATTERN, { each: true, message: 'each workChatUserIds entry must be 1..64 letters, digits, "_", "-", "." or "@"' })
  workChatUserIds: string[];
}

/** A digital staff as returned (chat-management-api.md: ChatStaffDto). */
export class ChatStaffDto {
  @ApiProperty({ description: 'Id of the digital staff (UUID).', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique in the tenant).', example: 'Ava (after-sales)' }) name: string;
  @ApiProperty({ description: 'Persona: the system prompt of its replies.' }) persona: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'First message to a new customer, or null.', type: String, nullable: true }) welcomeMessage: string | null;
  @ApiProperty({ description: 'Whether it replies.' }) enabled: boolean;
  @ApiProperty({ description: 'Number of staff users bound to it.', example: 2 }) boundStaffUserCount: number;
  @ApiProperty({ description: 'Whether a service-time configuration exists (without one it is always in service).' }) hasServiceTime: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/**
 * Maps a row to its response.
 * @param boundStaffUserCount staff users bound to it
 * @param hasServiceTime whether its service-time configuration exists
 */
export function toChatStaffDto(row: DigitalStaffEntity, boundStaffUserCount: number, hasServiceTime: boolean): ChatStaffDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    persona: row.persona,
    description: row.description,
    welcomeMessage: row.welcomeMessage,
    enabled: row.enabled,
    boundStaffUserCount,
    hasServiceTime,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
