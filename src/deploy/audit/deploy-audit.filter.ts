import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { GuessLimitExceeded } from '../../common/auth/guess-limiter';
import { problemFor, writeProblem } from '../../common/http/problem-details.filter';
import { AuditService } from './audit.service';
import { gatewayAction } from './gateway-actions';
import type { ProblemDetails } from '../../common/http/problem-details';

/**
 * Gateway controllers' exception filter: answers with the same problem+json as the global filter, and records the
 * refused (4xx) or failed (5xx) call in the audit log, so every call, allowed or refused, leaves one row
 * (deployment-gateway.md, Events). Guard refusals (401/403) pass through here too.
 */
@Catch()
export class DeployAuditFilter implements ExceptionFilter {
  private readonly logger = new Logger('DeployGateway');

  constructor(private readonly audit: AuditService) {}

  async catch(error: unknown, host: ArgumentsHost): Promise<void> {
    const request = host.switchToHttp().getRequest<Request & { auditTarget?: string; auditCommand?: string }>();
    const response = host.switchToHttp().getResponse<Response>();
    const problem = problemFor(request, error, this.logger);
    const action = gatewayAction(request.method, request.route?.path);
    // The audit row is written before the answer goes out, so a client that saw the refusal finds it in the log.
    // Refused guesses are audited in aggregate (issue 12 item 5): only the first 429 of a window gets a row; the rest
    // are counted in auth_guess_window.
    const repeatedGuess = error instanceof GuessLimitExceeded && !error.firstInWindow;
    if (action && !repeatedGuess) await this.recordRefusal(request, action, problem);
    writeProblem(response, problem);
  }

  private async recordRefusal(request: Request & { auditTarget?: string; auditCommand?: string }, action: string, problem: ProblemDetails): Promise<void> {
    try {
      await this.audit.record(this.audit.callerOf(request), {
        action,
        outcome: problem.status >= 500 ? 'failed' : 'refused',
        status: problem.status,
        target: request.auditTarget ?? null,
        command: request.auditCommand ?? null,
        detail: [problem.detail, typeof problem.rule === 'string' ? `rule=${problem.rule}` : undefined].filter(Boolean).join(' ') || problem.title,
      });
    } catch (auditError) {
      this.logger.error('Could not write the audit row of a refused call', (auditError as Error).stack);
    }
  }
}
