import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The upserts that fold a set of run rows into the dashboard rollups (issue 23 item 4). `source` is a query yielding
 * `(d int, status, finished_at, summary, target_id, target_name)`: d = +1 for a row that appears, -1 for a row that
 * goes. Each upsert aggregates first and writes its keys in key order, so two writers lock the same rows in the same
 * order (no deadlock between single-run writes), and rows whose deltas cancel out are not touched at all.
 * Kept inside this migration on purpose: a landed migration never changes, whatever src/ does later.
 */
function foldRunsSql(source: string): string[] {
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
       SELECT day, target_id, target_name, sum(d), sum(d * latency)
         FROM (SELECT d, (finished_at AT TIME ZONE 'UTC')::date AS day, target_id, target_name, eval_stats_number(summary, 'latency_p95_ms') AS latency
                 FROM (${source}) src WHERE status = 'completed' AND finished_at IS NOT NULL AND target_id IS NOT NULL) rows
        WHERE latency IS NOT NULL
        GROUP BY day, target_id, target_name
       HAVING sum(d) <> 0 OR sum(d * latency) <> 0
        ORDER BY day, target_id, target_name
     ON CONFLICT (day, target_id, target_name) DO UPDATE SET runs = t.runs + excluded.runs, latency_sum = t.latency_sum + excluded.latency_sum`,
  ];
}

const RUN_COLUMNS = 'status, finished_at, summary, target_id, target_name';

/**
 * Dashboard rollups kept up to date as runs change (issue 23 item 4): `GET /api/stats/dashboard` reads these and an
 * index instead of scanning every run on every request.
 * - eval_stats_counter: `scenarios`, `targets` and `run:<status>` counts.
 * - eval_stats_pass_rate_hourly: completed runs per UTC hour of `finished_at`, with the sum and count of their
 *   `summary.pass_rate` (a mean is sum / count, exactly as avg() computes it).
 * - eval_stats_target_latency_daily: completed runs with a target and a `summary.latency_p95_ms`, per UTC day,
 *   target and target name (the name is part of the key so that its max() survives deletes), with the latency sum.
 * Maintained by triggers in the writer's own transaction (the run executor needs no hook): statement-level with
 * transition tables for INSERT and DELETE (a bulk insert or delete folds in one pass), row-level for UPDATE only when
 * a column the dashboard reads changed (lease heartbeats and progress writes cost nothing), and TRUNCATE resets.
 * `eval_stats_rebuild()` recomputes everything from the tables (the backfill below; also after a bulk load with the
 * triggers disabled). The partial index on completed runs' UTC finish time serves the part of the window before its first whole bucket.
 */
export class EvaluationDashboardRollups1795600300000 implements MigrationInterface {
  name = 'EvaluationDashboardRollups1795600300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE eval_stats_counter (name varchar(64) PRIMARY KEY, value bigint NOT NULL)`);
    await queryRunner.query(`
      CREATE TABLE eval_stats_pass_rate_hourly (
        hour timestamp PRIMARY KEY,
        runs bigint NOT NULL,
        pass_rate_sum numeric NOT NULL,
        pass_rate_n bigint NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE eval_stats_target_latency_daily (
        day date NOT NULL,
        target_id uuid NOT NULL,
        target_name varchar(200) NOT NULL,
        runs bigint NOT NULL,
        latency_sum numeric NOT NULL,
        PRIMARY KEY (day, target_id, target_name)
      )`);
    // On the UTC wall-clock time, the buckets' own axis. An expression index: TypeORM's schema diff does not see
    // those, so the runs' entity (another folder's) needs no declaration for it.
    await queryRunner.query(`CREATE INDEX ix_eval_run_completed_finished_utc ON eval_run ((finished_at AT TIME ZONE 'UTC')) WHERE status = 'completed'`);

    // A summary figure as numeric when it is a JSON number, else NULL: a trigger must never fail a run's write.
    await queryRunner.query(`
      CREATE FUNCTION eval_stats_number(summary jsonb, key text) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT CASE WHEN jsonb_typeof(summary -> key) = 'number' THEN (summary ->> key)::numeric END
      $$`);

    const plpgsql = (name: string, statements: string[]) => `
      CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      BEGIN
        ${statements.join(';\n        ')};
        RETURN NULL;
      END
      $fn$`;
    await queryRunner.query(plpgsql('eval_stats_runs_inserted', foldRunsSql(`SELECT 1 AS d, ${RUN_COLUMNS} FROM eval_stats_new_rows`)));
    await queryRunner.query(plpgsql('eval_stats_runs_deleted', foldRunsSql(`SELECT -1 AS d, ${RUN_COLUMNS} FROM eval_stats_old_rows`)));
    await queryRunner.query(
      plpgsql(
        'eval_stats_run_updated',
        foldRunsSql(
          `SELECT -1 AS d, OLD.status, OLD.finished_at, OLD.summary, OLD.target_id, OLD.target_name
           UNION ALL SELECT 1, NEW.status, NEW.finished_at, NEW.summary, NEW.target_id, NEW.target_name`,
        ),
      ),
    );
    await queryRunner.query(
      plpgsql('eval_stats_runs_truncated', [
        `DELETE FROM eval_stats_counter WHERE name LIKE 'run:%'`,
        'DELETE FROM eval_stats_pass_rate_hourly',
        'DELETE FROM eval_stats_target_latency_daily',
      ]),
    );
    await queryRunner.query(`CREATE TRIGGER eval_stats_runs_inserted AFTER INSERT ON eval_run REFERENCING NEW TABLE AS eval_stats_new_rows FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_runs_inserted()`);
    await queryRunner.query(`CREATE TRIGGER eval_stats_runs_deleted AFTER DELETE ON eval_run REFERENCING OLD TABLE AS eval_stats_old_rows FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_runs_deleted()`);
    await queryRunner.query(`
      CREATE TRIGGER eval_stats_run_updated AFTER UPDATE ON eval_run FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.finished_at IS DISTINCT FROM NEW.finished_at OR OLD.summary IS DISTINCT FROM NEW.summary
              OR OLD.target_id IS DISTINCT FROM NEW.target_id OR OLD.target_name IS DISTINCT FROM NEW.target_name)
        EXECUTE FUNCTION eval_stats_run_updated()`);
    await queryRunner.query(`CREATE TRIGGER eval_stats_runs_truncated AFTER TRUNCATE ON eval_run FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_runs_truncated()`);

    // Scenario and target counts: statement-level, one upsert per statement whatever its row count.
    for (const [table, counter] of [
      ['eval_scenario', 'scenarios'],
      ['eval_target', 'targets'],
    ]) {
      const upsert = (delta: string) =>
        `INSERT INTO eval_stats_counter AS c (name, value) SELECT '${counter}', ${delta} ON CONFLICT (name) DO UPDATE SET value = c.value + excluded.value`;
      await queryRunner.query(plpgsql(`eval_stats_${table}_inserted`, [upsert('(SELECT count(*) FROM eval_stats_new_rows)')]));
      await queryRunner.query(plpgsql(`eval_stats_${table}_deleted`, [upsert('-(SELECT count(*) FROM eval_stats_old_rows)')]));
      await queryRunner.query(plpgsql(`eval_stats_${table}_truncated`, [`DELETE FROM eval_stats_counter WHERE name = '${counter}'`]));
      await queryRunner.query(`CREATE TRIGGER eval_stats_inserted AFTER INSERT ON ${table} REFERENCING NEW TABLE AS eval_stats_new_rows FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_${table}_inserted()`);
      await queryRunner.query(`CREATE TRIGGER eval_stats_deleted AFTER DELETE ON ${table} REFERENCING OLD TABLE AS eval_stats_old_rows FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_${table}_deleted()`);
      await queryRunner.query(`CREATE TRIGGER eval_stats_truncated AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION eval_stats_${table}_truncated()`);
    }

    // The rebuild (and backfill): writers wait while it runs (SHARE locks), so no change slips between read and write.
    await queryRunner.query(`
      CREATE FUNCTION eval_stats_rebuild() RETURNS void LANGUAGE plpgsql AS $fn$
      BEGIN
        LOCK TABLE eval_run, eval_scenario, eval_target IN SHARE MODE;
        DELETE FROM eval_stats_counter;
        DELETE FROM eval_stats_pass_rate_hourly;
        DELETE FROM eval_stats_target_latency_daily;
        INSERT INTO eval_stats_counter (name, value) SELECT 'scenarios', count(*) FROM eval_scenario;
        INSERT INTO eval_stats_counter (name, value) SELECT 'targets', count(*) FROM eval_target;
        ${foldRunsSql(`SELECT 1 AS d, ${RUN_COLUMNS} FROM eval_run`).join(';\n        ')};
      END
      $fn$`);
    await queryRunner.query(`SELECT eval_stats_rebuild()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['eval_scenario', 'eval_target']) {
      for (const event of ['inserted', 'deleted', 'truncated']) {
        await queryRunner.query(`DROP TRIGGER eval_stats_${event} ON ${table}`);
        await queryRunner.query(`DROP FUNCTION eval_stats_${table}_${event}()`);
      }
    }
    for (const name of ['eval_stats_runs_inserted', 'eval_stats_runs_deleted', 'eval_stats_run_updated', 'eval_stats_runs_truncated']) {
      await queryRunner.query(`DROP TRIGGER ${name} ON eval_run`);
      await queryRunner.query(`DROP FUNCTION ${name}()`);
    }
    await queryRunner.query(`DROP FUNCTION eval_stats_rebuild()`);
    await queryRunner.query(`DROP FUNCTION eval_stats_number(jsonb, text)`);
    await queryRunner.query(`DROP INDEX ix_eval_run_completed_finished_utc`);
    await queryRunner.query(`DROP TABLE eval_stats_target_latency_daily`);
    await queryRunner.query(`DROP TABLE eval_stats_pass_rate_hourly`);
    await queryRunner.query(`DROP TABLE eval_stats_counter`);
  }
}
