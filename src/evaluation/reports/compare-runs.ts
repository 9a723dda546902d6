import type { RunSummary } from '../rules/run-summary';
import type { ReportCase } from './report.types';

/** A case's outcome over its repetitions: errored if any errored, passed if all passed, else failed. */
export function caseOutcome(results: Pick<ReportCase, 'status'>[]): 'passed' | 'failed' | 'errored' {
  if (results.some((result) => result.status === 'errored')) return 'errored';
  return results.every((result) => result.status === 'passed') ? 'passed' : 'failed';
}

/** One case in a comparison. */
export interface CaseDifference {
  case_id: string;
  status_a: string | null;
  status_b: string | null;
  score_a: number | null;
  score_b: number | null;
  /** True when the outcome differs, or the case exists in one run only. */
  changed: boolean;
}

/** The deltas of a comparison (run_b minus run_a). */
export interface ComparisonDelta {
  pass_rate: number;
  passed_cases: number;
  passed_rules: number;
}

function meanScore(results: Pick<ReportCase, 'score'>[]): number | null {
  const scores = results.map((result) => result.score).filter((score): score is number => score !== null);
  return scores.length === 0 ? null : Math.round((scores.reduce((sum, score) => sum + score, 0) / scores.length) * 10_000) / 10_000;
}

/**
 * Compares two runs of the same scenario (evaluation-platform.md, Resources: Comparison report): `delta` is
 * run_b minus run_a for pass_rate, passed_cases and passed_rules; cases are matched by case id, in run_a's
 * order then run_b's new ones, each with a `changed` marker.
 */
export function compareRuns(
  a: { summary: RunSummary | null; cases: Pick<ReportCase, 'case_id' | 'status' | 'score'>[] },
  b: { summary: RunSummary | null; cases: Pick<ReportCase, 'case_id' | 'status' | 'score'>[] },
): { delta: ComparisonDelta; cases: CaseDifference[] } {
  const group = (cases: Pick<ReportCase, 'case_id' | 'status' | 'score'>[]) => {
    const byId = new Map<string, Pick<ReportCase, 'case_id' | 'status' | 'score'>[]>();
    for (const result of cases) byId.set(result.case_id, [...(byId.get(result.case_id) ?? []), result]);
    return byId;
  };
  const groupA = group(a.cases);
  const groupB = group(b.cases);
  const ids = [...new Set([...groupA.keys(), ...groupB.keys()])];
  const cases = ids.map((caseId) => caseDifference(caseId, groupA.get(caseId), groupB.get(caseId)));
  return { delta: comparisonDelta(a.summary, b.summary), cases };
}

/** The deltas run_b − run_a of two runs' summaries (a missing summary counts 0). */
export function comparisonDelta(a: RunSummary | null, b: RunSummary | null): ComparisonDelta {
  const value = (summary: RunSummary | null, field: keyof ComparisonDelta) => (summary ? summary[field] : 0);
  return {
    pass_rate: Math.round((value(b, 'pass_rate') - value(a, 'pass_rate')) * 10_000) / 10_000,
    passed_cases: value(b, 'passed_cases') - value(a, 'passed_cases'),
    passed_rules: value(b, 'passed_rules') - value(a, 'passed_rules'),
  };
}

/**
 * One case of a comparison from its results in each run (in repetition order; undefined when the case has none in
 * that run): outcome folded over repetitions, mean score rounded to 4 decimals, `changed` when the outcomes differ.
 */
export function caseDifference(caseId: string, resultsA: Pick<ReportCase, 'status' | 'score'>[] | undefined, resultsB: Pick<ReportCase, 'status' | 'score'>[] | undefined): CaseDifference {
  const statusA = resultsA ? caseOutcome(resultsA) : null;
  const statusB = resultsB ? caseOutcome(resultsB) : null;
  return {
    case_id: caseId,
    status_a: statusA,
    status_b: statusB,
    score_a: resultsA ? meanScore(resultsA) : null,
    score_b: resultsB ? meanScore(resultsB) : null,
    changed: statusA !== statusB,
  };
}
