import type { RunSummary } from '../rules/run-summary';
import type { TranscriptTurn } from '../runs/case-result.entity';

/** One rule verdict in a report. */
export interface ReportRule {
  index: number;
  type: string;
  pass: boolean;
  score: number;
  weight: number;
  reason: string;
}

/** One case result in a report. */
export interface ReportCase {
  case_id: string;
  repeat_index: number;
  status: 'passed' | 'failed' | 'errored';
  input: string | string[];
  expected: string | null;
  output: string | null;
  latency_ms: number | null;
  score: number | null;
  error: string | null;
  transcript: TranscriptTurn[];
  rules: ReportRule[];
}

/** The single report of a run (evaluation-platform.md, Resources: Single report). */
export interface RunReport {
  run_id: string;
  status: string;
  header: {
    scenario_id: string | null;
    scenario_name: string;
    scenario_version: number;
    version: string;
    target_id: string | null;
    target_name: string;
    triggered_by: string;
    campaign_id: string | null;
    created_at: string;
    started_at: string | null;
    finished_at: string | null;
  };
  summary: RunSummary | null;
  cases: ReportCase[];
}
