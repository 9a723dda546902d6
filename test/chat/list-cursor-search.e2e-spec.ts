import request from 'supertest';
import type { AppConfig } from '../../src/config/app-config';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ListPager } from '../../src/common/paging/list-pager';
import { containsMatch } from '../../src/database/like-contains';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;

/**
 * Keyset cursors and index-served search on the staff contact list (issue 23 items 1 and 2): cursor pages give the
 * same rows as OFFSET paging; a tampered cursor, or one made by another tenant's or another filter's list, is a 400
 * problem; searches give exactly the rows a plain `ILIKE '%term%'` scan gives, for Latin and Chinese terms of 1, 2
 * and 3+ characters and for the LIKE metacharacters.
 */
describe('list cursors and search', () => {
  let testApp: TestApp;
  let token: string;
  let otherToken: string;
  let acme: TestCorp;
  const api = (path: string, bearer = token) => request(testApp.baseUrl).get(path).auth(bearer, { type: 'bearer' });
  const LIST = '/api/acme/console/workChat/zhangsan/contact/external';

  beforeAll(async () => {
    testApp = await startTestApp();
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    const globex = await newCorp(testApp, otherToken, 'globex', 'Globex');
    await newStaffUser(testApp, acme, 'zhangsan');
    await newStaffUser(testApp, globex, 'zhangsan');
    const names = ['陈明', '陈明华', '李华', 'Lily', 'lil_bob', '100% pure', 'back\\slash', 'Émile', 'ÉMILE B', '王', 'a_b', 'axb'];
    for (const [tenant, corp] of [['acme', acme.id], ['globex', globex.id]] as const) {
      await dataSourceOf(testApp).query(
        `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, remark, tags, add_way, ai_enabled, profile, last_message_at, created_at, updated_at)
         SELECT $1, $2::uuid, 'wm-' || i, 'zhangsan', ($3::text[])[i % $4 + 1] || CASE WHEN i % 3 = 0 THEN '' ELSE ' ' || i END,
                CASE WHEN i % 5 = 0 THEN '老客户 ' || i ELSE NULL END, '[]'::jsonb, 1, true, '{}'::jsonb,
                CASE WHEN i % 4 = 0 THEN NULL ELSE timestamptz '2026-02-01' + (i % 17) * interval '1 minute' END,
                timestamptz '2026-01-01' + (i / 2) * interval '1 minute', now()
         FROM generate_series(1, 130) AS i`,
        [tenant, corp, names, names.length],
      );
    }
  });

  afterAll(async () => {
    await testApp?.close();
  });

  /** Every page of the list read with cursors from page 0. */
  const walk = async (query: string, size: number) => {
    const ids: string[] = [];
    let page = (await api(`${LIST}?${query}&size=${size}`).expect(200)).body;
    let pages = 1;
    ids.push(...page.content.map((row: Json) => row.id));
    while (page.nextCursor) {
      expect(page.totalElementsExact).toBe(true);
      page = (await api(`${LIST}?${query}&size=${size}&cursor=${encodeURIComponent(page.nextCursor)}`).expect(200)).body;
      expect(page.page).toBe(pages);
      pages += 1;
      ids.push(...page.content.map((row: Json) => row.id));
    }
    return ids;
  };
  const offsetIds = async (query: string) => (await api(`${LIST}?${query}&size=200`).expect(200)).body.content.map((row: Json) => row.id);

  it.each(['sort=createdAt,desc', 'sort=createdAt,asc', 'sort=lastMessageAt,desc', 'sort=lastMessageAt,asc', 'sort=name,asc', 'sort=name,desc'])('cursor pages of %s give the offset order, NULLs and ties included', async (query) => {
    const expected = await offsetIds(query);
    expect(expected).toHaveLength(130);
    expect(await walk(query, 17)).toEqual(expected);
  });

  it('refuses a tampered cursor, another tenant\'s and another filter\'s with a 400 problem', async () => {
    const first = (await api(`${LIST}?sort=name,asc&size=5`).expect(200)).body;
    const cursor: string = first.nextCursor;
    const [body, signature] = cursor.split('.');
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    payload.k[0] = 'A';
    const forged = `${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${body}.${'A'.repeat(43)}`, 'not-a-cursor']) {
      const refused = await api(`${LIST}?sort=name,asc&size=5&cursor=${encodeURIComponent(bad)}`).expect(400);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    }
    // The same list path and sort in another tenant: the cursor does not open it.
    const foreign = await api(`/api/globex/console/workChat/zhangsan/contact/external?sort=name,asc&size=5&cursor=${encodeURIComponent(cursor)}`, otherToken).expect(400);
    expect(foreign.body.detail).toMatch(/another list, tenant, filter or sort/);
    await api(`${LIST}?sort=name,desc&size=5&cursor=${encodeURIComponent(cursor)}`).expect(400);
    await api(`${LIST}?sort=name,asc&keyword=Lily&size=5&cursor=${encodeURIComponent(cursor)}`).expect(400);
    await api(`${LIST}?sort=name,asc&size=5&cursor=${encodeURIComponent(cursor)}`).expect(200);
  });

  const TERMS = ['陈', '陈明', '明华', '李华 1', 'l', 'Li', 'lil', 'LILY', 'émile', '%', '100%', '_', 'a_b', '\\', 'back\\s', '老客户', '客', 'zz', '1'];
  it.each(TERMS)('search %p gives exactly the rows of a plain ILIKE scan', async (term) => {
    const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const expected = (await dataSourceOf(testApp).query(
      `SELECT id FROM chat_external_contact WHERE tenant_id = 'acme' AND work_chat_user_id = 'zhangsan' AND NOT sandbox
          AND (name ILIKE $1 ESCAPE '\\' OR remark ILIKE $1 ESCAPE '\\' OR external_user_id = $2)
        ORDER BY created_at DESC NULLS LAST, id ASC`,
      [pattern, term],
    )).map((row: Json) => row.id);
    const response = await api(`${LIST}?keyword=${encodeURIComponent(term)}&size=200`).expect(200);
    expect(response.body.content.map((row: Json) => row.id)).toEqual(expected);
    expect(response.body.totalElements).toBe(expected.length);
  });

  it('a keyword search counts exactly up to the search cap only (PAGING_SEARCH_TOTAL_EXACT_CAP); a plain list up to the list cap', async () => {
    const pager = new ListPager({} as AppConfig, { exactCap: 10_000, searchExactCap: 5, cacheTtlMs: 0, cacheMinRows: 1_000_000 });
    const builder = dataSourceOf(testApp)
      .getRepository(ExternalContactEntity)
      .createQueryBuilder('contact')
      .where(`contact.tenant_id = 'acme' AND contact.work_chat_user_id = 'zhangsan'`)
      .andWhere(...containsMatch('contact.name', 'p', '陈明'))
      .orderBy('contact.created_at', 'DESC');
    const matching = Number((await dataSourceOf(testApp).query(`SELECT count(*) FROM chat_external_contact WHERE tenant_id = 'acme' AND work_chat_user_id = 'zhangsan' AND name ILIKE '%陈明%'`))[0].count);
    expect(matching).toBeGreaterThan(6);
    const searched = await pager.page(builder, { page: 0, size: 3 }, { search: true });
    expect(searched.totalExact).toBe(false);
    expect(searched.total).toBeGreaterThanOrEqual(6);
    const listed = await pager.page(builder, { page: 0, size: 3 });
    expect(listed).toMatchObject({ totalExact: true, total: matching });
    expect(searched.rows.map((row) => row.id)).toEqual(listed.rows.map((row) => row.id));
  });
});
