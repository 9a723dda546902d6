import { BadRequestException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ProblemException } from '../../common/http/problem-details';
import { AuditCaller, AuditService } from '../audit/audit.service';
import type { DeployAgentPrincipal } from '../auth/deploy-principal';
import { evaluateCommand } from './command-policy';
import { runCommand } from './command-runner';
import { resolveExecCwd } from './exec-cwd';
import { ExecSandboxService } from './exec-sandbox.service';
import type { ExecCommandDto, ExecResultDto } from './exec.dto';

/**
 * Guarded command execution (deployment-gateway.md, Endpoints: POST /api/exec; Errors: blocked commands; issue 12
 * items 1, 2 and 6). The blocklist is the spec's courtesy; the OS sandbox is the defence.
 */
@Injectable()
export class ExecService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly sandbox: ExecSandboxService,
  ) {}

  /**
   * Checks the command against the blocked list, then runs it in the caller's namespace workspace (inside the OS
   * sandbox unless the operator turned it off) and audits it with its exit code. Agent tokens only: the owner
   * credential has no namespace and can't run commands.
   * @throws ProblemException (403, with `rule`) a blocked command
   * @throws BadRequestException (400) timeout above EXEC_MAX_TIMEOUT_MS; cwd missing, a file, or a segment over 255 bytes
   * @throws ForbiddenException (403) cwd outside the namespace's workspace
   * @throws ProblemException (503, with `fix`) the sandbox is on but can't be set up
   */
  async execute(input: ExecCommandDto, principal: DeployAgentPrincipal, caller: AuditCaller): Promise<ExecResultDto> {
    const verdict = evaluateCommand(input.command);
    if (!verdict.allowed) {
      throw new ProblemException(HttpStatus.FORBIDDEN, `Command refused by rule "${verdict.rule}": ${verdict.reason}`, { rule: verdict.rule });
    }
    const timeoutMs = input.timeoutMs ?? this.config.exec.defaultTimeoutMs;
    if (timeoutMs > this.config.exec.maxTimeoutMs) {
      throw new BadRequestException(`timeoutMs must not exceed ${this.config.exec.maxTimeoutMs} ms.`);
    }
    this.sandbox.assertUsable();
    const workspaces = await this.sandbox.prepareWorkspaces(principal.namespace);
    const cwd = await resolveExecCwd(input.cwd, workspaces);
    const sandbox = this.sandbox.invocationFor(input.command, workspaces, cwd);
    const result = await runCommand(input.command, { cwd, timeoutMs, maxOutputBytes: this.config.exec.maxOutputBytes, sandbox });
    await this.audit.record(caller, {
      action: 'exec',
      outcome: 'allowed',
      status: 200,
      target: cwd,
      command: input.command,
      exitCode: result.exitCode,
      detail: result.timedOut ? `timed out after ${timeoutMs} ms` : result.signal ? `signal ${result.signal}` : null,
    });
    return result;
  }
}
