import { NotFoundException } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DigitalStaffService } from '../../src/chat/digital-staff/digital-staff.service';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Digital staff (chat-management-api.md, Tenant API: `POST {T}/v1/chat/staff` createChatStaffV1, `POST
 * {T}/v1/chat/staff/bind` bindChatStaffV1, plus list/get/update/delete) and service time
 * (`{T}/v1/chat/digital-staff/service-time` getServiceTime, createOrUpdateServiceTime, deleteServiceTime): one
 * configuration per digital staff also under concurrent POSTs, validation with reasons, the `inService` provider,
 * deleting a bound digital staff (409), tenant isolation and the write scope.
 */
describe('digital staff ({T}/v1/chat/staff) and service time ({T}/v1/chat/digital-staff/service-time)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  const staffPath = '/api/acme/v1/chat/staff';
  const otherStaffPath = '/api/globex/v1/chat/staff';
  const timePath = '/api/acme/v1/chat/digital-staff/service-time';
  const otherTimePath = '/api/globex/v1/chat/digital-staff/service-time';
  const UNKNOWN = '00000000-0000-4000-8000-000000000000';
  const MAX_WINDOWS = 7;
  const OFFICE = [1, 2, 3, 4, 5].map((dayOfWeek) => ({ dayOfWeek, start: '09:00', end: '18:00' }));
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const newStaff = async (name: string, path = staffPath, bearer = token) => (await api('post', path, bearer).send({ name, persona: `You are ${name}, a polite assistant.` }).expect(200)).body;
  const newUser = async (workChatUserId: string, corp = 'wwacme', bearer = token, tenant = 'acme') =>
    (await api('post', `/api/${tenant}/console/workChat/user`, bearer).send({ workChatCorpId: corp, workChatUserId, name: `User ${workChatUserId}` }).expect(200)).body;
  const db = () => testApp.app.get<DataSource>(getDataSourceToken());

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_SERVICE_TIME_MAX_WINDOWS: String(MAX_WINDOWS) });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    readOnly = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    await api('post', '/api/acme/console/workChat/corps').send({ corpName: 'Acme Retail', workChatCorpId: 'wwacme' }).expect(200);
    await api('post', '/api/globex/console/workChat/corps', otherToken).send({ corpName: 'Globex', workChatCorpId: 'wwglobex' }).expect(200);
  });
  afterAll(() => testApp?.close());

  describe('digital staff', () => {
    it('creates a digital staff (200) and reads it back; names are unique per tenant (409), not across tenants', async () => {
      const created = await api('post', staffPath).send({ name: 'Ava', persona: 'You are Ava.', description: 'after-sales', welcomeMessage: 'Hi, I am Ava.' }).expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        name: 'Ava',
        persona: 'You are Ava.',
        description: 'after-sales',
        welcomeMessage: 'Hi, I am Ava.',
        enabled: true,
        boundStaffUserCount: 0,
        hasServiceTime: false,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${staffPath}/${created.body.id}`).expect(200)).body).toEqual(created.body);
      const duplicate = await api('post', staffPath).send({ name: 'Ava', persona: 'Another' }).expect(409);
      expect(duplicate.body.detail).toBe('The tenant already has a digital staff named "Ava".');
      await newStaff('Ava', otherStaffPath, otherToken);
    });

    it('validates the body (400 with the fields)', async () => {
      const fields = async (body: Record<string, unknown>) => (await api('post', staffPath).send(body).expect(400)).body.errors.map((e: { field: string }) => e.field);
      expect(await fields({ name: 'No persona' })).toEqual(['persona']);
      expect(await fields({ name: 'x'.repeat(101), persona: 'p' })).toEqual(['name']);
      expect(await fields({ name: ' padded', persona: 'p' })).toEqual(['name']);
      expect(await fields({ name: 'X', persona: 'p', enabled: 'yes' })).toEqual(['enabled']);
      expect(await fields({ name: 'X', persona: 'p', id: UNKNOWN })).toEqual(['id']);
    });

    it('lists with name and enabled filters, sorts by allow-listed fields, updates and deletes (404 for unknown ids)', async () => {
      const bob = await newStaff('Bob');
      await newStaff('Bobby');
      const changed = await api('put', `${staffPath}/${bob.id}`).send({ enabled: false, description: 'paused', persona: 'You are Bob, brief.' }).expect(200);
      expect(changed.body).toMatchObject({ name: 'Bob', enabled: false, description: 'paused', persona: 'You are Bob, brief.' });
      expect((await api('put', `${staffPath}/${bob.id}`).send({ description: '' }).expect(200)).body.description).toBeNull();
      await api('put', `${staffPath}/${bob.id}`).send({ name: 'Ava' }).expect(409);
      const names = async (query: string) => (await api('get', `${staffPath}?${query}`).expect(200)).body.content.map((s: { name: string }) => s.name);
      expect(await names('name=BOB&sort=name,asc')).toEqual(['Bob', 'Bobby']);
      expect(await names('enabled=false')).toEqual(['Bob']);
      expect(await names('sort=name,desc')).toEqual(['Bobby', 'Bob', 'Ava']);
      const page = await api('get', `${staffPath}?size=1`).expect(200);
      expect(page.body).toMatchObject({ page: 0, size: 1, totalElements: 3, totalPages: 3 });
      expect((await api('get', `${staffPath}?sort=persona,asc`).expect(400)).body.detail).toBe('Invalid request: sort (Cannot sort by "persona"; allowed: createdAt, updatedAt, name)');
      await api('get', `${staffPath}?size=201`).expect(400);
      await api('get', `${staffPath}?enabled=maybe`).expect(400);
      expect((await api('get', `${staffPath}/${UNKNOWN}`).expect(404)).body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
      await api('get', `${staffPath}/not-a-uuid`).expect(400);
      await api('put', `${staffPath}/${UNKNOWN}`).send({ name: 'X' }).expect(404);
      expect((await api('delete', `${staffPath}/${bob.id}`).expect(200)).text).toBe('');
      await api('delete', `${staffPath}/${bob.id}`).expect(404);
    });

    it('binds staff users by corp name and platform userids (200, no body), all or nothing', async () => {
      const staff = await newStaff('Cleo');
      const other = await newStaff('Dora');
      const a = await newUser('b1');
      const b = await newUser('b2');
      const bound = await api('post', `${staffPath}/bind`).send({ staffId: staff.id, corpName: 'Acme Retail', workChatUserIds: ['b1', 'b2'] }).expect(200);
      expect(bound.text).toBe('');
      for (const user of [a, b]) {
        expect((await api('get', `/api/acme/console/workChat/user/${user.id}`).expect(200)).body).toMatchObject({ digitalStaffId: staff.id, digitalStaffName: 'Cleo' });
      }
      expect((await api('get', `${staffPath}/${staff.id}`).expect(200)).body.boundStaffUserCount).toBe(2);
      const missing = await api('post', `${staffPath}/bind`).send({ staffId: other.id, corpName: 'Acme Retail', workChatUserIds: ['b1', 'ghost'] }).expect(404);
      expect(missing.body.detail).toBe('No staff user "ghost" in corp "Acme Retail"; nothing was bound.');
      expect((await api('get', `/api/acme/console/workChat/user/${a.id}`).expect(200)).body.digitalStaffId).toBe(staff.id);
      expect((await api('post', `${staffPath}/bind`).send({ staffId: other.id, corpName: 'Nope', workChatUserIds: ['b1'] }).expect(404)).body.detail).toBe('No corp named "Nope" in this tenant.');
      await api('post', `${staffPath}/bind`).send({ staffId: UNKNOWN, corpName: 'Acme Retail', workChatUserIds: ['b1'] }).expect(404);
      await api('post', `${staffPath}/bind`).send({ staffId: other.id, corpName: 'Acme Retail', workChatUserIds: [] }).expect(400);
      await api('post', `${staffPath}/bind`).send({ staffId: other.id, corpName: 'Acme Retail', workChatUserIds: ['bad id'] }).expect(400);
      await api('post', `${staffPath}/bind`).send({ staffId: other.id, corpName: 'Acme Retail', workChatUserIds: ['b2'] }).expect(200);
      expect((await api('get', `${staffPath}/${staff.id}`).expect(200)).body.boundStaffUserCount).toBe(1);
      expect((await api('get', `${staffPath}/${other.id}`).expect(200)).body.boundStaffUserCount).toBe(1);
    });

    it('refuses to delete a digital staff that staff users are bound to (409, naming them); after unbinding, deletes it with its service time', async () => {
      const staff = await newStaff('Eve');
      const user = await newUser('e1');
      await api('post', `${staffPath}/bind`).send({ staffId: staff.id, corpName: 'Acme Retail', workChatUserIds: ['e1'] }).expect(200);
      await api('post', timePath).send({ staffId: staff.id, timeZone: 'UTC', windows: OFFICE }).expect(200);
      const refused = await api('delete', `${staffPath}/${staff.id}`).expect(409);
      expect(refused.body.detail).toBe(
        'Digital staff "Eve" is bound to 1 staff user ("e1"); unbind them (PUT {C}/workChat/user/{id} with digitalStaffId null) or bind them to another digital staff first.',
      );
      await api('get', `${staffPath}/${staff.id}`).expect(200);
      await api('put', `/api/acme/console/workChat/user/${user.id}`).send({ digitalStaffId: null }).expect(200);
      await api('delete', `${staffPath}/${staff.id}`).expect(200);
      expect(await db().query('SELECT count(*)::int AS n FROM chat_digital_staff_service_time WHERE digital_staff_id = $1', [staff.id])).toEqual([{ n: 0 }]);
      await api('get', `${timePath}?staffId=${staff.id}`).expect(404);
    });

    it('refuses to delete a digital staff that a contact way names (409); after the way names none, deletes it', async () => {
      const staff = await newStaff('Quinn');
      // The way as the contact way service stores it (creating one through the API needs the staff user on the platform).
      const [way] = await db().query(
        `INSERT INTO chat_contact_way (tenant_id, corp_id, name, type, scene, work_chat_user_ids, config_id, qr_code, skip_verify, is_default, hidden, digital_staff_id, created_at, updated_at)
         SELECT 'acme', id, 'Quinn poster', 1, 2, '["q1"]'::jsonb, 'cfg-quinn', 'https://qr.test/quinn', true, false, false, $1, now(), now()
         FROM chat_work_corp WHERE tenant_id = 'acme' AND corp_name = 'Acme Retail' RETURNING id`,
        [staff.id],
      );
      const refused = await api('delete', `${staffPath}/${staff.id}`).expect(409);
      expect(refused.body.detail).toBe('Digital staff "Quinn" answers the customers of 1 contact way and 0 group ways; give them another digital staff (or none) first.');
      await api('get', `${staffPath}/${staff.id}`).expect(200);
      await db().query('UPDATE chat_contact_way SET digital_staff_id = NULL WHERE id = $1', [way.id]);
      await api('delete', `${staffPath}/${staff.id}`).expect(200);
    });

    it('never leaves a staff user bound to a deleted digital staff when bind and delete race', async () => {
      for (let round = 0; round < 6; round++) {
        const staff = await newStaff(`Racer ${round}`);
        await newUser(`race${round}`);
        const [bind, remove] = await Promise.all([
          api('post', `${staffPath}/bind`).send({ staffId: staff.id, corpName: 'Acme Retail', workChatUserIds: [`race${round}`] }),
          api('delete', `${staffPath}/${staff.id}`),
        ]);
        // Either the bind won (the delete then sees a bound user: 409) or the delete won (the bind then finds no digital staff: 404).
        expect([[200, 409], [404, 200]]).toContainEqual([bind.status, remove.status]);
      }
      expect(
        await db().query('SELECT count(*)::int AS n FROM chat_work_user u WHERE u.digital_staff_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM chat_digital_staff s WHERE s.id = u.digital_staff_id)'),
      ).toEqual([{ n: 0 }]);
    });
  });

  describe('service time', () => {
    it('404 before a configuration exists; POST creates (version 1), GET reads, POST replaces (version 2), DELETE removes', async () => {
      const staff = await newStaff('Finn');
      const none = await api('get', `${timePath}?staffId=${staff.id}`).expect(404);
      expect(none.body.detail).toBe(`Digital staff ${staff.id} has no service time configured (it is always in service); create one with POST.`);
      const created = await api('post', timePath)
        .send({ staffId: staff.id, timeZone: 'Europe/Berlin', windows: [{ dayOfWeek: 3, start: '13:00', end: '17:00' }, { dayOfWeek: 1, start: '09:00', end: '12:00' }, { dayOfWeek: 3, start: '09:00', end: '12:00' }], outOfHoursMessage: 'Back soon.' })
        .expect(200);
      expect(created.body).toEqual({
        staffId: staff.id,
        tenantId: 'acme',
        timeZone: 'Europe/Berlin',
        windows: [
          { dayOfWeek: 1, start: '09:00', end: '12:00' },
          { dayOfWeek: 3, start: '09:00', end: '12:00' },
          { dayOfWeek: 3, start: '13:00', end: '17:00' },
        ],
        outOfHoursMessage: 'Back soon.',
        inServiceNow: expect.any(Boolean),
        version: 1,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${timePath}?staffId=${staff.id}`).expect(200)).body).toEqual({ ...created.body, inServiceNow: expect.any(Boolean) });
      expect((await api('get', `${staffPath}/${staff.id}`).expect(200)).body.hasServiceTime).toBe(true);
      const allWeek = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, start: '00:00', end: '24:00' }));
      const replaced = await api('post', timePath).send({ staffId: staff.id, timeZone: 'Asia/Shanghai', windows: allWeek }).expect(200);
      expect(replaced.body).toMatchObject({ timeZone: 'Asia/Shanghai', windows: allWeek, outOfHoursMessage: null, inServiceNow: true, version: 2, createdAt: created.body.createdAt });
      expect(await db().query('SELECT count(*)::int AS n FROM chat_digital_staff_service_time WHERE digital_staff_id = $1', [staff.id])).toEqual([{ n: 1 }]);
      expect((await api('delete', `${timePath}?staffId=${staff.id}`).expect(200)).text).toBe('');
      await api('get', `${timePath}?staffId=${staff.id}`).expect(404);
      expect((await api('delete', `${timePath}?staffId=${staff.id}`).expect(404)).body.detail).toBe(`Digital staff ${staff.id} has no service time configured.`);
    });

    it('keeps exactly one configuration per digital staff under concurrent POSTs; GET returns the last write', async () => {
      const staff = await newStaff('Gus');
      const writers = 8;
      const responses = await Promise.all(
        Array.from({ length: writers }, (_, i) =>
          api('post', timePath).send({ staffId: staff.id, timeZone: 'Asia/Tokyo', windows: [{ dayOfWeek: (i % 7) + 1, start: `${String(8 + i).padStart(2, '0')}:00`, end: '20:00' }], outOfHoursMessage: `writer ${i}` }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(writers).fill(200));
      expect(responses.map((r) => r.body.version).sort((a: number, b: number) => a - b)).toEqual(Array.from({ length: writers }, (_, i) => i + 1));
      expect(await db().query('SELECT count(*)::int AS n, max(version) AS version FROM chat_digital_staff_service_time WHERE digital_staff_id = $1', [staff.id])).toEqual([{ n: 1, version: writers }]);
      const last = responses.find((r) => r.body.version === writers)!.body;
      const read = (await api('get', `${timePath}?staffId=${staff.id}`).expect(200)).body;
      expect({ ...read, inServiceNow: 0, updatedAt: 0 }).toEqual({ ...last, inServiceNow: 0, updatedAt: 0 });
      expect(read.outOfHoursMessage).toBe(last.outOfHoursMessage);
    });

    it('refuses invalid configurations with every reason (400): time zone, times, end before start, overlaps, too many windows', async () => {
      const staff = await newStaff('Hal');
      const post = (body: Record<string, unknown>) => api('post', timePath).send({ staffId: staff.id, timeZone: 'UTC', windows: OFFICE, ...body }).expect(400);
      const zone = await post({ timeZone: 'Mars/Olympus_Mons' });
      expect(zone.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(zone.body.errors).toEqual([{ field: 'timeZone', messages: ['timeZone "Mars/Olympus_Mons" is not an IANA time zone (e.g. "Asia/Shanghai", "Europe/Berlin", "UTC").'] }]);
      const semantic = await post({
        timeZone: 'UTC+8',
        windows: [
          { dayOfWeek: 2, start: '18:00', end: '09:00' },
          { dayOfWeek: 4, start: '09:00', end: '12:00' },
          { dayOfWeek: 4, start: '11:30', end: '14:00' },
        ],
      });
      expect(semantic.body.errors.map((e: { field: string }) => e.field)).toEqual(['timeZone', 'windows[0].end', 'windows[2]']);
      expect(semantic.body.detail).toContain('windows[0] must end after it starts (start 18:00, end 09:00)');
      expect(semantic.body.detail).toContain('windows[1] and windows[2] overlap on Thursday (09:00–12:00 and 11:30–14:00).');
      const shapes = await post({ windows: [{ dayOfWeek: 0, start: '9:00', end: '24:30' }] });
      expect(shapes.body.errors.map((e: { field: string }) => e.field)).toEqual(['windows[0].dayOfWeek', 'windows[0].start', 'windows[0].end']);
      await post({ windows: [] });
      await post({ windows: undefined });
      await post({ staffId: 'nope' });
      const tooMany = await post({ windows: [...[1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, start: '09:00', end: '10:00' })), { dayOfWeek: 1, start: '11:00', end: '12:00' }] });
      expect(tooMany.body.errors).toEqual([{ field: 'windows', messages: [`windows has 8 entries; at most ${MAX_WINDOWS} are allowed (CHAT_SERVICE_TIME_MAX_WINDOWS).`] }]);
      await api('get', timePath).expect(400);
      await api('delete', `${timePath}?staffId=nope`).expect(400);
      await api('get', `${timePath}?staffId=${staff.id}`).expect(404);
    });

    it('answers 404 for an unknown digital staff on GET, POST and DELETE', async () => {
      expect((await api('get', `${timePath}?staffId=${UNKNOWN}`).expect(404)).body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
      expect((await api('post', timePath).send({ staffId: UNKNOWN, timeZone: 'UTC', windows: OFFICE }).expect(404)).body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
      expect((await api('delete', `${timePath}?staffId=${UNKNOWN}`).expect(404)).body.detail).toBe(`No digital staff ${UNKNOWN} in this tenant.`);
    });

    it('DigitalStaffService.inService: the configured windows in their zone; without a configuration always in service; 404 for unknown staff', async () => {
      const service = testApp.app.get(DigitalStaffService);
      const staff = await newStaff('Ivy');
      expect(await service.inService('acme', staff.id, new Date('2026-03-07T03:00:00Z'))).toBe(true);
      expect((await service.serviceTimeStatus('acme', staff.id)).reason).toBe('No service time is configured, so the digital staff is always in service.');
      await api('post', timePath).send({ staffId: staff.id, timeZone: 'America/New_York', windows: OFFICE }).expect(200);
      // 2026-03-09 is a Monday, the first weekday of daylight-saving time in New York (UTC-4).
      expect(await service.inService('acme', staff.id, new Date('2026-03-09T12:59:00Z'))).toBe(false); // 08:59 EDT
      expect(await service.inService('acme', staff.id, new Date('2026-03-09T13:00:00Z'))).toBe(true); // 09:00 EDT
      expect(await service.inService('acme', staff.id, new Date('2026-03-06T13:30:00Z'))).toBe(false); // Friday 08:30 EST
      expect(await service.inService('acme', staff.id, new Date('2026-03-07T15:00:00Z'))).toBe(false); // Saturday
      const status = await service.serviceTimeStatus('acme', staff.id, new Date('2026-03-07T15:00:00Z'));
      expect(status).toMatchObject({ inService: false, configured: true, timeZone: 'America/New_York', outOfHoursMessage: null });
      expect(status.reason).toContain('it is Saturday 10:00 there');
      await expect(service.inService('globex', staff.id)).rejects.toBeInstanceOf(NotFoundException);
      await expect(service.inService('acme', UNKNOWN)).rejects.toBeInstanceOf(NotFoundException);
    });
  });

  describe('tenant isolation and scopes', () => {
    let acmeStaff: { id: string };
    let globexStaff: { id: string };
    beforeAll(async () => {
      acmeStaff = await newStaff('Iso');
      globexStaff = await newStaff('Iso', otherStaffPath, otherToken);
      await newUser('iso', 'wwglobex', otherToken, 'globex');
      await api('post', otherTimePath, otherToken).send({ staffId: globexStaff.id, timeZone: 'UTC', windows: OFFICE }).expect(200);
    });

    it('403 for tenant acme\'s token on every route under globex\'s paths', async () => {
      const attempts = [
        api('post', otherStaffPath).send({ name: 'Sneaky', persona: 'p' }),
        api('get', otherStaffPath),
        api('get', `${otherStaffPath}/${globexStaff.id}`),
        api('put', `${otherStaffPath}/${globexStaff.id}`).send({ name: 'Hacked' }),
        api('delete', `${otherStaffPath}/${globexStaff.id}`),
        api('post', `${otherStaffPath}/bind`).send({ staffId: globexStaff.id, corpName: 'Globex', workChatUserIds: ['iso'] }),
        api('get', `${otherTimePath}?staffId=${globexStaff.id}`),
        api('post', otherTimePath).send({ staffId: globexStaff.id, timeZone: 'UTC', windows: OFFICE }),
        api('delete', `${otherTimePath}?staffId=${globexStaff.id}`),
      ];
      for (const response of await Promise.all(attempts)) {
        expect([response.status, response.body.detail]).toEqual([403, 'The access token is not valid for tenant "globex" (it is for: acme).']);
      }
    });

    it('404 for globex\'s ids through acme\'s own paths; globex\'s data is unchanged', async () => {
      await api('get', `${staffPath}/${globexStaff.id}`).expect(404);
      await api('put', `${staffPath}/${globexStaff.id}`).send({ name: 'Hacked' }).expect(404);
      await api('delete', `${staffPath}/${globexStaff.id}`).expect(404);
      await api('post', `${staffPath}/bind`).send({ staffId: globexStaff.id, corpName: 'Acme Retail', workChatUserIds: ['b1'] }).expect(404);
      await api('post', `${staffPath}/bind`).send({ staffId: acmeStaff.id, corpName: 'Globex', workChatUserIds: ['iso'] }).expect(404);
      await api('get', `${timePath}?staffId=${globexStaff.id}`).expect(404);
      await api('post', timePath).send({ staffId: globexStaff.id, timeZone: 'Asia/Tokyo', windows: OFFICE }).expect(404);
      await api('delete', `${timePath}?staffId=${globexStaff.id}`).expect(404);
      expect((await api('get', `${otherStaffPath}/${globexStaff.id}`, otherToken).expect(200)).body).toMatchObject({ name: 'Iso', boundStaffUserCount: 0 });
      expect((await api('get', `${otherTimePath}?staffId=${globexStaff.id}`, otherToken).expect(200)).body).toMatchObject({ timeZone: 'UTC', version: 1 });
    });

    it('403 on every write for a token without chat:write; reads are served', async () => {
      await api('get', staffPath, readOnly).expect(200);
      await api('get', `${staffPath}/${acmeStaff.id}`, readOnly).expect(200);
      await api('get', `${timePath}?staffId=${acmeStaff.id}`, readOnly).expect(404);
      const writes = [
        api('post', staffPath, readOnly).send({ name: 'RO', persona: 'p' }),
        api('put', `${staffPath}/${acmeStaff.id}`, readOnly).send({ name: 'RO' }),
        api('delete', `${staffPath}/${acmeStaff.id}`, readOnly),
        api('post', `${staffPath}/bind`, readOnly).send({ staffId: acmeStaff.id, corpName: 'Acme Retail', workChatUserIds: ['b1'] }),
        api('post', timePath, readOnly).send({ staffId: acmeStaff.id, timeZone: 'UTC', windows: OFFICE }),
        api('delete', `${timePath}?staffId=${acmeStaff.id}`, readOnly),
      ];
      for (const response of await Promise.all(writes)) {
        expect(response.status).toBe(403);
        expect(response.body.detail).toMatch(/^(POST|PUT|DELETE) operations need the chat:write scope, which the token lacks\.$/);
      }
      expect((await api('get', `${staffPath}/${acmeStaff.id}`).expect(200)).body.name).toBe('Iso');
    });
  });
});
