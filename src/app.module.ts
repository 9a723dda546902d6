import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthGuard } from './common/auth/auth.guard';
import { ClusterEventsModule } from './common/cluster/cluster-events';
import { ProblemDetailsFilter } from './common/http/problem-details.filter';
import { OutboundModule } from './common/outbound/outbound.service';
import { DigitalStaffTargetPortModule } from './common/ports/digital-staff-target';
import { OperatorSignInPortModule } from './common/ports/operator-sign-in';
import { MetricsModule } from './common/metrics/metrics.module';
import { DatabaseMetrics } from './database/database-metrics';
import { HealthProbesModule } from './common/health/health-probes.module';
import { DatabaseReadiness } from './database/database-readiness';
import { JobsReadiness } from './jobs/jobs-readiness';
import type { AppConfig } from './config/app-config';
import { ChatModule } from './chat/chat.module';
import { AppConfigModule } from './config/config.module';
import { DatabaseModule } from './database/database.module';
import { DeployModule } from './deploy/deploy.module';
import { EvaluationModule } from './evaluation/evaluation.module';
import { JobsModule } from './jobs/jobs.module';
import { jobsOptionsOf } from './jobs/jobs.options';
import { PagingModule } from './common/paging/paging.module';

/** The Atrium application: shared kernel plus the wings (DESIGN.md, Shape). */
@Module({})
export class AppModule {
  /**
   * @param config validated configuration
   * @param databaseUrl the database to use (DATABASE_URL, or the embedded server's URL)
   */
  static forRoot(config: AppConfig, databaseUrl: string): DynamicModule {
    return {
      module: AppModule,
      imports: [AppConfigModule.forRoot(config), DatabaseModule.forRoot(databaseUrl), ClusterEventsModule, OutboundModule, DigitalStaffTargetPortModule, OperatorSignInPortModule, MetricsModule, HealthProbesModule, PagingModule, JobsModule.forRoot(databaseUrl, jobsOptionsOf(config)), DeployModule, EvaluationModule, ChatModule],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemDetailsFilter },
        DatabaseMetrics,
        DatabaseReadiness,
        JobsReadiness,
      ],
    };
  }
}
