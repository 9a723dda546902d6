import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { RunSummary } from '../rules/run-summary';

export const RUN_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
/** A run in these states can still execute or be cancelled; the others (`completed`, `failed`, `cancelled`) are terminal. */
export const LIVE_RUN_STATUSES: RunStatus[] = ['queued', 'running'];
export const RUN_TRIGGERS = ['manual', 'ai_assistant', 'cli'] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/**
 * One run of a scenario against a target (evaluation-platform.md, Resources: Run). It snapshots the scenario's
 * version and cases at creation (the cases as `eval_run_case` rows), so later edits never change it; names are
 * snapshotted for lists and reports.
 */
@Entity({ name: 'eval_run' })
@Index('ix_eval_run_created', ['createdAt', 'id'])
@Index('ix_eval_run_status_created', ['status', 'createdAt'])
@Index('ix_eval_run_scenario_created', ['scenarioId', 'createdAt'])
@Index('ix_eval_run_target_created', ['targetId', 'createdAt'])
@Index('ix_eval_run_campaign', ['campaignId'])
/** The run sweeper's index: `COALESCE(lease_until, '-infinity')` of running runs (an expression: migration 1795600780000 owns it). */
@Index('ix_eval_run_running_lease_due', { synchronize: false })
export class RunEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid', nullable: true })
  scenarioId: string | null;

  @Column({ type: 'varchar', length: 200 })
  scenarioName: string;

  /** The scenario version the run used (rule 2: runs created before versioning carry 1 or their scenario's). */
  @Column({ type: 'integer' })
  scenarioVersion: number;

  @Column({ type: 'uuid', nullable: true })
  targetId: string | null;

  @Column({ type: 'varchar', length: 200 })
  targetName: string;

  @Column({ type: 'varchar', length: 16 })
  status: RunStatus;

  @Column({ type: 'varchar', length: 16 })
  triggeredBy: RunTrigger;

  @Column({ type: 'uuid', nullable: true })
  campaignId: string | null;

  /** Requested concurrency (the target's cap still applies). */
  @Column({ type: 'integer' })
  concurrency: number;

  /** Times each case is run. */
  @Column({ type: 'integer' })
  repeatCount: number;

  /**
   * How many cases the run's snapshot holds (the cases themselves are rows of `eval_run_case`, run-case.entity.ts),
   * so a poll never reads the snapshot (issue 23 item 3).
   */
  @Column({ type: 'integer', default: 0 })
  caseCount: number;

  @Column({ type: 'jsonb' })
  modelBindings: Record<string, unknown>;

  @Column({ type: 'jsonb' })
  llmConfig: Record<string, unknown>;

  @Column({ type: 'jsonb', nullable: true })
  summary: RunSummary | null;

  /** Why the run failed (not why a case errored). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  /** The execution holding the run (`<host>:<pid>:<random>#<random>`, run-lease.ts), or null when none does. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  leaseOwner: string | null;

  /** Until when the holder (or the queue, after a release or a sweep) owns a running run; renewed by a heartbeat. */
  @Column({ type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;
}
