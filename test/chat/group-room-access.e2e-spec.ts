import request from 'supertest';
import { type DataSource } from 'typeorm';
import { captureStatements, nodesOf, planOf, type CapturedStatement } from '../support/query-plans';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Row = Record<string, unknown>;

/**
 * Issue 23 acceptance 1 and 3 for a staff member's group rooms (`GET {C}/workChat/{staff}/contact/room`): the rooms
 * they own or are a staff member of are the rows of `chat_group_room_access` (migration 1795600760000), kept exact
 * by triggers on the rooms and members, whoever writes them. Each step below writes rooms or members the way a sync,
 * a bulk load or a clean-up would and compares the table with the rooms and members it stands for; the list is
 * compared with a plain query of "owns or is a member of" in every accepted sort, page by page through cursors and
 * offsets; the plan check shows a page read in order from the access index (and fails without it), and the last test
 * shows the table going stale without its triggers.
 */
describe('group room access (issue 23)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let corp: TestCorp;
  let captured: CapturedStatement[] = [];
  const tenant = 'roomacc';
  const rooms = (staff: string, query: Record<string, unknown>) =>
    request(testApp.baseUrl).get(`/api/${tenant}/console/workChat/${staff}/contact/room`).query(query).auth(token, { type: 'bearer' });

  /** What the access table must hold for the tenant: each room's owner and type-1 members, with its sort keys. */
  const expected = (): Promise<Row[]> =>
    dataSource.query(
      `SELECT DISTINCT r.tenant_id, staff.user_id AS work_chat_user_id, r.id AS group_room_id, r.created_at, r.updated_at, r.name, r.member_count
         FROM chat_group_room r
        CROSS JOIN LATERAL (SELECT r.owner_work_chat_user_id UNION
                            SELECT m.member_user_id FROM chat_group_member m WHERE m.tenant_id = r.tenant_id AND m.group_room_id = r.id AND m.member_type = 1) AS staff(user_id)
        WHERE r.tenant_id = $1 ORDER BY 2, 3`,
      [tenant],
    );
  const stored = (): Promise<Row[]> =>
    dataSource.query(
      `SELECT tenant_id, work_chat_user_id, group_room_id, created_at, updated_at, name, member_count FROM chat_group_room_access WHERE tenant_id = $1 ORDER BY 2, 3`,
      [tenant],
    );
  const expectExact = async () => {
    const want = await expected();
    expect(want.length).toBeGreaterThan(0);
    expect(await stored()).toEqual(want);
  };
  /** Inserts `count` rooms (chat ids `<prefix>-<i>`) owned in turn by `owners`. */
  const insertRooms = (prefix: string, count: number, owners: string[]) =>
    dataSource.query(
      `INSERT INTO chat_group_room (tenant_id, corp_id, chat_id, name, owner_work_chat_user_id, member_count, created_at, updated_at)
       SELECT $1, $2::uuid, $3 || '-' || i, CASE WHEN i % 2 = 0 THEN '王家群' || i ELSE 'Room ' || (i % 7) END, ($4::text[])[1 + i % cardinality($4::text[])],
              i % 5, timestamptz '2026-01-01' + (i % 11) * interval '1 hour', timestamptz '2026-03-01' + (i % 13) * interval '1 minute'
         FROM generate_series(1, $5::int) AS i`,
      [tenant, corp.id, prefix, owners, count],
    );
  /** Adds `staff` (type 1) or a customer (type 2) to the rooms whose chat id matches `chatIdPattern` (SQL LIKE). */
  const addMembers = (chatIdPattern: string, staff: string, type = 1) =>
    dataSource.query(
      `INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type)
       SELECT tenant_id, corp_id, id, chat_id, $3, $4 FROM chat_group_room WHERE tenant_id = $1 AND chat_id LIKE $2`,
      [tenant, chatIdPattern, staff, type],
    );
  /** Every room of `staff` in the list, reading pages of 7 through cursors (or offsets), in `sort`. */
  const listAll = async (staff: string, sort: string, paging: 'cursor' | 'offset'): Promise<string[]> => {
    const ids: string[] = [];
    let query: Record<string, unknown> = { sort, size: 7 };
    for (let page = 0; page < 100; page++) {
      const body = (await rooms(staff, query).expect(200)).body as { content: Array<{ id: string }>; nextCursor: string | null };
      ids.push(...body.content.map((room) => room.id));
      if (paging === 'cursor' ? !body.nextCursor : body.content.length < 7) return ids;
      query = paging === 'cursor' ? { sort, size: 7, cursor: body.nextCursor } : { sort, size: 7, page: page + 1 };
    }
    throw new Error('more than 100 pages');
  };
  /** The reference: the rooms `staff` owns or is a staff member of (with that AI switch, if given), by a plain query, in `sort` with the id last. */
  const reference = async (staff: string, column: string, direction: 'ASC' | 'DESC', aiEnabled?: boolean): Promise<string[]> =>
    (
      (await dataSource.query(
        `SELECT id FROM chat_group_room r WHERE tenant_id = $1 ${aiEnabled === undefined ? '' : 'AND ai_enabled = $3'}
            AND (owner_work_chat_user_id = $2 OR id IN (SELECT group_room_id FROM chat_group_member WHERE tenant_id = $1 AND member_user_id = $2 AND member_type = 1))
          ORDER BY ${column} ${direction}, id ${direction}`,
        aiEnabled === undefined ? [tenant, staff] : [tenant, staff, aiEnabled],
      )) as Array<{ id: string }>
    ).map((row) => row.id);

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = dataSourceOf(testApp);
    await newTenant(testApp, tenant);
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: tenant }))).access_token;
    corp = await newCorp(testApp, token, tenant, 'Room Access Corp');
    for (const staff of ['zhangsan', 'lisi', 'wangwu']) await newStaffUser(testApp, corp, staff);
    captured = captureStatements((sql) => /^\s*SELECT/i.test(sql) && sql.includes('"chat_group_room"'));
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await testApp?.close();
  });

  it('follows rooms and members inserted, changed and deleted, one by one and in bulk', async () => {
    await insertRooms('a', 120, ['zhangsan', 'lisi', 'wangwu']);
    await expectExact();
    // Staff members (and customers, which give no access); the owner listed as a member of their own room too.
    await addMembers('a-1%', 'zhangsan');
    await addMembers('a-2%', 'lisi');
    await addMembers('a-3%', 'zhaoliu', 2);
    await dataSource.query(`INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type)
                            SELECT tenant_id, corp_id, id, chat_id, owner_work_chat_user_id, 1 FROM chat_group_room WHERE tenant_id = $1 AND chat_id LIKE 'a-4%'`, [tenant]);
    await expectExact();
    // A duplicate member row (as imported data holds), then one of the two removed: access stays.
    await addMembers('a-15', 'wangwu');
    await addMembers('a-15', 'wangwu');
    await dataSource.query(`DELETE FROM chat_group_member WHERE id = (SELECT min(id::text)::uuid FROM chat_group_member WHERE chat_id = 'a-15' AND member_user_id = 'wangwu')`);
    await expectExact();
    const [a15] = await dataSource.query(`SELECT id, owner_work_chat_user_id AS owner FROM chat_group_room WHERE tenant_id = $1 AND chat_id = 'a-15'`, [tenant]);
    expect(a15.owner).not.toBe('wangwu');
    expect((await stored()).filter((row) => row.work_chat_user_id === 'wangwu' && row.group_room_id === a15.id)).toHaveLength(1);
    // Owner handed over, renamed rooms, member counts and times changed in one statement.
    await dataSource.query(`UPDATE chat_group_room SET owner_work_chat_user_id = 'wangwu', name = name || ' (new)', member_count = member_count + 3, updated_at = now() WHERE tenant_id = $1 AND chat_id LIKE 'a-1%'`, [tenant]);
    await expectExact();
    // A member's type changes (staff to customer), a member moves to another room, a member row is deleted.
    await dataSource.query(`UPDATE chat_group_member SET member_type = 2 WHERE tenant_id = $1 AND member_user_id = 'lisi' AND chat_id = 'a-21'`, [tenant]);
    await dataSource.query(`UPDATE chat_group_member SET group_room_id = (SELECT id FROM chat_group_room WHERE chat_id = 'a-99'), chat_id = 'a-99' WHERE tenant_id = $1 AND member_user_id = 'lisi' AND chat_id = 'a-22'`, [tenant]);
    await dataSource.query(`DELETE FROM chat_group_member WHERE tenant_id = $1 AND member_user_id = 'zhangsan' AND chat_id LIKE 'a-11%'`, [tenant]);
    await expectExact();
    // Writes that change nothing the list reads leave the rows as they are.
    const before = await stored();
    await dataSource.query(`UPDATE chat_group_room SET ai_enabled = NOT ai_enabled, synced_at = now() WHERE tenant_id = $1`, [tenant]);
    await dataSource.query(`UPDATE chat_group_member SET name = 'renamed' WHERE tenant_id = $1`, [tenant]);
    expect(await stored()).toEqual(before);
    // Rooms deleted.
    await dataSource.query(`DELETE FROM chat_group_room WHERE tenant_id = $1 AND chat_id LIKE 'a-5%'`, [tenant]);
    await expectExact();
    expect((await dataSource.query(`SELECT count(*)::int AS n FROM chat_group_room_access a WHERE NOT EXISTS (SELECT 1 FROM chat_group_room r WHERE r.id = a.group_room_id)`))[0].n).toBe(0);
  });

  it('lists exactly the rooms a staff member owns or is a member of, in every sort, by cursor and by offset', async () => {
    const sorts: Array<[string, string]> = [
      ['createdAt', 'created_at'],
      ['updatedAt', 'updated_at'],
      ['name', 'name'],
      ['memberCount', 'member_count'],
    ];
    for (const staff of ['zhangsan', 'lisi', 'wangwu']) {
      for (const [field, column] of sorts) {
        for (const direction of ['asc', 'desc'] as const) {
          const want = await reference(staff, column, direction === 'asc' ? 'ASC' : 'DESC');
          expect(want.length).toBeGreaterThan(10);
          expect(await listAll(staff, `${field},${direction}`, 'cursor')).toEqual(want);
          if (field === 'name') expect(await listAll(staff, `${field},${direction}`, 'offset')).toEqual(want);
        }
      }
    }
    // A staff member with no room sees none; another tenant's staff member of the same id sees none of these, and
    // cannot reach them with this tenant's path and its own token either.
    expect((await rooms('zhaoliu', {}).expect(200)).body.totalElements).toBe(0);
    const other = 'roomacc2';
    await newTenant(testApp, other);
    const otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: other }))).access_token;
    await newStaffUser(testApp, await newCorp(testApp, otherToken, other, 'Other Corp'), 'zhangsan');
    const theirs = await request(testApp.baseUrl).get(`/api/${other}/console/workChat/zhangsan/contact/room`).query({ size: 200 }).auth(otherToken, { type: 'bearer' }).expect(200);
    expect(theirs.body.totalElements).toBe(0);
    expect(theirs.body.content).toEqual([]);
    await request(testApp.baseUrl).get(`/api/${tenant}/console/workChat/zhangsan/contact/room`).auth(otherToken, { type: 'bearer' }).expect(403);
  });

  it('reads a page in order from the access index (plan check), and cannot without it', async () => {
    for (const sort of ['createdAt,desc', 'updatedAt,asc', 'name,asc', 'memberCount,desc']) {
      captured.length = 0;
      await rooms('zhangsan', { sort, size: 20 }).expect(200);
      const [sql, parameters] = [...captured].reverse().find(([statement]) => /ORDER BY/.test(statement)) ?? [];
      expect(sql).toBeDefined();
      const key = { createdAt: 'created_at', updatedAt: 'updated_at', name: 'name', memberCount: 'member_count' }[sort.split(',')[0]]!;
      const nodes = nodesOf(await planOf(dataSource, sql!, parameters!));
      expect(nodes.filter((node) => /Sort/.test(node['Node Type']))).toEqual([]);
      expect(nodes.some((node) => node['Index Name'] === `ix_ls_chat_group_room_access_${key}` && /work_chat_user_id/.test(node['Index Cond'] ?? ''))).toBe(true);
      const without = nodesOf(await planOf(dataSource, sql!, parameters!, [`DROP INDEX ix_ls_chat_group_room_access_${key}`]));
      expect(without.some((node) => /Sort/.test(node['Node Type']))).toBe(true);
    }
  });

  it('counts a page\'s total once per change of the tenant\'s rooms: a plain count after every kind of write, reused while nothing changed', async () => {
    const generation = async () =>
      Number((await dataSource.query(`SELECT coalesce(sum(generation), 0)::int AS g FROM list_generation WHERE table_name = 'chat_group_room' AND tenant_id IN ($1, '*')`, [tenant]))[0].g);
    const plainCount = async (staff: string, aiEnabled?: boolean) => (await reference(staff, 'created_at', 'DESC', aiEnabled)).length;
    const total = async (staff: string, query: Record<string, unknown> = {}) => {
      const body = (await rooms(staff, { size: 5, ...query }).expect(200)).body as { totalElements: number; totalElementsExact: boolean };
      return { totalElements: body.totalElements, totalElementsExact: body.totalElementsExact };
    };
    const expectTotals = async () => {
      for (const staff of ['zhangsan', 'wangwu']) {
        // Twice: the count of the first request, then the total kept for the generation.
        for (let round = 0; round < 2; round++) {
          expect(await total(staff)).toEqual({ totalElements: await plainCount(staff), totalElementsExact: true });
          expect(await total(staff, { aiEnabled: false })).toEqual({ totalElements: await plainCount(staff, false), totalElementsExact: true });
        }
      }
    };
    await expectTotals();
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['rooms inserted', () => insertRooms('g', 9, ['zhangsan', 'wangwu'])],
      ['a staff member added', () => addMembers('g-1', 'zhangsan')],
      ['owner handed over', () => dataSource.query(`UPDATE chat_group_room SET owner_work_chat_user_id = 'wangwu' WHERE tenant_id = $1 AND chat_id = 'g-2'`, [tenant])],
      ['AI switched off', () => dataSource.query(`UPDATE chat_group_room SET ai_enabled = false WHERE tenant_id = $1 AND chat_id IN ('g-3', 'g-4')`, [tenant])],
      ['a member removed', () => dataSource.query(`DELETE FROM chat_group_member WHERE tenant_id = $1 AND chat_id = 'g-1' AND member_user_id = 'zhangsan'`, [tenant])],
      ['a room deleted', () => dataSource.query(`DELETE FROM chat_group_room WHERE tenant_id = $1 AND chat_id = 'g-5'`, [tenant])],
    ];
    for (const [write, run] of writes) {
      const before = await generation();
      await run();
      expect({ write, bumped: (await generation()) > before }).toEqual({ write, bumped: true });
      await expectTotals();
    }
    // A member sync's counts and times bump nothing, in the rooms or in their access rows' copies.
    const beforeSync = await generation();
    await dataSource.query(`UPDATE chat_group_room SET member_count = member_count + 1, synced_at = now(), updated_at = now() WHERE tenant_id = $1 AND chat_id LIKE 'g-%'`, [tenant]);
    expect(await generation()).toBe(beforeSync);
    await expectExact();
    // A room slipped in without the generation triggers (its access row still written): the kept total stands, which
    // shows it is reused, not counted. The app never disables them.
    const kept = (await total('zhangsan')).totalElements;
    for (const table of ['chat_group_room', 'chat_group_room_access']) await dataSource.query(`ALTER TABLE ${table} DISABLE TRIGGER list_generation_insert`);
    try {
      await insertRooms('h', 1, ['zhangsan']);
    } finally {
      for (const table of ['chat_group_room', 'chat_group_room_access']) await dataSource.query(`ALTER TABLE ${table} ENABLE TRIGGER list_generation_insert`);
    }
    expect(await plainCount('zhangsan')).toBe(kept + 1);
    expect((await total('zhangsan')).totalElements).toBe(kept);
    await insertRooms('i', 1, ['wangwu']);
    await expectTotals();
  });

  it('follows a truncate of the members (owners keep their rooms) and of the rooms (nothing left)', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    const accessOf = async () => (await runner.query(`SELECT work_chat_user_id, group_room_id FROM chat_group_room_access WHERE tenant_id = $1 ORDER BY 1, 2`, [tenant])) as Row[];
    try {
      await runner.startTransaction();
      expect((await accessOf()).length).toBeGreaterThan((await runner.query(`SELECT count(*)::int AS n FROM chat_group_room WHERE tenant_id = $1`, [tenant]))[0].n);
      await runner.query('TRUNCATE chat_group_member');
      const owners = (await runner.query(`SELECT owner_work_chat_user_id AS work_chat_user_id, id AS group_room_id FROM chat_group_room WHERE tenant_id = $1 ORDER BY 1, 2`, [tenant])) as Row[];
      expect(await accessOf()).toEqual(owners);
      await runner.query('TRUNCATE chat_group_room');
      expect((await runner.query(`SELECT count(*)::int AS n FROM chat_group_room_access`))[0].n).toBe(0);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await expectExact();
  });

  it('goes stale without its triggers (the exactness check can fail)', async () => {
    const runner = dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await runner.query(`ALTER TABLE chat_group_member DISABLE TRIGGER chat_group_member_access_insert`);
      await runner.query(
        `INSERT INTO chat_group_member (tenant_id, corp_id, group_room_id, chat_id, member_user_id, member_type)
         SELECT tenant_id, corp_id, id, chat_id, 'zhaoliu', 1 FROM chat_group_room WHERE tenant_id = $1 AND chat_id LIKE 'a-6%'`,
        [tenant],
      );
      const missing = await runner.query(
        `SELECT count(*)::int AS n FROM chat_group_member m WHERE m.tenant_id = $1 AND m.member_user_id = 'zhaoliu' AND m.member_type = 1
            AND NOT EXISTS (SELECT 1 FROM chat_group_room_access a WHERE a.tenant_id = m.tenant_id AND a.work_chat_user_id = 'zhaoliu' AND a.group_room_id = m.group_room_id)`,
        [tenant],
      );
      expect(missing[0].n).toBeGreaterThan(0);
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
    await expectExact();
  });
});
