import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** The verdict of one rule on one case result. */
@Entity({ name: 'eval_rule_result' })
@Index('ix_eval_rule_result_case', ['caseResultId', 'ruleIndex'])
export class RuleResultEntity {
  @PrimaryGeneratedColumn({ type: 'bigint' })
  id: string;

  @Column({ type: 'bigint' })
  caseResultId: string;

  /** Position of the rule in the case. */
  @Column({ type: 'integer' })
  ruleIndex: number;

  @Column({ type: 'varchar', length: 32 })
  type: string;

  @Column({ type: 'boolean' })
  pass: boolean;

  @Column({ type: 'real' })
  score: number;

  @Column({ type: 'real' })
  weight: number;

  @Column({ type: 'text' })
  reason: string;
}
