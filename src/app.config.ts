import { chatConfig } from './chat/chat.config';
import { chatOutboundConfig } from './chat/chat-outbound.config';
import { chatOperatorOAuthConfig } from './chat/auth/operator-oauth.config';
import { aiReplyStorageConfig } from './chat/ai-reply/ai-reply-storage.config';
import { guessLimitsConfig } from './common/auth/guess-limits.config';
import { secretKeyConfig } from './common/crypto/secret-key.config';
import { pagingConfig } from './common/paging/paging.config';
import { bodyLimitsConfig } from './common/http/body-limits.config';
import { metricsConfig } from './common/metrics/metrics.config';
import { healthConfig } from './common/health/health.config';
import { tracingConfig } from './common/tracing/tracing.config';
import type { AppConfig } from './config/app-config';
import { type ConfigDeclaration, loadConfiguration } from './config/config-variable';
import { coreConfig } from './config/core.config';
import { storageConfig } from './common/storage/storage.config';
import { clusterConfig } from './common/cluster/cluster.config';
import { databaseConfig } from './database/database.config';
import { deployConfig } from './deploy/deploy.config';
import { siteReconcilerConfig } from './deploy/deployments/site-reconciler.config';
import { execSandboxConfig } from './deploy/exec/exec-sandbox.config';
import { deployNamespacesConfig } from './deploy/namespaces/namespaces.config';
import { siteServingConfig } from './deploy/sites/sites.config';
import { evaluationConfig } from './evaluation/evaluation.config';
import { evaluationOutboundConfig } from './evaluation/evaluation-outbound.config';
import { evaluationSsoConfig } from './evaluation/auth/sso/sso.config';
import { runsConfig } from './evaluation/runs/runs.config';
import { runWebhookConfig } from './evaluation/runs/run-webhook.config';
import { chatDeliveryConfig } from './chat/messages/message-delivery.config';

/**
 * Every configuration declaration of the app, the shared core first (its `port` and `dataDir` feed the wings' derived
 * defaults). A new feature declares its variables in its own `<feature>.config.ts` and adds one line here; the list
 * also renders docs/configuration.md (`npm run docs:config`).
 */
export const APP_CONFIG_DECLARATIONS: readonly ConfigDeclaration<any, any>[] = [
  coreConfig,
  databaseConfig,
  storageConfig,
  clusterConfig,
  secretKeyConfig,
  pagingConfig,
  guessLimitsConfig,
  bodyLimitsConfig,
  metricsConfig,
  healthConfig,
  tracingConfig,
  chatConfig,
  chatOperatorOAuthConfig,
  chatOutboundConfig,
  aiReplyStorageConfig,
  chatDeliveryConfig,
  deployConfig,
  siteReconcilerConfig,
  execSandboxConfig,
  deployNamespacesConfig,
  siteServingConfig,
  evaluationConfig,
  evaluationOutboundConfig,
  evaluationSsoConfig,
  runsConfig,
  runWebhookConfig,
];

/**
 * Reads and validates the environment against every declaration (issue 15 item 7).
 * @param env usually `process.env`; empty strings count as unset
 * @returns the resolved configuration, every wing's slices merged
 * @throws ConfigurationError naming every invalid variable (and each broken cross-variable rule)
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  return loadConfiguration<AppConfig>(env, APP_CONFIG_DECLARATIONS);
}
