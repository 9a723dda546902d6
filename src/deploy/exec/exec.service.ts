import { BadRequestException, HttpStatus, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ProblemException } from '../../common/http/problem-details';
import { resolveAllowedPath } from '../allowed-paths';
import { AuditCaller, AuditService } from '../audit/audit.service';
import { evaluateCommand } from './command-policy';
import { runCommand } from './command-runner';
import type { ExecCommandDto, ExecResultDto } from './exec.dto';

/** Guarded command execution (deployment-gateway.md, Endpoints: POST /api/exec; Errors: blocked commands). */
@Injectable()
export class ExecService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly audit: AuditService,
  ) {}

  /**
   * Checks the command against the blocked list, then runs it in an allowed directory and audits it with its
   * exit code.
   * @throws ProblemException (403, with `rule`) a blocked command
   * @throws ForbiddenException (403) cwd outside the allowed directories
   * @throws BadRequestException (400) timeout above EXEC_MAX_TIMEOUT_MS
   */
  async execute(input: ExecCommandDto, caller: AuditCaller): Promise<ExecResultDto> {
    const verdict = evaluateCommand(input.command);
    if (!verdict.allowed) {
      throw new ProblemException(HttpStatus.FORBIDDEN, `Command refused by rule "${verdict.rule}": ${verdict.reason}`, { rule: verdict.rule });
    }
    const timeoutMs = input.timeoutMs ?? this.config.exec.defaultTimeoutMs;
    if (timeoutMs > this.config.exec.maxTimeoutMs) {
      throw new BadRequestException(`timeoutMs must not exceed ${this.config.exec.maxTimeoutMs} ms.`);
    }
    const cwd = await resolveAllowedPath(input.cwd ?? this.config.deploy.allowedDirs[0], this.config.deploy.allowedDirs);
    const result = await runCommand(input.command, { cwd, timeoutMs, maxOutputBytes: this.config.exec.maxOutputBytes });
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
