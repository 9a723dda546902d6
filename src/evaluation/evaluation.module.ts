import { Module } from '@nestjs/common';
import { AnalysisController } from './analysis/analysis.controller';
import { AnalysisExecutor } from './analysis/analysis-executor';
import { ANALYSE_CAMPAIGN } from './analysis/analysis-jobs';
import { AnalysisService } from './analysis/analysis.service';
import { AnalysisSweeper } from './analysis/analysis-sweeper';
import { CampaignAnalysisEntity } from './analysis/campaign-analysis.entity';
import { CycleComparisonEntity } from './analysis/cycle-comparison.entity';
import { IntelligentEvaluationEntity } from './intelligent/intelligent-evaluation.entity';
import { IntelligentEvaluationsController } from './intelligent/intelligent-evaluations.controller';
import { IntelligentEvaluationsService } from './intelligent/intelligent-evaluations.service';
import { IntelligentMessageEntity } from './intelligent/intelligent-message.entity';
import { IntelligentSessionEntity } from './intelligent/intelligent-session.entity';
import { IntelligentSessionsController } from './intelligent/intelligent-sessions.controller';
import { IntelligentSessionsService } from './intelligent/intelligent-sessions.service';
import { CampaignEntity } from './campaigns/campaign.entity';
import { CampaignResultsQuery } from './campaigns/campaign-results';
import { CampaignsController } from './campaigns/campaigns.controller';
import { CampaignsService } from './campaigns/campaigns.service';
import { ExplorationController } from './exploration/exploration.controller';
import { ExplorationMessageEntity } from './exploration/exploration-message.entity';
import { ExplorationService } from './exploration/exploration.service';
import { ExplorationSessionEntity } from './exploration/exploration-session.entity';
import { PatrolRunMarkEntity, PatrolWatermarkEntity } from './exploration/patrol-mark.entity';
import { PatrolService } from './exploration/patrol.service';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EvaluationFilesModule } from './files/files.module';
import { EvaluationApiKeyStrategy, EvaluationPasswordStrategy, EvaluationSessions, EvaluationSessionStrategy } from './auth/evaluation-auth';
import { SignInController } from './auth/sign-in.controller';
import { SsoController } from './auth/sso/sso.controller';
import { EvaluationSsoStrategy } from './auth/sso/sso.strategy';
import { ApiKeyEntity } from './auth/api-key.entity';
import { ApiKeysController } from './auth/api-keys.controller';
import { ApiKeysService } from './auth/api-keys.service';
import { GuessLimitsModule } from '../common/auth/guess-limiter';
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
import { RUN_COMPLETED_WEBHOOK, RunWebhook, RunWebhookSweeper } from './runs/run-webhook';
import { RunExecutor } from './runs/run-executor';
import { RunMetrics } from './runs/run-metrics';
import { RunLeaseSweeper } from './runs/run-lease.sweeper';
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
    TypeOrmModule.forFeature([CampaignAnalysisEntity, CycleComparisonEntity, IntelligentEvaluationEntity, IntelligentSessionEntity, IntelligentMessageEntity, ApiKeyEntity, ModelConfigEntity, ScenarioEntity, TargetEntity, RunEntity, CaseResultEntity, RuleResultEntity, CampaignEntity, ExplorationSessionEntity, ExplorationMessageEntity, PatrolRunMarkEntity, PatrolWatermarkEntity]),
    EvaluationFilesModule,
    GuessLimitsModule,
    JobsModule.forFeature([ANALYSE_CAMPAIGN, RUN_EVALUATION, RUN_COMPLETED_WEBHOOK]),
  ],
  controllers: [AnalysisController, IntelligentEvaluationsController, IntelligentSessionsController, SignInController, SsoController, ApiKeysController, ModelConfigsController, ScenariosController, TargetsController, RunsController, ReportsController, DashboardController, CampaignsController, ExplorationController],
  providers: [AnalysisService, AnalysisExecutor, AnalysisSweeper, IntelligentEvaluationsService, IntelligentSessionsService, EvaluationSessions, EvaluationApiKeyStrategy, EvaluationSessionStrategy, EvaluationPasswordStrategy, EvaluationSsoStrategy, ApiKeysService, ModelConfigsService, ScenariosService, TargetsService, RunsService, RunExecutor, RunMetrics, RunLeaseSweeper, RunWebhook, RunWebhookSweeper, ReportsService, DashboardService, CampaignResultsQuery, CampaignsService, ExplorationService, PatrolService],
  exports: [ModelConfigsService, ScenariosService, TargetsService, CampaignResultsQuery, CampaignsService],
})
export class EvaluationModule {}
