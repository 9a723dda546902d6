import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { OutboundHttp } from '../common/outbound/outbound.service';
import { ChatAuthorizationServer, signingKeyFile } from './auth/authorization-server';
import { shareCookieKey, shareSigningKey } from './auth/shared-signing-key';
import { OperatorSignInRegistry } from '../common/ports/operator-sign-in';
import { GuessLimiter, GuessLimitsModule } from '../common/auth/guess-limiter';
import { DataSource } from 'typeorm';
import { ChatCredentialStrategy } from './auth/chat-auth.strategy';
import { CHAT_OAUTH_SETTINGS, ChatOAuthSettings, resolveChatOAuthSettings } from './auth/chat-oauth.settings';
import { OAuthClientEntity } from './auth/oauth-client.entity';
import { OAuthClientsService } from './auth/oauth-clients.service';
import { PlatformClientsController } from './auth/platform-clients.controller';
import { ChatPlatformModule } from './platform/chat-platform.module';
import { ChatListPager } from './common/list-pager';
import { ExternalContactEntity } from './contacts/external-contact.entity';
import { GroupMemberEntity } from './group-rooms/group-member.entity';
import { GroupRoomAccessEntity } from './group-rooms/group-room-access.entity';
import { GroupRoomEntity } from './group-rooms/group-room.entity';
import { ConsoleContactsController } from './contacts/console-contacts.controller';
import { ContactSyncService } from './contacts/contact-sync.service';
import { CustomerProfilesController } from './contacts/customer-profiles.controller';
import { CustomerProfilesService } from './contacts/customer-profiles.service';
import { ExternalContactsV1Controller } from './contacts/external-contacts-v1.controller';
import { ExternalContactsService } from './contacts/external-contacts.service';
import { GuideSyncController } from './contacts/guide-sync.controller';
import { WorkChatTenantlessController } from './contacts/work-chat-tenantless.controller';
import { ConsoleGroupRoomsController } from './group-rooms/console-group-rooms.controller';
import { GroupMemberDedupController } from './group-rooms/group-member-dedup.controller';
import { GroupRoomsService } from './group-rooms/group-rooms.service';
import { SimulatorApiController } from './simulator-api/simulator-api.controller';
import { SimulatorApiService } from './simulator-api/simulator-api.service';
import { WorkChatCorpEntity } from './corps/work-chat-corp.entity';
import { WorkChatCorpsController } from './corps/work-chat-corps.controller';
import { ChatCorpDirectory } from './corps/corp-directory';
import { WorkChatCorpsService } from './corps/work-chat-corps.service';
import { PlatformTenantsController } from './tenants/platform-tenants.controller';
import { TenantEntity } from './tenants/tenant.entity';
import { TenantsService } from './tenants/tenants.service';
import { WorkChatUserEntity } from './staff-users/work-chat-user.entity';
import { DigitalStaffEntity } from './digital-staff/digital-staff.entity';
import { DigitalStaffServiceTimeEntity } from './digital-staff/service-time.entity';
import { WorkChatUsersController } from './staff-users/work-chat-users.controller';
import { WorkChatUsersService } from './staff-users/work-chat-users.service';
import { DigitalStaffController } from './digital-staff/digital-staff.controller';
import { DigitalStaffService } from './digital-staff/digital-staff.service';
import { ServiceTimeController } from './digital-staff/service-time.controller';
import { ContactWayEntity } from './contact-ways/contact-way.entity';
import { GroupWayEntity } from './group-ways/group-way.entity';
import { ChatContactWaysController } from './contact-ways/chat-contact-ways.controller';
import { ConsoleContactWaysController } from './contact-ways/console-contact-ways.controller';
import { ContactWaysService } from './contact-ways/contact-ways.service';
import { SimulatorQrController } from './contact-ways/simulator-qr.controller';
import { StaffGuideScenesController } from './contact-ways/staff-guide-scenes.controller';
import { WorkChatContactWaysController } from './contact-ways/work-chat-contact-ways.controller';
import { GroupWaysController } from './group-ways/group-ways.controller';
import { GroupWaysService } from './group-ways/group-ways.service';
import { DiagnosisController } from './diagnosis/diagnosis.controller';
import { DiagnosisService } from './diagnosis/diagnosis.service';

import { ConversationGroupEntity } from './conversation-groups/conversation-group.entity';
import { ConversationEventDefinitionEntity } from './conversation-groups/event-definition.entity';
import { ConversationTriggerEntity } from './conversation-groups/trigger.entity';
import { ConversationGroupsController } from './conversation-groups/conversation-groups.controller';
import { ConversationGroupsService } from './conversation-groups/conversation-groups.service';
import { TriggersController } from './conversation-groups/triggers.controller';
import { TriggersService } from './conversation-groups/triggers.service';
import { EventDefinitionsController } from './conversation-groups/event-definitions.controller';
import { EventDefinitionsService } from './conversation-groups/event-definitions.service';
import { UserConversationEntity } from './conversations/user-conversation.entity';
import { UserConversationsController } from './conversations/user-conversations.controller';
import { UserConversationsService } from './conversations/user-conversations.service';
import { ChatChannelEntity } from './channels/chat-channel.entity';
import { ChatChannelsController } from './channels/chat-channels.controller';
import { ChatChannelsService } from './channels/chat-channels.service';
import { ChatGroupEntity } from './chat-groups/chat-group.entity';
import { ChatGroupsController, TenantChatGroupsController } from './chat-groups/chat-groups.controller';
import { ChatGroupsService } from './chat-groups/chat-groups.service';
import { VariableScopeEntity } from './variables/variable-scope.entity';
import { VariableDefinitionEntity } from './variables/variable-definition.entity';
import { VariableValueEntity } from './variables/variable-value.entity';
import { VariableScopesController } from './variables/variable-scopes.controller';
import { VariableValuesController } from './variables/variable-values.controller';
import { VariableScopesService } from './variables/variable-scopes.service';
import { VariablesService } from './variables/variables.service';
import { ScriptCategoryEntity } from './scripts/script-category.entity';
import { ScriptContentEntity } from './scripts/script-content.entity';
import { ScriptCategoriesController } from './scripts/script-categories.controller';
import { ScriptContentsController } from './scripts/script-contents.controller';
import { ScriptCategoriesService } from './scripts/script-categories.service';
import { ScriptsService } from './scripts/scripts.service';
import { ContactViewEntity } from './contact-views/contact-view.entity';
import { ContactViewsController } from './contact-views/contact-views.controller';
import { ContactViewsService } from './contact-views/contact-views.service';
import { InterventionRuleEntity } from './intervention-rules/intervention-rule.entity';
import { InterventionRulesConsoleController, InterventionRulesV1Controller } from './intervention-rules/intervention-rules.controller';
import { InterventionRulesService } from './intervention-rules/intervention-rules.service';
import { TagRuleEntity } from './tag-rules/tag-rule.entity';
import { TagRulesController } from './tag-rules/tag-rules.controller';
import { TagRulesService } from './tag-rules/tag-rules.service';
import { IntentionRecordEntity } from './intent-records/intention-record.entity';
import { IntentionRecordsController } from './intent-records/intention-records.controller';
import { IntentionRecordsService } from './intent-records/intention-records.service';
import { ToolProviderEntity } from './tool-providers/tool-provider.entity';
import { ToolProvidersController } from './tool-providers/tool-providers.controller';
import { ToolProvidersService } from './tool-providers/tool-providers.service';
import { ChatMessagesModule } from './messages/chat-messages.module';
import { ChatMcpModule } from './mcp/chat-mcp.module';
import { EntRobotGroupEntity } from './ent-robot/ent-robot-group.entity';
import { EntRobotMessageLogEntity } from './ent-robot/ent-robot-message-log.entity';
import { EntRobotController } from './ent-robot/ent-robot.controller';
import { EntRobotService } from './ent-robot/ent-robot.service';
import { PlatformCallbackController } from './platform/callback/platform-callback.controller';
import { PlatformCallbackService } from './platform/callback/platform-callback.service';
import { DigitalStaffSandbox } from './sandbox/digital-staff-sandbox.service';
import { DigitalStaffTargetRegistration } from './sandbox/digital-staff-target.registration';
import { AiReplyMetrics } from './pipeline/ai-reply-metrics';
import { CustomerTodoEntity } from './todos/customer-todo.entity';
import { CustomerTodosService } from './todos/customer-todos.service';
import { CustomerTodosController } from './todos/customer-todos.controller';
import { AiReplyComposer } from './ai-reply/ai-reply-composer.service';
import { JobsModule } from '../jobs/jobs.module';
import { AI_REPLY } from './pipeline/ai-reply.job';
import { AiReplyStore } from './pipeline/ai-reply.store';
import { AiReplySweeper } from './pipeline/ai-reply.sweeper';
import { AiReplyWorker } from './pipeline/ai-reply.worker';
import { AiInterveneController } from './pipeline/ai-intervene.controller';
import { ChatAiReplyEntity } from './pipeline/chat-ai-reply.entity';
import { ChatInboundPipeline } from './pipeline/chat-inbound-pipeline.service';
import { OutOfHoursNoticeEntity } from './pipeline/out-of-hours-notice.entity';
/**
 * The chat management wing (spec: chat-management-api.md; issue 5). Built so far: tenants and OAuth2 (resource
 * server for every chat route, built-in authorization server when CHAT_OAUTH_ISSUER is unset, platform-admin API),
 * corps, the enterprise chat platform port (simulator or HTTP adapter). Chat controllers declare `@ChatAuth()` and read the tenant with `@CurrentTenant()`.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TenantEntity, OAuthClientEntity, WorkChatCorpEntity, ExternalContactEntity, GroupRoomEntity, GroupMemberEntity, GroupRoomAccessEntity, WorkChatUserEntity, DigitalStaffEntity, DigitalStaffServiceTimeEntity, ContactWayEntity, GroupWayEntity]), ChatPlatformModule, TypeOrmModule.forFeature([ConversationGroupEntity, ConversationEventDefinitionEntity, ConversationTriggerEntity, UserConversationEntity, ChatChannelEntity, ChatGroupEntity]), TypeOrmModule.forFeature([VariableScopeEntity, VariableDefinitionEntity, VariableValueEntity, ScriptCategoryEntity, ScriptContentEntity, ContactViewEntity]), TypeOrmModule.forFeature([InterventionRuleEntity, TagRuleEntity, IntentionRecordEntity, ToolProviderEntity]), ChatMessagesModule, ChatMcpModule, TypeOrmModule.forFeature([ChatAiReplyEntity, OutOfHoursNoticeEntity]), JobsModule.forFeature([AI_REPLY]), GuessLimitsModule, TypeOrmModule.forFeature([EntRobotGroupEntity, EntRobotMessageLogEntity]), TypeOrmModule.forFeature([CustomerTodoEntity])],
  controllers: [AiInterveneController, PlatformTenantsController, PlatformClientsController, WorkChatCorpsController, ConsoleContactsController, ExternalContactsV1Controller, CustomerProfilesController, WorkChatTenantlessController, GuideSyncController, ConsoleGroupRoomsController, GroupMemberDedupController, SimulatorApiController, WorkChatUsersController, DigitalStaffController, ServiceTimeController, DiagnosisController, ChatContactWaysController, WorkChatContactWaysController, ConsoleContactWaysController, StaffGuideScenesController, SimulatorQrController, GroupWaysController, ConversationGroupsController, TriggersController, EventDefinitionsController, UserConversationsController, ChatChannelsController, ChatGroupsController, TenantChatGroupsController, VariableScopesController, VariableValuesController, ScriptCategoriesController, ScriptContentsController, ContactViewsController, InterventionRulesV1Controller, InterventionRulesConsoleController, TagRulesController, IntentionRecordsController, ToolProvidersController, EntRobotController, PlatformCallbackController, CustomerTodosController],
  providers: [
    {
      provide: CHAT_OAUTH_SETTINGS,
      inject: [APP_CONFIG, OutboundHttp],
      // Discovery goes through the OAuth issuer's outbound client (CHAT_OAUTH_ALLOW_PRIVATE_NETWORKS; issue 19 item 1).
      useFactory: (config: AppConfig, outbound: OutboundHttp) => resolveChatOAuthSettings(config.chatAuth, outbound.client(config.chatOutbound.oauth).fetch({ timeoutMs: config.chatAuth.httpTimeoutMs })),
    },
    {
      provide: ChatAuthorizationServer,
      inject: [CHAT_OAUTH_SETTINGS, APP_CONFIG, OAuthClientsService, DataSource, OperatorSignInRegistry, GuessLimiter],
      useFactory: async (settings: ChatOAuthSettings, config: AppConfig, clients: OAuthClientsService, dataSource: DataSource, signInPort: OperatorSignInRegistry, limiter: GuessLimiter) => {
        if (settings.mode !== 'built-in') return ChatAuthorizationServer.disabled();
        // One signing key for every instance on the database (issue 20 item 5), written to the file start() reads.
        await shareSigningKey(dataSource, signingKeyFile(config.dataDir));
        // Operator flow (issue 13 item 2): one cookie key for every instance too, records in chat_oauth_record.
        const cookieKey = await shareCookieKey(dataSource);
        return ChatAuthorizationServer.start(settings, config.dataDir, clients, { dataSource, cookieKey, signInPort, operator: config.chatOperatorOAuth, limiter });
      },
    },
    TenantsService,
    OAuthClientsService,
    ChatCredentialStrategy,
    ContactWaysService,
    ChatListPager,
    GroupWaysService,
    WorkChatCorpsService,
    ChatCorpDirectory,
    ExternalContactsService,
    ContactSyncService,
    CustomerProfilesService,
    GroupRoomsService,
    SimulatorApiService,
    WorkChatUsersService,
    DigitalStaffService,
    DiagnosisService,
    ConversationGroupsService,
    TriggersService,
    EventDefinitionsService,
    UserConversationsService,
    ChatChannelsService,
    ChatGroupsService,
    VariableScopesService,
    VariablesService,
    ScriptCategoriesService,
    ScriptsService,
    ContactViewsService,
    InterventionRulesService,
    TagRulesService,
    IntentionRecordsService,
    ToolProvidersService,
    EntRobotService,
    PlatformCallbackService,
    DigitalStaffSandbox,
    DigitalStaffTargetRegistration, // the `digital_staff` evaluation target, through the shared port (issue 15 item 8)
    CustomerTodosService,
    AiReplyComposer,
    ChatInboundPipeline,
    AiReplyStore,
    AiReplyWorker,
    AiReplyMetrics,
    AiReplySweeper,
  ],
  exports: [ChatInboundPipeline, DigitalStaffSandbox, TenantsService, ChatCredentialStrategy, CHAT_OAUTH_SETTINGS, WorkChatCorpsService, WorkChatUsersService, DigitalStaffService, ConversationGroupsService, UserConversationsService, ChatChannelsService, ChatGroupsService, VariablesService, ScriptsService, ContactViewsService, InterventionRulesService, TagRulesService, IntentionRecordsService, ToolProvidersService, CustomerTodosService, AiReplyComposer],
})
export class ChatModule {}
