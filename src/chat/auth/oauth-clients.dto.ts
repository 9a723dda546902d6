import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsBoolean, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { TENANT_SLUG_PATTERN } from '../tenants/tenant-slug';
import { TENANT_CLIENT_SCOPES } from './chat-scopes';
import { OAuthClientEntity } from './oauth-client.entity';

/** Body of `POST /api/platform/clients`: a tenant client (`tenantId`) or a platform-admin client (`platformAdmin`). */
export class CreateOAuthClientRequest {
  @ApiPropertyOptional({ description: 'Tenant the client acts for (its tokens carry it in the tenant claim). Required unless `platformAdmin`.', example: 'acme' })
  @IsOptional() @IsString() @Matches(TENANT_SLUG_PATTERN, { message: 'tenantId must be a tenant slug' })
  tenantId?: string;

  @ApiPropertyOptional({ description: 'A platform-admin client: no tenant, scope `platform:admin` only.', default: false })
  @IsOptional() @IsBoolean()
  platformAdmin?: boolean;

  @ApiPropertyOptional({ description: 'Scopes a tenant client may request (default both).', enum: TENANT_CLIENT_SCOPES, isArray: true, example: ['chat:read', 'chat:write'] })
  @IsOptional() @ArrayMinSize(1) @ArrayMaxSize(TENANT_CLIENT_SCOPES.length) @IsIn(TENANT_CLIENT_SCOPES, { each: true })
  scopes?: string[];

  @ApiPropertyOptional({ description: 'Label, to recognise the client later.', maxLength: 200, example: 'CRM sync' })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  name?: string;
}

/** Sort fields of `GET /api/platform/clients`: field → entity property; used by the query's sort and the service's toOrder. */
export const OAUTH_CLIENT_SORT_FIELDS = { createdAt: 'createdAt', clientId: 'clientId' } as const;

/** Query of `GET /api/platform/clients`. Sorted by `createdAt` (default, newest first) or `clientId`. */
export class OAuthClientPageQuery extends PageBoundsQueryDto {
  @SortParam(OAUTH_CLIENT_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only this tenant\'s clients.', example: 'acme' })
  @IsOptional() @IsString() @MaxLength(63)
  tenantId?: string;

  @ApiPropertyOptional({ description: 'Include revoked clients.', default: false })
  @IsOptional() @Transform(({ value }) => value === true || value === 'true') @IsBoolean()
  includeRevoked?: boolean;
}

/** An OAuth2 client as listed: never its secret. */
export class OAuthClientDto {
  @ApiProperty({ description: 'Client id (public).', example: 'atc_3f9c2a7d1e0b4c5a8f6e2d1c' }) clientId: string;
  @ApiProperty({ description: 'Tenant, or null for a platform-admin client.', type: String, nullable: true, example: 'acme' }) tenantId: string | null;
  @ApiProperty({ description: 'Label.', example: 'CRM sync' }) name: string;
  @ApiProperty({ description: 'Scopes the client may request.', type: [String], example: ['chat:read', 'chat:write'] }) scopes: string[];
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Revoked (ISO 8601), or null while active.', type: String, format: 'date-time', nullable: true }) revokedAt: string | null;
}

/** The answer to creating a client: the only time the secret is shown. */
export class CreatedOAuthClientDto extends OAuthClientDto {
  @ApiProperty({ description: 'Client secret. Shown only now (stored as a hash); keep it in a secret store.' }) clientSecret: string;
}

/** Maps a row to its listing (no secret). */
export function toOAuthClientDto(row: OAuthClientEntity): OAuthClientDto {
  return {
    clientId: row.clientId,
    tenantId: row.tenantId,
    name: row.name,
    scopes: row.scopes,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}
