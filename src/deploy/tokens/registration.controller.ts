import { Body, Controller, Post, Req, UnauthorizedException, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiCreatedResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { AuditService } from '../audit/audit.service';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { type RegistrantPrincipal, RegistrationKeyStrategy } from '../auth/deploy-auth.strategies';
import type { DeployPrincipal } from '../auth/deploy-principal';
import { RegisterAgentDto, RegistrationResultDto } from './tokens.dto';
import { TokensService } from './tokens.service';

/** Agent self-registration (deployment-gateway.md, Endpoints: POST /api/auth/register; issue 12, item 3). */
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
      'Authenticated by the registration key in the body (not by a header); the key alone only creates new agents in new namespaces. ' +
      'The token gets the server\'s default permissions (DEPLOY_DEFAULT_PERMISSIONS) or the subset asked for. It is returned once and stored only as a SHA-256 hash.\n\n' +
      'Namespace ownership: the first registration for a `contactId` claims that namespace. Joining a claimed namespace needs a one-time `joinGrant` issued by the owner.\n\n' +
      'Re-registering an existing `agentId` needs proof in `Authorization: Bearer …`: the agent\'s current token (rotation: the old token stops working, the new one keeps or narrows its permissions, ' +
      'and the agent may stay in its namespace without a grant), or the owner token (any agent, any namespace, no grant). Without it the existing agent\'s token is left untouched.\n\n' +
      'Errors (problem+json; refusals carry a `rule`): 400 missing key, bad fields or a reserved contactId; 401 wrong key, or an unknown/revoked credential in Authorization; ' +
      '403 `not-this-agent` (a token of another agent), `join-grant-refused`; 409 `agent-exists`, `namespace-claimed`, `namespace-case-collision`.',
  })
  @ApiCreatedResponse({ type: RegistrationResultDto })
  @ApiBadRequestResponse({ description: 'Missing registration key, invalid fields, or a reserved contactId (the message names the rule).' })
  @ApiConflictResponse({ description: 'The agentId is registered (`agent-exists`) or the namespace is claimed (`namespace-claimed`, `namespace-case-collision`), and no proof was sent.' })
  async register(@Body() body: RegisterAgentDto, @Req() request: Request, @CurrentPrincipal() registrant: RegistrantPrincipal): Promise<RegistrationResultDto> {
    return this.tokens.register(body, presentedCredential(registrant), this.audit.callerOf(request));
  }
}

/**
 * The agent or owner behind an optional `Authorization: Bearer …`, as RegistrationKeyStrategy identified it; 401
 * when one was sent but not recognised (answered after the body's validation, so a bad body still gets its 400).
 */
function presentedCredential(registrant: RegistrantPrincipal): DeployPrincipal | undefined {
  if (registrant.presented === 'refused') {
    throw new UnauthorizedException('The credential in Authorization is unknown, revoked or malformed; send the agent\'s current token or the owner token, or no Authorization header.');
  }
  return registrant.presented;
}
