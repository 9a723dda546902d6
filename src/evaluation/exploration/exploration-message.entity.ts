import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * One turn of an exploration session: the virtual user's message and the target's reply with its latency
 * (evaluation-platform.md, Resources: Exploration session, "messages stored as message rows with latency").
 * The row is written when the turn is reserved, just before delivery; `completedAt` is set once the target replied
 * or failed. A row with `completedAt` null is a delivery in flight (or one cut off by a restart); it still counts.
 */
@Entity({ name: 'eval_exploration_message' })
@Index('ux_eval_exploration_message_session_turn', ['sessionId', 'turnIndex'], { unique: true })
export class ExplorationMessageEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'uuid' })
  sessionId: string;

  /** 0-based position of the turn in its session. */
  @Column({ type: 'integer' })
  turnIndex: number;

  /** What the virtual user sent. */
  @Column({ type: 'text' })
  message: string;

  /** Who wrote the message: the caller (`manual`) or the driving model (`model`). */
  @Column({ type: 'varchar', length: 16 })
  author: 'manual' | 'model';

  /** The target's reply; null when it failed, timed out, or is still pending. */
  @Column({ type: 'text', nullable: true })
  reply: string | null;

  /** Reply latency as measured by the channel, ms; null without a reply. */
  @Column({ type: 'integer', nullable: true })
  latencyMs: number | null;

  /** Why no reply came (target error, timeout); never holds secrets (channel errors are redacted). */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /** When the message was handed to the target's channel (database clock). */
  @Column({ type: 'timestamptz' })
  deliveredAt: Date;

  /** When the reply or the failure came back; null while in flight. */
  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}
