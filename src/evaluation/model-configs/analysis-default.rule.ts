import type { ModelType } from './model-config.entity';

/**
 * Why a configuration cannot be the analysis default, or undefined when it can (evaluation-platform.md, rule 5:
 * only an enabled chat-type configuration can be the analysis default).
 */
export function analysisDefaultRefusal(config: { enabled: boolean; type: ModelType }): string | undefined {
  if (!config.enabled) return 'A disabled configuration cannot be the analysis default.';
  if (config.type !== 'chat') return `Only a chat configuration can be the analysis default (this one is "${config.type}").`;
  return undefined;
}
