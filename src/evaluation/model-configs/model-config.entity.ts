import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { SEALED_TEXT } from '../../database/sealed-columns';

export const MODEL_PROVIDERS = ['openai_compatible'] as const;
export const MODEL_TYPES = ['chat', 'embedding'] as const;
export const MODEL_PURPOSES = ['general', 'analysis', 'judge', 'exploration', 'synthesis'] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];
export type ModelType = (typeof MODEL_TYPES)[number];
export type ModelPurpose = (typeof MODEL_PURPOSES)[number];

/**
 * A model the platform may call (evaluation-platform.md, Resources: Model configuration). The API key is
 * write-only: stored to call the model, never returned or logged. At most one row is the analysis default:
 * the partial unique index enforces it in the database, not only in code (rule 5).
 */
@Entity({ name: 'eval_model_config' })
@Index('ux_eval_model_config_analysis_default', ['isAnalysisDefault'], { unique: true, where: '"is_analysis_default"' })
export class ModelConfigEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 128 })
  name: string;

  @Column({ type: 'varchar', length: 32 })
  provider: ModelProvider;

  @Column({ type: 'text' })
  baseUrl: string;

  @Column({ type: 'varchar', length: 128 })
  model: string;

  /** Write-only, sealed at rest (issue 19). */
  @Column({ type: 'text', nullable: true, transformer: SEALED_TEXT })
  apiKey: string | null;

  @Column({ type: 'varchar', length: 16 })
  type: ModelType;

  @Column({ type: 'varchar', length: 32 })
  purpose: ModelPurpose;

  /** Free-form capability metadata (context window, JSON mode, tools…). */
  @Column({ type: 'jsonb' })
  capabilities: Record<string, unknown>;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  /**
   * Whether the model takes `response_format: {"type": "json_object"}` (issue 24 item 1). Only then does the
   * llm-rubric judge send it; a model that still refuses it is asked again without it.
   */
  @Column({ type: 'boolean', default: false })
  supportsResponseFormat: boolean;

  @Column({ type: 'boolean', default: false })
  isAnalysisDefault: boolean;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
