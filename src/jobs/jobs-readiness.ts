import { Injectable, OnModuleInit } from '@nestjs/common';
import { ReadinessRegistry } from '../common/health/readiness';
import { JobsService } from './jobs.service';

/** Registers `jobs` in `/api/health/ready` (issue 15 item 3): up when the workers started, or are knowingly off. */
@Injectable()
export class JobsReadiness implements OnModuleInit {
  constructor(
    private readonly registry: ReadinessRegistry,
    private readonly jobs: JobsService,
  ) {}

  onModuleInit(): void {
    this.registry.register('jobs', async () => {
      const workers = this.jobs.workerState();
      return { up: workers !== 'stopped', details: { workers } };
    });
  }
}
