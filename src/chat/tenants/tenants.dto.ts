import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { TENANT_SLUG_PATTERN } from './tenant-slug';
import { TENANT_STATUSES, TenantEntity, TenantStatus } from './tenant.entity';

/** Body of `POST /api/platform/tenants`. */
export class CreateTenantRequest {
  @ApiProperty({
    description: 'Tenant id: the slug used in `/api/{tenant}/...` and in the access tokens\' tenant claim. 2..63 characters, lowercase letters, digits and hyphens, starting with a letter; fixed path segments of the API (`v1`, `console`, `runs`, …) are reserved.',
    example: 'acme',
    pattern: '^[a-z][a-z0-9-]{1,62}$',
  })
  @IsString() @Matches(TENANT_SLUG_PATTERN, { message: 'id must be 2..63 lowercase letters, digits or hyphens, starting with a letter' })
  id: string;

  @ApiProperty({ description: 'Display name.', maxLength: 200, example: 'Acme Retail' })
  @IsString() @IsNotEmpty() @MaxLength(200)
  name: string;
}

/** Body of `PATCH /api/platform/tenants/{tenantId}`: any subset. */
export class UpdateTenantRequest {
  @ApiPropertyOptional({ description: 'Display name.', maxLength: 200 })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: '`disabled`: every chat route of the tenant answers 403 and its clients get no new tokens; `active` undoes it. Data is kept either way.', enum: TENANT_STATUSES })
  @IsOptional() @IsIn(TENANT_STATUSES)
  status?: TenantStatus;
}

/** Sort fields of `GET /api/platform/tenants`: field → entity property; used by the query's sort and the service's toOrder. */
export const TENANT_SORT_FIELDS = { createdAt: 'createdAt', id: 'id', name: 'name' } as const;

/** Query of `GET /api/platform/tenants`. Sortable by `id`, `name`, `createdAt`. */
export class TenantPageQuery extends PageBoundsQueryDto {
  @SortParam(TENANT_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only tenants with this status.', enum: TENANT_STATUSES })
  @IsOptional() @IsIn(TENANT_STATUSES)
  status?: TenantStatus;
}

/** A tenant as returned. */
export class TenantDto {
  @ApiProperty({ description: 'Tenant id (slug).', example: 'acme' }) id: string;
  @ApiProperty({ description: 'Display name.', example: 'Acme Retail' }) name: string;
  @ApiProperty({ description: 'Status.', enum: TENANT_STATUSES }) status: TenantStatus;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a row to its response. */
export function toTenantDto(row: TenantEntity): TenantDto {
  return { id: row.id, name: row.name, status: row.status, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}
