import { Controller, Delete, Get, HttpCode, Param, Query, Req, UseFilters } from '@nestjs/common';
import { ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../common/auth/auth.decorators';
import { Page, PageQueryDto, pageSchema } from '../common/paging/page';
import { AuditEntryDto, AuditQueryDto, toAuditEntryDto } from './audit/audit.dto';
import { AuditService } from './audit/audit.service';
import { DeployAuditFilter } from './audit/deploy-audit.filter';
import { DEPLOY_OWNER_SCHEME, DeployOwnerStrategy } from './auth/deploy-auth.strategies';
import { AgentTokenDto, TokenPrefixParams } from './tokens/tokens.dto';
import { TokensService } from './tokens/tokens.service';

/** Owner-only operations (deployment-gateway.md, Endpoints: /api/admin/*). */
@ApiTags('deploy: admin')
@Controller('api/admin')
@UseFilters(DeployAuditFilter)
@Authenticated(DeployOwnerStrategy, { securityScheme: DEPLOY_OWNER_SCHEME })
export class AdminController {
  constructor(
    private readonly tokens: TokensService,
    private readonly audit: AuditService,
  ) {}

  @Get('tokens')
  @ApiOperation({ summary: 'List all agent tokens', description: 'Every token with prefix, agent, namespace, permissions, created, last used and revoked times; never the token itself. Sortable by createdAt, lastUsedAt, agentId, namespace.' })
  @ApiOkResponse({ type: pageSchema(AgentTokenDto, 'Tokens') })
  async listTokens(@Query() query: PageQueryDto, @Req() request: Request): Promise<Page<AgentTokenDto>> {
    const page = await this.tokens.list(query);
    await this.audit.record(this.audit.callerOf(request), { action: 'admin.list-tokens', outcome: 'allowed', status: 200 });
    return page;
  }

  @Delete('tokens/:prefix')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a token', description: 'The token stops working at once. Revoking a revoked token succeeds again.' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiNotFoundResponse({ description: 'No token has that prefix.' })
  async revokeToken(@Param() params: TokenPrefixParams, @Req() request: Request & { auditTarget?: string }): Promise<void> {
    request.auditTarget = params.prefix;
    await this.tokens.revoke(params.prefix, this.audit.callerOf(request));
  }

  @Get('audit')
  @ApiOperation({ summary: 'Read the audit log of one day', description: 'Every gateway call of the UTC day `date` (default today), oldest first, paged. 400 on a malformed or impossible date.' })
  @ApiOkResponse({ type: pageSchema(AuditEntryDto, 'Audit rows') })
  async readAudit(@Query() query: AuditQueryDto, @Req() request: Request): Promise<Page<AuditEntryDto>> {
    const day = query.date ?? new Date().toISOString().slice(0, 10);
    const page = await this.audit.listDay(day, query);
    await this.audit.record(this.audit.callerOf(request), { action: 'admin.read-audit', outcome: 'allowed', status: 200, target: day });
    return { ...page, content: page.content.map(toAuditEntryDto) };
  }
}
