import type { RunSummary } from '../rules/run-summary';
import type { QueryRows } from './run-case-pages';

/** Counts of a run's stored case results ($1 run id), by PostgreSQL: nothing per case reaches the app. */
const RUN_RESULT_COUNTS_SQL = `
  SELECT count(*)::int AS total,
         count(*) FILTER (WHERE status = 'passed')::int AS passed,
         count(*) FILTER (WHERE status = 'failed')::int AS failed,
         count(*) FILTER (WHERE status = 'errored')::int AS errored,
         COALESCE(sum(rules_passed), 0)::int AS rules_passed,
         COALESCE(sum(rules_total), 0)::int AS rules_total,
         count(latency_ms)::int AS latencies
    FROM eval_case_result WHERE run_id = $1`;

/** The latency at 0-based rank $2 of run $1's stored latencies in ascending order. */
const RUN_LATENCY_AT_RANK_SQL = `SELECT latency_ms FROM eval_case_result WHERE run_id = $1 AND latency_ms IS NOT NULL ORDER BY latency_ms OFFSET $2 LIMIT 1`;

/** 1-based nearest rank of percentile `p` (0..100) among `count` values: the rank `nearestRank` (run-summary.ts) takes. */
export function nearestRankOf(count: number, p: number): number {
  return Math.max(1, Math.ceil((p / 100) * count));
}

/**
 * A run's summary computed from its stored case results in PostgreSQL (issue 14 item 3: completing a 50,000-case
 * run loads no row per case): the same figures as `summariseRun` over the same results (counts, rules, pass rate
 * rounded to 4 decimals, nearest-rank p50/p95 latency, `durationMs` rounded).
 * @param durationMs the run's wall time, ms
 * @throws RangeError when `durationMs` is negative or not finite; the database's error
 */
export async function summariseStoredRun(query: QueryRows, runId: string, durationMs: number): Promise<RunSummary> {
  if (!Number.isFinite(durationMs) || durationMs < 0) throw new RangeError(`run duration must be a finite number of ms >= 0, got ${durationMs}`);
  const [counts] = (await query(RUN_RESULT_COUNTS_SQL, [runId])) as {
    total: number; passed: number; failed: number; errored: number; rules_passed: number; rules_total: number; latencies: number;
  }[];
  const latencyAt = async (p: number): Promise<number | null> => {
    if (counts.latencies === 0) return null;
    const [row] = (await query(RUN_LATENCY_AT_RANK_SQL, [runId, nearestRankOf(counts.latencies, p) - 1])) as { latency_ms: number }[];
    return row ? Number(row.latency_ms) : null;
  };
  return {
    total_cases: counts.total,
    passed_cases: counts.passed,
    failed_cases: counts.failed,
    errored_cases: counts.errored,
    passed_rules: counts.rules_passed,
    total_rules: counts.rules_total,
    pass_rate: counts.total === 0 ? 0 : Math.round((counts.passed / counts.total) * 10_000) / 10_000,
    latency_p50_ms: await latencyAt(50),
    latency_p95_ms: await latencyAt(95),
    duration_ms: Math.round(durationMs),
  };
}
