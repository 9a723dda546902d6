/** Outcome of one case as the summary needs it; `latencyMs` is null when the target never replied. */
export interface CaseOutcome {
  status: 'passed' | 'failed' | 'errored';
  latencyMs: number | null;
  rulesPassed: number;
  rulesTotal: number;
}

/**
 * The run's `summary` object (evaluation-platform.md, Resources: Run "summary object"; also the webhook body's
 * `summary` and the comparison report's `run_a` / `run_b`). Counts are cases and rules; times are in ms.
 *
 * - `pass_rate`: `passed_cases / total_cases`, 0..1 rounded to 4 decimals, 0 when there are no cases.
 * - `latency_p50_ms` / `latency_p95_ms`: nearest-rank percentiles over the cases' non-null latencies, null when
 *   there are none.
 * - `duration_ms`: wall time of the run, whole ms.
 */
export interface RunSummary {
  total_cases: number;
  passed_cases: number;
  failed_cases: number;
  errored_cases: number;
  passed_rules: number;
  total_rules: number;
  pass_rate: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  duration_ms: number;
}

/**
 * Nearest-rank percentile: the value at rank `ceil(p/100 · n)` (1-based) of the ascending values, so it is
 * always one of the samples. `p` in 0..100 (p = 0 gives the smallest). Null for no values.
 */
export function nearestRank(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/**
 * Builds a run's summary from its case outcomes (evaluation-platform.md, Resources: Run summary object; issue:
 * "total/passed/failed/errored cases, passed/total rules, pass_rate, latency p50/p95, duration"). Latencies that
 * are null or not finite are left out of the percentiles. `durationMs` is the run's wall time in ms, rounded.
 *
 * Throws `RangeError` when `durationMs` is negative or not finite.
 */
export function summariseRun(cases: readonly CaseOutcome[], durationMs: number): RunSummary {
  if (!Number.isFinite(durationMs) || durationMs < 0) {
    throw new RangeError(`run duration must be a finite number of ms >= 0, got ${durationMs}`);
  }
  const count = (status: CaseOutcome['status']) => cases.filter((c) => c.status === status).length;
  const passed = count('passed');
  const latencies = cases
    .map((c) => c.latencyMs)
    .filter((ms): ms is number => typeof ms === 'number' && Number.isFinite(ms));
  return {
    total_cases: cases.length,
    passed_cases: passed,
    failed_cases: count('failed'),
    errored_cases: count('errored'),
    passed_rules: cases.reduce((sum, c) => sum + c.rulesPassed, 0),
    total_rules: cases.reduce((sum, c) => sum + c.rulesTotal, 0),
    pass_rate: cases.length === 0 ? 0 : Math.round((passed / cases.length) * 10_000) / 10_000,
    latency_p50_ms: nearestRank(latencies, 50),
    latency_p95_ms: nearestRank(latencies, 95),
    duration_ms: Math.round(durationMs),
  };
}
