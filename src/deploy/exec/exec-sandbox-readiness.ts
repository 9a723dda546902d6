import { Injectable, OnModuleInit } from '@nestjs/common';
import { ReadinessRegistry, type ReadinessResult } from '../../common/health/readiness';
import { ExecSandboxService } from './exec-sandbox.service';

/**
 * Registers `exec_sandbox` in `/api/health/ready` (issue 15 item 3): up when the sandbox is ready, or knowingly off
 * (DEPLOY_EXEC_SANDBOX=off, the operator's choice, reported as `off`); down when it is on but can't run (exec would
 * answer 503), with the reason.
 */
@Injectable()
export class ExecSandboxReadiness implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    private readonly sandbox: ExecSandboxService,
  ) {}

  onModuleInit(): void {
    this.registry.register('exec_sandbox', async (): Promise<ReadinessResult> => {
      const status = this.sandbox.status();
      if (status.kind === 'unavailable') return { up: false, details: { sandbox: 'unavailable', reason: status.reason } };
      return { up: true, details: { sandbox: status.kind } };
    });
  }
}
