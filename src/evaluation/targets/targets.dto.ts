import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsInt, IsNumber, IsObject, IsOptional, IsString, IsUUID, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { TARGET_KINDS, TargetEntity, TargetKind } from './target.entity';

/** Largest `max_concurrency` a target may set. */
export const MAX_TARGET_CONCURRENCY = 100;

/** Settings of an `http` channel (like promptfoo's HTTP provider). */
export class HttpChannelDto {
  @ApiProperty({ description: 'Endpoint URL (http or https).', example: 'http://127.0.0.1:8080/chat' })
  @IsString() @MaxLength(2048)
  url: string;

  @ApiPropertyOptional({ description: 'HTTP method.', enum: ['POST', 'PUT'], default: 'POST' })
  @IsOptional() @IsIn(['POST', 'PUT'])
  method?: 'POST' | 'PUT';

  @ApiPropertyOptional({ description: 'Request headers. Write-only: values are never returned (only names). Omit on update to keep the stored ones.', type: 'object', additionalProperties: { type: 'string' }, writeOnly: true })
  @IsOptional() @IsObject()
  headers?: Record<string, string>;

  @ApiProperty({ description: 'JSON body template; strings may hold {{message}}, {{history}} (a string exactly "{{history}}" becomes the array of earlier turns) and {{session_id}}.', example: { message: '{{message}}', session: '{{session_id}}' } })
  @IsDefined()
  body_template: unknown;

  @ApiProperty({ description: 'JSONPath to the reply text in the JSON answer.', example: '$.reply' })
  @IsString() @MinLength(1) @MaxLength(500)
  reply_path: string;

  @ApiPropertyOptional({ description: 'Timeout per call in ms (default 30000).', minimum: 1, maximum: 600000 })
  @IsOptional() @IsInt() @Min(1) @Max(600_000)
  timeout_ms?: number;
}

/** Settings of an `openai` channel (an OpenAI-compatible /chat/completions endpoint). */
export class OpenAiChannelDto {
  @ApiProperty({ description: 'Base URL up to the version, e.g. http://127.0.0.1:8000/v1.' })
  @IsString() @MaxLength(2048)
  base_url: string;

  @ApiProperty({ description: 'Model name.' })
  @IsString() @MinLength(1) @MaxLength(200)
  model: string;

  @ApiPropertyOptional({ description: 'API key. Write-only; omit on update to keep the stored one.', writeOnly: true })
  @IsOptional() @IsString() @MaxLength(4096)
  api_key?: string;

  @ApiPropertyOptional({ description: 'System prompt sent first.' })
  @IsOptional() @IsString() @MaxLength(20000)
  system_prompt?: string;

  @ApiPropertyOptional({ description: 'Sampling temperature 0..2.', minimum: 0, maximum: 2 })
  @IsOptional() @IsNumber() @Min(0) @Max(2)
  temperature?: number;

  @ApiPropertyOptional({ description: 'Timeout per call in ms (default 30000).', minimum: 1, maximum: 600000 })
  @IsOptional() @IsInt() @Min(1) @Max(600_000)
  timeout_ms?: number;
}

/**
 * Settings of a `digital_staff` channel: a digital staff of the chat wing, called through the chat wing's sandbox
 * (a sandbox contact per run case, never a real customer; the same inbound pipeline as real messages).
 */
export class DigitalStaffChannelDto {
  @ApiProperty({ description: 'The chat tenant (slug) the digital staff belongs to; must exist.', example: 'acme', maxLength: 63 })
  @IsString() @MinLength(1) @MaxLength(63)
  tenant_id: string;

  @ApiProperty({ description: 'The digital staff (UUID); must exist in the tenant. A staff user must be bound to it when a run calls it.', format: 'uuid' })
  @IsUUID()
  digital_staff_id: string;

  @ApiPropertyOptional({ description: 'Timeout per message in ms, covering the whole chat pipeline (default EVAL_DIGITAL_STAFF_TIMEOUT_MS, 120000).', minimum: 1, maximum: 600000 })
  @IsOptional() @IsInt() @Min(1) @Max(600_000)
  timeout_ms?: number;
}

/** Body of `POST /api/targets`. */
export class CreateTargetDto {
  @ApiProperty({ description: 'Name.', maxLength: 200 })
  @IsString() @MinLength(1) @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ description: 'Description.', maxLength: 10000 })
  @IsOptional() @IsString() @MaxLength(10000)
  description?: string;

  @ApiProperty({ description: 'Channel kind: `http`, `openai`, or `digital_staff` (a digital staff of the chat wing, with `digital_staff` settings).', enum: TARGET_KINDS })
  @IsIn(TARGET_KINDS)
  kind: TargetKind;

  @ApiPropertyOptional({ description: 'Settings when kind is http.', type: HttpChannelDto })
  @IsOptional() @ValidateNested() @Type(() => HttpChannelDto)
  http?: HttpChannelDto;

  @ApiPropertyOptional({ description: 'Settings when kind is openai.', type: OpenAiChannelDto })
  @IsOptional() @ValidateNested() @Type(() => OpenAiChannelDto)
  openai?: OpenAiChannelDto;

  @ApiPropertyOptional({ description: 'Settings when kind is digital_staff.', type: DigitalStaffChannelDto })
  @IsOptional() @ValidateNested() @Type(() => DigitalStaffChannelDto)
  digital_staff?: DigitalStaffChannelDto;

  @ApiPropertyOptional({ description: `Hard cap on concurrent calls to this target (1..${MAX_TARGET_CONCURRENCY}); a run never exceeds it.`, default: 4, minimum: 1, maximum: MAX_TARGET_CONCURRENCY })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TARGET_CONCURRENCY)
  max_concurrency?: number;
}

/** Body of `PATCH /api/targets/{id}`: name, description, max_concurrency, or the kind's whole settings section. */
export class UpdateTargetDto {
  @ApiPropertyOptional({ description: 'Name.', maxLength: 200 })
  @IsOptional() @IsString() @MinLength(1) @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: 'Description.', maxLength: 10000 })
  @IsOptional() @IsString() @MaxLength(10000)
  description?: string;

  @ApiPropertyOptional({ description: 'New http settings (secrets omitted are kept).', type: HttpChannelDto })
  @IsOptional() @ValidateNested() @Type(() => HttpChannelDto)
  http?: HttpChannelDto;

  @ApiPropertyOptional({ description: 'New openai settings (secrets omitted are kept).', type: OpenAiChannelDto })
  @IsOptional() @ValidateNested() @Type(() => OpenAiChannelDto)
  openai?: OpenAiChannelDto;

  @ApiPropertyOptional({ description: 'New digital_staff settings (validated like on create).', type: DigitalStaffChannelDto })
  @IsOptional() @ValidateNested() @Type(() => DigitalStaffChannelDto)
  digital_staff?: DigitalStaffChannelDto;

  @ApiPropertyOptional({ description: 'Hard concurrency cap.', minimum: 1, maximum: MAX_TARGET_CONCURRENCY })
  @IsOptional() @IsInt() @Min(1) @Max(MAX_TARGET_CONCURRENCY)
  max_concurrency?: number;
}

/** Sort fields of `GET /api/targets`: field → entity property; used by the query's sort and the service's toOrder. */
export const TARGET_SORT_FIELDS = { createdAt: 'createdAt', name: 'name' } as const;

/** Query of `GET /api/targets`. */
export class TargetQueryDto extends PageBoundsQueryDto {
  @SortParam(TARGET_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only this kind.', enum: TARGET_KINDS })
  @IsOptional() @IsIn(TARGET_KINDS)
  kind?: TargetKind;
}

/** A target as returned: settings without secret values. */
export class TargetDto {
  @ApiProperty({ description: 'Id (UUID).' }) id: string;
  @ApiProperty({ description: 'Name.' }) name: string;
  @ApiProperty({ description: 'Description.', nullable: true, type: String }) description: string | null;
  @ApiProperty({ description: 'Channel kind.', enum: TARGET_KINDS }) kind: TargetKind;
  @ApiProperty({ description: 'Non-secret channel settings (snake_case, as sent).', type: 'object', additionalProperties: true }) channel: Record<string, unknown>;
  @ApiProperty({ description: 'Which secrets are stored, by name (e.g. `headers.Authorization`, `api_key`); never their values.', type: [String] }) secret_fields: string[];
  @ApiProperty({ description: 'Hard concurrency cap.' }) max_concurrency: number;
  @ApiProperty({ description: 'Created (ISO 8601).' }) created_at: string;
  @ApiProperty({ description: 'Last updated (ISO 8601).' }) updated_at: string;
}

/** Maps a row to its response; secret values never leave. */
export function toTargetDto(row: TargetEntity): TargetDto {
  const secretFields = [...Object.keys(row.secrets.headers ?? {}).map((name) => `headers.${name}`), ...(row.secrets.api_key ? ['api_key'] : [])];
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    channel: row.channel,
    secret_fields: secretFields,
    max_concurrency: row.maxConcurrency,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
