import type { ModelConfigEntity } from '../model-configs/model-config.entity';

/** The model configuration an analysis used, as stored on the analysis record: everything but the key. */
export interface ModelConfigSnapshot {
  id: string;
  name: string;
  provider: string;
  base_url: string;
  model: string;
  type: string;
  purpose: string;
}

/** The text of the 400 when neither the campaign nor the platform names an analysis model. */
export const NO_ANALYSIS_MODEL =
  'No analysis model: set analysis_model_config_id on the campaign or mark a model configuration as the analysis default (is_analysis_default).';

/** The fields of a model configuration the resolution reads. */
type Candidate = Pick<ModelConfigEntity, 'id' | 'name' | 'enabled' | 'type'>;

/**
 * Which model configuration analyses a campaign (issue 4, Campaign analysis: "the campaign's reference, else the
 * `is_analysis_default` configuration"). Pure.
 * - The campaign names one (`referenceId` set): it must exist (`referenced` not null), be enabled and be a chat
 *   configuration; otherwise the refusal says which and why. The default is not used instead: the campaign's
 *   choice is explicit.
 * - Else the analysis default (`analysisDefault`), which rule 5 keeps enabled and chat-type.
 * - Else {@link NO_ANALYSIS_MODEL}.
 * @returns the configuration, or a readable refusal (the 400's detail)
 */
export function resolveAnalysisModel<T extends Candidate>(
  referenceId: string | null,
  referenced: T | null,
  analysisDefault: T | null,
): { config: T } | { refusal: string } {
  if (referenceId) {
    if (!referenced) {
      return { refusal: `The campaign's analysis model configuration ${referenceId} no longer exists; point analysis_model_config_id at an existing chat configuration or clear it to use the analysis default.` };
    }
    if (!referenced.enabled) return { refusal: `The campaign's analysis model configuration "${referenced.name}" (${referenced.id}) is disabled; enable it or choose another.` };
    if (referenced.type !== 'chat') {
      return { refusal: `The campaign's analysis model configuration "${referenced.name}" (${referenced.id}) has type "${referenced.type}"; analysis needs a chat model.` };
    }
    return { config: referenced };
  }
  if (analysisDefault && analysisDefault.enabled && analysisDefault.type === 'chat') return { config: analysisDefault };
  return { refusal: NO_ANALYSIS_MODEL };
}

/** The snapshot stored on the analysis record (never the API key). */
export function snapshotModelConfig(config: Pick<ModelConfigEntity, 'id' | 'name' | 'provider' | 'baseUrl' | 'model' | 'type' | 'purpose'>): ModelConfigSnapshot {
  return { id: config.id, name: config.name, provider: config.provider, base_url: config.baseUrl, model: config.model, type: config.type, purpose: config.purpose };
}
