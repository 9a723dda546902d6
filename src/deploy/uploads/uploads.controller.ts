import { BadRequestException, Body, Controller, Post, Req, UploadedFile, UseFilters, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { UploadedFileCleanupInterceptor } from '../../common/http/uploaded-file-cleanup.interceptor';
import { AuditService } from '../audit/audit.service';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { DEPLOY_AGENT_SCHEME, DeployAgentStrategy } from '../auth/deploy-auth.strategies';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { UPLOAD_MULTIPART_SCHEMA, UploadFileDto, UploadResultDto } from './uploads.dto';
import { UploadsService } from './uploads.service';

/** File upload into the caller's namespace workspace (deployment-gateway.md, Endpoints; issue 12, item 3). */
@ApiTags('deploy')
@Controller('api')
@UseFilters(DeployAuditFilter)
export class UploadsController {
  constructor(
    private readonly uploads: UploadsService,
    private readonly audit: AuditService,
  ) {}

  @Post('upload')
  @Authenticated(DeployAgentStrategy, { permission: 'deploy', securityScheme: DEPLOY_AGENT_SCHEME })
  @UseInterceptors(UploadedFileCleanupInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: UPLOAD_MULTIPART_SCHEMA })
  @ApiOperation({
    summary: 'Upload a file into the caller\'s namespace workspace',
    description:
      'Written atomically into the workspace of the token\'s namespace: `<root>/<namespace>/` under each DEPLOY_ALLOWED_DIRS root, the folder exec runs in. ' +
      'A relative path is taken from the first of them. 403 when the path resolves (symlinks followed) outside the namespace\'s own workspace: another namespace\'s folder, ' +
      '`..`, an absolute path elsewhere, a link leading out, or a target that is not a regular file. 413 over DEPLOY_MAX_UPLOAD_BYTES. ' +
      'Only agent tokens upload: the owner token administers (403 here) and has no workspace of its own; to put a file into a namespace, register an agent there.',
  })
  @ApiCreatedResponse({ type: UploadResultDto })
  @ApiPayloadTooLargeResponse({ description: 'File over the size limit.' })
  upload(
    @UploadedFile() file: Express.Multer.File | undefined,
    @Body() body: UploadFileDto,
    @CurrentPrincipal() principal: DeployAgentPrincipal,
    @Req() request: Request & { auditTarget?: string },
  ): Promise<UploadResultDto> {
    request.auditTarget = body.path;
    if (!file) throw new BadRequestException('The file field "file" is required.');
    return this.uploads.write(file, body.path, principal.namespace, this.audit.callerOf(request));
  }
}
