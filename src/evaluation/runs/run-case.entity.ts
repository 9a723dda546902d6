import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { ScenarioCase } from '../scenarios/scenario.entity';

/**
 * One case of a run's snapshot (issue 23 item 3): the scenario's case as it was when the run was created, at its
 * position in the scenario. The executor reads them in keyset pages on `position` and reports join one per case
 * result, so neither ever loads a whole syllabus (migration 1795600100000).
 */
@Entity({ name: 'eval_run_case' })
export class RunCaseEntity {
  @PrimaryColumn({ type: 'uuid' })
  runId: string;

  /** 0-based position of the case in the scenario's `cases`. */
  @PrimaryColumn({ type: 'integer' })
  position: number;

  /** The case's id (unique within the run). */
  @Column({ type: 'varchar', length: 64 })
  caseId: string;

  /** The case as the scenario held it (input or turns, expected, rules, threshold, tags). */
  @Column({ type: 'jsonb' })
  content: ScenarioCase;
}
