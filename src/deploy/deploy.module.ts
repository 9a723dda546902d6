import { Inject, MiddlewareConsumer, Module, NestModule, OnModuleInit, RequestMethod } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { GuessLimitsModule } from '../common/auth/guess-limiter';
import { StorageModule } from '../common/storage/storage.module';
import { TypeOrmModule } from '@nestjs/typeorm';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { AdminController } from './admin.controller';
import { AuditEntryEntity } from './audit/audit-entry.entity';
import { AuditService } from './audit/audit.service';
import { DeployAuditFilter } from './audit/deploy-audit.filter';
import { DeployAgentStrategy, DeployOwnerStrategy, RegistrationKeyStrategy } from './auth/deploy-auth.strategies';
import { DeployCredentialsService } from './auth/deploy-credentials.service';
import { DeploymentEntity } from './deployments/deployment.entity';
import { DeploymentsController } from './deployments/deployments.controller';
import { DeploymentsService } from './deployments/deployments.service';
import { siteArchiveUploadGate } from './deployments/site-archive-upload.gate';
import { SiteReconciler } from './deployments/site-reconciler';
import { ExecController } from './exec/exec.controller';
import { ExecSandboxService } from './exec/exec-sandbox.service';
import { ExecService } from './exec/exec.service';
import { HealthController } from './health/health.controller';
import { DeployMetrics } from './deploy-metrics';
import { ExecSandboxReadiness } from './exec/exec-sandbox-readiness';
import { AgentTokenEntity } from './tokens/agent-token.entity';
import { GatewaySecretEntity } from './tokens/gateway-secret.entity';
import { GatewaySecretsService } from './tokens/gateway-secrets.service';
import { RegistrationController } from './tokens/registration.controller';
import { TokensService } from './tokens/tokens.service';
import { JoinGrantEntity } from './namespaces/join-grant.entity';
import { NamespaceEntity } from './namespaces/namespace.entity';
import { NamespacesService } from './namespaces/namespaces.service';
import { UploadsController } from './uploads/uploads.controller';
import { UploadsService } from './uploads/uploads.service';

/** Folder where multer keeps request files until the handler has used them. */
export function uploadTempDir(config: AppConfig): string {
  return join(config.dataDir, 'tmp', 'uploads');
}

/** The deployment gateway wing (spec: deployment-gateway.md). */
@Module({
  imports: [
    TypeOrmModule.forFeature([AgentTokenEntity, GatewaySecretEntity, DeploymentEntity, AuditEntryEntity, NamespaceEntity, JoinGrantEntity]),
    GuessLimitsModule,
    // STORAGE_DRIVER=s3 keeps published sites in the bucket (issue 20 item 4).
    StorageModule,
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        dest: uploadTempDir(config),
        // One ceiling for both file endpoints; each service then applies its own limit (413).
        limits: { fileSize: Math.max(config.deploy.maxArchiveBytes, config.deploy.maxUploadBytes) + 1, files: 1, fields: 8, fieldSize: 64 * 1024 },
      }),
    }),
  ],
  controllers: [RegistrationController, DeploymentsController, UploadsController, ExecController, AdminController, HealthController],
  providers: [
    DeployMetrics,
    ExecSandboxReadiness,
    GatewaySecretsService,
    DeployCredentialsService,
    DeployAgentStrategy,
    DeployOwnerStrategy,
    RegistrationKeyStrategy,
    AuditService,
    DeployAuditFilter,
    TokensService,
    NamespacesService,
    DeploymentsService,
    SiteReconciler,
    UploadsService,
    ExecSandboxService,
    ExecService,
  ],
})
export class DeployModule implements OnModuleInit, NestModule {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** A deploy upload refused before its body is read (401, 403) closes the connection: the upload stops (issue 14 item 2). */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(siteArchiveUploadGate).forRoutes({ path: 'api/deploy', method: RequestMethod.POST });
  }

  /** Creates the gateway's folders: sites, allowed directories, upload temp (site-publisher makes `.staging`). */
  async onModuleInit(): Promise<void> {
    const { sitesDir, allowedDirs } = this.config.deploy;
    for (const dir of [sitesDir, uploadTempDir(this.config), ...allowedDirs]) {
      await mkdir(dir, { recursive: true });
    }
  }
}
