import { Module } from '@nestjs/common';
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
import { TargetEntity } from './targets/target.entity';
import { TargetsController } from './targets/targets.controller';
import { TargetsService } from './targets/targets.service';

/** The evaluation platform wing (spec: evaluation-platform.md). Built so far: sign-in, credentials, model configurations, scenarios, targets. */
@Module({
  imports: [TypeOrmModule.forFeature([SignInFailureEntity, ModelConfigEntity, ScenarioEntity, TargetEntity])],
  controllers: [SignInController, ModelConfigsController, ScenariosController, TargetsController],
  providers: [EvaluationSessions, EvaluationCredentialStrategy, ModelConfigsService, ScenariosService, TargetsService],
  exports: [ModelConfigsService, ScenariosService, TargetsService],
})
export class EvaluationModule {}
