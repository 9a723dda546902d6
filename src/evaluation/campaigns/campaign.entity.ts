import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { BudgetOverride } from './exploration-budget';

export const CAMPAIGN_LINES = ['production', 'accelerated'] as const;
/** `production` is the spec's formal line (cycle comparison, patrol); `accelerated` is the manual-only fast line. */
export type CampaignLine = (typeof CAMPAIGN_LINES)[number];
export const CAMPAIGN_STATUSES = ['draft', 'running', 'completed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
/** `completed` and `cancelled` are terminal: nothing moves a campaign out of them. */
export const TERMINAL_CAMPAIGN_STATUSES: CampaignStatus[] = ['completed', 'cancelled'];

/** One entry of a campaign's static plan: a scenario pinned at the version it had when the campaign was created. */
export interface CampaignPlanEntry {
  scenarioId: string;
  scenarioVersion: number;
  /** Snapshot for reports; not part of the fingerprint. */
  scenarioName: string;
  /** Times each case is run (default 1). */
  repeatCount: number;
  /** Requested concurrency of the entry's run (the target's cap still applies). */
  concurrency: number;
}

/**
 * A campaign (evaluation-platform.md, Resources: Campaign): one target, a service-cycle window, a static plan of
 * scenario entries with its fingerprint, an optional exploration seed set (null = opted out, rule 3), an optional
 * budget override (rule 4) and an optional analysis model configuration reference.
 */
@Entity({ name: 'eval_campaign' })
@Index('ix_eval_campaign_created', ['createdAt', 'id'])
@Index('ix_eval_campaign_status_created', ['status', 'createdAt'])
@Index('ix_eval_campaign_target_created', ['targetId', 'createdAt'])
@Index('ix_eval_campaign_line_status', ['line', 'status'])
@Index('ix_eval_campaign_fingerprint_created', ['planFingerprint', 'createdAt'])
@Index('ix_eval_campaign_window', ['windowStart', 'windowEnd'])
export class CampaignEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'uuid' })
  targetId: string;

  @Column({ type: 'varchar', length: 200 })
  targetName: string;

  @Column({ type: 'varchar', length: 16 })
  line: CampaignLine;

  @Column({ type: 'varchar', length: 16 })
  status: CampaignStatus;

  /** Service-cycle window: the campaign's budgets count sessions inside it. */
  @Column({ type: 'timestamptz' })
  windowStart: Date;

  @Column({ type: 'timestamptz' })
  windowEnd: Date;

  @Column({ type: 'jsonb' })
  plan: CampaignPlanEntry[];

  /** SHA-256 (hex) of the normalised plan, see plan-fingerprint.ts. */
  @Column({ type: 'char', length: 64 })
  planFingerprint: string;

  /** Seed personas of exploration; null (with seedGoals) = opted out of exploration (rule 3). */
  @Column({ type: 'jsonb', nullable: true })
  seedPersonas: string[] | null;

  @Column({ type: 'jsonb', nullable: true })
  seedGoals: string[] | null;

  /** Fields set here replace the platform default one by one (rule 4); null = defaults. */
  @Column({ type: 'jsonb', nullable: true })
  budgetOverride: BudgetOverride | null;

  /** Model configuration used for analysis; null = the analysis default at analysis time. */
  @Column({ type: 'uuid', nullable: true })
  analysisModelConfigId: string | null;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
