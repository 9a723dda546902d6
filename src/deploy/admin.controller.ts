import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../common/auth/auth.decorators';
import { Page, pageSchema } from '../common/paging/page';
import { AuditEntryDto, AuditQueryDto, toAuditEntryDto } from './audit/audit.dto';
import { AuditService } from './audit/audit.service';
import { DeployAuditFilter } from './audit/deploy-audit.filter';
import { DEPLOY_OWNER_SCHEME, DeployOwnerStrategy } from './auth/deploy-auth.strategies';
import { IssuedJoinGrantDto, IssueJoinGrantDto, JoinGrantDto, JoinGrantParams, JoinGrantQueryDto, NamespaceDto, NamespaceParams, NamespaceQueryDto } from './namespaces/namespaces.dto';
import { NamespacesService } from './namespaces/namespaces.service';
import { AgentTokenDto, AgentTokenQueryDto, TokenPrefixParams } from './tokens/tokens.dto';
import { TokensService } from './tokens/tokens.service';

/** Owner-only operations (deployment-gateway.md, Endpoints: /api/admin/*). */
@ApiTags('deploy: admin')
@Controller('api/admin')
@UseFilters(DeployAuditFilter)
@Authenticated(DeployOwnerStrategy, { securityScheme: DEPLOY_OWNER_SCHEME })
export class AdminController {
  constructor(
    private readonly tokens: TokensService,
    private readonly namespaces: NamespacesService,
    private readonly audit: AuditService,
  ) {}

  @Get('tokens')
  @ApiOperation({ summary: 'List all agent tokens', description: 'Every token with prefix, agent, namespace, permissions, created, last used and revoked times; never the token itself. Sortable by createdAt, lastUsedAt, agentId, namespace.' })
  @ApiOkResponse({ type: pageSchema(AgentTokenDto, 'Tokens') })
  async listTokens(@Query() query: AgentTokenQueryDto, @Req() request: Request): Promise<Page<AgentTokenDto>> {
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

  @Get('namespaces')
  @ApiOperation({ summary: 'List the claimed namespaces', description: 'Every namespace (issue 12, item 3) with the agent that claimed it, when, and how many live tokens it has. Sortable by createdAt, name.' })
  @ApiOkResponse({ type: pageSchema(NamespaceDto, 'Namespaces') })
  async listNamespaces(@Query() query: NamespaceQueryDto, @Req() request: Request): Promise<Page<NamespaceDto>> {
    const page = await this.namespaces.list(query);
    await this.audit.record(this.audit.callerOf(request), { action: 'admin.list-namespaces', outcome: 'allowed', status: 200 });
    return page;
  }

  @Post('namespaces/:namespace/grants')
  @ApiOperation({
    summary: 'Issue a join grant for a namespace',
    description:
      'A one-time code letting one more agent register into the existing namespace: the agent sends it as `joinGrant` to POST /api/auth/register with `contactId` = this namespace. ' +
      'It expires after `ttlMs` (default DEPLOY_JOIN_GRANT_TTL_MS, at most DEPLOY_JOIN_GRANT_MAX_TTL_MS), is used up by the first successful registration, and may cap the joiner\'s permissions. ' +
      'The code is shown only in this answer and stored as a SHA-256 hash. 404 when nobody has claimed the namespace (its first registration claims it, no grant needed).',
  })
  @ApiCreatedResponse({ type: IssuedJoinGrantDto })
  @ApiBadRequestResponse({ description: 'Lifetime over the maximum, a permission the server does not grant, or a malformed namespace.' })
  @ApiNotFoundResponse({ description: 'No such namespace.' })
  issueJoinGrant(@Param() params: NamespaceParams, @Body() body: IssueJoinGrantDto, @Req() request: Request & { auditTarget?: string }): Promise<IssuedJoinGrantDto> {
    request.auditTarget = params.namespace;
    return this.namespaces.issueGrant(params.namespace, body, this.audit.callerOf(request));
  }

  @Get('namespaces/:namespace/grants')
  @ApiOperation({ summary: 'List a namespace\'s join grants', description: 'Every grant with its state (open, used, expired, revoked), note, permission cap and who used it; never the code. Sortable by createdAt, expiresAt.' })
  @ApiOkResponse({ type: pageSchema(JoinGrantDto, 'Join grants') })
  @ApiNotFoundResponse({ description: 'No such namespace.' })
  async listJoinGrants(@Param() params: NamespaceParams, @Query() query: JoinGrantQueryDto, @Req() request: Request): Promise<Page<JoinGrantDto>> {
    const page = await this.namespaces.listGrants(params.namespace, query);
    await this.audit.record(this.audit.callerOf(request), { action: 'admin.list-join-grants', outcome: 'allowed', status: 200, target: params.namespace });
    return page;
  }

  @Delete('namespaces/:namespace/grants/:prefix')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke a join grant', description: 'An unused grant stops working at once. Revoking a revoked or used grant succeeds and changes nothing (an agent that already joined keeps its token: revoke the token for that).' })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiNotFoundResponse({ description: 'The namespace has no grant with that prefix.' })
  async revokeJoinGrant(@Param() params: JoinGrantParams, @Req() request: Request & { auditTarget?: string }): Promise<void> {
    request.auditTarget = params.prefix;
    await this.namespaces.revokeGrant(params.namespace, params.prefix, this.audit.callerOf(request));
  }
}
