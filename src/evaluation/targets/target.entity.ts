import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { SEALED_JSON } from '../../database/sealed-columns';

export const TARGET_KINDS = ['http', 'openai', 'digital_staff'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/**
 * An agent under test and the channel that reaches it (issue 3: Target). `channel` holds the non-secret
 * settings; `secrets` holds header values and API keys, which are write-only: never returned, never logged.
 */
@Entity({ name: 'eval_target' })
@Index('ix_eval_target_created', ['createdAt'])
export class TargetEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 32 })
  kind: TargetKind;

  /** http: url, method, body_template, reply_path, timeout_ms; openai: base_url, model, system_prompt, temperature, timeout_ms. */
  @Column({ type: 'jsonb' })
  channel: Record<string, unknown>;

  /** http: { headers: { name: value } }; openai: { api_key }. Sealed at rest as one JSON string (issue 19). */
  @Column({ type: 'jsonb', transformer: SEALED_JSON })
  secrets: { headers?: Record<string, string>; api_key?: string };

  /** Hard cap on concurrent calls to this target, whatever a run asks for. */
  @Column({ type: 'integer' })
  maxConcurrency: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
