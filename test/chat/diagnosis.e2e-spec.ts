import { getDataSourceToken } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ContactWayEntity } from '../../src/chat/contact-ways/contact-way.entity';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { DigitalStaffServiceTimeEntity } from '../../src/chat/digital-staff/service-time.entity';
import type { ServiceTimeWindow } from '../../src/chat/digital-staff/service-time.rules';
import { WorkChatUserEntity } from '../../src/chat/staff-users/work-chat-user.entity';
import { type FakeChatPlatform, startFakeChatPlatform } from '../support/peers/fake-chat-platform';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/** Every day, all day (UTC): in service whenever the test runs. */
const ALWAYS: ServiceTimeWindow[] = [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day_of_week: day, start: '00:00', end: '24:00' }));
/** One window three days from today (UTC): out of service now, even if the test runs across midnight. */
function neverToday(): ServiceTimeWindow[] {
  const isoToday = ((new Date().getUTCDay() + 6) % 7) + 1;
  return [{ day_of_week: ((isoToday + 2) % 7) + 1, start: '09:00', end: '10:00' }];
}

type Check = { name: string; status: string; reason: string };
const statusesOf = (checks: Check[]) => Object.fromEntries(checks.map((entry) => [entry.name, entry.status]));
const checkOf = (body: { checks: Check[] }, name: string) => body.checks.find((entry) => entry.name === name)!;

/** What a seeded "world" is: a corp, a staff user bound to a digital staff with service time, a default contact way, a contact. */
interface World {
  corpId: string;
  platformCorpId: string;
  userId: string;
  workChatUserId: string;
  digitalStaffId: string;
  wayId: string;
  contactId: string;
}

interface WorldOptions {
  corp?: { secret?: string | null; enabled?: boolean };
  /** false: no staff user row. */
  staffUser?: boolean;
  /** false: the staff user is not bound. 'dangling': bound to an id that does not exist. */
  bound?: boolean | 'dangling';
  digitalStaffEnabled?: boolean;
  /** null: no service time. */
  windows?: ServiceTimeWindow[] | null;
  /** 'default' (default), 'plain' (a way, not default), 'none'. */
  way?: 'default' | 'plain' | 'none';
  aiEnabled?: boolean;
}

/**
 * Issue 5, Diagnosis (`POST {C}/workChat/diagnose`, operationId diagnoseWorkChat): 400 for neither or both ids,
 * every check's failing reason, the all-pass case for a contact and for a digital staff, the platform probe against
 * an HTTP platform that refuses or does not answer, and tenant isolation. Worlds are seeded through the corp API and
 * the entities of the staff, digital staff, contact way and contact areas.
 */
describe('diagnosis ({C}/workChat/diagnose)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let seq = 0;
  const diagnose = (body: unknown, tenant = 'acme', bearer = token) => request(testApp.baseUrl).post(`/api/${tenant}/console/workChat/diagnose`).auth(bearer, { type: 'bearer' }).send(body as object);

  /** Seeds one world in `tenant` (corp through the API, the rest as rows). */
  async function seedWorld(tenant: string, bearer: string, options: WorldOptions = {}): Promise<World> {
    const n = ++seq;
    const platformCorpId = `wwdiag${n}`;
    const corp = await request(testApp.baseUrl)
      .post(`/api/${tenant}/console/workChat/corps`)
      .auth(bearer, { type: 'bearer' })
      .send({ corpName: `Corp ${n}`, workChatCorpId: platformCorpId, ...(options.corp?.secret === null ? {} : { secret: options.corp?.secret ?? `secret-${n}` }), enabled: options.corp?.enabled ?? true })
      .expect(200);
    const corpId: string = corp.body.id;
    const workChatUserId = `staff${n}`;
    const staff = await dataSource.getRepository(DigitalStaffEntity).save({ tenantId: tenant, name: `Aria ${n}`, persona: 'You are Aria, a helpful shop assistant.', description: null, welcomeMessage: null, enabled: options.digitalStaffEnabled ?? true });
    if (options.windows !== null) {
      await dataSource.getRepository(DigitalStaffServiceTimeEntity).save({ digitalStaffId: staff.id, tenantId: tenant, timeZone: 'UTC', windows: options.windows ?? ALWAYS, outOfHoursMessage: 'We are closed; back soon.' });
    }
    const bound = options.bound ?? true;
    const user =
      options.staffUser === false
        ? undefined
        : await dataSource.getRepository(WorkChatUserEntity).save({
            tenantId: tenant, corpId, workChatUserId, userId: null, name: `Staff ${n}`, mobile: null, email: null, online: true,
            digitalStaffId: bound === 'dangling' ? randomUUID() : bound ? staff.id : null,
          });
    const way = options.way ?? 'default';
    let wayId = '';
    if (way !== 'none') {
      const row = await dataSource.getRepository(ContactWayEntity).save({
        tenantId: tenant, corpId, name: `Poster ${n}`, type: 1, scene: 2, state: `st${n}`, workChatUserIds: [workChatUserId], digitalStaffId: null,
        configId: `cfg${n}`, qrCode: `https://qr.example.test/${n}`, remark: null, skipVerify: true, channelName: null, relevanceCode: null,
        isDefault: way === 'default', defaultScope: way === 'default' ? `user:${corpId}:${workChatUserId}` : null, hidden: false,
      });
      wayId = String(row.id);
    }
    const contact = await dataSource.getRepository(ExternalContactEntity).save({
      tenantId: tenant, corpId, externalUserId: `wmext${n}`, openId: null, unionId: null, workChatUserId, name: `Customer ${n}`, avatarUrl: null, type: 1, gender: 0,
      customerCorpName: null, remark: null, description: null, remarkCompany: null, mobile: null, tags: [], state: `st${n}`, stateAt: new Date(), addWay: 1, addedAt: new Date(),
      aiEnabled: options.aiEnabled ?? true, profile: {}, lastMessageAt: null,
    });
    return { corpId, platformCorpId, userId: user?.id ?? '', workChatUserId, digitalStaffId: staff.id, wayId, contactId: contact.id };
  }

  beforeAll(async () => {
    testApp = await startTestApp();
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
  });
  afterAll(() => testApp?.close());

  it('documents the operation and its answer\'s schema in the OpenAPI document (the spec leaves it a free-form object)', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const operation = document.paths['/api/{tenant}/console/workChat/diagnose'].post;
    expect(operation.operationId).toBe('diagnoseWorkChat');
    expect(operation.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DiagnoseRequest' });
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DiagnoseResultDto' });
    const { schemas } = document.components;
    expect(Object.keys(schemas.DiagnoseRequest.properties).sort()).toEqual(['chatContactId', 'chatStaffId']);
    expect(schemas.DiagnoseResultDto.required).toEqual(expect.arrayContaining(['subject', 'healthy', 'summary', 'checks']));
    expect(schemas.DiagnosisCheckDto.properties.name.enum).toEqual(['contactExists', 'aiSwitch', 'staffUser', 'digitalStaff', 'serviceTime', 'defaultScene', 'conversationGroup', 'platformReachable']);
    expect(schemas.DiagnosisCheckDto.properties.status.enum).toEqual(['pass', 'warn', 'fail', 'skip']);
  });

  it('answers 400 with the reason for neither, both, non-UUID ids and unknown fields', async () => {
    const neither = await diagnose({}).expect(400);
    expect(neither.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(neither.body.detail).toBe('Give exactly one of chatContactId (diagnose a contact) or chatStaffId (diagnose a digital staff); the body names neither.');
    const both = await diagnose({ chatContactId: randomUUID(), chatStaffId: randomUUID() }).expect(400);
    expect(both.body.detail).toBe('Give exactly one of chatContactId (diagnose a contact) or chatStaffId (diagnose a digital staff), not both.');
    const notUuid = await diagnose({ chatContactId: 'abc' }).expect(400);
    expect(notUuid.body.errors).toEqual([{ field: 'chatContactId', messages: ['chatContactId must be a UUID (the id of an external contact)'] }]);
    const staffNotUuid = await diagnose({ chatStaffId: 42 }).expect(400);
    expect(staffNotUuid.body.errors).toEqual([expect.objectContaining({ field: 'chatStaffId' })]);
    await diagnose({ chatContactId: randomUUID(), extra: true }).expect(400);
  });

  it('passes every check of a contact that is set up (simulator), with the conversation group reported as not configured', async () => {
    const world = await seedWorld('acme', token);
    const response = await diagnose({ chatContactId: world.contactId }).expect(200);
    expect(response.body).toEqual({
      subject: 'contact',
      chatContactId: world.contactId,
      chatStaffId: null,
      healthy: true,
      summary: 'No check failed (7 passed; warning: conversationGroup).',
      platformMode: 'simulator',
      checkedAt: expect.any(String),
      checks: [
        { name: 'contactExists', status: 'pass', reason: `Contact Customer ${seq} (${world.contactId}) exists; added to staff user ${world.workChatUserId}.` },
        { name: 'aiSwitch', status: 'pass', reason: 'AI replies are switched on for this contact.' },
        { name: 'staffUser', status: 'pass', reason: `Staff user Staff ${seq} (${world.workChatUserId}) is bound to digital staff ${world.digitalStaffId}.` },
        { name: 'digitalStaff', status: 'pass', reason: `Digital staff Aria ${seq} (${world.digitalStaffId}) exists and is enabled.` },
        { name: 'serviceTime', status: 'pass', reason: expect.stringMatching(/^In service now \(\w+day \d{2}:\d{2} UTC\)\.$/) },
        { name: 'defaultScene', status: 'pass', reason: `Default contact way: Poster ${seq} (id ${world.wayId}).` },
        { name: 'conversationGroup', status: 'warn', reason: expect.stringContaining('Not configured') },
        { name: 'platformReachable', status: 'pass', reason: expect.stringMatching(new RegExp(`^The built-in simulator accepts the credentials of corp Corp ${seq} \\(\\d+ ms\\)\\.$`)) },
      ],
    });
    expect(Math.abs(Date.parse(response.body.checkedAt) - Date.now())).toBeLessThan(60_000);
  });

  it('passes every check of a digital staff that is set up (staff entry: chatStaffId is the digital staff id)', async () => {
    const world = await seedWorld('acme', token);
    const response = await diagnose({ chatStaffId: world.digitalStaffId }).expect(200);
    expect(response.body).toMatchObject({ subject: 'staff', chatContactId: null, chatStaffId: world.digitalStaffId, healthy: true });
    expect(response.body.checks.map((entry: Check) => [entry.name, entry.status])).toEqual([
      ['digitalStaff', 'pass'], ['staffUser', 'pass'], ['serviceTime', 'pass'], ['defaultScene', 'pass'], ['conversationGroup', 'warn'], ['platformReachable', 'pass'],
    ]);
    expect(checkOf(response.body, 'staffUser').reason).toBe(`Bound to 1 staff user: Staff ${seq} (${world.workChatUserId}).`);
  });

  it('fails contactExists for an unknown contact and skips the rest', async () => {
    const id = randomUUID();
    const response = await diagnose({ chatContactId: id }).expect(200);
    expect(response.body.healthy).toBe(false);
    expect(response.body.checks[0]).toEqual({ name: 'contactExists', status: 'fail', reason: expect.stringContaining(`No contact ${id} in this tenant.`) });
    expect(response.body.checks.slice(1).map((entry: Check) => entry.status)).toEqual(Array(7).fill('skip'));
    expect(response.body.summary).toBe('1 of 8 checks failed: contactExists; 7 not checked.');
  });

  it('fails aiSwitch when AI replies are off for the contact', async () => {
    const world = await seedWorld('acme', token, { aiEnabled: false });
    const response = await diagnose({ chatContactId: world.contactId }).expect(200);
    expect(statusesOf(response.body.checks)).toMatchObject({ aiSwitch: 'fail', staffUser: 'pass', serviceTime: 'pass', defaultScene: 'pass', platformReachable: 'pass' });
    expect(checkOf(response.body, 'aiSwitch').reason).toContain(`AI replies are switched off for this contact, so the digital staff stays silent. Switch them on: POST /api/{tenant}/console/workChat/${world.workChatUserId}/contact/external/${world.contactId}/ai/switch`);
    expect(response.body.summary).toBe('1 of 8 checks failed: aiSwitch; warning: conversationGroup.');
  });

  it('fails staffUser when the contact\'s staff user is unknown or not bound to a digital staff', async () => {
    const unknown = await seedWorld('acme', token, { staffUser: false });
    const first = await diagnose({ chatContactId: unknown.contactId }).expect(200);
    expect(statusesOf(first.body.checks)).toMatchObject({ staffUser: 'fail', digitalStaff: 'skip', serviceTime: 'skip' });
    expect(checkOf(first.body, 'staffUser').reason).toContain(`Staff user ${unknown.workChatUserId} of the contact's corp is not known to the console. Add it with POST /api/{tenant}/console/workChat/user`);

    const unbound = await seedWorld('acme', token, { bound: false });
    const second = await diagnose({ chatContactId: unbound.contactId }).expect(200);
    expect(statusesOf(second.body.checks)).toMatchObject({ staffUser: 'fail', digitalStaff: 'skip', serviceTime: 'skip', defaultScene: 'pass' });
    expect(checkOf(second.body, 'staffUser').reason).toContain('is not bound to a digital staff, so nobody answers its customers. Bind one: POST /api/{tenant}/v1/chat/staff/bind');
  });

  it('fails digitalStaff when the bound digital staff is disabled or gone', async () => {
    const disabled = await seedWorld('acme', token, { digitalStaffEnabled: false });
    const first = await diagnose({ chatContactId: disabled.contactId }).expect(200);
    expect(checkOf(first.body, 'digitalStaff')).toEqual({ name: 'digitalStaff', status: 'fail', reason: `Digital staff Aria ${seq} (${disabled.digitalStaffId}) is disabled and does not reply. Enable it: PUT /api/{tenant}/v1/chat/staff/${disabled.digitalStaffId} with enabled: true.` });

    const dangling = await seedWorld('acme', token, { bound: 'dangling' });
    const second = await diagnose({ chatContactId: dangling.contactId }).expect(200);
    expect(statusesOf(second.body.checks)).toMatchObject({ staffUser: 'pass', digitalStaff: 'fail', serviceTime: 'skip' });
    expect(checkOf(second.body, 'digitalStaff').reason).toMatch(/^The bound digital staff [0-9a-f-]{36} no longer exists\./);
  });

  it('fails serviceTime outside the windows, and passes without a configuration (always in service)', async () => {
    const none = await seedWorld('acme', token, { windows: null });
    const first = await diagnose({ chatContactId: none.contactId }).expect(200);
    expect(checkOf(first.body, 'serviceTime')).toEqual({
      name: 'serviceTime',
      status: 'pass',
      reason: `No service time is configured, so digital staff Aria ${seq} is always in service (limit it with POST /api/{tenant}/v1/chat/digital-staff/service-time).`,
    });

    const closed = await seedWorld('acme', token, { windows: neverToday() });
    const second = await diagnose({ chatContactId: closed.contactId }).expect(200);
    expect(checkOf(second.body, 'serviceTime').status).toBe('fail');
    expect(checkOf(second.body, 'serviceTime').reason).toMatch(/^Out of service now \(\w+day \d{2}:\d{2} UTC\); windows: \w{3} 09:00–10:00\. Customers writing now get the out-of-hours message\./);
    // The staff entry judges the same service time.
    const staff = await diagnose({ chatStaffId: closed.digitalStaffId }).expect(200);
    expect(checkOf(staff.body, 'serviceTime').status).toBe('fail');
  });

  it('fails defaultScene when no contact way serves the staff user, or none is the default', async () => {
    const none = await seedWorld('acme', token, { way: 'none' });
    const first = await diagnose({ chatContactId: none.contactId }).expect(200);
    expect(checkOf(first.body, 'defaultScene').reason).toBe(
      `No contact way serves staff user Staff ${seq} (${none.workChatUserId}), so new customers cannot add it through a scene code. Create one with digitalStaffId ${none.digitalStaffId}: POST /api/{tenant}/v1/chat/contact/way, then make it the default: PUT /api/{tenant}/v1/chat/contact/way/{id}/setDefault.`,
    );
    const plain = await seedWorld('acme', token, { way: 'plain' });
    const second = await diagnose({ chatContactId: plain.contactId }).expect(200);
    expect(checkOf(second.body, 'defaultScene')).toEqual({
      name: 'defaultScene',
      status: 'fail',
      reason: `1 contact way serves staff user Staff ${seq} (${plain.workChatUserId}), but none is the default. Mark one as default: PUT /api/{tenant}/v1/chat/contact/way/{id}/setDefault.`,
    });
    // A default of the digital staff (scope ds:) serves as well.
    await dataSource.getRepository(ContactWayEntity).update({ tenantId: 'acme', id: plain.wayId }, { digitalStaffId: plain.digitalStaffId, isDefault: true, defaultScope: `ds:${plain.digitalStaffId}` });
    const third = await diagnose({ chatContactId: plain.contactId }).expect(200);
    expect(checkOf(third.body, 'defaultScene').status).toBe('pass');
  });

  it('fails platformReachable for a corp without secret and a disabled corp', async () => {
    const noSecret = await seedWorld('acme', token, { corp: { secret: null } });
    const first = await diagnose({ chatContactId: noSecret.contactId }).expect(200);
    expect(checkOf(first.body, 'platformReachable')).toEqual({
      name: 'platformReachable',
      status: 'fail',
      reason: `Cannot reach the built-in simulator for corp Corp ${seq} has no application secret (set it: PUT /api/{tenant}/console/workChat/corps/${noSecret.corpId} with secret).`,
    });
    const disabled = await seedWorld('acme', token, { corp: { enabled: false } });
    const second = await diagnose({ chatContactId: disabled.contactId }).expect(200);
    expect(checkOf(second.body, 'platformReachable').reason).toContain(`corp Corp ${seq} is disabled (enable it: PUT /api/{tenant}/console/workChat/corps/${disabled.corpId} with enabled: true)`);
  });

  it('staff entry: fails digitalStaff for an unknown id, and staffUser when no staff user is bound', async () => {
    const id = randomUUID();
    const unknown = await diagnose({ chatStaffId: id }).expect(200);
    expect(unknown.body.checks[0]).toEqual({ name: 'digitalStaff', status: 'fail', reason: expect.stringContaining(`No digital staff ${id} in this tenant.`) });
    expect(unknown.body.checks.slice(1).every((entry: Check) => entry.status === 'skip')).toBe(true);

    const lonely = await seedWorld('acme', token, { bound: false });
    const response = await diagnose({ chatStaffId: lonely.digitalStaffId }).expect(200);
    expect(statusesOf(response.body.checks)).toMatchObject({ digitalStaff: 'pass', staffUser: 'fail', serviceTime: 'pass', defaultScene: 'fail', platformReachable: 'skip' });
    expect(checkOf(response.body, 'staffUser').reason).toContain(`Digital staff Aria ${seq} is bound to no staff user, so no customer reaches it.`);
  });

  it('keeps tenants apart: 403 on another tenant\'s path, and another tenant\'s ids are not found', async () => {
    const world = await seedWorld('acme', token);
    await diagnose({ chatContactId: world.contactId }, 'acme', otherToken).expect(403);
    const contact = await diagnose({ chatContactId: world.contactId }, 'globex', otherToken).expect(200);
    expect(contact.body.checks[0]).toEqual({ name: 'contactExists', status: 'fail', reason: expect.stringContaining(`No contact ${world.contactId} in this tenant.`) });
    expect(JSON.stringify(contact.body)).not.toContain(world.workChatUserId);
    const staff = await diagnose({ chatStaffId: world.digitalStaffId }, 'globex', otherToken).expect(200);
    expect(staff.body.checks[0]).toMatchObject({ name: 'digitalStaff', status: 'fail' });
    expect(staff.body.healthy).toBe(false);
    // POST needs chat:write, like every non-GET chat route.
    await diagnose({ chatContactId: world.contactId }, 'acme', readOnlyToken).expect(403);
  });

  describe('against an HTTP platform (fake platform server)', () => {
    let fake: FakeChatPlatform;
    let httpApp: TestApp;
    let httpToken: string;
    const httpDiagnose = (body: unknown) => request(httpApp.baseUrl).post('/api/acme/console/workChat/diagnose').auth(httpToken, { type: 'bearer' }).send(body as object);

    beforeAll(async () => {
      fake = await startFakeChatPlatform();
      httpApp = await startTestApp({ CHAT_PLATFORM_MODE: 'http', CHAT_PLATFORM_BASE_URL: fake.url, CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS: '300', CHAT_PLATFORM_HTTP_RETRIES: '0' });
      await newTenant(httpApp, 'acme');
      httpToken = (await builtInToken(httpApp.baseUrl, await newClient(httpApp, { tenantId: 'acme' }))).access_token;
    });
    afterAll(async () => {
      await httpApp?.close();
      await fake?.close();
    });

    /** A corp on the HTTP app with a contact whose corp is the only failing part. */
    async function httpWorld(secret: string): Promise<{ contactId: string; platformCorpId: string }> {
      const saved = { testApp, dataSource };
      testApp = httpApp;
      dataSource = httpApp.app.get<DataSource>(getDataSourceToken());
      try {
        const world = await seedWorld('acme', httpToken, { corp: { secret } });
        return { contactId: world.contactId, platformCorpId: world.platformCorpId };
      } finally {
        ({ testApp, dataSource } = saved);
      }
    }

    it('passes when the platform accepts the corp\'s credentials', async () => {
      const world = await httpWorld('right-secret');
      fake.addCorp(world.platformCorpId, 'right-secret');
      const response = await httpDiagnose({ chatContactId: world.contactId }).expect(200);
      expect(response.body).toMatchObject({ platformMode: 'http', healthy: true });
      expect(checkOf(response.body, 'platformReachable').reason).toMatch(/^The platform accepts the credentials of corp Corp \d+ \(\d+ ms\)\.$/);
      expect(fake.requests.filter((entry) => entry.path === '/cgi-bin/gettoken' && entry.query.corpid === world.platformCorpId)).toHaveLength(1);
    });

    it('fails with the platform\'s errcode when it refuses the credentials, and never shows the secret', async () => {
      const world = await httpWorld('wrong-secret-value');
      fake.addCorp(world.platformCorpId, 'the-real-secret');
      const response = await httpDiagnose({ chatContactId: world.contactId }).expect(200);
      const check = checkOf(response.body, 'platformReachable');
      expect(check.status).toBe('fail');
      expect(check.reason).toMatch(/^Cannot reach the platform for corp Corp \d+: Chat platform call verifyCredentials failed: errcode 40001 \(invalid credential\)/);
      expect(JSON.stringify(response.body)).not.toContain('wrong-secret-value');
    });

    it('fails within CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS when the platform does not answer', async () => {
      const world = await httpWorld('slow-secret');
      fake.addCorp(world.platformCorpId, 'slow-secret');
      fake.failNext('/cgi-bin/gettoken', { delayMs: 1000 });
      const started = Date.now();
      const response = await httpDiagnose({ chatContactId: world.contactId }).expect(200);
      expect(Date.now() - started).toBeLessThan(900);
      expect(checkOf(response.body, 'platformReachable')).toEqual({
        name: 'platformReachable',
        status: 'fail',
        reason: expect.stringMatching(/^Cannot reach the platform for corp Corp \d+: the platform did not answer within 300 ms/),
      });
    });
  });
});
