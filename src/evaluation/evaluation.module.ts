import { Module } from '@nestjs/common';
import { CampaignEntity } from './campaigns/campaign.entity';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EvaluationCredentialStrategy, EvaluationSessions } from './auth/evaluation-auth';
import { SignInController } from './auth/sign-in.controller';
import { SignInFailureEntity } from './auth/sign-in-failure.entity';
import { ModelConfigEntity } from './model-configs/model-config.entity';
import { ModelConfigsController } from './model-configs/model-configs.controller';
import { ModelConfigsService } from './model-configs/model-configs.service';
import { ScenarioEntity } from './scenarios/scenario.entity';
import { ScenariosController } from './scenarios/scenarios.controller';
import { ScenariosService } from './scenarios/scenarios.service';
import { JobsModule } from '../jobs/jobs.module';
import { ReportsController } from './reports/reports.controller';
import { ReportsService } from './reports/reports.service';
import { CaseResultEntity } from './runs/case-result.entity';
import { RUN_EVALUATION } from './runs/run-jobs';
import { RUN_COMPLETED_WEBHOOK, RunWebhook } from './runs/run-webhook';
import { RunExecutor } from './runs/run-executor';
import { RunEntity } from './runs/run.entity';
import { RuleResultEntity } from './runs/rule-result.entity';
import { RunsController } from './runs/runs.controller';
import { RunsService } from './runs/runs.service';
import { DashboardController } from './stats/dashboard.controller';
import { DashboardService } from './stats/dashboard.service';
import { TargetEntity } from './targets/target.entity';
import { TargetsController } from './targets/targets.controller';
import { TargetsService } from './targets/targets.service';

/** The evaluation platform wing (spec: evaluation-platform.md). Built so far: sign-in, credentials, model configurations, scenarios, targets, runs, reports, webhook, dashboard. */
@Module({
  imports: [
    TypeOrmModule.forFeature([SignInFailureEntity, ModelConfigEntity, ScenarioEntity, TargetEntity, RunEntity, CaseResultEntity, RuleResultEntity, CampaignEntity]),
    JobsModule.forFeature([RUN_EVALUATION, RUN_COMPLETED_WEBHOOK]),
  ],
  controllers: [SignInController, ModelConfigsController, ScenariosController, TargetsController, RunsController, ReportsController, DashboardController],
  providers: [EvaluationSessions, EvaluationCredentialStrategy, ModelConfigsService, ScenariosService, TargetsService, RunsService, RunExecutor, RunWebhook, ReportsService, DashboardService],
  exports: [ModelConfigsService, ScenariosService, TargetsService],
})
export class EvaluationModule {}
