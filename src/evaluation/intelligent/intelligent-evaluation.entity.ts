import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { IntelligentStatus } from './intelligent-lifecycle';
import type { IntelligentPlan, IntelligentReport } from './intelligent-report';

/**
 * An intelligent evaluation (evaluation-platform.md, Resources: Intelligent evaluation): an evaluation planned and
 * executed by an external agent. The platform stores the plan the planner submits, the approval, the sessions and
 * messages (separate tables), the structured report, and one timestamp per state reached. The status only changes
 * through conditional updates (`… WHERE status = <from>`), see intelligent-lifecycle.ts.
 */
@Entity({ name: 'eval_intelligent_evaluation' })
@Index('ix_eval_intelligent_evaluation_created', ['createdAt', 'id'])
@Index('ix_eval_intelligent_evaluation_status_created', ['status', 'createdAt'])
@Index('ix_eval_intelligent_evaluation_target_created', ['targetId', 'createdAt'])
export class IntelligentEvaluationEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 200 })
  name: string;

  /** What the evaluation must find out, in the words of whoever asked for it; the planner works from it. */
  @Column({ type: 'text' })
  goal: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  /** The evaluation target under test, if the evaluation has one (checked to exist at creation; no FK). */
  @Column({ type: 'uuid', nullable: true })
  targetId: string | null;

  @Column({ type: 'varchar', length: 24 })
  status: IntelligentStatus;

  /** The plan the planner submitted when moving planning → pending_approval; null before. */
  @Column({ type: 'jsonb', nullable: true })
  plan: IntelligentPlan | null;

  /** Who approved the plan (the request's `actor`, else the credential kind and subject). */
  @Column({ type: 'varchar', length: 200, nullable: true })
  approvedBy: string | null;

  /** The `reason` given with the approval (pending_approval → executing). */
  @Column({ type: 'text', nullable: true })
  approvalNote: string | null;

  /** The structured report; set exactly when the evaluation is completed. */
  @Column({ type: 'jsonb', nullable: true })
  report: IntelligentReport | null;

  /** Why the evaluation failed or was cancelled. */
  @Column({ type: 'text', nullable: true })
  statusReason: string | null;

  /** Entered draft. */
  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updatedAt: Date;

  @Column({ type: 'timestamptz', nullable: true })
  planningAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  pendingApprovalAt: Date | null;

  /** Entered executing, i.e. the plan was approved. */
  @Column({ type: 'timestamptz', nullable: true })
  executingAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  completedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  failedAt: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  cancelledAt: Date | null;
}
