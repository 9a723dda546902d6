import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayUnique, IsArray, IsIn, IsInt, IsOptional, IsString, Matches, MaxLength, Min } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { DEPLOY_PERMISSIONS, DeployPermission } from '../auth/deploy-principal';
import { NAMESPACE_PATTERN } from '../namespace';
import type { JoinGrantEntity } from './join-grant.entity';
import type { NamespaceEntity } from './namespace.entity';

/** Path parameter `{namespace}` of the owner's namespace routes. */
export class NamespaceParams {
  @ApiProperty({ description: 'Namespace (contactId).', example: 'c-10023' })
  @Matches(NAMESPACE_PATTERN, { message: 'namespace may use letters, digits, _ and - (max 64), starting with a letter or digit' })
  namespace: string;
}

/** Path parameters of `DELETE /api/admin/namespaces/{namespace}/grants/{prefix}`. */
export class JoinGrantParams extends NamespaceParams {
  @ApiProperty({ description: 'Public prefix of the join grant (8 hex characters).', example: '9f8e7d6c' })
  @Matches(/^[0-9a-f]{8}$/, { message: 'prefix is 8 lowercase hex characters' })
  prefix: string;
}

/** Body of `POST /api/admin/namespaces/{namespace}/grants` (issue 12, item 3). Every field is optional. */
export class IssueJoinGrantDto {
  @ApiPropertyOptional({ description: 'Lifetime in milliseconds, from 60000 up to DEPLOY_JOIN_GRANT_MAX_TTL_MS (400 above). Default DEPLOY_JOIN_GRANT_TTL_MS (24 h).', minimum: 60_000, example: 3_600_000 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000)
  ttlMs?: number;

  @ApiPropertyOptional({ description: 'Who the grant is for, shown in the grant list and the audit log. Never put a secret here.', maxLength: 200, example: 'Bob\'s CI agent' })
  @IsOptional() @IsString() @MaxLength(200)
  note?: string;

  @ApiPropertyOptional({ description: 'Caps the permissions of the agent that joins with this grant (least privilege); each must be among DEPLOY_DEFAULT_PERMISSIONS. Default: no cap beyond the server\'s.', enum: DEPLOY_PERMISSIONS, isArray: true, example: ['deploy', 'list'] })
  @IsOptional() @IsArray() @ArrayUnique() @IsIn(DEPLOY_PERMISSIONS, { each: true })
  permissions?: DeployPermission[];
}

/** The state of a join grant, derived from its times. */
export type JoinGrantState = 'open' | 'used' | 'expired' | 'revoked';

/** A join grant as the owner sees it: everything but the code. */
export class JoinGrantDto {
  @ApiProperty({ description: 'Public prefix; address for revocation.', example: '9f8e7d6c' }) prefix: string;
  @ApiProperty({ description: 'Namespace the grant lets one agent join.' }) namespace: string;
  @ApiProperty({ description: 'The owner\'s note.', nullable: true, type: String }) note: string | null;
  @ApiProperty({ description: 'Permission cap for the joining agent; null = the server\'s defaults.', nullable: true, enum: DEPLOY_PERMISSIONS, isArray: true }) permissions: DeployPermission[] | null;
  @ApiProperty({ description: '`open` (usable), `used`, `expired` or `revoked`.', enum: ['open', 'used', 'expired', 'revoked'] }) state: JoinGrantState;
  @ApiProperty({ description: 'Issued at (ISO 8601, UTC).' }) createdAt: string;
  @ApiProperty({ description: 'Stops working at (ISO 8601, UTC).' }) expiresAt: string;
  @ApiProperty({ description: 'When an agent registered with it (ISO 8601), null while unused.', nullable: true, type: String }) usedAt: string | null;
  @ApiProperty({ description: 'The agent that registered with it.', nullable: true, type: String }) usedByAgentId: string | null;
  @ApiProperty({ description: 'When the owner revoked it (ISO 8601).', nullable: true, type: String }) revokedAt: string | null;
}

/** The answer to issuing a grant: the code is shown here once and stored only as a SHA-256 hash. */
export class IssuedJoinGrantDto extends JoinGrantDto {
  @ApiProperty({ description: 'The one-time join code, `atj_<prefix>_<secret>`. Give it to the agent that should join; it sends it as `joinGrant` to POST /api/auth/register. Shown once.', example: 'atj_9f8e7d6c_…' })
  code: string;
}

/** A namespace as the owner sees it. */
export class NamespaceDto {
  @ApiProperty({ description: 'Namespace (contactId).' }) name: string;
  @ApiProperty({ description: 'The agent whose registration claimed it.' }) claimedByAgentId: string;
  @ApiProperty({ description: 'Claimed at (ISO 8601, UTC).' }) createdAt: string;
  @ApiProperty({ description: 'Live (not revoked) agent tokens in it.' }) liveTokens: number;
}

/** The state of a grant at `now`. */
export function joinGrantState(grant: Pick<JoinGrantEntity, 'usedAt' | 'revokedAt' | 'expiresAt'>, now = new Date()): JoinGrantState {
  if (grant.usedAt) return 'used';
  if (grant.revokedAt) return 'revoked';
  return grant.expiresAt.getTime() <= now.getTime() ? 'expired' : 'open';
}

/** Maps a grant row to its owner view; never includes the hash. */
export function toJoinGrantDto(grant: JoinGrantEntity): JoinGrantDto {
  return {
    prefix: grant.prefix,
    namespace: grant.namespace,
    note: grant.note,
    permissions: grant.permissions,
    state: joinGrantState(grant),
    createdAt: grant.createdAt.toISOString(),
    expiresAt: grant.expiresAt.toISOString(),
    usedAt: grant.usedAt?.toISOString() ?? null,
    usedByAgentId: grant.usedByAgentId,
    revokedAt: grant.revokedAt?.toISOString() ?? null,
  };
}

/** Maps a namespace row (with its trigger-kept live token count) to the owner view. */
export function toNamespaceDto(namespace: NamespaceEntity): NamespaceDto {
  return { name: namespace.name, claimedByAgentId: namespace.claimedByAgentId, createdAt: namespace.createdAt.toISOString(), liveTokens: namespace.liveTokens };
}

/** Sort fields of `GET /api/admin/namespaces`: field → entity property; used by the query and NamespacesService.list. */
export const NAMESPACE_SORT_FIELDS = { createdAt: 'createdAt', name: 'name' } as const;

/** Query of `GET /api/admin/namespaces` (page, size, sort). */
export class NamespaceQueryDto extends PageBoundsQueryDto {
  @SortParam(NAMESPACE_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];
}

/** Sort fields of `GET /api/admin/namespaces/{namespace}/grants`: field → entity property; used by the query and NamespacesService.listGrants. */
export const JOIN_GRANT_SORT_FIELDS = { createdAt: 'createdAt', expiresAt: 'expiresAt' } as const;

/** Query of `GET /api/admin/namespaces/{namespace}/grants` (page, size, sort). */
export class JoinGrantQueryDto extends PageBoundsQueryDto {
  @SortParam(JOIN_GRANT_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];
}
