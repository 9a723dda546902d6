import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ExperienceRecord } from './experience-record';
import type { StopKind } from './stop-marker';

export const EXPLORATION_MODES = ['manual', 'model'] as const;
/** `manual`: the caller writes the virtual user's messages; `model`: a model configuration plays the virtual user (drive). */
export type ExplorationMode = (typeof EXPLORATION_MODES)[number];
export const EXPLORATION_SESSION_STATUSES = ['open', 'closed'] as const;
export type ExplorationSessionStatus = (typeof EXPLORATION_SESSION_STATUSES)[number];

/**
 * An exploration session of a campaign (evaluation-platform.md, Resources: Exploration session): independent of runs;
 * a virtual user with a persona and a goal talks to the campaign's target under the campaign's budget. `turnsUsed`
 * counts turns reserved for delivery (a turn counts once delivered, even without a reply). Closing stores the
 * normalised experience record.
 */
@Entity({ name: 'eval_exploration_session' })
@Index('ix_eval_exploration_session_campaign_started', ['campaignId', 'startedAt'])
@Index('ix_eval_exploration_session_campaign_patrol', ['campaignId', 'patrolSequence'])
export class ExplorationSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  campaignId: string;

  @Column({ type: 'text' })
  persona: string;

  @Column({ type: 'text' })
  goal: string;

  @Column({ type: 'varchar', length: 16 })
  mode: ExplorationMode;

  /** The model configuration that plays the virtual user (mode `model`), else null. */
  @Column({ type: 'uuid', nullable: true })
  modelConfigId: string | null;

  @Column({ type: 'varchar', length: 16 })
  status: ExplorationSessionStatus;

  /** Turns reserved or delivered; never more than the effective turns_per_session. */
  @Column({ type: 'integer' })
  turnsUsed: number;

  /** The stop marker the driving model wrote (`done` | `give_up`), null until it writes one. */
  @Column({ type: 'varchar', length: 16, nullable: true })
  stopMarker: StopKind | null;

  /** Set from the database clock when the session is created (the budget compares starts in that clock). */
  @Column({ type: 'timestamptz' })
  startedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  closedAt: Date | null;

  /** Stored at close (experience-record.ts); null while open. */
  @Column({ type: 'jsonb', nullable: true })
  experience: ExperienceRecord | null;

  /** The patrol call that reported this closed session; null until one has (see patrol.service.ts). */
  @Column({ type: 'bigint', nullable: true })
  patrolSequence: string | null;
}
