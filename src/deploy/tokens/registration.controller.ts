import { Body, Controller, Post, Req, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { AuditService } from '../audit/audit.service';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { RegistrationKeyStrategy } from '../auth/deploy-auth.strategies';
import { RegisterAgentDto, RegistrationResultDto } from './tokens.dto';
import { TokensService } from './tokens.service';

/** Agent self-registration (deployment-gateway.md, Endpoints: POST /api/auth/register). */
@ApiTags('deploy')
@Controller('api/auth')
@UseFilters(DeployAuditFilter)
export class RegistrationController {
  constructor(
    private readonly tokens: TokensService,
    private readonly audit: AuditService,
  ) {}

  @Post('register')
  @Authenticated(RegistrationKeyStrategy)
  @ApiOperation({
    summary: 'Register an agent and receive its token',
    description:
      'Authenticated by the registration key in the body (not by a header). Issues a token with the server\'s default permissions ' +
      '(DEPLOY_DEFAULT_PERMISSIONS), revoking the agent\'s previous token. The token is returned once and stored only as a SHA-256 hash. ' +
      '400 missing key or bad fields, 401 wrong key.',
  })
  @ApiCreatedResponse({ type: RegistrationResultDto })
  @ApiBadRequestResponse({ description: 'Missing registration key or invalid fields.' })
  register(@Body() body: RegisterAgentDto, @Req() request: Request): Promise<RegistrationResultDto> {
    return this.tokens.register(body, this.audit.callerOf(request));
  }
}
