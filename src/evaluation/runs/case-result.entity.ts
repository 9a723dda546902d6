import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export type CaseStatus = 'passed' | 'failed' | 'errored';

/** One turn of a case's conversation as it happened. */
export interface TranscriptTurn {
  message: string;
  reply: string | null;
  latencyMs: number | null;
}

/**
 * The result of one case (one repetition) of a run. Unique per (run, case, repetition): a run resumed after a
 * restart skips what is already stored, so no case is run twice.
 */
@Entity({ name: 'eval_case_result' })
@Index('ux_eval_case_result_run_case', ['runId', 'caseId', 'repeatIndex'], { unique: true })
@Index('ix_eval_case_result_run_position', ['runId', 'position', 'repeatIndex'])
export class CaseResultEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'uuid' })
  runId: string;

  @Column({ type: 'varchar', length: 64 })
  caseId: string;

  @Column({ type: 'integer' })
  repeatIndex: number;

  /** Position of the case in the run's snapshot, for stable report order. */
  @Column({ type: 'integer' })
  position: number;

  @Column({ type: 'varchar', length: 16 })
  status: CaseStatus;

  /** The last reply (the one the rules judged). */
  @Column({ type: 'text', nullable: true })
  output: string | null;

  /** Latency of the last reply, ms. */
  @Column({ type: 'integer', nullable: true })
  latencyMs: number | null;

  /** Weighted rule score 0..1. */
  @Column({ type: 'real', nullable: true })
  score: number | null;

  /** Why the case errored (target unreachable, timeout…). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ type: 'jsonb' })
  transcript: TranscriptTurn[];

  @Column({ type: 'integer' })
  rulesPassed: number;

  @Column({ type: 'integer' })
  rulesTotal: number;

  @Column({ type: 'timestamptz' })
  finishedAt: Date;
}
