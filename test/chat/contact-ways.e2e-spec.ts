import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';
import { addFakeStaff, type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { CORP_SECRET, dataSourceOf, newCorp, newDigitalStaff, newStaffUser, type TestCorp } from './support/way-factories';

type Method = 'get' | 'post' | 'put' | 'delete';

/**
 * Contact ways, both families and the console (chat-management-api.md, "Contact way (scene code)"; issue 5):
 * `{T}/v1/chat/contact/way…` (rich), `{T}/v1/workChat/contact/way…`, `{C}/workChat/contactWay`,
 * `{C}/chat/contact/way/{id}/setDefault|hide`, the staff-user guide's scene operations, and the simulator's QR code
 * route. Creation goes through the real chat platform simulator (default) and, in the last block, through the HTTP
 * adapter against a local fake platform server.
 */
describe('contact ways', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let acmeEast: TestCorp;
  let noSecret: TestCorp;
  let digitalStaffId: string;
  let otherDigitalStaffId: string;
  const T = '/api/acme/v1/chat/contact/way';
  const W = '/api/acme/v1/workChat/contact/way';
  const C = '/api/acme/console';
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const db = () => dataSourceOf(testApp);
  /** Creates a way through the rich family and returns its DTO. */
  const create = async (body: Record<string, unknown>) => (await api('post', T).send({ corpName: 'Acme Retail', ...body }).expect(200)).body;
  const defaultsOf = async (scopeUserOrStaff: string) =>
    (await db().query(`SELECT id::int AS id FROM chat_contact_way WHERE tenant_id = 'acme' AND is_default AND default_scope LIKE $1 ORDER BY id`, [`%${scopeUserOrStaff}`])).map((row: { id: number }) => row.id);

  beforeAll(async () => {
    testApp = await startTestApp();
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }), 'chat:read')).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    acmeEast = await newCorp(testApp, token, 'acme', 'Acme East');
    noSecret = await newCorp(testApp, token, 'acme', 'Acme Unconfigured', { secret: null });
    digitalStaffId = (await newDigitalStaff(testApp, 'acme', 'Aria')).id;
    otherDigitalStaffId = (await newDigitalStaff(testApp, 'acme', 'Bo')).id;
    await newStaffUser(testApp, acme, 'zhangsan', { name: 'Zhang San', mobile: '13800000001', digitalStaffId });
    await newStaffUser(testApp, acme, 'lisi', { name: 'Li Si', mobile: '13800000002' });
    await newStaffUser(testApp, acme, 'wangwu', { name: 'Wang Wu', mobile: '13800000003' });
    await newStaffUser(testApp, acmeEast, 'zhaoliu', { name: 'Zhao Liu', mobile: '13800000001' });
    await newStaffUser(testApp, noSecret, 'sunqi', { name: 'Sun Qi' });
  });
  afterAll(() => testApp?.close());

  describe('rich family {T}/v1/chat/contact/way', () => {
    it('creates a way on the platform (simulator QR code), resolves corp, staff users and digital staff, and reads it back', async () => {
      const created = await create({ name: 'Spring poster', workChatUserIds: ['zhangsan'], digitalStaffId, channelName: 'Posters', relevanceCode: 'STORE-12', remark: 'spring' });
      expect(created).toEqual({
        id: expect.any(Number),
        tenantId: 'acme',
        corpId: acme.id,
        corpName: 'Acme Retail',
        name: 'Spring poster',
        type: 1,
        scene: 2,
        state: expect.stringMatching(/^cw_[A-Za-z0-9]{16}$/),
        configId: expect.stringMatching(/^[0-9a-f]{32}$/),
        qrCode: expect.stringMatching(new RegExp(`^http://localhost:${new URL(testApp.baseUrl).port}/api/chat-simulator/qr/[A-Za-z0-9]{24}$`)),
        remark: 'spring',
        skipVerify: true,
        workChatUserIds: ['zhangsan'],
        staffUsers: [{ workChatUserId: 'zhangsan', staffUserId: expect.any(String), name: 'Zhang San', mobile: '13800000001' }],
        digitalStaffId,
        digitalStaffName: 'Aria',
        channelName: 'Posters',
        relevanceCode: 'STORE-12',
        isDefault: false,
        hidden: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      // The platform (simulator) holds the same way: config id, QR code, state and staff.
      const [sim] = await db().query('SELECT config_id, qr_code, state, user_ids, remark FROM chat_sim_contact_way WHERE config_id = $1', [created.configId]);
      expect(sim).toEqual({ config_id: created.configId, qr_code: created.qrCode, state: created.state, user_ids: ['zhangsan'], remark: 'spring' });
      const [row] = await db().query('SELECT tenant_id, corp_id FROM chat_contact_way WHERE id = $1', [created.id]);
      expect(row).toEqual({ tenant_id: 'acme', corp_id: acme.id });
      expect((await api('get', `${T}/${created.id}`).expect(200)).body).toEqual(created);
    });

    it('serves the simulator\'s QR code link publicly: an SVG picture, or JSON describing the scene; unknown codes 404', async () => {
      const created = await create({ name: 'QR check', workChatUserIds: ['lisi'], state: 'qr_check' });
      const path = new URL(created.qrCode).pathname;
      const svg = await request(testApp.baseUrl).get(path).expect(200);
      expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(Buffer.isBuffer(svg.body) ? svg.body.toString() : svg.text).toContain('state qr_check');
      const json = await request(testApp.baseUrl).get(path).set('Accept', 'application/json').expect(200);
      expect(json.body).toEqual({ simulated: true, kind: 'contactWay', configId: created.configId, scene: 2, state: 'qr_check', workChatUserIds: ['lisi'], hint: expect.stringContaining('contactWayConfigId') });
      const unknown = await request(testApp.baseUrl).get('/api/chat-simulator/qr/NoSuchCode000000000000000').expect(404);
      expect(unknown.headers['content-type']).toMatch(/application\/problem\+json/);
      await request(testApp.baseUrl).get('/api/chat-simulator/qr/bad%20code').expect(404);
    });

    it('keeps state unique within a corp (409), not across corps or tenants', async () => {
      await create({ name: 'First', workChatUserIds: ['lisi'], state: 'dup_state' });
      const dup = await api('post', T).send({ corpName: 'Acme Retail', name: 'Second', workChatUserIds: ['wangwu'], state: 'dup_state' }).expect(409);
      expect(dup.body.detail).toMatch(/^Corp "Acme Retail" already has a contact way with state "dup_state" \(id \d+\); choose another state\.$/);
      await api('post', T).send({ corpName: 'Acme East', name: 'Other corp', workChatUserIds: ['zhaoliu'], state: 'dup_state' }).expect(200);
      const globexCorp = await newCorp(testApp, otherToken, 'globex', 'Globex');
      await newStaffUser(testApp, globexCorp, 'lisi');
      await api('post', '/api/globex/v1/chat/contact/way', otherToken).send({ corpName: 'Globex', name: 'Other tenant', workChatUserIds: ['lisi'], state: 'dup_state' }).expect(200);
    });

    it('validates the body (400): required fields, shapes, repeats, unknown fields, type 1 with several staff users', async () => {
      const missing = await api('post', T).send({ name: 'x', workChatUserIds: ['zhangsan'] }).expect(400);
      expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'corpName' })]));
      const bad = async (body: Record<string, unknown>, field: string) => {
        const response = await api('post', T).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['zhangsan'], ...body }).expect(400);
        expect(response.body.errors.map((error: { field: string }) => error.field)).toContain(field);
      };
      await bad({ workChatUserIds: [] }, 'workChatUserIds');
      await bad({ workChatUserIds: ['lisi', 'lisi'] }, 'workChatUserIds');
      await bad({ workChatUserIds: ['has space'] }, 'workChatUserIds');
      await bad({ state: 'has space' }, 'state');
      await bad({ state: 'x'.repeat(31) }, 'state');
      await bad({ state: null }, 'state');
      await bad({ type: 3 }, 'type');
      await bad({ scene: '2' }, 'scene');
      await bad({ digitalStaffId: 'not-a-uuid' }, 'digitalStaffId');
      await bad({ remark: 'x'.repeat(31) }, 'remark');
      await bad({ tenantId: 'globex' }, 'tenantId');
      const typeOne = await api('post', T).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['lisi', 'wangwu'], type: 1 }).expect(400);
      expect(typeOne.body.detail).toBe('A single-staff contact way (type 1) takes exactly one staff user, not 2; use type 2 for several.');
    });

    it('answers 404 for an unknown corp, staff user or digital staff, and for unknown ids; 400 for ids that are not int64', async () => {
      expect((await api('post', T).send({ corpName: 'Nope', name: 'x', workChatUserIds: ['zhangsan'] }).expect(404)).body.detail).toBe('No corp named "Nope" in this tenant.');
      expect((await api('post', T).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['zhangsan', 'ghost'] }).expect(404)).body.detail).toBe(
        'Corp "Acme Retail" has no staff user "ghost"; create or sync the staff users first.',
      );
      expect((await api('post', T).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['zhangsan'], digitalStaffId: '00000000-0000-4000-8000-000000000000' }).expect(404)).body.detail).toBe(
        'No digital staff 00000000-0000-4000-8000-000000000000 in this tenant.',
      );
      const body = { corpName: 'Acme Retail', name: 'x', workChatUserIds: ['zhangsan'] };
      expect((await api('get', `${T}/999999`).expect(404)).body.detail).toBe('No contact way 999999 in this tenant.');
      await api('post', `${T}/999999`).send(body).expect(404);
      await api('put', `${T}/999999/setDefault`).expect(404);
      await api('put', `${T}/999999/hide`).expect(404);
      await api('delete', `${T}/999999`).expect(404);
      expect((await api('post', T + '/refresh').send({ ids: [999999] }).expect(404)).body.detail).toBe('No contact way 999999 in this tenant.');
      for (const id of ['abc', '0', '-1', '1.5', '9223372036854775808']) await api('get', `${T}/${id}`).expect(400);
      await api('put', `${T}/abc/setDefault`).expect(400);
    });

    it('surfaces platform refusals as the port\'s problem details (a corp without a platform secret → 409 naming the setting, with the errcode)', async () => {
      const failed = await api('post', T).send({ corpName: 'Acme Unconfigured', name: 'x', workChatUserIds: ['sunqi'] }).expect(409);
      expect(failed.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(failed.body).toMatchObject({ status: 409, platformOperation: 'createContactWay', platformErrorCode: 41004 });
      expect(failed.body.detail).toContain('Set `secret` on the corp');
      expect(failed.body.detail).toContain('The corp has no platform secret configured.');
      const [{ count }] = await db().query('SELECT count(*)::int AS count FROM chat_contact_way WHERE corp_id = $1', [noSecret.id]);
      expect(count).toBe(0);
    });

    it('refuses to change ways of a disabled corp (409)', async () => {
      const corp = await newCorp(testApp, token, 'acme', 'Acme Closed');
      await newStaffUser(testApp, corp, 'zhouba');
      await api('put', `/api/acme/console/workChat/corps/${corp.id}`).send({ enabled: false }).expect(200);
      const refused = await api('post', T).send({ corpName: 'Acme Closed', name: 'x', workChatUserIds: ['zhouba'] }).expect(409);
      expect(refused.body.detail).toBe('Corp "Acme Closed" is disabled; enable it before changing its scene codes on the chat platform.');
    });

    it('updates a way on the platform and here: required fields again, optional ones kept or cleared; no type/scene/corp change', async () => {
      const created = await create({ name: 'Team', workChatUserIds: ['lisi', 'wangwu'], channelName: 'Flyers', relevanceCode: 'R-1', remark: 'team' });
      expect(created.type).toBe(2);
      const updated = await api('post', `${T}/${created.id}`).send({ corpName: 'Acme Retail', name: 'Team B', workChatUserIds: ['wangwu'], state: 'team_b', channelName: null }).expect(200);
      expect(updated.body).toMatchObject({ id: created.id, name: 'Team B', type: 2, workChatUserIds: ['wangwu'], state: 'team_b', channelName: null, relevanceCode: 'R-1', remark: 'team', configId: created.configId });
      const [sim] = await db().query('SELECT state, user_ids FROM chat_sim_contact_way WHERE config_id = $1', [created.configId]);
      expect(sim).toEqual({ state: 'team_b', user_ids: ['wangwu'] });
      const typeChange = await api('post', `${T}/${created.id}`).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['wangwu'], type: 1 }).expect(400);
      expect(typeChange.body.detail).toBe(`Contact way ${created.id} has type 2; the platform cannot change a contact way's type. Create a new way instead.`);
      await api('post', `${T}/${created.id}`).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['wangwu'], scene: 1 }).expect(400);
      const otherCorp = await api('post', `${T}/${created.id}`).send({ corpName: 'Acme East', name: 'x', workChatUserIds: ['zhaoliu'] }).expect(400);
      expect(otherCorp.body.detail).toBe(`Contact way ${created.id} belongs to another corp; a contact way cannot move to corp "Acme East".`);
      const single = await create({ name: 'Solo', workChatUserIds: ['lisi'] });
      await api('post', `${T}/${single.id}`).send({ corpName: 'Acme Retail', name: 'Solo', workChatUserIds: ['lisi', 'wangwu'] }).expect(400);
      await create({ name: 'Taken', workChatUserIds: ['lisi'], state: 'taken_state' });
      await api('post', `${T}/${created.id}`).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['wangwu'], state: 'taken_state' }).expect(409);
    });

    it('pages with every filter of the spec, hides hidden ways unless asked, sorts by allowed fields, caps size at 200', async () => {
      const a = await create({ name: 'Filter Alpha 100%', workChatUserIds: ['wangwu'], relevanceCode: 'FLT-A', state: 'flt_a' });
      const b = await create({ name: 'Filter beta', workChatUserIds: ['lisi', 'wangwu'], relevanceCode: 'FLT-B', state: 'flt_b' });
      const east = (await api('post', T).send({ corpName: 'Acme East', name: 'Filter east', workChatUserIds: ['zhaoliu'], relevanceCode: 'FLT-A' }).expect(200)).body;
      const ids = (response: request.Response) => response.body.content.map((way: { id: number }) => way.id);
      expect(ids(await api('get', `${T}?name=filter&sort=id,asc`).expect(200))).toEqual([a.id, b.id, east.id]);
      expect(ids(await api('get', `${T}?name=${encodeURIComponent('100%')}`).expect(200))).toEqual([a.id]);
      expect(ids(await api('get', `${T}?name=filter&corpName=Acme%20East`).expect(200))).toEqual([east.id]);
      expect((await api('get', `${T}?corpName=Nobody`).expect(200)).body).toEqual({ content: [], page: 0, size: 20, totalElements: 0, totalPages: 0 });
      expect(ids(await api('get', `${T}?relevanceCode=FLT-A&sort=id,asc`).expect(200))).toEqual([a.id, east.id]);
      expect(ids(await api('get', `${T}?state=flt_b`).expect(200))).toEqual([b.id]);
      expect(ids(await api('get', `${T}?id=${b.id}`).expect(200))).toEqual([b.id]);
      // mobile: ways listing a staff user with that mobile number (in the way's own corp).
      expect(ids(await api('get', `${T}?name=filter&mobile=13800000003&sort=id,asc`).expect(200))).toEqual([a.id, b.id]);
      expect(ids(await api('get', `${T}?name=filter&mobile=13800000001`).expect(200))).toEqual([east.id]);
      await api('put', `${T}/${b.id}/hide`).expect(200);
      expect(ids(await api('get', `${T}?name=filter&sort=id,asc`).expect(200))).toEqual([a.id, east.id]);
      expect(ids(await api('get', `${T}?name=filter&includeHidden=true&sort=id,asc`).expect(200))).toEqual([a.id, b.id, east.id]);
      const paged = await api('get', `${T}?name=filter&includeHidden=true&sort=name,desc&size=2&page=1`).expect(200);
      expect(paged.body).toMatchObject({ page: 1, size: 2, totalElements: 3, totalPages: 2 });
      expect(paged.body.content.map((way: { name: string }) => way.name)).toEqual(['Filter Alpha 100%']);
      await api('get', `${T}?size=200`).expect(200);
      expect((await api('get', `${T}?size=201`).expect(400)).body.errors).toEqual([expect.objectContaining({ field: 'size' })]);
      expect((await api('get', `${T}?sort=secret,asc`).expect(400)).body.detail).toBe('Invalid request: sort (Cannot sort by "secret"; allowed: id, createdAt, updatedAt, name)');
      await api('get', `${T}?id=abc`).expect(400);
      await api('get', `${T}?page=-1`).expect(400);
      await api('get', `${T}?includeHidden=maybe`).expect(400);
    });

    it('hides idempotently; an update with hidden=false shows the way again', async () => {
      const way = await create({ name: 'Hide me', workChatUserIds: ['wangwu'] });
      expect((await api('put', `${T}/${way.id}/hide`).expect(200)).text).toBe('');
      await api('put', `${T}/${way.id}/hide`).expect(200);
      expect((await api('get', `${T}/${way.id}`).expect(200)).body.hidden).toBe(true);
      const shown = await api('post', `${T}/${way.id}`).send({ corpName: 'Acme Retail', name: 'Hide me', workChatUserIds: ['wangwu'], hidden: false }).expect(200);
      expect(shown.body.hidden).toBe(false);
    });

    it('refreshes QR codes from the platform: one item per id in order, changed ones stored', async () => {
      const one = await create({ name: 'Refresh one', workChatUserIds: ['lisi'] });
      const two = await create({ name: 'Refresh two', workChatUserIds: ['wangwu'] });
      const newQr = `${one.qrCode.slice(0, one.qrCode.lastIndexOf('/'))}/RotatedQrCode00000000000`;
      await db().query('UPDATE chat_sim_contact_way SET qr_code = $1 WHERE config_id = $2', [newQr, one.configId]);
      const refreshed = await api('post', `${T}/refresh`).send({ ids: [two.id, one.id] }).expect(200);
      expect(refreshed.body).toEqual([
        { id: two.id, configId: two.configId, qrCode: two.qrCode, previousQrCode: two.qrCode, refreshed: true, changed: false, error: null, platformErrorCode: null },
        { id: one.id, configId: one.configId, qrCode: newQr, previousQrCode: one.qrCode, refreshed: true, changed: true, error: null, platformErrorCode: null },
      ]);
      expect((await api('get', `${T}/${one.id}`).expect(200)).body.qrCode).toBe(newQr);
      // A way the platform no longer has is reported in its item; the others still refresh.
      await db().query('DELETE FROM chat_sim_contact_way WHERE config_id = $1', [two.configId]);
      const partial = await api('post', `${T}/refresh`).send({ ids: [two.id, one.id] }).expect(200);
      expect(partial.body[0]).toMatchObject({ id: two.id, refreshed: false, changed: false, qrCode: two.qrCode, platformErrorCode: 40058, error: expect.stringContaining('getContactWay') });
      expect(partial.body[1]).toMatchObject({ id: one.id, refreshed: true, changed: false });
      for (const ids of [[], [0], ['1'], [1, 1], Array.from({ length: 101 }, (_, i) => i + 1)]) await api('post', `${T}/refresh`).send({ ids }).expect(400);
    });

    it('deletes a way on the platform and here', async () => {
      const way = await create({ name: 'Delete me', workChatUserIds: ['lisi'] });
      expect((await api('delete', `${T}/${way.id}`).expect(200)).text).toBe('');
      expect(await db().query('SELECT 1 FROM chat_sim_contact_way WHERE config_id = $1', [way.configId])).toEqual([]);
      await api('get', `${T}/${way.id}`).expect(404);
    });
  });

  describe('setDefault: one default per digital staff / staff user', () => {
    it('makes a single-staff way its staff user\'s default and returns the previous default too', async () => {
      const first = await create({ name: 'Wang default 1', workChatUserIds: ['wangwu'] });
      const second = await create({ name: 'Wang default 2', workChatUserIds: ['wangwu'] });
      const set = await api('put', `${T}/${first.id}/setDefault`).expect(200);
      expect(set.body).toEqual([{ id: first.id, name: 'Wang default 1', corpId: acme.id, digitalStaffId: null, workChatUserIds: ['wangwu'], state: first.state, qrCode: first.qrCode, isDefault: true }]);
      const moved = await api('put', `${T}/${second.id}/setDefault`).expect(200);
      expect(moved.body.map((way: { id: number; isDefault: boolean }) => [way.id, way.isDefault])).toEqual([[first.id, false], [second.id, true]]);
      expect(await defaultsOf(':wangwu')).toEqual([second.id]);
      // Again on the default: only itself, unchanged.
      expect((await api('put', `${T}/${second.id}/setDefault`).expect(200)).body.map((way: { id: number }) => way.id)).toEqual([second.id]);
      expect((await api('get', `${T}/${first.id}`).expect(200)).body.isDefault).toBe(false);
    });

    it('scopes ways with a digital staff to the digital staff, whatever their staff users', async () => {
      const a = await create({ name: 'Aria lisi', workChatUserIds: ['lisi'], digitalStaffId: otherDigitalStaffId });
      const b = await create({ name: 'Aria team', workChatUserIds: ['lisi', 'wangwu'], digitalStaffId: otherDigitalStaffId });
      const lisiOnly = await create({ name: 'Lisi plain', workChatUserIds: ['lisi'] });
      await api('put', `${T}/${lisiOnly.id}/setDefault`).expect(200);
      await api('put', `${T}/${a.id}/setDefault`).expect(200);
      const moved = await api('put', `${T}/${b.id}/setDefault`).expect(200);
      expect(moved.body.map((way: { id: number; isDefault: boolean }) => [way.id, way.isDefault])).toEqual([[a.id, false], [b.id, true]]);
      // The staff-user scope of lisi is another scope: its default stays.
      expect(await defaultsOf(':lisi')).toEqual([lisiOnly.id]);
      expect(await defaultsOf(otherDigitalStaffId)).toEqual([b.id]);
    });

    it('refuses ways that can be nobody\'s default (several staff users, no digital staff) and hidden ways (409); hiding a default clears it', async () => {
      const team = await create({ name: 'No scope', workChatUserIds: ['lisi', 'wangwu'] });
      expect((await api('put', `${T}/${team.id}/setDefault`).expect(409)).body.detail).toBe(
        `Contact way ${team.id} has several staff users and no digital staff, so it can be nobody's default; give it a digital staff or a single staff user.`,
      );
      const solo = await create({ name: 'Hidden default', workChatUserIds: ['zhangsan'] });
      await api('put', `${T}/${solo.id}/setDefault`).expect(200);
      await api('put', `${T}/${solo.id}/hide`).expect(200);
      expect((await api('get', `${T}/${solo.id}`).expect(200)).body).toMatchObject({ hidden: true, isDefault: false });
      expect((await api('put', `${T}/${solo.id}/setDefault`).expect(409)).body.detail).toBe(`Contact way ${solo.id} is hidden; show it again (update with hidden: false) before making it the default.`);
    });

    it('a default way whose scope changes by an update stops being the default', async () => {
      const way = await create({ name: 'Scope change', workChatUserIds: ['zhangsan'] });
      await api('put', `${T}/${way.id}/setDefault`).expect(200);
      const updated = await api('post', `${T}/${way.id}`).send({ corpName: 'Acme Retail', name: 'Scope change', workChatUserIds: ['zhangsan'], digitalStaffId }).expect(200);
      expect(updated.body.isDefault).toBe(false);
    });

    it('keeps exactly one default under concurrent setDefault requests in one scope (rich and console paths mixed)', async () => {
      const staff = await newDigitalStaff(testApp, 'acme', 'Concurrent');
      const ways: { id: number }[] = [];
      for (let i = 0; i < 8; i++) ways.push(await create({ name: `Race ${i}`, workChatUserIds: ['lisi'], digitalStaffId: staff.id }));
      for (let round = 0; round < 3; round++) {
        const responses = await Promise.all(
          ways.map((way, i) => api('put', i % 2 === 0 ? `${T}/${way.id}/setDefault` : `${C}/chat/contact/way/${way.id}/setDefault`)),
        );
        expect(responses.map((response) => response.status)).toEqual(ways.map(() => 200));
        const defaults = await defaultsOf(staff.id);
        expect(defaults).toHaveLength(1);
        // Every response ends with its own way as the default; the winner is the one committed last.
        for (const [i, response] of responses.entries()) expect(response.body[response.body.length - 1]).toMatchObject({ id: ways[i].id, isDefault: true });
        const listed = await api('get', `${T}?name=Race&size=50`).expect(200);
        expect(listed.body.content.filter((way: { isDefault: boolean }) => way.isDefault).map((way: { id: number }) => way.id)).toEqual(defaults);
      }
      // Concurrent requests on the same way: all succeed, one default.
      const same = await Promise.all(Array.from({ length: 6 }, () => api('put', `${T}/${ways[3].id}/setDefault`)));
      expect(same.map((response) => response.status)).toEqual(same.map(() => 200));
      expect(await defaultsOf(staff.id)).toEqual([ways[3].id]);
    });
  });

  describe('workChat family {T}/v1/workChat/contact/way', () => {
    it('saves and updates ContactWayDtoV1 shapes, the same ways as the rich family', async () => {
      const saved = await api('post', W).send({ corpName: 'Acme Retail', name: 'WeChat family', workChatUserIds: ['lisi'], channelName: 'Moments', state: 'wc_family' }).expect(200);
      expect(saved.body).toEqual({
        id: expect.any(Number),
        corpId: acme.id,
        corpName: 'Acme Retail',
        name: 'WeChat family',
        type: 1,
        scene: 2,
        state: 'wc_family',
        configId: expect.any(String),
        qrCode: expect.stringContaining('/api/chat-simulator/qr/'),
        remark: null,
        skipVerify: true,
        workChatUserIds: ['lisi'],
        digitalStaffId: null,
        channelName: 'Moments',
        isDefault: false,
        hidden: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const updated = await api('post', `${W}/${saved.body.id}`).send({ corpName: 'Acme Retail', name: 'WeChat family 2', workChatUserIds: ['lisi'], skipVerify: false }).expect(200);
      expect(updated.body).toMatchObject({ id: saved.body.id, name: 'WeChat family 2', skipVerify: false, channelName: 'Moments', state: 'wc_family' });
      expect((await api('get', `${T}/${saved.body.id}`).expect(200)).body.name).toBe('WeChat family 2');
      await api('post', W).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['lisi'], relevanceCode: 'not in this family' }).expect(400);
      await api('post', `${W}/999999`).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['lisi'] }).expect(404);
      await api('post', `${W}/abc`).send({ corpName: 'Acme Retail', name: 'x', workChatUserIds: ['lisi'] }).expect(400);
    });

    it('pages by a required corpName with mobile, id, channelName and creation-time filters (yyyy-MM-dd HH:mm:ss, else 400)', async () => {
      const one = (await api('post', W).send({ corpName: 'Acme East', name: 'East one', workChatUserIds: ['zhaoliu'], channelName: 'Radio' }).expect(200)).body;
      const two = (await api('post', W).send({ corpName: 'Acme East', name: 'East two', workChatUserIds: ['zhaoliu'], channelName: 'TV' }).expect(200)).body;
      await db().query(`UPDATE chat_contact_way SET created_at = '2025-03-01T10:00:00Z' WHERE id = $1`, [one.id]);
      await db().query(`UPDATE chat_contact_way SET created_at = '2025-03-02T10:00:00Z' WHERE id = $1`, [two.id]);
      const ids = (response: request.Response) => response.body.content.map((way: { id: number }) => way.id);
      const missing = await api('get', W).expect(400);
      expect(missing.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'corpName' })]));
      expect((await api('get', `${W}?corpName=Nobody`).expect(404)).body.detail).toBe('No corp named "Nobody" in this tenant.');
      const east = `${W}?corpName=Acme%20East`;
      expect(ids(await api('get', `${east}&channelName=Radio`).expect(200))).toEqual([one.id]);
      expect(ids(await api('get', `${east}&id=${two.id}`).expect(200))).toEqual([two.id]);
      expect(ids(await api('get', `${east}&mobile=13800000001&channelName=TV`).expect(200))).toEqual([two.id]);
      expect(ids(await api('get', `${east}&mobile=13800000003`).expect(200))).toEqual([]);
      const range = (start: string, end: string) => `${east}&startCreateTime=${encodeURIComponent(start)}&endCreateTime=${encodeURIComponent(end)}&sort=id,asc`;
      expect(ids(await api('get', range('2025-03-01 00:00:00', '2025-03-02 10:00:00')).expect(200))).toEqual([one.id, two.id]);
      expect(ids(await api('get', range('2025-03-01 10:00:01', '2025-03-03 00:00:00')).expect(200))).toEqual([two.id]);
      expect(ids(await api('get', range('2025-03-01 00:00:00', '2025-03-01 09:59:59')).expect(200))).toEqual([]);
      for (const bad of ['2025-03-01T00:00:00', '2025-03-01', '2025-02-30 00:00:00', '2025-03-01 24:00:00', 'yesterday']) {
        const response = await api('get', `${east}&startCreateTime=${encodeURIComponent(bad)}`).expect(400);
        expect(response.body.errors).toEqual([expect.objectContaining({ field: 'startCreateTime' })]);
      }
      expect((await api('get', range('2025-03-02 00:00:00', '2025-03-01 00:00:00')).expect(400)).body.detail).toBe('endCreateTime (2025-03-01 00:00:00) is before startCreateTime (2025-03-02 00:00:00).');
      await api('get', `${east}&size=201`).expect(400);
    });
  });

  describe('console {C}/workChat/contactWay and {C}/chat/contact/way/{id}/…', () => {
    it('creates a staff user\'s single-staff way and pages by corpName, userName and workChatUserId', async () => {
      const created = await api('post', `${C}/workChat/contactWay`).send({ corpName: 'Acme Retail', workChatUserId: 'wangwu', name: 'Wang card', state: 'wang_card' }).expect(200);
      expect(created.body).toMatchObject({ corpName: 'Acme Retail', workChatUserId: 'wangwu', userName: 'Wang Wu', workChatUserIds: ['wangwu'], type: 1, name: 'Wang card', state: 'wang_card', qrCode: expect.stringContaining('/api/chat-simulator/qr/') });
      const ids = (response: request.Response) => response.body.content.map((way: { id: number }) => way.id);
      expect(ids(await api('get', `${C}/workChat/contactWay?userName=WANG%20w&corpName=Acme%20Retail`).expect(200))).toContain(created.body.id);
      expect(ids(await api('get', `${C}/workChat/contactWay?userName=Zhao`).expect(200))).not.toContain(created.body.id);
      const byUser = await api('get', `${C}/workChat/contactWay?workChatUserId=wangwu&size=200`).expect(200);
      expect(ids(byUser)).toContain(created.body.id);
      expect(byUser.body.content.every((way: { workChatUserIds: string[] }) => way.workChatUserIds.includes('wangwu'))).toBe(true);
      expect(ids(await api('get', `${C}/workChat/contactWay?corpName=Acme%20East`).expect(200))).not.toContain(created.body.id);
      await api('post', `${C}/workChat/contactWay`).send({ corpName: 'Acme Retail', name: 'x' }).expect(400);
      await api('post', `${C}/workChat/contactWay`).send({ corpName: 'Acme Retail', workChatUserId: 'ghost', name: 'x' }).expect(404);
      await api('get', `${C}/workChat/contactWay?size=201`).expect(400);
    });

    it('setDefault and hide behave as on the tenant path', async () => {
      const a = (await api('post', `${C}/workChat/contactWay`).send({ corpName: 'Acme East', workChatUserId: 'zhaoliu', name: 'Zhao a' }).expect(200)).body;
      const b = (await api('post', `${C}/workChat/contactWay`).send({ corpName: 'Acme East', workChatUserId: 'zhaoliu', name: 'Zhao b' }).expect(200)).body;
      expect((await api('put', `${C}/chat/contact/way/${a.id}/setDefault`).expect(200)).body).toEqual([expect.objectContaining({ id: a.id, isDefault: true })]);
      expect((await api('put', `${C}/chat/contact/way/${b.id}/setDefault`).expect(200)).body.map((way: { id: number; isDefault: boolean }) => [way.id, way.isDefault])).toEqual([[a.id, false], [b.id, true]]);
      expect((await api('put', `${C}/chat/contact/way/${b.id}/hide`).expect(200)).text).toBe('');
      expect((await api('get', `${T}/${b.id}`).expect(200)).body).toMatchObject({ hidden: true, isDefault: false });
      await api('put', `${C}/chat/contact/way/999999/setDefault`).expect(404);
      await api('put', `${C}/chat/contact/way/999999/hide`).expect(404);
      await api('put', `${C}/chat/contact/way/x/hide`).expect(400);
    });
  });

  describe('staff-user guide {C}/workChat/user/guide/…', () => {
    const G = '/api/acme/console/workChat/user/guide';

    it('addStaffScene creates a QR code for the staff user with their bound digital staff; setDefault makes it the default', async () => {
      const plain = await api('post', `${G}/addStaffScene`).send({ corpName: 'Acme Retail', workChatUserId: 'zhangsan' }).expect(200);
      expect(plain.body).toEqual({
        success: true,
        code: 'CREATED',
        message: `Contact way ${plain.body.data.id} created for zhangsan.`,
        data: expect.objectContaining({ workChatUserId: 'zhangsan', userName: 'Zhang San', name: 'Zhang San QR code', type: 1, scene: 2, digitalStaffId, isDefault: false, qrCode: expect.stringContaining('/api/chat-simulator/qr/') }),
        defaults: [],
      });
      const made = await api('post', `${G}/addStaffScene`).send({ corpName: 'Acme Retail', workChatUserId: 'zhangsan', name: 'Zhang default', setDefault: true }).expect(200);
      expect(made.body).toMatchObject({ success: true, code: 'CREATED_DEFAULT', data: { name: 'Zhang default', isDefault: true } });
      expect(made.body.defaults[made.body.defaults.length - 1]).toEqual(expect.objectContaining({ id: made.body.data.id, isDefault: true, digitalStaffId }));
      expect(await defaultsOf(digitalStaffId)).toEqual([made.body.data.id]);
      await api('post', `${G}/addStaffScene`).send({ corpName: 'Acme Retail' }).expect(400);
      await api('post', `${G}/addStaffScene`).send({ corpName: 'Acme Retail', workChatUserId: 'ghost' }).expect(404);
    });

    it('addStaffAdvanced creates a multi-staff way with every option', async () => {
      const made = await api('post', `${G}/addStaffAdvanced`)
        .send({ corpName: 'Acme Retail', workChatUserIds: ['lisi', 'wangwu'], name: 'Advanced team', scene: 1, skipVerify: false, channelName: 'Mini program', relevanceCode: 'ADV-1', digitalStaffId: otherDigitalStaffId, setDefault: true })
        .expect(200);
      expect(made.body).toMatchObject({ code: 'CREATED_DEFAULT', data: { workChatUserIds: ['lisi', 'wangwu'], type: 2, scene: 1, skipVerify: false, channelName: 'Mini program', digitalStaffId: otherDigitalStaffId, isDefault: true } });
      expect((await api('get', `${T}/${made.body.data.id}`).expect(200)).body.relevanceCode).toBe('ADV-1');
      const noScope = await api('post', `${G}/addStaffAdvanced`).send({ corpName: 'Acme Retail', workChatUserIds: ['lisi', 'wangwu'], name: 'No scope', setDefault: true }).expect(409);
      expect(noScope.body.detail).toContain('can be nobody\'s default');
      await api('post', `${G}/addStaffAdvanced`).send({ corpName: 'Acme Retail', workChatUserIds: [], name: 'x' }).expect(400);
    });

    it('setDefaultScene sets a staff user\'s default scene code from one of their ways of the corp', async () => {
      const mine = (await api('post', T).send({ corpName: 'Acme Retail', name: 'Guide lisi', workChatUserIds: ['lisi'], state: 'guide_lisi' }).expect(200)).body;
      const response = await api('post', `${G}/setDefaultScene`).send({ corpName: 'Acme Retail', workChatUserId: 'lisi', contactWayId: mine.id }).expect(200);
      expect(response.text).toBe('');
      expect(await defaultsOf(':lisi')).toEqual([mine.id]);
      const notListed = await api('post', `${G}/setDefaultScene`).send({ corpName: 'Acme Retail', workChatUserId: 'wangwu', contactWayId: mine.id }).expect(400);
      expect(notListed.body.detail).toBe(`Contact way ${mine.id} does not list staff user "wangwu"; choose one of their ways or add them to it.`);
      await api('post', `${G}/setDefaultScene`).send({ corpName: 'Acme East', workChatUserId: 'zhaoliu', contactWayId: mine.id }).expect(400);
      await api('post', `${G}/setDefaultScene`).send({ corpName: 'Acme Retail', workChatUserId: 'lisi', contactWayId: 999999 }).expect(404);
      await api('post', `${G}/setDefaultScene`).send({ corpName: 'Acme Retail', workChatUserId: 'lisi', contactWayId: 'one' }).expect(400);
    });
  });

  describe('tenant isolation and scopes', () => {
    let way: { id: number };
    const body = { corpName: 'Acme Retail', name: 'Isolated', workChatUserIds: ['lisi'] };
    const routes = (id: number | string): [Method, string, object?][] => [
      ['get', T],
      ['post', T, body],
      ['get', `${T}/${id}`],
      ['post', `${T}/${id}`, body],
      ['delete', `${T}/${id}`],
      ['post', `${T}/refresh`, { ids: [Number(id)] }],
      ['put', `${T}/${id}/setDefault`],
      ['put', `${T}/${id}/hide`],
      ['get', `${W}?corpName=Acme%20Retail`],
      ['post', W, body],
      ['post', `${W}/${id}`, body],
      ['get', `${C}/workChat/contactWay`],
      ['post', `${C}/workChat/contactWay`, { corpName: 'Acme Retail', workChatUserId: 'lisi', name: 'x' }],
      ['put', `${C}/chat/contact/way/${id}/setDefault`],
      ['put', `${C}/chat/contact/way/${id}/hide`],
      ['post', `${C}/workChat/user/guide/setDefaultScene`, { corpName: 'Acme Retail', workChatUserId: 'lisi', contactWayId: Number(id) }],
      ['post', `${C}/workChat/user/guide/addStaffScene`, { corpName: 'Acme Retail', workChatUserId: 'lisi' }],
      ['post', `${C}/workChat/user/guide/addStaffAdvanced`, { corpName: 'Acme Retail', workChatUserIds: ['lisi'], name: 'x' }],
    ];

    beforeAll(async () => {
      way = await create({ name: 'Isolated', workChatUserIds: ['lisi'] });
    });

    it('another tenant\'s token gets 403 on every route of this tenant', async () => {
      for (const [method, path, payload] of routes(way.id)) {
        const response = await api(method, path, otherToken).send(payload);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
    });

    it('another tenant\'s ids answer 404 through its own paths', async () => {
      const G = '/api/globex/v1/chat/contact/way';
      await api('get', `${G}/${way.id}`, otherToken).expect(404);
      await api('post', `${G}/${way.id}`, otherToken).send({ corpName: 'Globex', name: 'x', workChatUserIds: ['lisi'] }).expect(404);
      await api('put', `${G}/${way.id}/setDefault`, otherToken).expect(404);
      await api('put', `${G}/${way.id}/hide`, otherToken).expect(404);
      await api('delete', `${G}/${way.id}`, otherToken).expect(404);
      await api('post', `${G}/refresh`, otherToken).send({ ids: [way.id] }).expect(404);
      await api('post', `/api/globex/v1/workChat/contact/way/${way.id}`, otherToken).send({ corpName: 'Globex', name: 'x', workChatUserIds: ['lisi'] }).expect(404);
      await api('put', `/api/globex/console/chat/contact/way/${way.id}/setDefault`, otherToken).expect(404);
      await api('put', `/api/globex/console/chat/contact/way/${way.id}/hide`, otherToken).expect(404);
      await api('post', '/api/globex/console/workChat/user/guide/setDefaultScene', otherToken).send({ corpName: 'Globex', workChatUserId: 'lisi', contactWayId: way.id }).expect(404);
      // Acme's corp names are unknown to globex.
      await api('post', G, otherToken).send(body).expect(404);
      await api('get', '/api/globex/v1/workChat/contact/way?corpName=Acme%20Retail', otherToken).expect(404);
      // Lists never show acme's ways.
      const listed = await api('get', `${G}?size=200&includeHidden=true`, otherToken).expect(200);
      expect(listed.body.content.every((item: { tenantId: string }) => item.tenantId === 'globex')).toBe(true);
      expect((await api('get', `${T}/${way.id}`).expect(200)).body.hidden).toBe(false);
    });

    it('a token without chat:write gets 403 on every write, and may read', async () => {
      for (const [method, path, payload] of routes(way.id).filter(([method]) => method !== 'get')) {
        const response = await api(method, path, readOnly).send(payload);
        expect({ method, path, status: response.status }).toEqual({ method, path, status: 403 });
      }
      await api('get', `${T}/${way.id}`, readOnly).expect(200);
      await api('get', `${W}?corpName=Acme%20Retail`, readOnly).expect(200);
      await api('get', `${C}/workChat/contactWay`, readOnly).expect(200);
    });

    it('no token → 401', async () => {
      await request(testApp.baseUrl).get(T).expect(401);
      await request(testApp.baseUrl).put(`${T}/${way.id}/setDefault`).expect(401);
    });
  });
});

describe('contact ways through the HTTP platform adapter (fake platform server)', () => {
  let fake: FakeChatPlatform;
  let testApp: TestApp;
  let token: string;
  let corp: TestCorp;
  const T = '/api/acme/v1/chat/contact/way';
  const api = (method: Method, path: string) => request(testApp.baseUrl)[method](path).auth(token, { type: 'bearer' });

  beforeAll(async () => {
    fake = await startFakeChatPlatform();
    testApp = await startTestApp({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: fake.url, CHAT_PLATFORM_HTTP_RETRIES: '0', CHAT_CONTACT_WAY_REFRESH_MAX_IDS: '1' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    corp = await newCorp(testApp, token, 'acme', 'Acme Live', { workChatCorpId: 'wwlive0001' });
    fake.addCorp('wwlive0001', CORP_SECRET);
    addFakeStaff(fake, 'wwlive0001', { userid: 'zhangsan', name: 'Zhang San' });
    await newStaffUser(testApp, corp, 'zhangsan', { name: 'Zhang San' });
    await newStaffUser(testApp, corp, 'notonplatform', { name: 'Ghost' });
  });
  afterAll(async () => {
    await testApp?.close();
    await fake?.close();
  });

  it('stores and returns the platform\'s config id and QR code, and refreshes a rotated QR code', async () => {
    const created = (await api('post', T).send({ corpName: 'Acme Live', name: 'Live', workChatUserIds: ['zhangsan'], state: 'live_1' }).expect(200)).body;
    const platformWay = fake.corp('wwlive0001').contactWays.get(created.configId);
    expect(platformWay).toMatchObject({ type: 1, scene: 2, state: 'live_1', user: ['zhangsan'] });
    expect(created.qrCode).toBe(platformWay!.qr_code);
    expect(created.qrCode).toMatch(/^https:\/\/fake-platform\.test\/qr\//);
    platformWay!.qr_code = 'https://fake-platform.test/qr/rotated';
    const refreshed = await api('post', `${T}/refresh`).send({ ids: [created.id] }).expect(200);
    expect(refreshed.body).toEqual([expect.objectContaining({ id: created.id, qrCode: 'https://fake-platform.test/qr/rotated', previousQrCode: created.qrCode, changed: true, refreshed: true })]);
    // CHAT_CONTACT_WAY_REFRESH_MAX_IDS=1 in this app: two ids are one too many.
    const tooMany = await api('post', `${T}/refresh`).send({ ids: [created.id, created.id + 1] }).expect(400);
    expect(tooMany.body.detail).toBe('One refresh takes at most 1 ids (CHAT_CONTACT_WAY_REFRESH_MAX_IDS), not 2; split the request.');
  });

  it('maps the platform\'s refusal to problem details with its errcode, and stores nothing', async () => {
    const refused = await api('post', T).send({ corpName: 'Acme Live', name: 'Ghost', workChatUserIds: ['notonplatform'] }).expect(400);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body).toMatchObject({ platformOperation: 'createContactWay', platformErrorCode: 60111 });
    const [{ count }] = await dataSourceOf(testApp).query("SELECT count(*)::int AS count FROM chat_contact_way WHERE name = 'Ghost'");
    expect(count).toBe(0);
  });

  it('the simulator QR route answers 404 while the simulator is off', async () => {
    const response = await request(testApp.baseUrl).get('/api/chat-simulator/qr/AnyCode000000000000000000').expect(404);
    expect(response.body.detail).toBe('The chat platform simulator is off (CHAT_PLATFORM_MODE is not "simulator"), so it serves no QR codes.');
  });
});
