import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { CampaignResults } from '../campaigns/campaign-results';
import type { ModelConfigSnapshot } from './analysis-model';
import type { AnalysisReport } from './analysis-report.schema';
import type { StoredDiagnosis } from './analysis-prompts';
import type { RemovedReference } from './report-references';

export const ANALYSIS_STATUSES = ['generating', 'completed', 'failed'] as const;
/** `generating` until the job ends it `completed` or `failed` (evaluation-platform.md, States: Campaign analysis). */
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];
export const ANALYSIS_PHASES = ['queued', 'diagnosis', 'synthesis', 'comparison', 'done'] as const;
/** Where a generating analysis is: waiting for a worker, phase 1, phase 2, the cycle comparison; `done` once ended. */
export type AnalysisPhase = (typeof ANALYSIS_PHASES)[number];

/**
 * The one analysis of a campaign (evaluation-platform.md, Resources: Campaign analysis). A new start request
 * updates this same record (`generation` + 1) and clears the previous outcome.
 *
 * Crash safety: the job works on the record only while it holds the claim (`workerId`) of the current
 * `generation`, and refreshes `heartbeatAt` while it works. A record left `generating` with a stale heartbeat
 * (its worker died, or the queue gave up on the job) is picked up by the sweep: the job is enqueued again, or after
 * EVAL_ANALYSIS_MAX_RUNS worker runs the record ends `failed` with the reason.
 */
@Entity({ name: 'eval_campaign_analysis' })
@Index('ux_eval_campaign_analysis_campaign', ['campaignId'], { unique: true })
@Index('ix_eval_campaign_analysis_status_heartbeat', ['status', 'heartbeatAt'])
export class CampaignAnalysisEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  campaignId: string;

  @Column({ type: 'varchar', length: 16 })
  status: AnalysisStatus;

  @Column({ type: 'varchar', length: 16 })
  phase: AnalysisPhase;

  /** Start requests so far (1 after the first); the job carries it and ignores records of another generation. */
  @Column({ type: 'integer' })
  generation: number;

  /** The model configuration used (never its key). */
  @Column({ type: 'jsonb' })
  modelConfig: ModelConfigSnapshot;

  /** Distinct plan scenarios to diagnose (phase 1); null until a worker read the results. */
  @Column({ type: 'integer', nullable: true })
  scenariosTotal: number | null;

  /** Phase 1 output, one per scenario diagnosed so far (a resumed job skips these). */
  @Column({ type: 'jsonb' })
  diagnoses: StoredDiagnosis[];

  /** The campaign results the analysis read (also the cycle comparison's metrics). */
  @Column({ type: 'jsonb', nullable: true })
  results: CampaignResults | null;

  /** Phase 2 output, schema-valid, foreign references removed. */
  @Column({ type: 'jsonb', nullable: true })
  report: AnalysisReport | null;

  /** What was removed from the model's report before storage. */
  @Column({ type: 'jsonb', nullable: true })
  removedReferences: RemovedReference[] | null;

  /** Why it failed; while generating, why the last worker run stopped (it is being retried). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** Worker runs of this generation (1 normally; more after restarts or lost workers). */
  @Column({ type: 'integer' })
  attempts: number;

  /** Model calls of this generation, retries included. */
  @Column({ type: 'integer' })
  modelCalls: number;

  /** The claim of the worker run working on it; null when none. */
  @Column({ type: 'uuid', nullable: true })
  workerId: string | null;

  /** Last sign of life: the start request, then the worker's heartbeats. */
  @Column({ type: 'timestamptz' })
  heartbeatAt: Date;

  /** When the current generation was requested. */
  @Column({ type: 'timestamptz' })
  requestedAt: Date;

  /** When a worker first took up the current generation. */
  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;
}
