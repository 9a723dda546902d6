/**
 * The SQL of `GET /api/stats/dashboard` (evaluation-platform.md, Endpoints; issue 23 item 4). Every statement reads
 * the rollups that migration 1795600300000-EvaluationDashboardRollups keeps up to date in the writers' transactions,
 * plus, for the part of the window before its first whole bucket, an index range of `eval_run`
 * (ix_eval_run_completed_finished_utc). None scans the runs: the cost is bounded by the window's buckets, the targets
 * active in it and the runs finished in its first (partial) hour or day, never by the number of runs.
 *
 * The figures equal those of the aggregate over every run (the previous implementation, kept as the reference in
 * test/evaluation/dashboard-rollups.e2e-spec.ts): a mean is `round(sum / count, n)` over exact numerics, which is what
 * `round(avg(x), n)` computes. Exported for the plan checks of that suite.
 */

/** The window's first whole UTC hour: the hour after $1's (timestamptz) UTC hour. */
const FIRST_WHOLE_HOUR = `(date_trunc('hour', $1::timestamptz AT TIME ZONE 'UTC') + interval '1 hour')`;
/** The window's first whole UTC day: the day after $1's (timestamptz) UTC day. */
const FIRST_WHOLE_DAY = `(($1::timestamptz AT TIME ZONE 'UTC')::date + 1)`;
/** The window's first whole UTC calendar month: the month of {@link FIRST_WHOLE_DAY} when that day is a 1st, else the next one. */
const FIRST_WHOLE_MONTH = `((date_trunc('month', ($1::timestamptz AT TIME ZONE 'UTC')::date::timestamp) + interval '1 month')::date)`;

/** `{ name, value }` rows: `scenarios`, `targets` and `run:<status>` counts. */
export const DASHBOARD_COUNTERS_SQL = `SELECT name, value::int AS value FROM eval_stats_counter WHERE value <> 0`;

/**
 * Completed runs per UTC day of `finished_at` since $1 (timestamptz), with their mean `summary.pass_rate` rounded to
 * 4 places (NULL when none has one), oldest first. Whole hours from the hourly rollup; the window's first partial
 * hour from the index.
 */
export const DASHBOARD_PASS_RATE_TREND_SQL = `
  WITH bounds AS (SELECT date_trunc('hour', $1::timestamptz AT TIME ZONE 'UTC') + interval '1 hour' AS first_whole_hour),
  parts AS (
    SELECT h.hour::date AS day, h.runs, h.pass_rate_sum AS pass_rate_sum, h.pass_rate_n AS pass_rate_n
      FROM eval_stats_pass_rate_hourly h, bounds
     WHERE h.hour >= bounds.first_whole_hour AND h.runs <> 0
    UNION ALL
    SELECT (r.finished_at AT TIME ZONE 'UTC')::date, 1, eval_stats_number(r.summary, 'pass_rate'), CASE WHEN eval_stats_number(r.summary, 'pass_rate') IS NULL THEN 0 ELSE 1 END
      FROM eval_run r, bounds
     WHERE r.status = 'completed' AND (r.finished_at AT TIME ZONE 'UTC') >= ($1::timestamptz AT TIME ZONE 'UTC')
       AND (r.finished_at AT TIME ZONE 'UTC') < bounds.first_whole_hour
  )
  SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(runs)::int AS runs, round(sum(pass_rate_sum) / nullif(sum(pass_rate_n), 0), 4)::float AS mean_pass_rate
    FROM parts GROUP BY day HAVING sum(runs) <> 0 ORDER BY day`;

/**
 * Targets by mean `summary.latency_p95_ms` (rounded to an integer, ms) of their completed runs since $1, slowest
 * first, at most $2; ties by target id. `target_name` is the greatest name the target's counted runs carry. The window
 * is read in four parts, each bounded whatever the number of runs:
 * - whole UTC calendar months from the window's first whole month on, from the monthly rollup (migration
 *   1795600751000, with the hourly one): months x targets active in them;
 * - the whole UTC days before that month, from the daily rollup: at most 30 days x targets active in them;
 * - the whole UTC hours before that day, from the hourly rollup: at most 23 hours x targets active in them;
 * - the window's first partial hour, from the index on completed runs' UTC finish time: the runs finished in it.
 * The bounds are written as expressions of $1 (not a joined CTE) so that each part is an index range.
 */
export const DASHBOARD_SLOWEST_TARGETS_SQL = `
  WITH parts AS (
    SELECT m.target_id, m.target_name, m.runs, m.latency_sum
      FROM eval_stats_target_latency_monthly m
     WHERE m.month >= ${FIRST_WHOLE_MONTH} AND m.runs <> 0
    UNION ALL
    SELECT t.target_id, t.target_name, t.runs, t.latency_sum
      FROM eval_stats_target_latency_daily t
     WHERE t.day >= ${FIRST_WHOLE_DAY} AND t.day < ${FIRST_WHOLE_MONTH} AND t.runs <> 0
    UNION ALL
    SELECT h.target_id, h.target_name, h.runs, h.latency_sum
      FROM eval_stats_target_latency_hourly h
     WHERE h.hour >= ${FIRST_WHOLE_HOUR} AND h.hour < ${FIRST_WHOLE_DAY} AND h.runs <> 0
    UNION ALL
    SELECT r.target_id, r.target_name, 1, eval_stats_number(r.summary, 'latency_p95_ms')
      FROM eval_run r
     WHERE r.status = 'completed' AND (r.finished_at AT TIME ZONE 'UTC') >= ($1::timestamptz AT TIME ZONE 'UTC')
       AND (r.finished_at AT TIME ZONE 'UTC') < ${FIRST_WHOLE_HOUR}
       AND r.target_id IS NOT NULL AND eval_stats_number(r.summary, 'latency_p95_ms') IS NOT NULL
  )
  SELECT target_id, max(target_name) AS target_name, sum(runs)::int AS runs, round(sum(latency_sum) / sum(runs))::int AS mean_latency_p95_ms
    FROM parts GROUP BY target_id HAVING sum(runs) <> 0 ORDER BY mean_latency_p95_ms DESC, target_id LIMIT $2`;
