import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ALL_MIGRATIONS } from '../../migrations';
import { EvaluationRunCaseRows1795600100000 } from '../../migrations/1795600100000-EvaluationRunCaseRows';

/** The migration that moves runs' case snapshots into rows (issue 23 item 3) keeps every existing run's cases. */
describe('migration 1795600100000: run case snapshots into rows', () => {
  const serverUrl = process.env.ATRIUM_TEST_DATABASE_URL!;
  const database = `atrium_e2e_caserows_${process.pid}_${Date.now().toString(36)}`;
  const url = (() => {
    const parsed = new URL(serverUrl);
    parsed.pathname = `/${database}`;
    return parsed.toString();
  })();
  let dataSource: DataSource;
  const timestampOf = (migration: { name: string }) => Number(/(\d{13})$/.exec(migration.name)?.[1]);

  beforeAll(async () => {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();
    // The schema as it was just before this migration.
    dataSource = new DataSource({ type: 'postgres', url, migrations: ALL_MIGRATIONS.filter((migration) => timestampOf(migration) < 1795600100000), migrationsTransactionMode: 'each' });
    await dataSource.initialize();
    await dataSource.runMigrations();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('moves each run\'s cases, in order, with the stored count; down puts them back', async () => {
    const cases = (count: number) => Array.from({ length: count }, (_, index) => ({ id: `c${index}`, ...(index % 2 ? { turns: ['a', 'b'] } : { input: `m${index}` }), rules: [{ type: 'contains', value: 'x' }] }));
    const insertRun = async (snapshot: unknown[]) =>
      (
        await dataSource.query(
          `INSERT INTO eval_run (scenario_name, scenario_version, target_name, status, triggered_by, concurrency, repeat_count, cases, model_bindings, llm_config)
           VALUES ('s', 1, 't', 'completed', 'manual', 1, 1, $1, '{}', '{}') RETURNING id`,
          [JSON.stringify(snapshot)],
        )
      )[0].id as string;
    const big = await insertRun(cases(1200));
    const small = await insertRun(cases(3));
    const empty = await insertRun([]);

    const queryRunner = dataSource.createQueryRunner();
    await new EvaluationRunCaseRows1795600100000().up(queryRunner);

    const counts = await dataSource.query(`SELECT id, case_count FROM eval_run ORDER BY case_count`);
    expect(counts.map((row: { id: string; case_count: number }) => [row.id, row.case_count])).toEqual([[empty, 0], [small, 3], [big, 1200]]);
    const rows = await dataSource.query(`SELECT position, case_id, content FROM eval_run_case WHERE run_id = $1 ORDER BY position`, [small]);
    expect(rows).toEqual(cases(3).map((content, position) => ({ position, case_id: content.id, content })));
    const [{ moved, ordered }] = await dataSource.query(
      `SELECT count(*)::int AS moved, bool_and(case_id = 'c' || position) AS ordered FROM eval_run_case WHERE run_id = $1`,
      [big],
    );
    expect({ moved, ordered }).toEqual({ moved: 1200, ordered: true });
    const columns = (await dataSource.query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'eval_run'`)).map((row: { column_name: string }) => row.column_name);
    expect(columns).not.toContain('cases');
    const [index] = await dataSource.query(`SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_eval_case_result_run_position'`);
    expect(index.indexdef).toContain('(run_id, "position", repeat_index)');

    await new EvaluationRunCaseRows1795600100000().down(queryRunner);
    const restored = await dataSource.query(`SELECT id, cases FROM eval_run`);
    expect(Object.fromEntries(restored.map((row: { id: string; cases: unknown[] }) => [row.id, row.cases]))).toEqual({ [big]: cases(1200), [small]: cases(3), [empty]: [] });
    await queryRunner.release();
  });
});
