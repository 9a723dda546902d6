import { type ContactDiagnosisFacts, type DiagnosisCheck, diagnoseContact, diagnoseStaff, isHealthy, type StaffDiagnosisFacts, summarize } from './diagnosis.rules';

// Wednesday 2025-06-11 10:30 in Europe/Berlin (CEST, UTC+2).
const WEDNESDAY_MORNING = new Date('2025-06-11T08:30:00Z');
// Wednesday 2025-06-11 20:00 in Europe/Berlin.
const WEDNESDAY_EVENING = new Date('2025-06-11T18:00:00Z');
const OFFICE_HOURS = [1, 2, 3, 4, 5].map((day) => ({ day_of_week: day, start: '09:00', end: '18:00' }));

const CONTACT_ID = '11111111-1111-4111-8111-111111111111';
const STAFF_ID = '22222222-2222-4222-8222-222222222222';
const CORP_ID = '33333333-3333-4333-8333-333333333333';

function healthyContact(): ContactDiagnosisFacts {
  return {
    now: WEDNESDAY_MORNING,
    chatContactId: CONTACT_ID,
    contact: { id: CONTACT_ID, name: 'Li Lei', aiEnabled: true, workChatUserId: 'zhangsan', corpId: CORP_ID },
    staffUser: { id: 'u-1', name: 'Zhang San', workChatUserId: 'zhangsan', corpId: CORP_ID, digitalStaffId: STAFF_ID },
    digitalStaff: { id: STAFF_ID, name: 'Aria', enabled: true },
    serviceTime: { timeZone: 'Europe/Berlin', windows: OFFICE_HOURS, outOfHoursMessage: 'Back at 9.' },
    scene: { visibleWays: 1, defaultWay: { id: '7', name: 'Store poster' } },
    platform: { mode: 'simulator', timeoutMs: 3000, corps: [{ corpId: CORP_ID, corpName: 'Acme', enabled: true, hasSecret: true, probe: { ok: true, elapsedMs: 2 } }], missingCorpIds: [] },
  };
}

function healthyStaff(): StaffDiagnosisFacts {
  const contact = healthyContact();
  return {
    now: contact.now,
    chatStaffId: STAFF_ID,
    digitalStaff: contact.digitalStaff,
    boundUsers: [contact.staffUser!],
    serviceTime: contact.serviceTime,
    scene: contact.scene,
    platform: contact.platform,
  };
}

const byName = (checks: DiagnosisCheck[]) => Object.fromEntries(checks.map((entry) => [entry.name, entry]));
const statuses = (checks: DiagnosisCheck[]) => Object.fromEntries(checks.map((entry) => [entry.name, entry.status]));

describe('diagnoseContact', () => {
  it('passes every check of a contact that is set up, with a warning for the conversation group', () => {
    const checks = diagnoseContact(healthyContact());
    expect(checks.map((entry) => entry.name)).toEqual(['contactExists', 'aiSwitch', 'staffUser', 'digitalStaff', 'serviceTime', 'defaultScene', 'conversationGroup', 'platformReachable']);
    expect(statuses(checks)).toEqual({
      contactExists: 'pass', aiSwitch: 'pass', staffUser: 'pass', digitalStaff: 'pass', serviceTime: 'pass', defaultScene: 'pass', conversationGroup: 'warn', platformReachable: 'pass',
    });
    expect(byName(checks).serviceTime.reason).toBe('In service now (Wednesday 10:30 Europe/Berlin).');
    expect(byName(checks).conversationGroup.reason).toMatch(/^Not configured: this version does not model conversation groups yet/);
    expect(byName(checks).platformReachable.reason).toBe('The built-in simulator accepts the credentials of corp Acme (2 ms).');
    expect(isHealthy(checks)).toBe(true);
    expect(summarize(checks)).toBe('No check failed (7 passed; warning: conversationGroup).');
  });

  it('fails contactExists and skips everything else for an unknown contact', () => {
    const checks = diagnoseContact({ ...healthyContact(), contact: null });
    expect(checks[0]).toEqual({ name: 'contactExists', status: 'fail', reason: expect.stringContaining(`No contact ${CONTACT_ID} in this tenant.`) });
    expect(checks.slice(1).every((entry) => entry.status === 'skip' && entry.reason === 'Not checked: the contact was not found.')).toBe(true);
    expect(checks).toHaveLength(8);
    expect(isHealthy(checks)).toBe(false);
    expect(summarize(checks)).toBe('1 of 8 checks failed: contactExists; 7 not checked.');
  });

  it('fails aiSwitch when AI replies are off, naming the switch operation', () => {
    const facts = healthyContact();
    facts.contact!.aiEnabled = false;
    const checks = diagnoseContact(facts);
    expect(statuses(checks)).toMatchObject({ aiSwitch: 'fail', staffUser: 'pass', serviceTime: 'pass' });
    expect(byName(checks).aiSwitch.reason).toContain(`POST /api/{tenant}/console/workChat/zhangsan/contact/external/${CONTACT_ID}/ai/switch`);
  });

  it('fails staffUser when the staff user is unknown, and skips the digital staff and service time', () => {
    const checks = diagnoseContact({ ...healthyContact(), staffUser: null, digitalStaff: null });
    expect(statuses(checks)).toMatchObject({ staffUser: 'fail', digitalStaff: 'skip', serviceTime: 'skip', defaultScene: 'pass', platformReachable: 'pass' });
    expect(byName(checks).staffUser.reason).toContain('Staff user zhangsan of the contact\'s corp is not known to the console');
  });

  it('fails staffUser when the staff user is not bound to a digital staff', () => {
    const facts = healthyContact();
    facts.staffUser!.digitalStaffId = null;
    const checks = diagnoseContact({ ...facts, digitalStaff: null });
    expect(statuses(checks)).toMatchObject({ staffUser: 'fail', digitalStaff: 'skip', serviceTime: 'skip' });
    expect(byName(checks).staffUser.reason).toMatch(/is not bound to a digital staff.*POST \/api\/\{tenant\}\/v1\/chat\/staff\/bind/);
  });

  it('fails digitalStaff when the bound digital staff is gone or disabled', () => {
    const gone = diagnoseContact({ ...healthyContact(), digitalStaff: null });
    expect(statuses(gone)).toMatchObject({ staffUser: 'pass', digitalStaff: 'fail', serviceTime: 'skip' });
    expect(byName(gone).digitalStaff.reason).toContain(`The bound digital staff ${STAFF_ID} no longer exists.`);
    const disabled = diagnoseContact({ ...healthyContact(), digitalStaff: { id: STAFF_ID, name: 'Aria', enabled: false } });
    expect(statuses(disabled)).toMatchObject({ digitalStaff: 'fail', serviceTime: 'pass' });
    expect(byName(disabled).digitalStaff.reason).toContain('is disabled and does not reply');
  });

  it('fails serviceTime outside the windows (local time in the zone, windows listed) and without windows', () => {
    const evening = diagnoseContact({ ...healthyContact(), now: WEDNESDAY_EVENING });
    expect(byName(evening).serviceTime).toEqual({
      name: 'serviceTime',
      status: 'fail',
      reason: 'Out of service now (Wednesday 20:00 Europe/Berlin); windows: Mon 09:00–18:00, Tue 09:00–18:00, Wed 09:00–18:00, Thu 09:00–18:00, Fri 09:00–18:00. Customers writing now get the out-of-hours message. If it should answer now, widen the windows: POST /api/{tenant}/v1/chat/digital-staff/service-time.',
    });
    // The same instant is in service in a zone where it is 10:00 on Thursday.
    const tokyo = diagnoseContact({ ...healthyContact(), now: new Date('2025-06-12T01:00:00Z'), serviceTime: { timeZone: 'Asia/Tokyo', windows: OFFICE_HOURS, outOfHoursMessage: null } });
    expect(byName(tokyo).serviceTime.reason).toBe('In service now (Thursday 10:00 Asia/Tokyo).');
    const empty = diagnoseContact({ ...healthyContact(), serviceTime: { timeZone: 'UTC', windows: [], outOfHoursMessage: null } });
    expect(byName(empty).serviceTime.reason).toContain('has no windows');
  });

  it('fails defaultScene with a reason that depends on whether any contact way exists', () => {
    const noWays = diagnoseContact({ ...healthyContact(), scene: { visibleWays: 0, defaultWay: null } });
    expect(byName(noWays).defaultScene.reason).toContain(`No contact way serves staff user Zhang San (zhangsan)`);
    expect(byName(noWays).defaultScene.reason).toContain(`with digitalStaffId ${STAFF_ID}: POST /api/{tenant}/v1/chat/contact/way`);
    const noDefault = diagnoseContact({ ...healthyContact(), scene: { visibleWays: 2, defaultWay: null } });
    expect(byName(noDefault).defaultScene).toEqual({
      name: 'defaultScene',
      status: 'fail',
      reason: '2 contact ways serve staff user Zhang San (zhangsan), but none is the default. Mark one as default: PUT /api/{tenant}/v1/chat/contact/way/{id}/setDefault.',
    });
  });

  it('fails platformReachable for a disabled corp, a corp without secret, a refused or slow probe, and a missing corp', () => {
    const corp = healthyContact().platform.corps[0];
    const platform = (corps: typeof corp[], missingCorpIds: string[] = [], mode: 'simulator' | 'http' = 'http') => byName(diagnoseContact({ ...healthyContact(), platform: { mode, timeoutMs: 3000, corps, missingCorpIds } })).platformReachable;
    expect(platform([{ ...corp, enabled: false, probe: undefined }]).reason).toBe(`Cannot reach the platform for corp Acme is disabled (enable it: PUT /api/{tenant}/console/workChat/corps/${CORP_ID} with enabled: true).`);
    expect(platform([{ ...corp, hasSecret: false, probe: undefined }]).reason).toContain('corp Acme has no application secret');
    expect(platform([{ ...corp, probe: { ok: false, timedOut: true, detail: 'timeout' } }]).reason).toContain('the platform did not answer within 3000 ms');
    const refused = platform([{ ...corp, probe: { ok: false, timedOut: false, detail: 'Chat platform call verifyCredentials failed: errcode 40001 (invalid secret).' } }]);
    expect(refused).toEqual({ name: 'platformReachable', status: 'fail', reason: 'Cannot reach the platform for corp Acme: Chat platform call verifyCredentials failed: errcode 40001 (invalid secret).' });
    expect(platform([], [CORP_ID]).reason).toContain(`corp ${CORP_ID} is not linked to this tenant`);
    expect(platform([corp], [], 'http')).toEqual({ name: 'platformReachable', status: 'pass', reason: 'The platform accepts the credentials of corp Acme (2 ms).' });
  });

  it('passes serviceTime without a configuration: the digital staff is then always in service', () => {
    const none = diagnoseContact({ ...healthyContact(), now: WEDNESDAY_EVENING, serviceTime: null });
    expect(byName(none).serviceTime).toEqual({ name: 'serviceTime', status: 'pass', reason: 'No service time is configured, so digital staff Aria is always in service (limit it with POST /api/{tenant}/v1/chat/digital-staff/service-time).' });
  });

  it('reports several failures in the summary', () => {
    const facts = healthyContact();
    facts.contact!.aiEnabled = false;
    const checks = diagnoseContact({ ...facts, now: WEDNESDAY_EVENING, scene: { visibleWays: 0, defaultWay: null } });
    expect(summarize(checks)).toBe('3 of 8 checks failed: aiSwitch, serviceTime, defaultScene; warning: conversationGroup.');
  });
});

describe('diagnoseStaff', () => {
  it('passes a digital staff that is set up', () => {
    const checks = diagnoseStaff(healthyStaff());
    expect(checks.map((entry) => [entry.name, entry.status])).toEqual([
      ['digitalStaff', 'pass'], ['staffUser', 'pass'], ['serviceTime', 'pass'], ['defaultScene', 'pass'], ['conversationGroup', 'warn'], ['platformReachable', 'pass'],
    ]);
    expect(byName(checks).staffUser.reason).toBe('Bound to 1 staff user: Zhang San (zhangsan).');
    expect(isHealthy(checks)).toBe(true);
  });

  it('fails digitalStaff and skips the rest for an unknown id', () => {
    const checks = diagnoseStaff({ ...healthyStaff(), digitalStaff: null });
    expect(checks[0].status).toBe('fail');
    expect(checks[0].reason).toContain(`No digital staff ${STAFF_ID} in this tenant.`);
    expect(checks.slice(1).map((entry) => entry.status)).toEqual(['skip', 'skip', 'skip', 'skip', 'skip']);
  });

  it('fails staffUser when nothing is bound and skips the platform (no corp involved)', () => {
    const checks = diagnoseStaff({ ...healthyStaff(), boundUsers: [], platform: { mode: 'simulator', timeoutMs: 3000, corps: [], missingCorpIds: [] } });
    expect(statuses(checks)).toMatchObject({ staffUser: 'fail', serviceTime: 'pass', platformReachable: 'skip' });
    expect(byName(checks).staffUser.reason).toContain('is bound to no staff user');
  });

  it('lists every corp that cannot be reached', () => {
    const corp = healthyStaff().platform.corps[0];
    const checks = diagnoseStaff({
      ...healthyStaff(),
      platform: { mode: 'http', timeoutMs: 500, missingCorpIds: [], corps: [corp, { ...corp, corpId: 'c2', corpName: 'Beta', probe: { ok: false, timedOut: true, detail: '' } }, { ...corp, corpId: 'c3', corpName: 'Gamma', hasSecret: false, probe: undefined }] },
    });
    expect(byName(checks).platformReachable.reason).toBe(
      'Cannot reach the platform for corp Beta: the platform did not answer within 500 ms (check the network path to the platform and CHAT_PLATFORM_BASE_URL) and corp Gamma has no application secret (set it: PUT /api/{tenant}/console/workChat/corps/c3 with secret).',
    );
  });
});
