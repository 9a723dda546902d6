import { BadRequestException, Body, Controller, Post, Req, UploadedFile, UseFilters, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiCreatedResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { UploadedFileCleanupInterceptor } from '../../common/http/uploaded-file-cleanup.interceptor';
import { AuditService } from '../audit/audit.service';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { DEPLOY_AGENT_SCHEME, DeployAgentStrategy } from '../auth/deploy-auth.strategies';
import { UPLOAD_MULTIPART_SCHEMA, UploadFileDto, UploadResultDto } from './uploads.dto';
import { UploadsService } from './uploads.service';

/** File upload into the allowed directories (deployment-gateway.md, Endpoints). */
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
  @ApiOperation({ summary: 'Upload a file to an allowed path', description: 'Written atomically. 403 when the path resolves outside DEPLOY_ALLOWED_DIRS; 413 over DEPLOY_MAX_UPLOAD_BYTES.' })
  @ApiCreatedResponse({ type: UploadResultDto })
  @ApiPayloadTooLargeResponse({ description: 'File over the size limit.' })
  upload(@UploadedFile() file: Express.Multer.File | undefined, @Body() body: UploadFileDto, @Req() request: Request & { auditTarget?: string }): Promise<UploadResultDto> {
    request.auditTarget = body.path;
    if (!file) throw new BadRequestException('The file field "file" is required.');
    return this.uploads.write(file, body.path, this.audit.callerOf(request));
  }
}
