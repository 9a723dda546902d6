import request from 'supertest';
import { type DataSource } from 'typeorm';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ContactWayEntity } from '../../src/chat/contact-ways/contact-way.entity';
import { containsMatch, scopedContainsAny, scopedTermIsCommon, searchMatch, searchScopeCondition, searchTermIsCommon, type ListSearch } from '../../src/database/like-contains';
import { ListPager } from '../../src/common/paging/list-pager';
import { ScenarioEntity } from '../../src/evaluation/scenarios/scenario.entity';
import { GroupRoomAccessEntity } from '../../src/chat/group-rooms/group-room-access.entity';
import { GroupRoomEntity } from '../../src/chat/group-rooms/group-room.entity';
import { DeploymentsService } from '../../src/deploy/deployments/deployments.service';
import { RunsService } from '../../src/evaluation/runs/runs.service';
import { TAKE_OVER_EXPIRED_RUNS_SQL } from '../../src/evaluation/runs/run-lease';
import { captureStatements, nodesOf, planOf as planWith, type CapturedStatement, type PlanNode } from '../support/query-plans';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from '../chat/support/way-factories';

type Json = Record<string, any>;
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
  let captured: CapturedStatement[] = [];
  const api = (path: string) => request(testApp.baseUrl).get(path).auth(token, { type: 'bearer' });
  const staffList = (query: string) => api(`/api/acme/console/workChat/zhangsan/contact/external?${query}`).expect(200);

  /** The plan of `sql` with sequential scans and sorts switched off (a rolled-back transaction). */
  const planOf = (sql: string, parameters: unknown[], setup: string[] = [], options?: { sorts?: boolean }) => planWith(dataSource, sql, parameters, setup, options);
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
   * Throws unless the scoped search index of `column` (migration 1795600700000: one GIN over the grams of the column,
   * each prefixed with the tenant and staff member) finds the candidates, the tenant and the staff member in its index
   * condition with the column.
   */
  const assertStaffSearchIndexed = (plan: PlanNode, column: string) => {
    const nodes = nodesOf(plan);
    const served = nodes.some((node) => node['Index Name'] === `ix_gr_chat_external_contact_${column}_scoped` && /tenant_id/.test(node['Index Cond'] ?? '') && /work_chat_user_id/.test(node['Index Cond'] ?? '') && new RegExp(`\\(${column}\\)`).test(node['Index Cond'] ?? ''));
    if (!served) throw new Error(`the staff search index of ${column} does not serve: ${JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']]))}`);
  };
  const zhangsan = { columns: ['contact.tenant_id', 'contact.work_chat_user_id'], values: ['acme', 'zhangsan'] };
  /** The staff contact search's statement as the contact list writes it (tenant, staff member, keyword on the given columns; `grams: false` for a common term). */
  const staffSearch = (keyword: string, columns: Array<'name' | 'remark'>, grams = true): [string, unknown[]] => {
    const builder = dataSource
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .select('1')
      .where('contact.tenant_id = :tenantId AND contact.work_chat_user_id = :workChatUserId AND NOT contact.sandbox', { tenantId: 'acme', workChatUserId: 'zhangsan' });
    builder.andWhere(...scopedContainsAny(columns.map((column) => `contact.${column}`), zhangsan, 'p', keyword, undefined, { grams }));
    return builder.getQueryAndParameters() as [string, unknown[]];
  };
  /**
   * Setup for planning a staff search on the small seed: the contact table's btree indexes dropped (rolled back), since
   * on 600 rows a bitmap of the tenant's btree costs less than any GIN lookup (at 1M rows the planner picks the staff
   * search index by itself: docs/lists-and-search.md). What is left are the search indexes: the check then shows that
   * one leads with the tenant and staff member and serves each column and term length.
   */
  const withoutBtrees = async (table = 'chat_external_contact'): Promise<string[]> => {
    const rows = (await dataSource.query(
      `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexname !~ '^ix_(tg|gr)_' AND indexname NOT IN (SELECT conname FROM pg_constraint WHERE conrelid = $1::regclass)`,
      [table],
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
    // 300 group rooms of acme, owned by zhangsan and lisi: Chinese and Latin names.
    await dataSource.query(
      `INSERT INTO chat_group_room (tenant_id, corp_id, chat_id, name, owner_work_chat_user_id, member_count, created_at, updated_at)
       SELECT 'acme', $1::uuid, 'wr-' || i, CASE WHEN i % 2 = 0 THEN (ARRAY['陈','李','王'])[i % 3 + 1] || '家群' || i ELSE 'Room ' || i END,
              CASE WHEN i % 3 = 0 THEN 'lisi' ELSE 'zhangsan' END, i % 50, timestamptz '2026-01-01' + i * interval '1 minute', now()
       FROM generate_series(1, 300) AS i`,
      [acme.id],
    );
    // zhangsan is a staff member of every tenth room lisi owns: found by id, not by the owner-scoped grams.
    await dataSource.query(
      `INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type)
       SELECT tenant_id, corp_id, id, chat_id, 'zhangsan', 1 FROM chat_group_room WHERE owner_work_chat_user_id = 'lisi' AND substr(chat_id, 4)::int % 30 = 0`,
    );
    await dataSource.query('ANALYZE chat_group_room');
    await dataSource.query('ANALYZE chat_group_member');
    captured = captureStatements((sql) => /^\s*SELECT/i.test(sql));
  });

  afterAll(async () => {
    jest.restoreAllMocks();
    await testApp?.close();
  });

  beforeEach(() => {
    captured.length = 0;
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

  // Migration 1795600730000: without (tenant_id, id), `sort=id` read the primary key and filtered out other tenants'
  // rows (1M rows: 125 ms for a tenant whose ways are the oldest). A primary-key walk has no Sort either, so the check
  // asks for an index whose condition holds the tenant.
  it.each([
    ['contact ways', '/api/acme/v1/chat/contact/way', 'chat_contact_way'],
    ['console contact ways', '/api/acme/console/workChat/contactWay', 'chat_contact_way'],
    ['group ways', '/api/acme/v1/chat/group/way', 'chat_group_way'],
  ].flatMap(([label, path, table]) => ['id,asc', 'id,desc'].map((sort) => [label, sort, path, table])))('%s sorted by %s: an index led by the tenant serves page 0', async (_label, sort, path, table) => {
    await api(`${path}?sort=${sort}&size=20`).expect(200);
    const plan = await planOf(...lastListStatement(table));
    assertIndexed(plan, table);
    // Every read of the table (the page, and the count in the same statement) goes through an index on the tenant.
    const reads = nodesOf(plan).filter((node) => node['Relation Name'] === table);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.map((node) => [node['Index Name'], /tenant_id/.test(node['Index Cond'] ?? '')])).toEqual(reads.map(() => [expect.stringMatching(/^ix_/), true]));
  });

  // One state is sent as an equality (a prepared statement), several as an IN list: both plans are checked.
  it.each(['lastStateAt', 'createdAt', 'addedAt', 'name'].flatMap((field) => [`${field},asc`, `${field},desc`]).flatMap((sort) => [[sort, ['st1', 'st2']], [sort, ['st1']]]))('contacts by last states sorted by %s, states %j', async (sort, states) => {
    await request(testApp.baseUrl).post(`/api/acme/v1/workChat/contact/external/byLastStates?sort=${sort}&size=20`).auth(token, { type: 'bearer' }).send({ corpName: 'Acme Retail', states }).expect(200);
    assertIndexed(await planOf(...lastListStatement('chat_external_contact')), 'chat_external_contact');
  });

  it.each(['陈', '陈明', 'Cu', 'C', 'Customer 1', '明华x', 'remark 4', '%', 'a_b'])('contact keyword search %p: the statement the list ran is served by the scoped search indexes', async (keyword) => {
    const response = await staffList(`keyword=${encodeURIComponent(keyword)}&size=20`);
    expect(response.body.totalElements).toBeGreaterThanOrEqual(0);
    // The app's own statement (on 600 rows every term is rare for the decision: it keeps the grams), planned with the
    // btree indexes dropped (on a 600-row seed a walk of the staff member's btree costs less than the GIN lookup): the
    // scoped search indexes must find the candidates of the page and of the count.
    const [sql, parameters] = lastListStatement('chat_external_contact');
    expect(sql).toContain('atrium_scoped_grams');
    // The keyword's third arm (tenant and external user id) keeps its btree; the scope itself is a plain filter then.
    expect(sql).toContain(`("contact"."tenant_id" || '') = $1`);
    const plan = await planOf(sql, parameters, (await withoutBtrees()).filter((drop) => !drop.endsWith(' ix_chat_external_contact_external_user')));
    assertStaffSearchIndexed(plan, 'name');
    assertStaffSearchIndexed(plan, 'remark');
  });

  it.each(['陈', 'C', '陈明', 'Cu', 'Customer 1', '明华x', 'remark 4', '%', 'a_b'])('staff contact search %p (1, 2, 3+ characters): the scoped index of each column serves it', async (keyword) => {
    const setup = await withoutBtrees();
    expect(setup.length).toBeGreaterThan(3);
    for (const [column, other] of [['name', 'remark'], ['remark', 'name']] as const) {
      // The other column's scoped index goes too: on 600 rows it would be cheapest for any condition.
      assertStaffSearchIndexed(await planOf(...staffSearch(keyword, [column]), [...setup, `DROP INDEX ix_gr_chat_external_contact_${other}_scoped`]), column);
    }
    // Both columns at once (as the list asks): each column's scoped index takes its part.
    const plan = await planOf(...staffSearch(keyword, ['name', 'remark']), setup);
    assertStaffSearchIndexed(plan, 'name');
    assertStaffSearchIndexed(plan, 'remark');
  });

  it.each(['陈', '陈明', 'Customer 1'])('fails without the scoped search indexes: %p with ix_gr_…_name_scoped dropped', async (keyword) => {
    const plan = await planOf(...staffSearch(keyword, ['name']), [...(await withoutBtrees()), 'DROP INDEX ix_gr_chat_external_contact_name_scoped', 'DROP INDEX ix_gr_chat_external_contact_remark_scoped']);
    expect(() => assertStaffSearchIndexed(plan, 'name')).toThrow(/does not serve/);
  });

  it('a term common in the scope walks the sort index with the ILIKEs alone; a rare one keeps the grams', async () => {
    // 400 of zhangsan's 600 contacts: 'cu' (Customer …) is on 200 of them, '陈明' on none. With commonRows 50 the first
    // is common (the walk finds a page in its first rows), the second rare: the decision counts the scope's candidates.
    const run = (sql: string, parameters?: unknown[]) => dataSource.query(sql, parameters);
    const staff = (workChatUserId: string) => ({ columns: ['tenant_id', 'work_chat_user_id'], values: ['acme', workChatUserId] });
    expect(await scopedTermIsCommon(run, 'chat_external_contact', staff('zhangsan'), ['name', 'remark'], 'cu', { commonRows: 50 })).toBe(true);
    expect(await scopedTermIsCommon(run, 'chat_external_contact', staff('zhangsan'), ['name', 'remark'], '陈明', { commonRows: 50 })).toBe(false);
    expect(await scopedTermIsCommon(run, 'chat_external_contact', staff('nobody'), ['name', 'remark'], 'cu', { commonRows: 50 })).toBe(false);
    expect(await scopedTermIsCommon(run, 'chat_external_contact', staff('zhangsan'), ['name', 'remark'], 'cu', { commonRows: 500 })).toBe(false);
    const [sql, parameters] = staffSearch('cu', ['name', 'remark'], false);
    expect(sql).not.toContain('atrium_scoped_grams');
    const ordered = `${sql} ORDER BY "contact"."created_at" DESC NULLS LAST, "contact"."id" ASC LIMIT 21`;
    assertIndexed(await planOf(ordered, parameters), 'chat_external_contact');
  });

  it.each(['王', 'Cu', 'Customer 1', '%'])('contact way name search %p: the tenant\'s scoped index serves it', async (name) => {
    const builder = dataSource
      .getRepository(ContactWayEntity)
      .createQueryBuilder('way')
      .select('1')
      .where('way.tenant_id = :tenantId', { tenantId: 'acme' })
      .andWhere(...scopedContainsAny(['way.name'], { columns: ['way.tenant_id'], values: ['acme'] }, 'p', name));
    const plan = await planOf(...(builder.getQueryAndParameters() as [string, unknown[]]), await withoutBtrees('chat_contact_way'));
    expect(nodesOf(plan).some((node) => node['Index Name'] === 'ix_gr_chat_contact_way_name_scoped' && /tenant_id/.test(node['Index Cond'] ?? ''))).toBe(true);
  });

  /** The group room search's description as the list writes it: the staff member's access rows (migration 1795600760000). */
  const roomsOf = (staff: string): ListSearch => ({
    table: 'chat_group_room_access',
    alias: 'access',
    scope: [
      { column: 'tenant_id', parameter: 'tenantId', value: 'acme' },
      { column: 'work_chat_user_id', parameter: 'workChatUserId', value: staff },
    ],
    columns: ['name'],
  });
  /** Throws unless the access rows' grams index scoped by tenant and staff member (migration 1795600760000) finds the candidates. */
  const assertRoomSearchIndexed = (plan: PlanNode) => {
    const nodes = nodesOf(plan);
    const served = nodes.some(
      (node) => node['Index Name'] === 'ix_gr_chat_group_room_access_name_scoped' && /tenant_id/.test(node['Index Cond'] ?? '') && /work_chat_user_id/.test(node['Index Cond'] ?? '') && /\(name\)/.test(node['Index Cond'] ?? ''),
    );
    if (!served) throw new Error(`the group room search index does not serve: ${JSON.stringify(nodes.map((node) => [node['Node Type'], node['Index Name']]))}`);
  };
  /** The statements (page, and count where it runs apart) the group room list ran for `keyword`. */
  const roomSearch = async (keyword: string): Promise<Array<[string, unknown[]]>> => {
    captured.length = 0;
    const response = await api(`/api/acme/console/workChat/zhangsan/contact/room?keyword=${encodeURIComponent(keyword)}&size=20`).expect(200);
    expect(response.body.totalElements).toBeGreaterThanOrEqual(0);
    const statements = captured.filter(([sql]) => sql.includes('"chat_group_room_access"'));
    expect(statements.some(([sql]) => /ORDER BY/.test(sql))).toBe(true);
    return statements;
  };
  /** The access rows' btrees dropped (rolled back; the primary key stays): the grams index must serve. */
  const withoutAccessBtrees = () => withoutBtrees('chat_group_room_access');

  it.each(['陈', '陈家', 'Ro', 'R', 'Room 1', '家群2', '%', 'wr-7'])('group room keyword search %p (1, 2, 3+ characters): the tenant-and-staff scoped index serves the page and the count', async (keyword) => {
    const setup = await withoutAccessBtrees();
    expect(setup.length).toBeGreaterThanOrEqual(4);
    for (const [sql, parameters] of await roomSearch(keyword)) {
      // On 300 rows every term is rare for the decision: the statement keeps the grams and the scope is a plain filter;
      // it reads every candidate anyway, so it counts them itself (no second read for the total).
      expect(sql).toContain('atrium_scoped_grams');
      if (/ORDER BY/.test(sql)) expect(sql).toContain('count(*) OVER ()');
      expect(sql).toContain(`("access"."tenant_id" || '') = $1`);
      const plan = await planOf(sql, parameters, setup);
      assertRoomSearchIndexed(plan);
      // The chat id arm: the room by the rooms' (tenant, chat_id) index, its access row by the primary key.
      const used = nodesOf(plan).map((node) => node['Index Name']);
      expect(used).toEqual(expect.arrayContaining(['ix_ls_chat_group_room_tenant_chat', 'chat_group_room_access_pkey']));
    }
  });

  it.each(['陈', '陈家', '家群2', 'r', 'ro', 'Room 1', 'ROOM 29', '%', 'wr-7', 'zz'])('group room keyword search %p gives exactly the rows of a plain ILIKE scan, rare or common', async (keyword) => {
    const pattern = `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const expected = (
      (await dataSource.query(
        `SELECT id FROM chat_group_room r WHERE tenant_id = 'acme' AND (name ILIKE $1 ESCAPE '\\' OR chat_id = $2)
            AND (owner_work_chat_user_id = 'zhangsan' OR id IN (SELECT group_room_id FROM chat_group_member WHERE member_user_id = 'zhangsan' AND member_type = 1))
          ORDER BY created_at DESC, id DESC`,
        [pattern, keyword],
      )) as Array<{ id: string }>
    ).map((row) => row.id);
    const response = await api(`/api/acme/console/workChat/zhangsan/contact/room?keyword=${encodeURIComponent(keyword)}&size=200`).expect(200);
    expect(response.body.content.map((row: Json) => row.id)).toEqual(expected);
    expect(response.body.totalElements).toBe(expected.length);
    // An offset page, and one past the end: the same total (counted in the page's statement, or alone when it has no row).
    for (const page of [1, 20]) {
      const later = await api(`/api/acme/console/workChat/zhangsan/contact/room?keyword=${encodeURIComponent(keyword)}&size=5&page=${page}`).expect(200);
      expect(later.body.content.map((row: Json) => row.id)).toEqual(expected.slice(page * 5, page * 5 + 5));
      expect(later.body.totalElements).toBe(expected.length);
    }
    // The common path's statement (the ILIKE alone, the scope indexable) finds the same rows.
    const common = await roomList(roomsOf('zhangsan'), keyword, true).getMany();
    expect(common.map((row) => row.id)).toEqual(expected);
  });

  /** The group room list's statement as GroupRoomsService.listForStaff writes it for `keyword`, common or rare. */
  const roomList = (rooms: ListSearch, keyword: string, common: boolean) =>
    dataSource
      .getRepository(GroupRoomEntity)
      .createQueryBuilder('room')
      .innerJoin(GroupRoomAccessEntity, 'access', 'access.group_room_id = room.id')
      .where(...searchScopeCondition(rooms, !common))
      .andWhere('room.tenant_id = :tenantId')
      .andWhere(
        ...searchMatch(rooms, 'p', keyword, {
          common,
          orElse: ['(access.tenant_id = :tenantId AND access.work_chat_user_id = :workChatUserId AND access.group_room_id = ANY(ARRAY(SELECT keyed.id FROM chat_group_room keyed WHERE keyed.tenant_id = :tenantId AND keyed.chat_id = :keyword)))', { keyword }],
        }),
      )
      .orderBy('access.created_at', 'DESC')
      .addOrderBy('access.group_room_id', 'DESC')
      .addOrderBy('room.id', 'DESC');

  it('group room search fails without its scoped index', async () => {
    const setup = await withoutAccessBtrees();
    for (const [sql, parameters] of await roomSearch('陈家')) {
      const withoutGrams = await planOf(sql, parameters, [...setup, 'DROP INDEX ix_gr_chat_group_room_access_name_scoped']);
      expect(() => assertRoomSearchIndexed(withoutGrams)).toThrow(/does not serve/);
      assertRoomSearchIndexed(await planOf(sql, parameters, setup));
    }
  });

  it('a group room term common among the staff member\'s rooms walks the access sort index with the ILIKE alone', async () => {
    const run = (sql: string, parameters?: unknown[]) => dataSource.query(sql, parameters);
    // zhangsan owns 100 'Room …' rooms; the 陈 rooms are lisi's, 10 of which zhangsan is a staff member of: the decision
    // counts the staff member's own rooms, member rooms included.
    expect(await searchTermIsCommon(run, roomsOf('zhangsan'), 'ro', 50)).toBe(true);
    expect(await searchTermIsCommon(run, roomsOf('zhangsan'), '陈家', 50)).toBe(false);
    expect(await searchTermIsCommon(run, roomsOf('zhangsan'), '陈家', 9)).toBe(true);
    expect(await searchTermIsCommon(run, roomsOf('lisi'), '陈家', 10)).toBe(true);
    const [sql, parameters] = roomList(roomsOf('zhangsan'), 'ro', true).select('1').limit(21).getQueryAndParameters() as [string, unknown[]];
    expect(sql).not.toContain('atrium_scoped_grams');
    const plan = await planOf(sql, parameters);
    assertIndexed(plan, 'chat_group_room');
    assertIndexed(plan, 'chat_group_room_access');
    expect(nodesOf(plan).map((node) => node['Index Name'])).toContain('ix_ls_chat_group_room_access_created_at');
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

  it('a scenario name term common among the scenarios walks a sort index holding the name: ids first, index-only, the same rows', async () => {
    await dataSource.query(
      `INSERT INTO eval_scenario (name, metadata, cases, model_bindings, llm_config, version, created_at, updated_at)
       SELECT CASE WHEN i % 3 = 0 THEN '王伟明 ' || i ELSE 'Plan check ' || i END, '{}', '[]', '{}', '{}', 1 + i % 4, timestamptz '2026-01-01' + i * interval '1 minute', now()
         FROM generate_series(1, 300) AS i`,
    );
    await dataSource.query('VACUUM ANALYZE eval_scenario');
    const pager = testApp.app.get(ListPager);
    const builder = (key: string) =>
      dataSource
        .getRepository(ScenarioEntity)
        .createQueryBuilder('scenario')
        .where(...containsMatch('scenario.name', 'q', '王伟', { common: true }))
        .orderBy(`scenario.${key}`, 'DESC');
    for (const [key, index] of [['createdAt', 'ix_ls_eval_scenario_created_at_id'], ['version', 'ix_ls_eval_scenario_version_id'], ['name', 'ix_ls_eval_scenario_name_id']]) {
      captured.length = 0;
      const walked = await pager.page(builder(key), { page: 0, size: 20 }, { search: true, walk: true });
      const [sql, parameters] = captured.find(([statement]) => statement.includes('"eval_scenario"') && /IN \(SELECT/.test(statement)) ?? [];
      expect(sql).toBeDefined();
      const plain = await pager.page(builder(key), { page: 0, size: 20 }, { search: true });
      expect(walked.rows).toHaveLength(20);
      expect(walked.rows.map((row) => row.id)).toEqual(plain.rows.map((row) => row.id));
      // Not counted: more than the cap match, the total is the planner's estimate.
      expect(walked.totalExact).toBe(false);
      const next = await pager.page(builder(key), { page: 0, size: 20, cursor: walked.nextCursor! }, { search: true, walk: true });
      const plainNext = await pager.page(builder(key), { page: 1, size: 20 }, { search: true });
      expect(next.rows.map((row) => row.id)).toEqual(plainNext.rows.map((row) => row.id));
      const indexOnly = (plan: PlanNode) => nodesOf(plan).some((node) => node['Node Type'] === 'Index Only Scan' && node['Index Name'] === index);
      const walkPlan = await planOf(sql!, parameters!);
      if (!indexOnly(walkPlan)) throw new Error(`${key}: ${sql}\n${JSON.stringify(nodesOf(walkPlan).map((node) => [node['Node Type'], node['Index Name']]))}`);
      if (key !== 'name') {
        // Without the name in the index (as before migration 1795600770000) every walked tuple is a heap fetch.
        const column = key === 'createdAt' ? 'created_at' : 'version';
        expect(indexOnly(await planOf(sql!, parameters!, [`DROP INDEX ${index}`, `CREATE INDEX ${index} ON eval_scenario (${column}, id)`]))).toBe(false);
      }
    }
  });

  it('a rare scenario name term reads its candidates from the search index once, ids and count first, and gives exactly the ILIKE\'s rows', async () => {
    const scenarios: ListSearch = { table: 'eval_scenario', alias: 'scenario', scope: [], columns: ['name'] };
    const pager = testApp.app.get(ListPager);
    // Enough other rows that a walk of the sort index (which holds the name) costs the planner more than the matches:
    // on a few hundred rows, reading them all is the right plan.
    await dataSource.query(
      `INSERT INTO eval_scenario (name, metadata, cases, model_bindings, llm_config, version, created_at, updated_at)
       SELECT CASE WHEN i = 1 THEN 'Fifty % off' ELSE 'Filler ' || i END, '{}', '[]', '{}', '{}', 1, timestamptz '2025-01-01' + i * interval '1 minute', now()
         FROM generate_series(1, 20000) AS i`,
    );
    await dataSource.query('VACUUM ANALYZE eval_scenario');
    const searchIndexed = (nodes: PlanNode[]) => nodes.some((node) => /^ix_(tg|gr)_eval_scenario_name$/.test(node['Index Name'] ?? ''));
    for (const term of ['王伟明 3', '明 2', 'check 29', '%']) {
      const builder = () =>
        dataSource
          .getRepository(ScenarioEntity)
          .createQueryBuilder('scenario')
          .where(...searchMatch(scenarios, 'q', term, { common: false }))
          .orderBy('scenario.createdAt', 'DESC')
          .addOrderBy('scenario.id', 'DESC');
      const expected = (
        (await dataSource.query(`SELECT id FROM eval_scenario WHERE name ILIKE $1 ESCAPE '\\' ORDER BY created_at DESC, id DESC`, [`%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`])) as Array<{ id: string }>
      ).map((row) => row.id);
      expect(expected.length).toBeGreaterThan(0);
      // Every row once, by cursor and by offset, with the exact total.
      const byCursor: string[] = [];
      const byOffset: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; ; page++) {
        captured.length = 0;
        const slice = await pager.page(builder(), { page, size: 7, cursor }, { search: true, candidates: true });
        if (page === 0) {
          expect(slice.total).toBe(expected.length);
          // The statement the pager ran: its ids and count from the search index (a windowed subquery), never a walk
          // of a sort index. Sorting allowed here: the candidates are sorted.
          const [sql, parameters] = captured.find(([statement]) => statement.includes('"eval_scenario"') && statement.includes('OVER ()')) ?? [];
          expect(sql).toBeDefined();
          const nodes = nodesOf(await planOf(sql!, parameters!, [], { sorts: true }));
          expect(searchIndexed(nodes)).toBe(true);
          expect(nodes.some((node) => /^ix_ls_eval_scenario_/.test(node['Index Name'] ?? ''))).toBe(false);
          expect(nodes.some((node) => node['Node Type'] === 'WindowAgg')).toBe(true);
          // Able to fail: without the search indexes the same statement is served otherwise.
          expect(searchIndexed(nodesOf(await planOf(sql!, parameters!, ['DROP INDEX ix_tg_eval_scenario_name', 'DROP INDEX ix_gr_eval_scenario_name'], { sorts: true })))).toBe(false);
        }
        byCursor.push(...slice.rows.map((row) => row.id));
        if (!slice.nextCursor) break;
        cursor = slice.nextCursor;
      }
      for (let page = 0; page * 7 < expected.length; page++) {
        const slice = await pager.page(builder(), { page, size: 7 }, { search: true, candidates: true });
        expect(slice.total).toBe(expected.length);
        byOffset.push(...slice.rows.map((row) => row.id));
      }
      expect(byCursor).toEqual(expected);
      expect(byOffset).toEqual(expected);
    }
  });

  it('the run sweeper\'s pass reads the due running runs alone: one range of its index, never every running run', async () => {
    const nodes = nodesOf(await planOf(TAKE_OVER_EXPIRED_RUNS_SQL, [60_000, 100]));
    expect(nodes.some((node) => node['Index Name'] === 'ix_eval_run_running_lease_due' && /COALESCE\(lease_until/.test(node['Index Cond'] ?? ''))).toBe(true);
    // Written as `lease_until IS NULL OR lease_until < now()` (before migration 1795600780000), no range serves it.
    const before = TAKE_OVER_EXPIRED_RUNS_SQL.replace(/COALESCE\(lease_until, '-infinity'::timestamptz\) < now\(\)/, '(lease_until IS NULL OR lease_until < now())');
    expect(before).not.toBe(TAKE_OVER_EXPIRED_RUNS_SQL);
    expect(nodesOf(await planOf(before, [60_000, 100])).some((node) => /lease_until/.test(node['Index Cond'] ?? ''))).toBe(false);
  });

  it('fails without the search index: a 2-character Chinese term with the scoped index dropped', async () => {
    const [sql, parameters] = staffSearch('陈明', ['name']);
    const runner = dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query('DROP INDEX ix_gr_chat_external_contact_name_scoped');
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
