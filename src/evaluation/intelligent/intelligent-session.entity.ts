import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const INTELLIGENT_SESSION_KINDS = ['planning', 'execution'] as const;
/** `planning`: the planner's own work; `execution`: the executor talking to the target (opens only once approved). */
export type IntelligentSessionKind = (typeof INTELLIGENT_SESSION_KINDS)[number];
export const INTELLIGENT_SESSION_STATUSES = ['open', 'closed'] as const;
export type IntelligentSessionStatus = (typeof INTELLIGENT_SESSION_STATUSES)[number];

/**
 * A session of an intelligent evaluation: a titled conversation thread that holds messages. Open sessions accept
 * messages; closing is final, and every open session is closed when its evaluation reaches a terminal state.
 */
@Entity({ name: 'eval_intelligent_session' })
@Index('ix_eval_intelligent_session_evaluation_created', ['evaluationId', 'createdAt', 'id'])
export class IntelligentSessionEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  evaluationId: string;

  @Column({ type: 'varchar', length: 200 })
  title: string;

  @Column({ type: 'varchar', length: 16 })
  kind: IntelligentSessionKind;

  @Column({ type: 'varchar', length: 8 })
  status: IntelligentSessionStatus;

  /** Messages posted so far (kept in the same transaction as each insert). */
  @Column({ type: 'integer' })
  messageCount: number;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  lastMessageAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  closedAt: Date | null;
}
