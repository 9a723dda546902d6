import { Body, Controller, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import { ApiBadRequestResponse, ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated, CurrentPrincipal } from '../../common/auth/auth.decorators';
import { AuditService } from '../audit/audit.service';
import { DeployMetrics } from '../deploy-metrics';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { DEPLOY_AGENT_SCHEME, DeployAgentStrategy } from '../auth/deploy-auth.strategies';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { ExecCommandDto, ExecResultDto } from './exec.dto';
import { ExecService } from './exec.service';

/** Remote command execution (deployment-gateway.md, Endpoints). */
@ApiTags('deploy')
@Controller('api')
@UseFilters(DeployAuditFilter)
export class ExecController {
  constructor(
    private readonly exec: ExecService,
    private readonly audit: AuditService,
    private readonly metrics: DeployMetrics,
  ) {}

  @Post('exec')
  @HttpCode(200)
  @Authenticated(DeployAgentStrategy, { permission: 'exec', securityScheme: DEPLOY_AGENT_SCHEME })
  @ApiOperation({
    summary: 'Run a command in the OS sandbox',
    description:
      'Runs the command with /bin/sh -c in the caller\'s namespace workspace (`<DEPLOY_ALLOWED_DIRS root>/<namespace>`), under a timeout (ms). ' +
      'The command runs in a bubblewrap sandbox as an unprivileged user: read-only system, writable only its workspace and a private /tmp, ' +
      'no network, no view of the server\'s files, environment or processes, CPU/memory/process/file-size limits; on timeout or exit the whole sandbox ends ' +
      '(docs/exec-sandbox.md). When the sandbox can\'t be set up the answer is 503 with `fix`, never an unconfined run (unless the operator set DEPLOY_EXEC_SANDBOX=off). ' +
      'Refused with 403 and the matched `rule` in the problem body: recursive deletion of /, shutdown/reboot, mkfs, dd if=, firewall flush/disable, ' +
      'stopping nginx, downloads piped into a shell, including chained, substituted, prefixed (sudo/env/nohup) and `sh -c` forms. A non-zero exit is still 200.',
  })
  @ApiOkResponse({ type: ExecResultDto })
  @ApiForbiddenResponse({ description: 'Blocked command (problem body has `rule`), cwd outside the namespace\'s workspace, the owner credential, or missing permission (problem+json).' })
  @ApiBadRequestResponse({ description: 'Invalid body, timeoutMs above EXEC_MAX_TIMEOUT_MS, or a cwd that is missing, is a file, or has a segment over 255 bytes (problem+json).' })
  @ApiServiceUnavailableResponse({ description: 'The OS sandbox can\'t be set up (bubblewrap missing, namespaces blocked); the problem body\'s `fix` says what to install or set (problem+json).' })
  execute(
    @Body() body: ExecCommandDto,
    @CurrentPrincipal() principal: DeployAgentPrincipal,
    @Req() request: Request & { auditCommand?: string; auditTarget?: string },
  ): Promise<ExecResultDto> {
    request.auditCommand = body.command;
    request.auditTarget = body.cwd;
    return this.metrics.exec(() => this.exec.execute(body, principal, this.audit.callerOf(request)));
  }
}
