import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { RuleDefinition } from '../rules/rule.types';

/** One case of a scenario: a single message or a multi-turn conversation, with its rules. */
export interface ScenarioCase {
  id: string;
  /** Single-turn input. */
  input?: string;
  /** Multi-turn input: user messages sent one after another, each after the target's previous reply. */
  turns?: string[];
  expected?: string;
  rules: RuleDefinition[];
  /** Weighted score (0..1) that passes the case; without it every rule must pass. */
  threshold?: number;
  /** Labels a report can filter its cases by (`GET /api/reports/{id}?tag=…`, issue 23 item 3). */
  tags?: string[];
}

/**
 * A scenario (evaluation-platform.md, Resources: Scenario). `version` is kept by the system: 1 at creation, +1
 * only when the syllabus (`cases`, `model_bindings`, `llm_config`) changes (rule 1).
 */
@Entity({ name: 'eval_scenario' })
export class ScenarioEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'jsonb' })
  metadata: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  cases: ScenarioCase[];

  @Column({ type: 'jsonb' })
  modelBindings: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  llmConfig: Record<string, unknown>;

  @Column({ type: 'integer' })
  version: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
