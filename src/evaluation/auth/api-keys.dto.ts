import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import type { ApiKeyEntity, ApiKeySource } from './api-key.entity';
import { API_KEY_NAME_PATTERN } from './api-key.format';

/** Body of `POST /api/auth/api-keys`. */
export class CreateApiKeyDto {
  @ApiProperty({ description: 'Unique name of the key (also among revoked ones); the caller then acts as `api-key:<name>`. `env-<n>` is kept for EVAL_API_KEYS.', pattern: API_KEY_NAME_PATTERN.source, example: 'nightly-ci' })
  @IsString() @Matches(API_KEY_NAME_PATTERN, { message: 'name must be 1..64 of a-z 0-9 . _ - and start with a letter or digit' })
  name: string;

  @ApiPropertyOptional({ description: 'Whether the key may manage API keys (create, list, revoke). Every key may use the other evaluation routes.', default: false })
  @IsOptional() @IsBoolean()
  admin?: boolean;
}

/** Sort fields of `GET /api/auth/api-keys`: field → entity property; used by the query's sort and the service's toOrder. */
export const API_KEY_SORT_FIELDS = { name: 'name', createdAt: 'createdAt', lastUsedAt: 'lastUsedAt' } as const;

/** Query of `GET /api/auth/api-keys`: paging, sort by `name`, `createdAt`, `lastUsedAt`. */
export class ApiKeyQueryDto extends PageBoundsQueryDto {
  @SortParam(API_KEY_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Also list revoked keys.', default: false })
  @IsOptional() @Transform(({ value }) => (value === 'true' ? true : value === 'false' ? false : value)) @IsBoolean()
  include_revoked?: boolean;
}

/** A named API key as listed: never its value. */
export class ApiKeyDto {
  @ApiProperty({ description: 'Id (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Name; the caller acts as `api-key:<name>` in logs and records.' }) name: string;
  @ApiProperty({ description: 'May manage API keys.' }) admin: boolean;
  @ApiProperty({ description: '`env`: seeded from EVAL_API_KEYS at start; `api`: created through the API or `atrium-eval api-key create`.', enum: ['env', 'api'] }) source: ApiKeySource;
  @ApiProperty({ description: 'Who created it (`admin` for a session, `api-key:<name>`); null for seeded keys.', nullable: true, type: String }) created_by: string | null;
  @ApiProperty({ description: 'ISO 8601, UTC.' }) created_at: string;
  @ApiProperty({ description: 'Last accepted use (to the minute), ISO 8601; null when never used.', nullable: true, type: String }) last_used_at: string | null;
  @ApiProperty({ description: 'When it was revoked, ISO 8601; null while live.', nullable: true, type: String }) revoked_at: string | null;
  @ApiProperty({ description: 'Who revoked it; `EVAL_API_KEYS` when it left that list.', nullable: true, type: String }) revoked_by: string | null;
}

/** A key just created: its value, shown this once. */
export class CreatedApiKeyDto extends ApiKeyDto {
  @ApiProperty({ description: 'The key; send it as `X-API-Key`. Shown only in this answer: the server keeps only its SHA-256.', example: 'atrk_…' })
  key: string;
}

/** Maps a stored key to its listing (never the hash). */
export function toApiKeyDto(row: ApiKeyEntity): ApiKeyDto {
  return {
    id: row.id,
    name: row.name,
    admin: row.admin,
    source: row.source,
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    revoked_at: row.revokedAt?.toISOString() ?? null,
    revoked_by: row.revokedBy,
  };
}
