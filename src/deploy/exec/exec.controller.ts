import { Body, Controller, HttpCode, Post, Req, UseFilters } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Authenticated } from '../../common/auth/auth.decorators';
import { AuditService } from '../audit/audit.service';
import { DeployAuditFilter } from '../audit/deploy-audit.filter';
import { DEPLOY_AGENT_SCHEME, DeployAgentStrategy } from '../auth/deploy-auth.strategies';
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
  ) {}

  @Post('exec')
  @HttpCode(200)
  @Authenticated(DeployAgentStrategy, { permission: 'exec', securityScheme: DEPLOY_AGENT_SCHEME })
  @ApiOperation({
    summary: 'Run a guarded command',
    description:
      'Runs the command with /bin/sh -c in an allowed directory, with a minimal environment, under a timeout (ms). ' +
      'Refused with 403 and the matched `rule` in the problem body: recursive deletion of /, shutdown/reboot, mkfs, dd if=, firewall flush/disable, ' +
      'stopping nginx, downloads piped into a shell, including chained, substituted, prefixed (sudo/env/nohup) and `sh -c` forms. A non-zero exit is still 200.',
  })
  @ApiOkResponse({ type: ExecResultDto })
  @ApiForbiddenResponse({ description: 'Blocked command (problem body has `rule`), cwd outside the allowed directories, or missing permission.' })
  execute(@Body() body: ExecCommandDto, @Req() request: Request & { auditCommand?: string; auditTarget?: string }): Promise<ExecResultDto> {
    request.auditCommand = body.command;
    request.auditTarget = body.cwd;
    return this.exec.execute(body, this.audit.callerOf(request));
  }
}
