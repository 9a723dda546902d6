import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayUnique, IsArray, IsIn, IsNotEmpty, IsOptional, IsString, Matches, MaxLength, ValidateBy } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { DEPLOY_PERMISSIONS, DeployPermission } from '../auth/deploy-principal';
import { NAMESPACE_PATTERN, namespaceProblem } from '../namespace';

/** class-validator rule for a namespace: the pattern and the reserved names, with a message naming the rule broken. */
function IsNamespace() {
  return ValidateBy({
    name: 'isNamespace',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && namespaceProblem(value) === undefined,
      defaultMessage: (args) => (typeof args?.value === 'string' ? namespaceProblem(args.value) : undefined) ?? 'contactId must be a string',
    },
  });
}
import type { AgentTokenEntity } from './agent-token.entity';

/** Body of `POST /api/auth/register` (deployment-gateway.md, Endpoints). */
export class RegisterAgentDto {
  @ApiProperty({ description: 'The server\'s registration key (DEPLOY_REGISTRATION_KEY). Valid for registration only.', writeOnly: true })
  @IsString() @IsNotEmpty() @MaxLength(256)
  registrationKey: string;

  @ApiPropertyOptional({ description: 'Stable id of the agent; one live token per agent. A new id is registered with the registration key alone. An id that exists (even with only revoked tokens) is re-registered only with its current token in `Authorization` (rotation) or with the owner token, else 409 (rule `agent-exists`); the previous token then stops working. Generated when absent (or, with a current token, that token\'s agent).', maxLength: 128, example: 'claude-deployer-1' })
  @IsOptional() @IsString() @Matches(/^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,127}$/, { message: 'agentId may use letters, digits and _ . : @ - (max 128)' })
  agentId?: string;

  @ApiPropertyOptional({ description: 'Human name of the agent instance (DEPLOY_INSTANCE_NAME).', maxLength: 128 })
  @IsOptional() @IsString() @MaxLength(128)
  instanceName?: string;

  @ApiPropertyOptional({
    description:
      'The user\'s contactId: the namespace the token works in (sites, uploads and exec workspace). The first registration for a contactId claims it; ' +
      'registering into a claimed namespace needs `joinGrant` (else 409, rule `namespace-claimed`), except for the owner and for an agent rotating its token in its own namespace. ' +
      'Names differing only in letter case count as the same (409, rule `namespace-case-collision`). Reserved names, every first path segment the app serves ' +
      '(`api`, `docs`, `docs-json`, `oauth`, `.well-known`, `metrics`, `health`, …, compared case-insensitively), are refused with 400 naming the rule. ' +
      'When absent: the current token\'s namespace when rotating, else `agent-<agentId>`.',
    pattern: NAMESPACE_PATTERN.source,
    example: 'c-10023',
  })
  @IsOptional() @IsString() @IsNamespace()
  contactId?: string;

  @ApiPropertyOptional({
    description:
      'A one-time join code from the owner (`POST /api/admin/namespaces/{namespace}/grants`, `atj_…`) letting this agent join the existing namespace `contactId`. ' +
      'Consumed by a successful registration. Unknown, used, expired, revoked or for another namespace (including a namespace that does not exist yet): 403, rule `join-grant-refused`.',
    writeOnly: true,
    example: 'atj_9f8e7d6c_…',
  })
  @IsOptional() @IsString() @MaxLength(128)
  joinGrant?: string;

  @ApiPropertyOptional({ description: 'Ask for fewer permissions than the server grants by default (least privilege). Each must be among DEPLOY_DEFAULT_PERMISSIONS, else 400. Default: all of them.', enum: DEPLOY_PERMISSIONS, isArray: true, example: ['deploy', 'list'] })
  @IsOptional() @IsArray() @ArrayUnique() @IsIn(DEPLOY_PERMISSIONS, { each: true })
  permissions?: DeployPermission[];
}

/** Result of a registration. The token is shown only here, once. */
export class RegistrationResultDto {
  @ApiProperty({ description: 'The agent token; send as `Authorization: Bearer <token>`. Shown once, stored only as a SHA-256 hash.', example: 'atr_1a2b3c4d_…' })
  token: string;
  @ApiProperty({ description: 'Public prefix of the token, used by admins to address it.', example: '1a2b3c4d' })
  tokenPrefix: string;
  @ApiProperty({ description: 'Permissions the token carries.', enum: DEPLOY_PERMISSIONS, isArray: true })
  permissions: DeployPermission[];
  @ApiProperty({ description: 'Agent id the token belongs to.' })
  agentId: string;
  @ApiProperty({ description: 'Instance name given at registration.', nullable: true, type: String })
  instanceName: string | null;
  @ApiProperty({ description: 'Namespace (contactId) the token works in.' })
  contactId: string;
}

/** A token as the owner sees it: everything but the secret. */
export class AgentTokenDto {
  @ApiProperty({ description: 'Public prefix; address for revocation.' })
  prefix: string;
  @ApiProperty({ description: 'Agent id.' })
  agentId: string;
  @ApiProperty({ description: 'Instance name.', nullable: true, type: String })
  instanceName: string | null;
  @ApiProperty({ description: 'Namespace (contactId).' })
  namespace: string;
  @ApiProperty({ description: 'Permissions.', enum: DEPLOY_PERMISSIONS, isArray: true })
  permissions: DeployPermission[];
  @ApiProperty({ description: 'When the token was issued (ISO 8601, UTC).' })
  createdAt: string;
  @ApiProperty({ description: 'Last successful use, to the minute (ISO 8601).', nullable: true, type: String })
  lastUsedAt: string | null;
  @ApiProperty({ description: 'When it was revoked (ISO 8601), null while live.', nullable: true, type: String })
  revokedAt: string | null;
}

/** Maps a token row to its admin view; never includes the hash. */
export function toAgentTokenDto(token: AgentTokenEntity): AgentTokenDto {
  return {
    prefix: token.prefix,
    agentId: token.agentId,
    instanceName: token.instanceName,
    namespace: token.namespace,
    permissions: token.permissions,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
    revokedAt: token.revokedAt?.toISOString() ?? null,
  };
}

/** Path parameter of the revoke endpoint. */
export class TokenPrefixParams {
  @ApiProperty({ description: 'Public token prefix (8 hex characters).', example: '1a2b3c4d' })
  @Matches(/^[0-9a-f]{8}$/, { message: 'prefix is 8 lowercase hex characters' })
  prefix: string;
}

/** Sort fields of `GET /api/admin/tokens`: field → entity property; used by the query and TokensService.list. */
export const AGENT_TOKEN_SORT_FIELDS = { createdAt: 'createdAt', lastUsedAt: 'lastUsedAt', agentId: 'agentId', namespace: 'namespace' } as const;

/** Query of `GET /api/admin/tokens` (page, size, sort). */
export class AgentTokenQueryDto extends PageBoundsQueryDto {
  @SortParam(AGENT_TOKEN_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];
}
