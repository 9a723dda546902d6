import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A terminal run already reported by a patrol call (evaluation-platform.md, Patrol rules 2–3). The primary key on the
 * run id is what makes increments exact: a run is marked, and reported, by exactly one patrol call, even when two
 * calls race or a run becomes terminal with an earlier `finished_at` than runs already reported.
 */
@Entity({ name: 'eval_patrol_run_mark' })
@Index('ix_eval_patrol_run_mark_campaign_sequence', ['campaignId', 'sequence'])
export class PatrolRunMarkEntity {
  @PrimaryColumn({ type: 'uuid' })
  runId: string;

  @Column({ type: 'uuid' })
  campaignId: string;

  /** The campaign's patrol sequence of the call that reported the run. */
  @Column({ type: 'bigint' })
  sequence: string;

  @Column({ type: 'timestamptz' })
  markedAt: Date;
}

/** A campaign's patrol watermark: how many patrol calls have reported it and when the last one did. */
@Entity({ name: 'eval_patrol_watermark' })
export class PatrolWatermarkEntity {
  @PrimaryColumn({ type: 'uuid' })
  campaignId: string;

  /** Patrol calls that reported the campaign so far (1 after the first). */
  @Column({ type: 'bigint' })
  sequence: string;

  @Column({ type: 'timestamptz' })
  patrolledAt: Date;
}
