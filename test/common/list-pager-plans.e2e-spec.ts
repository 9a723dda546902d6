import type { DataSource, SelectQueryBuilder } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ListPager, selectAs, type ListSlice, type PageRequest } from '../../src/common/paging/list-pager';
import { containsMatch } from '../../src/database/like-contains';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser } from '../chat/support/way-factories';

type Contacts = SelectQueryBuilder<ExternalContactEntity>;

/**
 * The ListPager's kept plans (issue 14 acceptance 1: a list's statements derived once per shape, values bound per
 * request) answer exactly what building every statement per request answers (PAGING_PLAN_CACHE_MAX_ENTRIES=0): the
 * same entities (class, properties), raw extras, totals and cursors, for every sort (nullable keys, ties), page
 * (near, far, past the end), cursor walk, array filter, partial selection and search cap; a shape seen before never
 * carries an earlier request's values (another tenant, other states); a transaction's builder reads through that
 * transaction; a cursor made for one tenant or filter is still refused on another.
 */
describe('ListPager plans', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  const options = { exactCap: 10_000, searchExactCap: 7, cacheTtlMs: 0, cacheMinRows: 1_000_000 };
  const planned = new ListPager({} as AppConfig, options);
  const built = new ListPager({} as AppConfig, { ...options, planCacheMaxEntries: 0 });
  const tiny = new ListPager({} as AppConfig, { ...options, planCacheMaxEntries: 1 });

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = dataSourceOf(testApp);
    for (const [tenant, count] of [['acme', 130], ['globex', 90]] as const) {
      await newTenant(testApp, tenant);
      const token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: tenant }))).access_token;
      const corp = await newCorp(testApp, token, tenant, `${tenant} corp`);
      await newStaffUser(testApp, corp, 'zhangsan');
      await dataSource.query(
        `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, remark, tags, state, state_at, add_way, ai_enabled, profile, last_message_at, created_at, updated_at)
         SELECT $1, $2::uuid, 'wm-' || i, 'zhangsan', 'Name ' || (i % 23), CASE WHEN i % 5 = 0 THEN 'vip ' || i END, '[]'::jsonb,
                (ARRAY['a', 'b', 'c'])[i % 3 + 1], CASE WHEN i % 4 = 0 THEN NULL ELSE timestamptz '2026-03-01' + (i % 11) * interval '1 minute' END,
                1, i % 2 = 0, jsonb_build_object('p' || (i % 3), jsonb_build_object('n', i)),
                CASE WHEN i % 4 = 1 THEN NULL ELSE timestamptz '2026-02-01' + (i % 17) * interval '1 minute' END,
                timestamptz '2026-01-01' + (i / 2) * interval '1 minute', now()
         FROM generate_series(1, $3::int) AS i`,
        [tenant, corp.id, count],
      );
    }
  });

  afterAll(async () => {
    await testApp?.close();
  });

  const contacts = (tenantId: string, source: DataSource['manager'] = dataSource.manager): Contacts =>
    source
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .where('contact.tenant_id = :tenantId AND contact.work_chat_user_id = :userId AND NOT contact.sandbox', { tenantId, userId: 'zhangsan' });
  const SORTS: Array<[string, (builder: Contacts) => Contacts]> = [
    ['createdAt desc, id asc', (b) => b.addOrderBy('contact.createdAt', 'DESC', 'NULLS LAST').addOrderBy('contact.id', 'ASC')],
    ['lastMessageAt asc nulls first (tie-breaker appended)', (b) => b.addOrderBy('contact.lastMessageAt', 'ASC', 'NULLS FIRST')],
    ['stateAt desc nulls last, name asc', (b) => b.addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST').addOrderBy('contact.name', 'ASC')],
    ['name asc', (b) => b.orderBy('contact.name', 'ASC')],
  ];

  /** A slice with its cursor's payload (the signature differs per pager when no sealing key is installed). */
  const comparable = (slice: ListSlice<ExternalContactEntity>) => ({
    ...slice,
    nextCursor: slice.nextCursor ? JSON.parse(Buffer.from(slice.nextCursor.split('.')[0], 'base64url').toString()) : null,
  });
  /** Reads the same page with both pagers (the planned one twice: first sight, then the kept plan) and compares. */
  const both = async (builder: () => Contacts, request: PageRequest, plannedRequest = request, kind: { search?: boolean; candidates?: boolean } = {}) => {
    const reference = await built.page(builder(), request, kind);
    for (let round = 0; round < 2; round++) {
      const answer = await planned.page(builder(), plannedRequest, kind);
      // Strict: the same classes and the same own properties (an unset one is not an undefined one).
      expect(comparable(answer)).toStrictEqual(comparable(reference));
      answer.rows.forEach((row) => expect(row).toBeInstanceOf(ExternalContactEntity));
    }
    return reference;
  };

  it('keeps a plan for these builders (else the comparisons below would compare the builder path with itself)', () => {
    const planOf = (pager: ListPager, builder: Contacts) => (pager as unknown as { planOf(builder: Contacts, cap: number): unknown }).planOf(builder, 10_000);
    for (const [, sort] of SORTS) expect(planOf(planned, sort(contacts('acme')))).toBeDefined();
    expect(planOf(built, contacts('acme').addOrderBy('contact.name'))).toBeUndefined();
    expect(planOf(planned, contacts('acme').addOrderBy('contact.name').setLock('pessimistic_read'))).toBeUndefined();
  });

  it.each(SORTS)('answers near, far and past-the-end offset pages of %s as building every statement does', async (_name, sort) => {
    for (const tenant of ['acme', 'globex']) {
      for (const page of [0, 1, 3, 12, 40]) {
        const slice = await both(() => sort(contacts(tenant)), { page, size: 17 });
        expect(slice.total).toBe(tenant === 'acme' ? 130 : 90);
        if (page === 0) expect(slice.rows.map((row) => row.tenantId)).toEqual(Array(17).fill(tenant));
      }
    }
  });

  it.each(SORTS)('walks %s by cursor through the same pages and cursors', async (_name, sort) => {
    let plannedCursor: string | undefined;
    let builtCursor: string | undefined;
    let pages = 0;
    const ids: string[] = [];
    do {
      const reference = await built.page(sort(contacts('acme')), { page: 0, size: 9, cursor: builtCursor });
      const answer = await planned.page(sort(contacts('acme')), { page: 0, size: 9, cursor: plannedCursor });
      expect(comparable(answer)).toEqual(comparable(reference));
      ids.push(...answer.rows.map((row) => row.id));
      plannedCursor = answer.nextCursor ?? undefined;
      builtCursor = reference.nextCursor ?? undefined;
      pages += 1;
    } while (plannedCursor);
    expect(pages).toBe(Math.ceil(130 / 9));
    expect(new Set(ids).size).toBe(130);
  });

  it.each(SORTS)('pageRows answers %s as plain rows of the selected columns: the entity pages\' rows, totals and cursor keys, by plan and by builder', async (_name, sort) => {
    const columns = { id: 'contact.id', name: 'contact.name', stateAt: 'CAST(contact.stateAt AS text)', profileKeys: 'ARRAY(SELECT jsonb_object_keys(contact.profile))' };
    const rowsOf = (pager: ListPager, request: PageRequest) => pager.pageRows<{ id: string; name: string; stateAt: string | null; profileKeys: string[] }>(selectAs(sort(contacts('acme')), columns), request);
    const payload = (cursor: string | null) => (cursor ? JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString()) : null);
    for (const page of [0, 1, 12, 40]) {
      const entities = await built.page(sort(contacts('acme')), { page, size: 17 });
      for (const pager of [built, planned, planned]) {
        const slice = await rowsOf(pager, { page, size: 17 });
        expect(slice.rows.map((row) => row.id)).toEqual(entities.rows.map((row) => row.id));
        expect(slice.raws).toEqual(slice.rows);
        for (const [index, row] of slice.rows.entries()) {
          const entity = entities.rows[index];
          expect(row).toMatchObject({ name: entity.name, profileKeys: Object.keys(entity.profile) });
          expect(row.stateAt === null ? null : new Date(row.stateAt.replace(' ', 'T').replace('+00', 'Z')).getTime()).toBe(entity.stateAt?.getTime() ?? null);
          // The selected columns and the pager's own (sort keys, count), nothing else of the entity.
          expect(Object.keys(row).filter((key) => !key.startsWith('list_'))).toEqual(Object.keys(columns));
        }
        expect({ total: slice.total, exact: slice.totalExact, cursor: payload(slice.nextCursor)?.k }).toEqual({ total: entities.total, exact: entities.totalExact, cursor: payload(entities.nextCursor)?.k });
      }
    }
    // A cursor walk of plain rows meets every row once, in the entity walk's order.
    const walk = async (read: (cursor?: string) => Promise<ListSlice<{ id: string }>>) => {
      const ids: string[] = [];
      let cursor: string | undefined;
      do {
        const slice = await read(cursor);
        ids.push(...slice.rows.map((row) => row.id));
        cursor = slice.nextCursor ?? undefined;
      } while (cursor);
      return ids;
    };
    const entityIds = await walk((cursor) => planned.page(sort(contacts('acme')), { page: 0, size: 9, cursor }));
    expect(entityIds).toHaveLength(130);
    for (const pager of [planned, built]) expect(await walk((cursor) => rowsOf(pager, { page: 0, size: 9, cursor }))).toEqual(entityIds);
    // A plain-row cursor opens only its own list: not another tenant's, not the entity page's, not once altered.
    const cursor = (await rowsOf(planned, { page: 0, size: 9 })).nextCursor!;
    const globex = () => planned.pageRows(selectAs(sort(contacts('globex')), columns), { page: 0, size: 9, cursor });
    await expect(globex()).rejects.toMatchObject({ status: 400 });
    await expect(planned.page(sort(contacts('acme')), { page: 0, size: 9, cursor })).rejects.toMatchObject({ status: 400 });
    const [body, signature] = cursor.split('.');
    const altered = `${Buffer.from(Buffer.from(body, 'base64url').toString().replace('"p":1', '"p":9')).toString('base64url')}.${signature}`;
    await expect(rowsOf(planned, { page: 0, size: 9, cursor: altered })).rejects.toMatchObject({ status: 400 });
  });

  it('binds each request\'s own array values, partial selection and raw extras', async () => {
    for (const states of [['a'], ['a', 'b', 'c'], ['b'], ['c', 'a']]) {
      const builder = () =>
        contacts('acme')
          .select(['contact.id', 'contact.name', 'contact.createdAt'])
          .addSelect('length(contact.name)', 'name_length')
          .andWhere('contact.state IN (:...states)', { states })
          .addOrderBy('contact.createdAt', 'DESC', 'NULLS LAST');
      for (const page of [0, 2, 13]) {
        const slice = await both(builder, { page, size: 5 });
        const expected = Number((await dataSource.query(`SELECT count(*) FROM chat_external_contact WHERE tenant_id = 'acme' AND state = ANY($1)`, [states]))[0].count);
        expect(slice.total).toBe(expected);
        for (const [index, row] of slice.rows.entries()) {
          // Only the selected columns are read (the class's other fields stay undefined).
          expect(Object.entries(row).filter(([, value]) => value !== undefined).map(([key]) => key).sort()).toEqual(['createdAt', 'id', 'name']);
          expect(slice.raws[index].name_length).toBe(row.name.length);
        }
      }
    }
  });

  it('stops exact counting at the search cap the same way', async () => {
    const builder = () => contacts('acme').andWhere(...containsMatch('contact.name', 'pattern', 'Name 1')).addOrderBy('contact.name', 'DESC');
    const searched = await both(builder, { page: 0, size: 4 }, undefined, { search: true });
    expect(searched).toMatchObject({ totalExact: false });
    expect((await both(builder, { page: 0, size: 4 })).totalExact).toBe(true);
  });

  it.each(SORTS)('reads a rare term\'s pages (windowed statements: ids and count first) as the plain statements do, %s, by offset and by cursor', async (_name, sort) => {
    const builder = () => sort(contacts('acme').andWhere(...containsMatch('contact.name', 'pattern', 'Name 1')));
    const ids = (slice: ListSlice<ExternalContactEntity>) => slice.rows.map((row) => row.id);
    for (const page of [0, 1, 3, 12, 40]) {
      const plain = await built.page(builder(), { page, size: 5 }, { search: true });
      const windowed = await both(builder, { page, size: 5 }, undefined, { search: true, candidates: true });
      expect(ids(windowed)).toEqual(ids(plain));
      expect({ total: windowed.total, exact: windowed.totalExact, next: Boolean(windowed.nextCursor) }).toEqual({ total: plain.total, exact: plain.totalExact, next: Boolean(plain.nextCursor) });
    }
    // Exactly counted below the search cap: the window's count is the total (a contact's name is 'Name 19').
    const exact = await both(() => sort(contacts('acme').andWhere(...containsMatch('contact.name', 'pattern', 'Name 19'))), { page: 0, size: 2 }, undefined, { search: true, candidates: true });
    expect(exact).toMatchObject({ total: (await built.page(sort(contacts('acme').andWhere(...containsMatch('contact.name', 'pattern', 'Name 19'))), { page: 0, size: 2 }, { search: true })).total, totalExact: true });
    const walked: string[] = [];
    let cursor: string | undefined;
    do {
      const slice = await planned.page(builder(), { page: 0, size: 9, cursor }, { search: true, candidates: true });
      walked.push(...ids(slice));
      cursor = slice.nextCursor ?? undefined;
    } while (cursor);
    // The plain statements' order (the pager appends the id as tie-breaker; the builder alone leaves ties open).
    const all: string[] = [];
    for (let page = 0; all.length < walked.length + 5; page++) {
      const slice = await built.page(builder(), { page, size: 5 }, { search: true });
      if (slice.rows.length === 0) break;
      all.push(...ids(slice));
    }
    expect(all.length).toBeGreaterThan(20);
    expect(walked).toEqual(all);
  });

  it('runs a list\'s kept statements as named prepared statements when its filters are equalities, and a search\'s or a range\'s unnamed (DATABASE_PREPARED_STATEMENTS)', async () => {
    // One connection (a transaction's runner), whose prepared statements pg_prepared_statements lists.
    await dataSource.transaction(async (manager) => {
      const prepared = async () => (await manager.query(`SELECT name, statement FROM pg_prepared_statements`)) as Array<{ name: string; statement: string }>;
      const before = (await prepared()).length;
      const listed = await planned.page(contacts('globex', manager).addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST'), { page: 0, size: 5 });
      const after = await prepared();
      expect(after).toHaveLength(before + 1);
      const [statement] = after.filter((row) => row.statement.includes('"contact"."state_at"') && row.statement.includes('ORDER BY'));
      expect(statement.name).toMatch(/^atrium_/);
      expect(listed.total).toBe(90);
      // Same shape, another tenant and page size: the same prepared statement, this request's rows.
      const again = await planned.page(contacts('acme', manager).addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST'), { page: 0, size: 2 });
      expect(again).toMatchObject({ total: 130 });
      expect(again.rows).toHaveLength(2);
      expect(await prepared()).toHaveLength(before + 1);
      await planned.page(contacts('globex', manager).andWhere(...containsMatch('contact.name', 'pattern', 'Name 2')).addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST'), { page: 0, size: 5 }, { search: true });
      expect(await prepared()).toHaveLength(before + 1);
      // A list or range filter: PostgreSQL's generic plan would guess its selectivity (prepared.rules.ts), so unnamed.
      await planned.page(contacts('globex', manager).andWhere('contact.state IN (:...states)', { states: ['a', 'b'] }).addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST'), { page: 0, size: 5 });
      await planned.page(contacts('globex', manager).andWhere('contact.created_at >= :since', { since: '2026-01-01' }).addOrderBy('contact.stateAt', 'DESC', 'NULLS LAST'), { page: 0, size: 5 });
      expect(await prepared()).toHaveLength(before + 1);
    });
  });

  it('reads through the builder\'s transaction', async () => {
    await dataSource.transaction(async (manager) => {
      const [{ corp_id: corpId }] = await manager.query(`SELECT corp_id FROM chat_external_contact WHERE tenant_id = 'acme' LIMIT 1`);
      await manager.query(
        `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, add_way, ai_enabled, profile, created_at, updated_at)
         VALUES ('acme', $1, 'wm-uncommitted', 'zhangsan', 'Uncommitted', '[]'::jsonb, 1, false, '{}'::jsonb, '2030-01-01', now())`,
        [corpId],
      );
      const inside = await planned.page(contacts('acme', manager).addOrderBy('contact.createdAt', 'DESC'), { page: 0, size: 3 });
      expect(inside.rows[0].name).toBe('Uncommitted');
      expect(inside.total).toBe(131);
      const outside = await planned.page(contacts('acme').addOrderBy('contact.createdAt', 'DESC'), { page: 0, size: 3 });
      expect(outside.rows[0].name).not.toBe('Uncommitted');
      expect(outside.total).toBe(130);
      await manager.query(`DELETE FROM chat_external_contact WHERE external_user_id = 'wm-uncommitted'`);
    });
  });

  it('refuses a cursor made for another tenant or another filter, however the plan was kept', async () => {
    const byStates = (tenant: string, states: string[]) => contacts(tenant).andWhere('contact.state IN (:...states)', { states }).addOrderBy('contact.createdAt', 'DESC');
    const first = await planned.page(byStates('acme', ['a']), { page: 0, size: 5 });
    expect(first.nextCursor).toEqual(expect.any(String));
    await expect(planned.page(byStates('globex', ['a']), { page: 0, size: 5, cursor: first.nextCursor! })).rejects.toMatchObject({ status: 400 });
    await expect(planned.page(byStates('acme', ['a', 'b']), { page: 0, size: 5, cursor: first.nextCursor! })).rejects.toMatchObject({ status: 400 });
    await expect(planned.page(byStates('acme', ['b']), { page: 0, size: 5, cursor: first.nextCursor! })).rejects.toMatchObject({ status: 400 });
    expect((await planned.page(byStates('acme', ['a']), { page: 0, size: 5, cursor: first.nextCursor! })).page).toBe(1);
  });

  it('refuses a rare term\'s cursor (a windowed statement\'s) for another term, tenant or a tampered payload', async () => {
    const rare = (tenant: string, term: string) => contacts(tenant).andWhere(...containsMatch('contact.name', 'pattern', term)).addOrderBy('contact.createdAt', 'DESC');
    const kind = { search: true, candidates: true };
    const first = await planned.page(rare('acme', 'Name 1'), { page: 0, size: 5 }, kind);
    expect(first.nextCursor).toEqual(expect.any(String));
    await expect(planned.page(rare('acme', 'Name 2'), { page: 0, size: 5, cursor: first.nextCursor! }, kind)).rejects.toMatchObject({ status: 400 });
    await expect(planned.page(rare('globex', 'Name 1'), { page: 0, size: 5, cursor: first.nextCursor! }, kind)).rejects.toMatchObject({ status: 400 });
    const [payload, signature] = first.nextCursor!.split('.');
    const altered = JSON.parse(Buffer.from(payload, 'base64url').toString());
    altered.p = 900;
    await expect(planned.page(rare('acme', 'Name 1'), { page: 0, size: 5, cursor: `${Buffer.from(JSON.stringify(altered)).toString('base64url')}.${signature}` }, kind)).rejects.toMatchObject({ status: 400 });
    expect((await planned.page(rare('acme', 'Name 1'), { page: 0, size: 5, cursor: first.nextCursor! }, kind)).page).toBe(1);
  });

  it('answers a caller-named shape with each request\'s values, and refuses one name for two statements', async () => {
    const named = new ListPager({} as AppConfig, options);
    for (const tenant of ['acme', 'globex', 'acme']) {
      for (const page of [0, 2, 13]) {
        const reference = await built.page(SORTS[0][1](contacts(tenant)), { page, size: 9 });
        expect(comparable(await named.page(SORTS[0][1](contacts(tenant)), { page, size: 9 }, { shape: 'by-created' }))).toEqual(comparable(reference));
      }
    }
    await expect(named.page(SORTS[1][1](contacts('acme')), { page: 0, size: 9 }, { shape: 'by-created' })).rejects.toThrow(/names two different statements/);
  });

  it('stays right when its plans are evicted (PAGING_PLAN_CACHE_MAX_ENTRIES=1, two shapes in turn)', async () => {
    for (let round = 0; round < 3; round++) {
      for (const [, sort] of SORTS.slice(0, 2)) {
        const reference = await built.page(sort(contacts('globex')), { page: round, size: 11 });
        expect(comparable(await tiny.page(sort(contacts('globex')), { page: round, size: 11 }))).toEqual(comparable(reference));
      }
    }
  });
});
