import { DynamicModule, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import type { JobDefinition } from './job-definition';
import { DeclaredJobs } from './job-registry';
import { JOBS_OPTIONS, JobsModuleOptions, resolveJobsOptions } from './jobs.options';
import { JobsService } from './jobs.service';
import { JobMetrics } from './job-metrics';
import { MetricsModule } from '../common/metrics/metrics.module';

/**
 * The durable job runner (DESIGN.md, Jobs; Examples: "Jobs are found, not wired by hand").
 *
 * A wing declares its jobs with `defineJob`, lists them with `JobsModule.forFeature([...])` in its module, puts
 * `@JobHandler(job)` on a provider method, and enqueues with the global {@link JobsService}.
 */
@Module({})
export class JobsModule {
  /**
   * The runner, once per app (global): pg-boss on the app's database in schema `pgboss` (by default), started at
   * module init and stopped gracefully on shutdown; see {@link JobsService} for the lifecycle.
   * @param databaseUrl postgres:// URL of the app's database
   * @param options tuning, see {@link JobsModuleOptions} (seconds and ms as named)
   * @throws JobConfigurationError for an invalid option
   */
  static forRoot(databaseUrl: string, options: JobsModuleOptions = {}): DynamicModule {
    return {
      module: JobsModule,
      global: true,
      imports: [DiscoveryModule, MetricsModule],
      providers: [{ provide: JOBS_OPTIONS, useValue: resolveJobsOptions(databaseUrl, options) }, JobsService, JobMetrics],
      exports: [JobsService],
    };
  }

  /**
   * Declares the jobs a wing relies on: start-up fails when one of them has no `@JobHandler` in the app.
   * @param jobs definitions from `defineJob`
   */
  static forFeature(jobs: readonly JobDefinition<any>[]): DynamicModule {
    return { module: JobsModule, providers: [{ provide: DeclaredJobs, useValue: new DeclaredJobs(jobs) }] };
  }
}
