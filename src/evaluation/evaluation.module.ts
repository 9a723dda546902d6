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

/** The evaluation platform wing (spec: evaluation-platform.md). Built so far: sign-in, credentials, model configurations, scenarios. */
@Module({
  imports: [TypeOrmModule.forFeature([SignInFailureEntity, ModelConfigEntity, ScenarioEntity])],
  controllers: [SignInController, ModelConfigsController, ScenariosController],
  providers: [EvaluationSessions, EvaluationCredentialStrategy, ModelConfigsService, ScenariosService],
  exports: [ModelConfigsService, ScenariosService],
})
export class EvaluationModule {}
