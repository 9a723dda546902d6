import { BadRequestException, Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UploadedFile, UseFilters, UseInterceptors } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Page, pageSchema } from '../../common/paging/page';
import { AuditService } from '../audit/audit.service';
import { DeployMetrics } from '../deploy-metrics';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { DEPLOY_AGENT_SCHEME, DeployAgentStrategy } from '../auth/deploy-auth.strategies';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { DEPLOY_SITE_MULTIPART_SCHEMA, DeployResultDto, DeploySiteDto, DeploymentDto, DeploymentIdParams, DeploymentQueryDto } from './deployments.dto';
import { DeploymentsService } from './deployments.service';
import { SiteArchiveInterceptor } from './site-archive.interceptor';
import type { StreamedArchive } from './site-archive.storage';

/** Publishing, listing and deleting static sites (deployment-gateway.md, Endpoints). */
@ApiTags('deploy')
@Controller('api')
@UseFilters(DeployAuditFilter)
export class DeploymentsController {
  constructor(
    private readonly deployments: DeploymentsService,
    private readonly audit: AuditService,
    private readonly metrics: DeployMetrics,
  ) {}

  @Post('deploy')
  @Authenticated(DeployAgentStrategy, { permission: 'deploy', securityScheme: DEPLOY_AGENT_SCHEME })
  // The archive is unpacked while it arrives (issue 14 item 2); nothing of it is staged on disk first.
  @UseInterceptors(SiteArchiveInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: DEPLOY_SITE_MULTIPART_SCHEMA })
  @ApiOperation({
    summary: 'Publish a tar.gz as a static site',
    description:
      'Unpacks the archive into a new directory `<random_id>-<project_name>-<timestamp>` under the namespace and returns its access URL. ' +
      'The site appears all at once (unpacked aside, then moved in one rename). Refused with 400 (nothing left on disk): absolute or `..` paths, ' +
      'symlinks, hardlinks, devices, FIFOs, more than DEPLOY_MAX_ENTRIES entries, more than DEPLOY_MAX_UNPACKED_BYTES unpacked, corrupt or empty archives. ' +
      '413 over DEPLOY_MAX_ARCHIVE_BYTES. 403 when contactId is not the token\'s namespace.',
  })
  @ApiCreatedResponse({ type: DeployResultDto })
  @ApiBadRequestResponse({ description: 'Missing or hostile archive, invalid fields.' })
  @ApiPayloadTooLargeResponse({ description: 'Archive over the size limit.' })
  async deploy(
    @UploadedFile() archive: StreamedArchive | undefined,
    @Body() body: DeploySiteDto,
    @CurrentPrincipal() agent: DeployAgentPrincipal,
    @Req() request: Request & { auditTarget?: string },
  ): Promise<DeployResultDto> {
    request.auditTarget = `${body.contactId}/${body.projectName}`;
    return this.metrics.deploy(async () => {
      if (!archive) throw new BadRequestException('The archive file field "archive" is required.');
      return this.deployments.publish(archive, body, agent, this.audit.callerOf(request));
    });
  }

  @Get('deployments')
  @Authenticated(DeployAgentStrategy, { permission: 'list', securityScheme: DEPLOY_AGENT_SCHEME })
  @ApiOperation({ summary: 'List the caller\'s deployments', description: 'Only the token\'s namespace. Newest first; sortable by deployedAt, projectName, bytes.' })
  @ApiOkResponse({ type: pageSchema(DeploymentDto, 'Deployments') })
  async list(@Query() query: DeploymentQueryDto, @CurrentPrincipal() agent: DeployAgentPrincipal, @Req() request: Request): Promise<Page<DeploymentDto>> {
    const page = await this.deployments.list(agent, query);
    await this.audit.record(this.audit.callerOf(request), { action: 'list', outcome: 'allowed', status: 200 });
    return page;
  }

  @Delete('deploy/:id')
  @HttpCode(204)
  @Authenticated(DeployAgentStrategy, { permission: 'delete', securityScheme: DEPLOY_AGENT_SCHEME })
  @ApiOperation({ summary: 'Delete a deployment and its files', description: 'Its URL answers 404 afterwards. 404 for an id of another namespace.' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiNotFoundResponse({ description: 'No such deployment in the caller\'s namespace.' })
  async remove(@Param() params: DeploymentIdParams, @CurrentPrincipal() agent: DeployAgentPrincipal, @Req() request: Request & { auditTarget?: string }): Promise<void> {
    request.auditTarget = params.id;
    await this.deployments.remove(params.id, agent, this.audit.callerOf(request));
  }
}
