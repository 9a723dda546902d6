import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The upserts that fold a set of run rows into the dashboard rollups, as migration 1795600300000 wrote them, plus (when
 * `monthly`) the monthly target latency rollup. `source` yields `(d int, status, finished_at, summary, target_id,
 * target_name)`, d = +1 for a row that appears, -1 for one that goes; keys are aggregated first and written in key
 * order (no deadlock between single-run writers). Kept inside this migration on purpose: a landed migration never
 * changes, whatever src/ does later.
 */
function foldRunsSql(source: string, monthly: boolean): string[] {
  const latencyRows = (bucket: string) => `
         FROM (SELECT d, ${bucket} AS bucket, target_id, target_name, eval_stats_number(summary, 'latency_p95_ms') AS latency
                 FROM (${source}) src WHERE status = 'completed' AND finished_at IS NOT NULL AND target_id IS NOT NULL) rows
        WHERE latency IS NOT NULL
        GROUP BY bucket, target_id, target_name
       HAVING sum(d) <> 0 OR sum(d * latency) <> 0
        ORDER BY bucket, target_id, target_name`;
  return [
    `INSERT INTO eval_stats_counter AS c (name, value)
       SELECT 'run:' || status, sum(d) FROM (${source}) src GROUP BY status HAVING sum(d) <> 0 ORDER BY 1
     ON CONFLICT (name) DO UPDATE SET value = c.value + excluded.value`,
    `INSERT INTO eval_stats_pass_rate_hourly AS h (hour, runs, pass_rate_sum, pass_rate_n)
       SELECT hour, sum(d), coalesce(sum(d * pass_rate), 0), sum(CASE WHEN pass_rate IS NULL THEN 0 ELSE d END)
         FROM (SELECT d, date_trunc('hour', finished_at AT TIME ZONE 'UTC') AS hour, eval_stats_number(summary, 'pass_rate') AS pass_rate
                 FROM (${source}) src WHERE status = 'completed' AND finished_at IS NOT NULL) rows
        GROUP BY hour
       HAVING sum(d) <> 0 OR coalesce(sum(d * pass_rate), 0) <> 0 OR sum(CASE WHEN pass_rate IS NULL THEN 0 ELSE d END) <> 0
        ORDER BY hour
     ON CONFLICT (hour) DO UPDATE SET runs = h.runs + excluded.runs, pass_rate_sum = h.pass_rate_sum + excluded.pass_rate_sum,
                                      pass_rate_n = h.pass_rate_n + excluded.pass_rate_n`,
    `INSERT INTO eval_stats_target_latency_daily AS t (day, target_id, target_name, runs, latency_sum)
       SELECT bucket, target_id, target_name, sum(d), sum(d * latency) ${latencyRows(`(finished_at AT TIME ZONE 'UTC')::date`)}
     ON CONFLICT (day, target_id, target_name) DO UPDATE SET runs = t.runs + excluded.runs, latency_sum = t.latency_sum + excluded.latency_sum`,
    ...(monthly
      ? [
          `INSERT INTO eval_stats_target_latency_hourly AS t (hour, target_id, target_name, runs, latency_sum)
             SELECT bucket, target_id, target_name, sum(d), sum(d * latency) ${latencyRows(`date_trunc('hour', finished_at AT TIME ZONE 'UTC')`)}
           ON CONFLICT (hour, target_id, target_name) DO UPDATE SET runs = t.runs + excluded.runs, latency_sum = t.latency_sum + excluded.latency_sum`,
          `INSERT INTO eval_stats_target_latency_monthly AS t (month, target_id, target_name, runs, latency_sum)
             SELECT bucket, target_id, target_name, sum(d), sum(d * latency) ${latencyRows(`date_trunc('month', finished_at AT TIME ZONE 'UTC')::date`)}
           ON CONFLICT (month, target_id, target_name) DO UPDATE SET runs = t.runs + excluded.runs, latency_sum = t.latency_sum + excluded.latency_sum`,
        ]
      : []),
  ];
}

const RUN_COLUMNS = 'status, finished_at, summary, target_id, target_name';

/** The trigger functions and the rebuild of migration 1795600300000, with or without the monthly rollup. */
async function writeFunctions(queryRunner: QueryRunner, monthly: boolean): Promise<void> {
  const plpgsql = (name: string, statements: string[]) => `
    CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      ${statements.join(';\n      ')};
      RETURN NULL;
    END
    $fn$`;
  await queryRunner.query(plpgsql('eval_stats_runs_inserted', foldRunsSql(`SELECT 1 AS d, ${RUN_COLUMNS} FROM eval_stats_new_rows`, monthly)));
  await queryRunner.query(plpgsql('eval_stats_runs_deleted', foldRunsSql(`SELECT -1 AS d, ${RUN_COLUMNS} FROM eval_stats_old_rows`, monthly)));
  await queryRunner.query(
    plpgsql(
      'eval_stats_run_updated',
      foldRunsSql(
        `SELECT -1 AS d, OLD.status, OLD.finished_at, OLD.summary, OLD.target_id, OLD.target_name
         UNION ALL SELECT 1, NEW.status, NEW.finished_at, NEW.summary, NEW.target_id, NEW.target_name`,
        monthly,
      ),
    ),
  );
  await queryRunner.query(
    plpgsql('eval_stats_runs_truncated', [
      `DELETE FROM eval_stats_counter WHERE name LIKE 'run:%'`,
      'DELETE FROM eval_stats_pass_rate_hourly',
      'DELETE FROM eval_stats_target_latency_daily',
      ...(monthly ? ['DELETE FROM eval_stats_target_latency_hourly', 'DELETE FROM eval_stats_target_latency_monthly'] : []),
    ]),
  );
  await queryRunner.query(`
    CREATE OR REPLACE FUNCTION eval_stats_rebuild() RETURNS void LANGUAGE plpgsql AS $fn$
    BEGIN
      LOCK TABLE eval_run, eval_scenario, eval_target IN SHARE MODE;
      DELETE FROM eval_stats_counter;
      DELETE FROM eval_stats_pass_rate_hourly;
      DELETE FROM eval_stats_target_latency_daily;
      ${monthly ? 'DELETE FROM eval_stats_target_latency_hourly; DELETE FROM eval_stats_target_latency_monthly;' : ''}
      INSERT INTO eval_stats_counter (name, value) SELECT 'scenarios', count(*) FROM eval_scenario;
      INSERT INTO eval_stats_counter (name, value) SELECT 'targets', count(*) FROM eval_target;
      ${foldRunsSql(`SELECT 1 AS d, ${RUN_COLUMNS} FROM eval_run`, monthly).join(';\n      ')};
    END
    $fn$`);
}

/**
 * Issue 23 acceptance 1 (`GET /api/stats/dashboard` as fast at 1M runs as at 10k): the slowest targets over a window
 * read the daily target latency rollup for every day of the window, so a year's window read days x active targets
 * rows (1M runs over 200 targets: 73,000 rows; 10k runs: 6,000), and every run of the window's first partial day
 * (1M runs over a year: up to 2,700, each a heap row and its summary). Two more rollups hold the same sums:
 * `eval_stats_target_latency_monthly` per UTC calendar month of `finished_at`, `eval_stats_target_latency_hourly` per
 * UTC hour. The window reads whole months from the monthly one, the days before its first whole month from the daily
 * one (at most 30), the hours before its first whole day from the hourly one (at most 23), and only the runs of its
 * first partial hour. Kept by the same triggers, in the same transaction as the run writes (the functions of
 * 1795600300000 are replaced with versions that also fold months and hours); the backfill sums the daily rollup (the
 * months) and the completed runs (the hours).
 */
export class EvaluationTargetLatencyRollups1795600751000 implements MigrationInterface {
  name = 'EvaluationTargetLatencyRollups1795600751000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE eval_stats_target_latency_monthly (
        month date NOT NULL,
        target_id uuid NOT NULL,
        target_name varchar(200) NOT NULL,
        runs bigint NOT NULL,
        latency_sum numeric NOT NULL,
        PRIMARY KEY (month, target_id, target_name)
      )`);
    await queryRunner.query(`
      CREATE TABLE eval_stats_target_latency_hourly (
        hour timestamp NOT NULL,
        target_id uuid NOT NULL,
        target_name varchar(200) NOT NULL,
        runs bigint NOT NULL,
        latency_sum numeric NOT NULL,
        PRIMARY KEY (hour, target_id, target_name)
      )`);
    // Writers wait while the backfill reads the runs and the daily rollup (the triggers write the new tables from here on).
    await queryRunner.query(`LOCK TABLE eval_run IN SHARE MODE`);
    await writeFunctions(queryRunner, true);
    await queryRunner.query(`
      INSERT INTO eval_stats_target_latency_monthly (month, target_id, target_name, runs, latency_sum)
      SELECT date_trunc('month', day)::date, target_id, target_name, sum(runs), sum(latency_sum)
        FROM eval_stats_target_latency_daily GROUP BY 1, 2, 3 HAVING sum(runs) <> 0 OR sum(latency_sum) <> 0`);
    await queryRunner.query(`
      INSERT INTO eval_stats_target_latency_hourly (hour, target_id, target_name, runs, latency_sum)
      SELECT hour, target_id, target_name, count(*), sum(latency)
        FROM (SELECT date_trunc('hour', finished_at AT TIME ZONE 'UTC') AS hour, target_id, target_name, eval_stats_number(summary, 'latency_p95_ms') AS latency
                FROM eval_run WHERE status = 'completed' AND finished_at IS NOT NULL AND target_id IS NOT NULL) runs
       WHERE latency IS NOT NULL GROUP BY 1, 2, 3`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await writeFunctions(queryRunner, false);
    await queryRunner.query(`DROP TABLE eval_stats_target_latency_hourly`);
    await queryRunner.query(`DROP TABLE eval_stats_target_latency_monthly`);
  }
}
