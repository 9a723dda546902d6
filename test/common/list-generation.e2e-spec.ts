import type { DataSource } from 'typeorm';
import type { AppConfig } from '../../src/config/app-config';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ListPager, type PageRequest } from '../../src/common/paging/list-pager';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser } from '../chat/support/way-factories';

/**
 * Exact totals counted once per change (migration 1795600790000, list-generation.ts; issue 14 acceptance 1 with issue
 * 23's exact totals): the triggers bump a tenant's generation on every write that can change a count (bulk and single
 * inserts, deletes, watched updates, a row moved to another tenant, TRUNCATE) and not on a message's
 * `last_message_at`; a pager given the tenant counts once and reuses the total while the generation holds, and its
 * totals equal a plain count(*) after every kind of write; a transaction's page is counted in the transaction.
 */
describe('list generations (exact totals counted once per change)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  const corps: Record<string, string> = {};
  const pager = new ListPager({} as AppConfig, { exactCap: 10_000, cacheTtlMs: 0, cacheMinRows: 1_000_000 });

  const generation = async (tenant: string) =>
    Number(
      (await dataSource.query(`SELECT coalesce(sum(generation), 0)::int AS g FROM list_generation WHERE table_name = 'chat_external_contact' AND tenant_id IN ($1, '*')`, [tenant]))[0].g,
    );
  const insertContacts = (tenant: string, from: number, to: number, staff = 'zhangsan') =>
    dataSource.query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, state, add_way, ai_enabled, profile, created_at, updated_at)
       SELECT $1, $2::uuid, 'wm-' || i, $5, 'Name ' || i, '[]'::jsonb, (ARRAY['a', 'b'])[i % 2 + 1], 1, i % 3 = 0, '{}'::jsonb,
              timestamptz '2026-01-01' + i * interval '1 minute', now()
       FROM generate_series($3::int, $4::int) AS i`,
      [tenant, corps[tenant], from, to, staff],
    );
  const staffContacts = (tenant: string, manager = dataSource.manager, state?: string) => {
    const builder = manager
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .where('contact.tenant_id = :tenant AND contact.work_chat_user_id = :staff AND NOT contact.sandbox', { tenant, staff: 'zhangsan' });
    if (state) builder.andWhere('contact.state = :state', { state });
    return builder.addOrderBy('contact.createdAt', 'DESC').addOrderBy('contact.id', 'ASC');
  };
  const plainCount = async (tenant: string, state?: string) =>
    Number(
      (
        await dataSource.query(
          `SELECT count(*)::int AS n FROM chat_external_contact WHERE tenant_id = $1 AND work_chat_user_id = 'zhangsan' AND NOT sandbox ${state ? 'AND state = $2' : ''}`,
          state ? [tenant, state] : [tenant],
        )
      )[0].n,
    );
  const page = (tenant: string, request: PageRequest = { page: 0, size: 5 }, state?: string) => pager.page(staffContacts(tenant, dataSource.manager, state), request, { tenantId: tenant });

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = dataSourceOf(testApp);
    for (const tenant of ['gen-a', 'gen-b']) {
      await newTenant(testApp, tenant);
      const token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: tenant }))).access_token;
      const corp = await newCorp(testApp, token, tenant, `${tenant} corp`);
      corps[tenant] = corp.id;
      await newStaffUser(testApp, corp, 'zhangsan');
    }
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('bumps a tenant\'s generation on each write that can change a count, and not on a message\'s last_message_at', async () => {
    const [a0, b0] = [await generation('gen-a'), await generation('gen-b')];
    // One bulk insert over two tenants: each tenant once.
    await dataSource.query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, add_way, ai_enabled, profile, created_at, updated_at)
       SELECT t, CASE WHEN t = 'gen-a' THEN $1::uuid ELSE $2::uuid END, 'bulk-' || t || i, 'lisi', 'Bulk', '[]'::jsonb, 1, false, '{}'::jsonb, now(), now()
       FROM unnest(ARRAY['gen-a', 'gen-b']) AS t, generate_series(1, 3) AS i`,
      [corps['gen-a'], corps['gen-b']],
    );
    expect([await generation('gen-a'), await generation('gen-b')]).toEqual([a0 + 1, b0 + 1]);
    // Unwatched columns only: nothing.
    await dataSource.query(`UPDATE chat_external_contact SET last_message_at = now(), updated_at = now() WHERE tenant_id = 'gen-a' AND external_user_id LIKE 'bulk-%'`);
    expect(await generation('gen-a')).toBe(a0 + 1);
    // A watched column of three rows: a bump per row (row-level), none for a write that changes nothing.
    await dataSource.query(`UPDATE chat_external_contact SET state = 'vip' WHERE tenant_id = 'gen-a' AND external_user_id LIKE 'bulk-%'`);
    expect(await generation('gen-a')).toBe(a0 + 4);
    await dataSource.query(`UPDATE chat_external_contact SET state = 'vip' WHERE tenant_id = 'gen-a' AND external_user_id LIKE 'bulk-%'`);
    expect(await generation('gen-a')).toBe(a0 + 4);
    for (const change of ["ai_enabled = NOT ai_enabled", "sandbox = NOT sandbox", "work_chat_user_id = 'wangwu'", "name = 'Renamed'", `corp_id = '${corps['gen-a']}'::uuid`]) {
      const before = await generation('gen-a');
      await dataSource.query(`UPDATE chat_external_contact SET ${change} WHERE tenant_id = 'gen-a' AND external_user_id = 'bulk-gen-a1'`);
      expect({ change, bumped: (await generation('gen-a')) - before }).toEqual({ change, bumped: change.startsWith('corp_id') ? 0 : 1 });
    }
    // A row moved to another tenant: both.
    const [a1, b1] = [await generation('gen-a'), await generation('gen-b')];
    await dataSource.query(`UPDATE chat_external_contact SET tenant_id = 'gen-b', corp_id = $1::uuid WHERE tenant_id = 'gen-a' AND external_user_id = 'bulk-gen-a2'`, [corps['gen-b']]);
    expect([await generation('gen-a'), await generation('gen-b')]).toEqual([a1 + 1, b1 + 1]);
    // Delete: each tenant once.
    await dataSource.query(`DELETE FROM chat_external_contact WHERE external_user_id LIKE 'bulk-%'`);
    expect([await generation('gen-a'), await generation('gen-b')]).toEqual([a1 + 2, b1 + 2]);
  });

  it('counts once, reuses the total while the generation holds (a write that bypasses the triggers shows it), and counts again after a change', async () => {
    await insertContacts('gen-a', 1, 40);
    const first = await page('gen-a');
    expect(first).toMatchObject({ total: 40, totalExact: true });
    // Rows slipped in without triggers: the kept total stands, since the generation did not move (this is what the
    // triggers are for; the app never disables them).
    await dataSource.query('ALTER TABLE chat_external_contact DISABLE TRIGGER list_generation_insert');
    try {
      await insertContacts('gen-a', 41, 45);
    } finally {
      await dataSource.query('ALTER TABLE chat_external_contact ENABLE TRIGGER list_generation_insert');
    }
    expect(await page('gen-a')).toMatchObject({ total: 40, totalExact: true });
    expect(await plainCount('gen-a')).toBe(45);
    // A write through the triggers moves the generation: counted again, exact.
    await insertContacts('gen-a', 46, 46);
    expect(await page('gen-a')).toMatchObject({ total: 46, totalExact: true });
    // Another tenant's write leaves this tenant's kept total alone, and that tenant counts its own.
    await insertContacts('gen-b', 1, 7);
    expect(await page('gen-b')).toMatchObject({ total: 7, totalExact: true });
    expect(await page('gen-a')).toMatchObject({ total: 46 });
  });

  it('answers a plain count(*) after every kind of write, for offset, cursor and filtered pages', async () => {
    const writes = [
      () => insertContacts('gen-a', 100, 130),
      () => dataSource.query(`UPDATE chat_external_contact SET state = 'a' WHERE tenant_id = 'gen-a' AND external_user_id IN ('wm-101', 'wm-103', 'wm-105')`),
      () => dataSource.query(`UPDATE chat_external_contact SET sandbox = true WHERE tenant_id = 'gen-a' AND external_user_id = 'wm-110'`),
      () => dataSource.query(`UPDATE chat_external_contact SET work_chat_user_id = 'lisi' WHERE tenant_id = 'gen-a' AND external_user_id = 'wm-111'`),
      () => dataSource.query(`DELETE FROM chat_external_contact WHERE tenant_id = 'gen-a' AND external_user_id IN ('wm-120', 'wm-121')`),
      () => dataSource.query(`UPDATE chat_external_contact SET last_message_at = now() WHERE tenant_id = 'gen-a'`),
    ];
    for (const write of writes) {
      await write();
      for (let round = 0; round < 2; round++) {
        const first = await page('gen-a');
        expect(first).toMatchObject({ total: await plainCount('gen-a'), totalExact: true });
        expect((await page('gen-a', { page: 2, size: 5 })).total).toBe(await plainCount('gen-a'));
        expect((await page('gen-a', { page: 0, size: 5, cursor: first.nextCursor! })).total).toBe(await plainCount('gen-a'));
        expect((await page('gen-a', { page: 0, size: 5 }, 'a')).total).toBe(await plainCount('gen-a', 'a'));
      }
    }
  });

  it('sees the rows of TRUNCATE through the all-tenants row', async () => {
    expect((await page('gen-b')).total).toBe(7);
    await dataSource.query('TRUNCATE chat_external_contact CASCADE');
    expect(await page('gen-b')).toMatchObject({ total: 0, totalExact: true });
    expect((await page('gen-a')).total).toBe(0);
    await insertContacts('gen-b', 1, 2);
    expect((await page('gen-b')).total).toBe(2);
  });

  it('counts a transaction\'s page in the transaction, and keeps nothing from it', async () => {
    const outside = (await page('gen-b')).total;
    await dataSource.transaction(async (manager) => {
      await manager.query(
        `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, add_way, ai_enabled, profile, created_at, updated_at)
         VALUES ('gen-b', $1::uuid, 'wm-uncommitted', 'zhangsan', 'Uncommitted', '[]'::jsonb, 1, false, '{}'::jsonb, now(), now())`,
        [corps['gen-b']],
      );
      const inside = await pager.page(staffContacts('gen-b', manager), { page: 0, size: 5 }, { tenantId: 'gen-b' });
      expect(inside.total).toBe(outside + 1);
      throw new Error('roll back');
    }).catch((error: Error) => expect(error.message).toBe('roll back'));
    expect((await page('gen-b')).total).toBe(outside);
  });
});
