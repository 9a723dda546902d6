import request from 'supertest';
import { Brackets, SelectQueryBuilder, type DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { containsMatch } from '../../src/database/like-contains';
import { DeploymentsService } from '../../src/deploy/deployments/deployments.service';
import { RunsService } from '../../src/evaluation/runs/runs.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from '../chat/support/way-factories';

type Json = Record<string, any>;
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/**
 * Plan checks of the hot lists and searches (issue 23, acceptance 3): a small seed, the app's own statements (caught as
 * the ListPager runs them), `EXPLAIN` with `enable_seqscan` and `enable_sort` off, and the assertion that an index
 * serves each filter and sort: no Seq Scan of the list's table and no Sort node; searches must use a search index
 * (trigram `ix_tg_…` or character/bigram `ix_gr_…`). Able to fail: the last tests drop an index inside a rolled-back
 * transaction and show the same check failing (checked by hand too: without migration 1795600200000 the `sort=name`
 * and `sort=lastMessageAt` lists plan a Sort over the staff member's rows).
 */
describe('plan checks: an index serves every hot list and search', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let acme: TestCorp;
  let captured: Array<[string, unknown[]]> = [];
  const api = (path: string) => request(testApp.baseUrl).get(path).auth(token, { type: 'bearer' });
  const staffList = (query: string) => api(`/api/acme/console/workChat/zhangsan/contact/external?${query}`).expect(200);

  /** The plan of `sql` with sequential scans and sorts switched off (a rolled-back transaction). */
  const planOf = async (sql: string, parameters: unknown[], setup: string[] = []): Promise<PlanNode> => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      for (const statement of setup) await runner.query(statement);
      await runner.query('SET LOCAL enable_seqscan = off');
      await runner.query('SET LOCAL enable_sort = off');
      const [row] = (await runner.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters)) as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
      return row['QUERY PLAN'][0].Plan;
    } finally {
      await runner.rollbackTransaction().catch(() => undefined);
      await runner.release();
    }
  };
  const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
  /** Throws unless an index serves `table`'s filter and the ORDER BY (no Seq Scan of it, no Sort). */
  const assertIndexed = (plan: PlanNode, table: string) => {
    const nodes = nodesOf(plan);
    const scans = nodes.filter((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === table);
    const sorts = nodes.filter((node) => /Sort/.test(node['Node Type']));
    if (scans.length > 0 || sorts.length > 0) throw new Error(`not served by an index: ${JSON.stringify(nodes.map((node) => [node['Node Type'], node['Relation Name'], node['Index Name']]))}`);
  };
  /** Throws unless a search index (trigram or character/bigram GIN) finds the candidates. */
  const assertSearchIndexed = (plan: PlanNode) => {
    const used = nodesOf(plan).map((node) => node['Index Name'] ?? '');
    if (!used.some((name) => /^ix_(tg|gr)_/.test(name))) throw new Error(`no search index used: ${used.filter(Boolean).join(', ') || 'none'}`);
  };
  /**
   * Throws unless the staff-led search index of `column` (migration 1795600220000: GIN on tenant, staff member and the
   * column's trigrams or grams) finds the candidates with the tenant, the staff member and the column's search condition
   * in its index condition.
   */
  const assertStaffSearchIndexed = (plan: PlanNode, column: string) => {
    const nodes = nodesOf(plan);
    const served = nodes.some((node) => new RegExp(`^ix_(tg|gr)_chat_external_contact_staff_${column}$`).test(node['Index Name'] ?? '') && /tenant_id/.test(node['Index Cond'] ?? '') && /work_chat_user_id/.test(node['Index Cond'] ?? '') && new RegExp(`\\(${column}\\)|${column}\\)::text ~~\\*`).test(node['Index Cond'] ?? ''));
    if (!served) throw new Error(`the staff search index of ${column} does not serve: ${JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name'], node['Index Cond']]))}`);
  };
  /** The staff contact search's statement as the contact list writes it (tenant, staff member, keyword on one column or all three). */
  const staffSearch = (keyword: string, columns: Array<'name' | 'remark'>): [string, unknown[]] => {
    const builder = dataSource
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .select('1')
      .where('contact.tenant_id = :tenantId AND contact.work_chat_user_id = :workChatUserId AND NOT contact.sandbox', { tenantId: 'acme', workChatUserId: 'zhangsan' });
    builder.andWhere(new Brackets((where) => columns.forEach((column, at) => (at === 0 ? where.where(...containsMatch(`contact.${column}`, `p${at}`, keyword)) : where.orWhere(...containsMatch(`contact.${column}`, `p${at}`, keyword))))));
    return builder.getQueryAndParameters() as [string, unknown[]];
  };
  /**
   * Setup for planning a staff search on the small seed: the contact table's btree indexes dropped (rolled back), since
   * on 600 rows a bitmap of the tenant's btree costs less than any GIN lookup (at 1M rows the planner picks the staff
   * search index by itself: docs/lists-and-search.md). What is left are the search indexes: the check then shows that
   * one leads with the tenant and staff member and serves each column and term length.
   */
  const withoutBtrees = async (): Promise<string[]> => {
    const rows = (await dataSource.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'chat_external_contact' AND indexname !~ '^ix_(tg|gr)_' AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = 'chat_external_contact'::regclass)`,
    )) as Array<{ indexname: string }>;
    return rows.map((row) => `DROP INDEX ${row.indexname}`);
  };
  /** The list statement (ORDER BY … LIMIT) the last request ran on `table`. */
  const lastListStatement = (table: string): [string, unknown[]] => {
    const found = [...captured].reverse().find(([sql]) => sql.includes(`"${table}"`) && /ORDER BY/.test(sql));
    if (!found) throw new Error(`no list statement on ${table} was run`);
    return found;
  };

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = dataSourceOf(testApp);
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    await newStaffUser(testApp, acme, 'zhangsan');
    // 600 contacts: Chinese and Latin names, remarks, every sort column set on most rows (NULLs on some).
    await dataSource.query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, remark, tags, state, state_at, added_at, last_message_at, add_way, ai_enabled, profile, created_at, updated_at)
       SELECT 'acme', $1::uuid, 'wm-' || i, CASE WHEN i % 3 = 0 THEN 'lisi' ELSE 'zhangsan' END,
              CASE WHEN i % 2 = 0 THEN (ARRAY['陈','李','王','张','刘'])[i % 5 + 1] || (ARRAY['明','华','伟','芳'])[i % 4 + 1] ELSE 'Customer ' || i END,
              CASE WHEN i % 7 = 0 THEN NULL ELSE 'remark ' || i END, '[]'::jsonb, 'st' || (i % 4),
              CASE WHEN i % 5 = 0 THEN NULL ELSE timestamptz '2026-01-01' + i * interval '1 minute' END,
              timestamptz '2026-01-01' + i * interval '1 minute',
              CASE WHEN i % 4 = 0 THEN NULL ELSE timestamptz '2026-02-01' + (i % 97) * interval '1 minute' END,
              1, i % 2 = 0, '{}'::jsonb, timestamptz '2026-01-01' + i * interval '1 minute', now()
       FROM generate_series(1, 600) AS i`,
      [acme.id],
    );
    await dataSource.query('ANALYZE chat_external_contact');
    const original = SelectQueryBuilder.prototype.getRawAndEntities;
    jest.spyOn(SelectQueryBuilder.prototype, 'getRawAndEntities').mockImplementation(function (this: SelectQueryBuilder<any>) {
      captured.push(this.getQueryAndParameters());
      return original.call(this);
    });
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await testApp?.close();
  });

  beforeEach(() => {
    captured = [];
  });

  const STAFF_SORTS = ['createdAt', 'updatedAt', 'addedAt', 'stateAt', 'name', 'lastMessageAt'];
  it.each(STAFF_SORTS.flatMap((field) => [`${field},asc`, `${field},desc`]))('staff contacts sorted by %s: page 0 and a cursor page', async (sort) => {
    const first = await staffList(`sort=${sort}&size=20`);
    assertIndexed(await planOf(...lastListStatement('chat_external_contact')), 'chat_external_contact');
    expect(first.body.nextCursor).toEqual(expect.any(String));
    await staffList(`sort=${sort}&size=20&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    for (const [sql, parameters] of captured.filter(([sql]) => sql.includes('"chat_external_contact"') && /ORDER BY/.test(sql))) {
      assertIndexed(await planOf(sql, parameters), 'chat_external_contact');
    }
  });

  it.each(['lastStateAt', 'createdAt', 'addedAt', 'name'].flatMap((field) => [`${field},asc`, `${field},desc`]))('contacts by last states sorted by %s', async (sort) => {
    await request(testApp.baseUrl).post(`/api/acme/v1/workChat/contact/external/byLastStates?sort=${sort}&size=20`).auth(token, { type: 'bearer' }).send({ corpName: 'Acme Retail', states: ['st1', 'st2'] }).expect(200);
    assertIndexed(await planOf(...lastListStatement('chat_external_contact')), 'chat_external_contact');
  });

  it.each(['陈', '陈明', 'Cu', 'C', 'Customer 1', '明华x', 'remark 4', '%', 'a_b'])('contact keyword search %p: its conditions are served by a search index', async (keyword) => {
    const response = await staffList(`keyword=${encodeURIComponent(keyword)}&size=20`);
    expect(response.body.totalElements).toBeGreaterThanOrEqual(0);
    // The app's own search conditions (containsMatch, as the contact list writes them), planned on the whole table
    // with sequential scans off: each must be answered by a search index, not by a walk of a sort index.
    for (const column of ['contact.name', 'contact.remark']) {
      const [sql, parameters] = dataSource.getRepository(ExternalContactEntity).createQueryBuilder('contact').select('1').where(...containsMatch(column, 'p', keyword)).getQueryAndParameters();
      // Plain index scans off too: on a 600-row seed a full walk of any btree costs less than the GIN lookup.
      assertSearchIndexed(await planOf(sql, parameters, ['SET LOCAL enable_indexscan = off', 'SET LOCAL enable_indexonlyscan = off']));
    }
  });

  it.each(['陈', 'C', '陈明', 'Cu', 'Customer 1', '明华x', 'remark 4', '%', 'a_b'])('staff contact search %p (1, 2, 3+ characters): the index led by tenant and staff member serves each column', async (keyword) => {
    const setup = await withoutBtrees();
    expect(setup.length).toBeGreaterThan(3);
    for (const [column, other] of [['name', 'remark'], ['remark', 'name']] as const) {
      // The other column's staff indexes go too: on 600 rows their tenant/staff keys alone would be cheapest.
      const drops = ['tg', 'gr'].map((kind) => `DROP INDEX ix_${kind}_chat_external_contact_staff_${other}`);
      assertStaffSearchIndexed(await planOf(...staffSearch(keyword, [column]), [...setup, ...drops]), column);
    }
  });

  it.each(['陈', '陈明', 'Customer 1'])('fails without the staff search indexes: %p with ix_tg/ix_gr_…_staff_name dropped', async (keyword) => {
    const drops = ['tg', 'gr'].map((kind) => `DROP INDEX ix_${kind}_chat_external_contact_staff_name`);
    const plan = await planOf(...staffSearch(keyword, ['name']), [...(await withoutBtrees()), ...drops, 'DROP INDEX ix_tg_chat_external_contact_staff_remark', 'DROP INDEX ix_gr_chat_external_contact_staff_remark']);
    expect(() => assertStaffSearchIndexed(plan, 'name')).toThrow(/does not serve/);
  });

  it('the deploy list and the runs list are served by their indexes for each sort', async () => {
    for (const sort of ['deployedAt,desc', 'projectName,asc', 'bytes,desc']) {
      await testApp.app.get(DeploymentsService).list({ namespace: 'ns-a' } as never, { page: 0, size: 20, sort: [sort] } as never);
      assertIndexed(await planOf(...lastListStatement('deploy_deployment')), 'deploy_deployment');
    }
    for (const query of [{ sort: ['createdAt,desc'] }, { sort: ['createdAt,asc'] }, { status: 'completed', sort: ['createdAt,desc'] }]) {
      await testApp.app.get(RunsService).list({ page: 0, size: 20, ...query } as never);
      assertIndexed(await planOf(...lastListStatement('eval_run')), 'eval_run');
    }
  });

  it('fails without the index: the same check on sort=name with its index dropped', async () => {
    await staffList('sort=name,desc&size=20');
    const [sql, parameters] = lastListStatement('chat_external_contact');
    const index = 'ix_ls_chat_external_contact_tenant_id_work_chat_user_id_name_id';
    const plan = await planOf(sql, parameters, [`DROP INDEX ${index}`]);
    expect(() => assertIndexed(plan, 'chat_external_contact')).toThrow(/not served by an index/);
  });

  it('fails without the search index: a 2-character Chinese term with the bigram index dropped', async () => {
    const [sql, parameters] = dataSource.getRepository(ExternalContactEntity).createQueryBuilder('contact').select('1').where(...containsMatch('contact.name', 'p', '陈明')).getQueryAndParameters();
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('DROP INDEX ix_gr_chat_external_contact_staff_name');
      await runner.query('SET LOCAL enable_seqscan = off');
      const [row] = (await runner.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters)) as Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>;
      expect(() => assertSearchIndexed(row['QUERY PLAN'][0].Plan)).toThrow(/no search index/);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  });
});

export type { Json };
