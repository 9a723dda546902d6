import { DeployGateway1795301000000 } from './1795301000000-DeployGateway';
import { EvaluationAuthAndModelConfigs1795305400000 } from './1795305400000-EvaluationAuthAndModelConfigs';
import { EvaluationScenarios1795306000000 } from './1795306000000-EvaluationScenarios';
import { EvaluationTargets1795306600000 } from './1795306600000-EvaluationTargets';
import { EvaluationRuns1795307200000 } from './1795307200000-EvaluationRuns';
import { EvaluationCampaigns1795310000000 } from './1795310000000-EvaluationCampaigns';
import { EvaluationCampaignAnalysis1795310600000 } from './1795310600000-EvaluationCampaignAnalysis';
import { EvaluationExploration1795310900000 } from './1795310900000-EvaluationExploration';
import { EvaluationIntelligent1795311200000 } from './1795311200000-EvaluationIntelligent';
import { EvaluationFiles1795311500000 } from './1795311500000-EvaluationFiles';
import { ChatTenantsAndOAuth1795313000000 } from './1795313000000-ChatTenantsAndOAuth';
import { ChatPlatformSimulator1795313600000 } from './1795313600000-ChatPlatformSimulator';
import { ChatStaffAndDigitalStaff1795314000000 } from './1795314000000-ChatStaffAndDigitalStaff';
import { ChatContactWays1795314300000 } from './1795314300000-ChatContactWays';
import { ChatContactsAndGroupRooms1795314600000 } from './1795314600000-ChatContactsAndGroupRooms';
import { ChatVariablesScriptsContactViews1795315200000 } from './1795315200000-ChatVariablesScriptsContactViews';
import { ChatConversationsAndChannels1795315500000 } from './1795315500000-ChatConversationsAndChannels';
import { ChatRulesAndToolProviders1795315800000 } from './1795315800000-ChatRulesAndToolProviders';
import { ChatMessages1795316100000 } from './1795316100000-ChatMessages';
import { ChatEntRobot1795316400000 } from './1795316400000-ChatEntRobot';
import { ChatInboundPipeline1795400000000 } from './1795400000000-ChatInboundPipeline';
import { ChatListIndexes1795405000000 } from './1795405000000-ChatListIndexes';
import { DeployNamespaceOwnership1795500200000 } from './1795500200000-DeployNamespaceOwnership';
import { AuthGuessWindows1795500300000 } from './1795500300000-AuthGuessWindows';
import { EvaluationNamedApiKeys1795500310000 } from './1795500310000-EvaluationNamedApiKeys';
import { SealedSecretColumns1795500500000 } from './1795500500000-SealedSecretColumns';
import { EvaluationRunLease1795500600000 } from './1795500600000-EvaluationRunLease';
import { ModelConfigResponseFormat1795500700000 } from './1795500700000-ModelConfigResponseFormat';
import { SharedSecrets1795500800000 } from './1795500800000-SharedSecrets';
import { ListSortAndSearchIndexes1795600200000 } from './1795600200000-ListSortAndSearchIndexes';
import { ScriptSearchIndexes1795600210000 } from './1795600210000-ScriptSearchIndexes';
import { StaffContactSearchIndexes1795600220000 } from './1795600220000-StaffContactSearchIndexes';
import { EvaluationRunCaseRows1795600100000 } from './1795600100000-EvaluationRunCaseRows';
import { EvaluationDashboardRollups1795600300000 } from './1795600300000-EvaluationDashboardRollups';
import { ChatSandboxContacts1795403000000 } from './1795403000000-ChatSandboxContacts';
import { ChatCustomerTodos1795401000000 } from './1795401000000-ChatCustomerTodos';
import { EvaluationSsoState1795600500000 } from './1795600500000-EvaluationSsoState';
import { ChatDeliveryLease1795600400000 } from './1795600400000-ChatDeliveryLease';
import { EvaluationRunWebhookDelivery1795600410000 } from './1795600410000-EvaluationRunWebhookDelivery';
import { ChatOAuthOperatorFlow1795600600000 } from './1795600600000-ChatOAuthOperatorFlow';
import { ScopedSearchGrams1795600700000 } from './1795600700000-ScopedSearchGrams';
import { GroupRoomScopedSearch1795600720000 } from './1795600720000-GroupRoomScopedSearch';
import { IdSortIndexes1795600730000 } from './1795600730000-IdSortIndexes';
import { DeployNamespaceLiveTokens1795600740000 } from './1795600740000-DeployNamespaceLiveTokens';
import { EvaluationTargetLatencyRollups1795600751000 } from './1795600751000-EvaluationTargetLatencyRollups';
import { GroupRoomAccess1795600760000 } from './1795600760000-GroupRoomAccess';
import { ScenarioSortIndexesHoldName1795600770000 } from './1795600770000-ScenarioSortIndexesHoldName';
import { EvaluationRunLeaseDue1795600780000 } from './1795600780000-EvaluationRunLeaseDue';
import { ListGenerations1795600790000 } from './1795600790000-ListGenerations';
import { GroupRoomListGenerations1795600800000 } from './1795600800000-GroupRoomListGenerations';

/** Every migration in order. Listed explicitly (no glob) so the same list works under tsc, SWC/Jest and dist. */
export const ALL_MIGRATIONS = [
  DeployGateway1795301000000,
  EvaluationAuthAndModelConfigs1795305400000,
  EvaluationScenarios1795306000000,
  EvaluationTargets1795306600000,
  EvaluationRuns1795307200000,
  EvaluationCampaigns1795310000000,
  EvaluationCampaignAnalysis1795310600000,
  EvaluationExploration1795310900000,
  EvaluationIntelligent1795311200000,
  EvaluationFiles1795311500000,
  ChatTenantsAndOAuth1795313000000,
  ChatPlatformSimulator1795313600000,
  ChatStaffAndDigitalStaff1795314000000,
  ChatContactWays1795314300000,
  ChatContactsAndGroupRooms1795314600000,
  ChatVariablesScriptsContactViews1795315200000,
  ChatConversationsAndChannels1795315500000,
  ChatRulesAndToolProviders1795315800000,
  ChatMessages1795316100000,
  ChatEntRobot1795316400000,
  ChatInboundPipeline1795400000000,
  ChatCustomerTodos1795401000000,
  ChatSandboxContacts1795403000000,
  ChatListIndexes1795405000000,
  DeployNamespaceOwnership1795500200000,
  AuthGuessWindows1795500300000,
  EvaluationNamedApiKeys1795500310000,
  SealedSecretColumns1795500500000,
  EvaluationRunLease1795500600000,
  ModelConfigResponseFormat1795500700000,
  SharedSecrets1795500800000,
  EvaluationDashboardRollups1795600300000,
  EvaluationRunCaseRows1795600100000,
  ListSortAndSearchIndexes1795600200000,
  ScriptSearchIndexes1795600210000,
  EvaluationSsoState1795600500000,
  ChatDeliveryLease1795600400000,
  EvaluationRunWebhookDelivery1795600410000,
  StaffContactSearchIndexes1795600220000,
  ChatOAuthOperatorFlow1795600600000,
  ScopedSearchGrams1795600700000,
  GroupRoomScopedSearch1795600720000,
  IdSortIndexes1795600730000,
  DeployNamespaceLiveTokens1795600740000,
  EvaluationTargetLatencyRollups1795600751000,
  GroupRoomAccess1795600760000,
  ScenarioSortIndexesHoldName1795600770000,
  EvaluationRunLeaseDue1795600780000,
  ListGenerations1795600790000,
  GroupRoomListGenerations1795600800000,
];
