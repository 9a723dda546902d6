import { ApiProperty } from '@nestjs/swagger';
import { IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { NAMESPACE_PATTERN } from '../namespace';
import type { DeploymentEntity } from './deployment.entity';

/** Text fields of the multipart `POST /api/deploy` (the archive itself is the file field `archive`). */
export class DeploySiteDto {
  @ApiProperty({ description: 'Project name; slugged into the directory name `<random_id>-<project_name>-<timestamp>`.', minLength: 1, maxLength: 128, example: 'landing-page' })
  @IsString() @MinLength(1) @MaxLength(128)
  projectName: string;

  @ApiProperty({ description: 'Namespace to publish in; must be the token\'s own contactId, else 403.', pattern: NAMESPACE_PATTERN.source, example: 'c-10023' })
  @IsString() @Matches(NAMESPACE_PATTERN, { message: 'contactId may use letters, digits, _ and - (max 64)' })
  contactId: string;
}

/** Multipart schema of `POST /api/deploy` for the OpenAPI document. */
export const DEPLOY_SITE_MULTIPART_SCHEMA = {
  type: 'object',
  required: ['archive', 'projectName', 'contactId'],
  properties: {
    archive: { type: 'string', format: 'binary', description: 'The site as a .tar.gz; regular files and folders only (no links, devices, absolute or `..` paths). Size limit DEPLOY_MAX_ARCHIVE_BYTES (413 over it).' },
    projectName: { type: 'string', description: 'Project name.', maxLength: 128 },
    contactId: { type: 'string', description: 'Namespace (must be the token\'s).', pattern: NAMESPACE_PATTERN.source },
  },
};

/** A published site. */
export class DeploymentDto {
  @ApiProperty({ description: 'Deployment id (UUID).' }) id: string;
  @ApiProperty({ description: 'Access URL `<DEPLOY_PUBLIC_URL>/<contactId>/<directoryName>/`.' }) url: string;
  @ApiProperty({ description: 'Directory name `<random_id>-<project_name>-<timestamp>`.' }) directoryName: string;
  @ApiProperty({ description: 'Namespace (contactId).' }) contactId: string;
  @ApiProperty({ description: 'Project name as given.' }) projectName: string;
  @ApiProperty({ description: 'Number of files published.' }) fileCount: number;
  @ApiProperty({ description: 'Unpacked size in bytes.' }) bytes: number;
  @ApiProperty({ description: 'When it was published (ISO 8601, UTC).' }) deployedAt: string;
}

/** Result of `POST /api/deploy`: the deployment plus how long the server took. */
export class DeployResultDto extends DeploymentDto {
  @ApiProperty({ description: 'Seconds the server spent unpacking and publishing (after the upload finished).', example: 0.42 })
  elapsedSeconds: number;
}

/** Path parameter `{id}` of `DELETE /api/deploy/{id}`. */
export class DeploymentIdParams {
  @ApiProperty({ description: 'Deployment id (UUID).' })
  @Matches(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, { message: 'id must be a UUID' })
  id: string;
}

/** Maps a deployment row to its response, with its public URL. */
export function toDeploymentDto(deployment: DeploymentEntity, publicUrl: string): DeploymentDto {
  return {
    id: deployment.id,
    url: `${publicUrl}/${deployment.namespace}/${encodeURIComponent(deployment.directoryName)}/`,
    directoryName: deployment.directoryName,
    contactId: deployment.namespace,
    projectName: deployment.projectName,
    fileCount: deployment.fileCount,
    bytes: deployment.bytes,
    deployedAt: deployment.createdAt.toISOString(),
  };
}

/** Sort fields of `GET /api/deployments`: field → entity property (`deployedAt` is the row's createdAt); used by the query and DeploymentsService.list. */
export const DEPLOYMENT_SORT_FIELDS = { deployedAt: 'createdAt', projectName: 'projectName', bytes: 'bytes' } as const;

/** Query of `GET /api/deployments` (page, size, sort; newest first by default). */
export class DeploymentQueryDto extends PageBoundsQueryDto {
  @SortParam(DEPLOYMENT_SORT_FIELDS, ['deployedAt,desc'])
  sort?: string[];
}
