import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { ChatAuthorizationServer } from './auth/authorization-server';
import { ChatCredentialStrategy } from './auth/chat-auth.strategy';
import { CHAT_OAUTH_SETTINGS, ChatOAuthSettings, resolveChatOAuthSettings } from './auth/chat-oauth.settings';
import { OAuthClientEntity } from './auth/oauth-client.entity';
import { OAuthClientsService } from './auth/oauth-clients.service';
import { PlatformClientsController } from './auth/platform-clients.controller';
import { ChatPlatformModule } from './platform/chat-platform.module';
import { WorkChatCorpEntity } from './corps/work-chat-corp.entity';
import { WorkChatCorpsController } from './corps/work-chat-corps.controller';
import { WorkChatCorpsService } from './corps/work-chat-corps.service';
import { PlatformTenantsController } from './tenants/platform-tenants.controller';
import { TenantEntity } from './tenants/tenant.entity';
import { TenantsService } from './tenants/tenants.service';

/**
 * The chat management wing (spec: chat-management-api.md; issue 5). Built so far: tenants and OAuth2 (resource
 * server for every chat route, built-in authorization server when CHAT_OAUTH_ISSUER is unset, platform-admin API),
 * corps, the enterprise chat platform port (simulator or HTTP adapter). Chat controllers declare `@ChatAuth()` and read the tenant with `@CurrentTenant()`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TenantEntity, OAuthClientEntity, WorkChatCorpEntity]), ChatPlatformModule],
  controllers: [PlatformTenantsController, PlatformClientsController, WorkChatCorpsController],
  providers: [
    {
      provide: CHAT_OAUTH_SETTINGS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => resolveChatOAuthSettings(config.chatAuth),
    },
    {
      provide: ChatAuthorizationServer,
      inject: [CHAT_OAUTH_SETTINGS, APP_CONFIG, OAuthClientsService],
      useFactory: (settings: ChatOAuthSettings, config: AppConfig, clients: OAuthClientsService) =>
        settings.mode === 'built-in' ? ChatAuthorizationServer.start(settings, config.dataDir, clients) : ChatAuthorizationServer.disabled(),
    },
    TenantsService,
    OAuthClientsService,
    ChatCredentialStrategy,
    WorkChatCorpsService,
  ],
  exports: [TenantsService, ChatCredentialStrategy, CHAT_OAUTH_SETTINGS, WorkChatCorpsService],
})
export class ChatModule {}
