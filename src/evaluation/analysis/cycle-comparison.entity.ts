import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { MetricDeltas, ProblemEvolution, RecommendationOutcome, Trend } from './cycle-comparison';

export const CYCLE_COMPARISON_STATUSES = ['completed', 'no_baseline'] as const;
/** `completed`: compared against a baseline; `no_baseline`: no earlier campaign of the plan had a completed analysis. */
export type CycleComparisonStatus = (typeof CYCLE_COMPARISON_STATUSES)[number];

/**
 * The cycle comparison of a production-line campaign against its baseline (evaluation-platform.md, Resources:
 * Cycle comparison), made by the analysis job when the campaign's analysis completes; one per campaign (a new
 * analysis replaces it).
 */
@Entity({ name: 'eval_cycle_comparison' })
@Index('ux_eval_cycle_comparison_campaign', ['campaignId'], { unique: true })
@Index('ix_eval_cycle_comparison_baseline', ['baselineCampaignId'])
export class CycleComparisonEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  campaignId: string;

  /** The most recent earlier campaign with the same plan fingerprint and a completed analysis; null = no baseline. */
  @Column({ type: 'uuid', nullable: true })
  baselineCampaignId: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: CycleComparisonStatus;

  /** The analysis generation of the campaign that made it. */
  @Column({ type: 'integer' })
  analysisGeneration: number;

  @Column({ type: 'jsonb', nullable: true })
  metrics: MetricDeltas | null;

  @Column({ type: 'jsonb', nullable: true })
  problemEvolution: ProblemEvolution | null;

  @Column({ type: 'jsonb', nullable: true })
  recommendationTracking: RecommendationOutcome[] | null;

  @Column({ type: 'varchar', length: 16, nullable: true })
  trend: Trend | null;

  /** Why the trend is what it is (the documented rule applied). */
  @Column({ type: 'text', nullable: true })
  trendReason: string | null;

  /** The model's account of the comparison; null when it could not be written (see narrationError) or no baseline. */
  @Column({ type: 'text', nullable: true })
  narration: string | null;

  @Column({ type: 'text', nullable: true })
  narrationError: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
