import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export const INTELLIGENT_MESSAGE_ROLES = ['planner', 'executor', 'target', 'user', 'system'] as const;
/** Who wrote the message: the planning agent, the executing agent, the target under test, a person, or the system. */
export type IntelligentMessageRole = (typeof INTELLIGENT_MESSAGE_ROLES)[number];

/**
 * One message of an intelligent evaluation session. Messages are append-only; a report's findings cite them as
 * evidence by id. `evaluationId` is stored too, so evidence checks need no join.
 */
@Entity({ name: 'eval_intelligent_message' })
@Index('ix_eval_intelligent_message_session_created', ['sessionId', 'createdAt', 'id'])
export class IntelligentMessageEntity {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'uuid' })
  evaluationId: string;

  @Column({ type: 'uuid' })
  sessionId: string;

  @Column({ type: 'varchar', length: 16 })
  role: IntelligentMessageRole;

  @Column({ type: 'text' })
  content: string;

  /** Free-form structured data of the message (tool calls, latency, step id…); `{}` when none was sent. */
  @Column({ type: 'jsonb' })
  metadata: Record<string, unknown>;

  @CreateDateColumn({ type: 'timestamptz' })
  createdAt: Date;
}
