import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf, newCorp, newStaffUser, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;

/**
 * Paging of the big chat lists (src/chat/common/list-pager.ts; issue 5, acceptance 6): far pages read ids first and
 * must return exactly the rows a plain OFFSET would, in the same order; totals below CHAT_LIST_COUNT_CACHE_MIN_ROWS
 * are exact at once, larger ones are reused for CHAT_LIST_COUNT_CACHE_TTL_MS; sandbox contacts never show.
 */
describe('chat list paging at depth', () => {
  let testApp: TestApp;
  let token: string;
  let acme: TestCorp;
  const CONTACTS = 450;
  const api = (path: string) => request(testApp.baseUrl).get(path).auth(token, { type: 'bearer' });
  const byStates = (query: string, body: Json) => request(testApp.baseUrl).post(`/api/acme/v1/workChat/contact/external/byLastStates?${query}`).auth(token, { type: 'bearer' }).send(body);

  /** Inserts `count` contacts of staff member `userId` with state `state`; created_at and state_at repeat in pairs so the id tie-breaker matters. */
  const insertContacts = (count: number, userId: string, state: string, from = 0) =>
    dataSourceOf(testApp).query(
      `INSERT INTO chat_external_contact (tenant_id, corp_id, external_user_id, work_chat_user_id, name, tags, state, state_at, add_way, ai_enabled, profile, created_at, updated_at)
       SELECT 'acme', $1::uuid, 'wm-' || $2 || '-' || i, $2, 'Customer ' || i, '[]'::jsonb, $3,
              timestamptz '2026-01-01' + (i / 2) * interval '1 minute', 1, i % 3 <> 0, '{}'::jsonb,
              timestamptz '2026-01-01' + (i / 2) * interval '1 minute', now()
       FROM generate_series($4::int, $4::int + $5::int - 1) AS i`,
      [acme.id, userId, state, from, count],
    );

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_LIST_COUNT_CACHE_MIN_ROWS: '400', CHAT_LIST_COUNT_CACHE_TTL_MS: '600000' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    await newStaffUser(testApp, acme, 'zhangsan');
    await newStaffUser(testApp, acme, 'lisi');
    await insertContacts(CONTACTS, 'zhangsan', 'fair');
    await insertContacts(30, 'lisi', 'web');
    await dataSourceOf(testApp).query(`UPDATE chat_external_contact SET sandbox = true WHERE tenant_id = 'acme' AND external_user_id IN ('wm-zhangsan-7', 'wm-zhangsan-401')`);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  /** The ids of every contact of the list, read with plain OFFSET paging in SQL (the reference order). */
  const referenceIds = async (orderBy: string, where: string) =>
    (await dataSourceOf(testApp).query(`SELECT id FROM chat_external_contact WHERE tenant_id = 'acme' AND NOT sandbox AND ${where} ORDER BY ${orderBy}`)).map((row: Json) => row.id);

  it('gives far pages (ids first) the same rows, in the same order, as OFFSET paging, without sandbox contacts', async () => {
    const expected = await referenceIds('created_at DESC NULLS LAST, id ASC', `work_chat_user_id = 'zhangsan'`);
    expect(expected).toHaveLength(CONTACTS - 2);
    for (const page of [0, 9, 10, 21, 22]) {
      const response = await api(`/api/acme/console/workChat/zhangsan/contact/external?page=${page}&size=20`).expect(200);
      expect(response.body.content.map((row: Json) => row.id)).toEqual(expected.slice(page * 20, page * 20 + 20));
      expect(response.body.totalElements).toBe(CONTACTS - 2);
    }
    const filtered = await referenceIds('created_at DESC NULLS LAST, id ASC', `work_chat_user_id = 'zhangsan' AND ai_enabled`);
    const page = await api(`/api/acme/console/workChat/zhangsan/contact/external?aiEnabled=true&page=15&size=19`).expect(200);
    expect(page.body.content.map((row: Json) => row.id)).toEqual(filtered.slice(285, 304));
    expect(page.body.totalElements).toBe(filtered.length);
  });

  it('pages byLastStates at depth in state order', async () => {
    const expected = await referenceIds('state_at DESC NULLS LAST, id ASC', `corp_id = '${acme.id}' AND state IN ('fair', 'web')`);
    const response = await byStates('page=13&size=25', { corpName: 'Acme Retail', states: ['fair', 'web'] }).expect(200);
    expect(response.body.content.map((row: Json) => row.externalUserId)).toHaveLength(25);
    const ids = (await dataSourceOf(testApp).query(`SELECT id, external_user_id FROM chat_external_contact WHERE tenant_id = 'acme'`)) as Json[];
    const idOf = new Map(ids.map((row) => [row.external_user_id, row.id]));
    expect(response.body.content.map((row: Json) => idOf.get(row.externalUserId))).toEqual(expected.slice(325, 350));
    const beyond = await byStates('page=40&size=25', { corpName: 'Acme Retail', states: ['fair', 'web'] }).expect(200);
    expect(beyond.body).toMatchObject({ content: [], totalElements: expected.length });
  });

  it('counts small totals exactly at once and reuses a large one for the TTL', async () => {
    const small = async () => (await api('/api/acme/console/workChat/lisi/contact/external?page=0&size=5').expect(200)).body.totalElements;
    const large = async () => (await api('/api/acme/console/workChat/zhangsan/contact/external?page=0&size=5').expect(200)).body.totalElements;
    expect(await small()).toBe(30);
    expect(await large()).toBe(CONTACTS - 2);
    await insertContacts(3, 'lisi', 'web', 1000);
    await insertContacts(3, 'zhangsan', 'fair', 1000);
    expect(await small()).toBe(33); // under CHAT_LIST_COUNT_CACHE_MIN_ROWS (400): exact
    expect(await large()).toBe(CONTACTS - 2); // 448 >= 400: the counted total is reused within the TTL
    const other = (await api('/api/acme/console/workChat/zhangsan/contact/external?aiEnabled=false&page=0&size=5').expect(200)).body.totalElements;
    expect(other).toBe(Number((await dataSourceOf(testApp).query(`SELECT count(*) FROM chat_external_contact WHERE tenant_id = 'acme' AND work_chat_user_id = 'zhangsan' AND NOT ai_enabled AND NOT sandbox`))[0].count)); // another filter: its own count
  });

  it('answers the same far pages for the contact way lists as OFFSET paging', async () => {
    await dataSourceOf(testApp).query(
      `INSERT INTO chat_contact_way (tenant_id, corp_id, name, type, scene, state, work_chat_user_ids, config_id, qr_code, skip_verify, is_default, hidden, created_at, updated_at)
       SELECT 'acme', $1::uuid, 'Poster ' || i || CASE WHEN i % 5 = 0 THEN ' store' ELSE ' campaign' END, 1, 2, 'st-' || i, '["zhangsan"]'::jsonb, 'cfg' || i, 'https://qr.test/' || i, true, false, i % 50 = 49,
              timestamptz '2026-01-01' + (i / 3) * interval '1 minute', now()
       FROM generate_series(0, 599) AS i`,
      [acme.id],
    );
    const expected = (await dataSourceOf(testApp).query(
      `SELECT id FROM chat_contact_way WHERE tenant_id = 'acme' AND corp_id = $1 AND NOT hidden AND name ILIKE '%campaign%' ORDER BY created_at DESC, id DESC`,
      [acme.id],
    )).map((row: Json) => String(row.id));
    const response = await api(`/api/acme/v1/chat/contact/way?corpName=${encodeURIComponent('Acme Retail')}&name=campaign&page=20&size=20`).expect(200);
    expect(response.body.content.map((row: Json) => String(row.id))).toEqual(expected.slice(400, 420));
    expect(response.body.totalElements).toBe(expected.length);
  });
});
