/**
 * One-click diagnosis rules (chat-management-api.md, Console endpoints: `POST {C}/workChat/diagnose`; issue 5,
 * Diagnosis): given the facts gathered about a contact or a digital staff, the list of named checks with pass/fail
 * and a reason a person can act on. Plain functions, no I/O: diagnosis.service.ts gathers the facts.
 *
 * Statuses: `pass`; `fail` (the digital staff will not answer until it is fixed); `warn` (worth knowing, does not
 * stop replies: today only the conversation group, which this version does not model yet); `skip` (could not be
 * checked because an earlier check failed, the reason names it). A diagnosis is healthy when no check failed.
 *
 * Contact entry (`chatContactId`): contactExists → aiSwitch → staffUser → digitalStaff → serviceTime →
 * defaultScene → conversationGroup → platformReachable.
 * Staff entry (`chatStaffId` = a digital staff id, the spec's ChatStaffDto): digitalStaff → staffUser (bound staff
 * users) → serviceTime → defaultScene → conversationGroup → platformReachable.
 */
import { isInServiceTime, localDayAndMinute, type ServiceTimeConfig } from '../digital-staff/service-time.rules';

/** Check statuses, in the order of severity shown to operators. */
export const DIAGNOSIS_CHECK_STATUSES = ['pass', 'warn', 'fail', 'skip'] as const;
export type DiagnosisCheckStatus = (typeof DIAGNOSIS_CHECK_STATUSES)[number];

/** Names of the checks (stable identifiers; clients may switch on them). */
export const DIAGNOSIS_CHECK_NAMES = ['contactExists', 'aiSwitch', 'staffUser', 'digitalStaff', 'serviceTime', 'defaultScene', 'conversationGroup', 'platformReachable'] as const;
export type DiagnosisCheckName = (typeof DIAGNOSIS_CHECK_NAMES)[number];

/** One check of a diagnosis. */
export interface DiagnosisCheck {
  name: DiagnosisCheckName;
  status: DiagnosisCheckStatus;
  /** What was found and, unless it passed, what to do about it. */
  reason: string;
}

/** A staff user as the rules need it. */
export interface StaffUserFact {
  id: string;
  name: string;
  /** The platform userid. */
  workChatUserId: string;
  corpId: string;
  digitalStaffId: string | null;
}

/** A digital staff as the rules need it. */
export interface DigitalStaffFact {
  id: string;
  name: string;
  enabled: boolean;
}

/** The contact ways that could serve a staff user / digital staff: how many exist, and the default one if any. */
export interface SceneFact {
  /** Visible (not hidden) contact ways of the tenant that list the staff user(s) or name the digital staff. */
  visibleWays: number;
  /** The default contact way of the staff user (scope `user:`) or of the digital staff (scope `ds:`), or null. */
  defaultWay: { id: string; name: string } | null;
}

/** The outcome of asking the platform to accept a corp's credentials (ChatPlatform.verifyCredentials). */
export type PlatformProbe = { ok: true; elapsedMs: number } | { ok: false; timedOut: boolean; detail: string };

/** A corp whose platform access the check covers, with the probe's outcome (absent when it was not probed). */
export interface CorpPlatformFact {
  corpId: string;
  corpName: string;
  enabled: boolean;
  hasSecret: boolean;
  /** Undefined when the corp was not probed (disabled, or no secret). */
  probe?: PlatformProbe;
}

/** Facts about the platform access: the adapter in use and the corps involved. */
export interface PlatformFact {
  mode: 'simulator' | 'http';
  /** The probe's time limit, ms (named in timeout reasons). */
  timeoutMs: number;
  corps: CorpPlatformFact[];
  /** Corp ids referenced (by the contact or staff users) that are not (or no longer) in the tenant. */
  missingCorpIds: string[];
}

/** What a contact diagnosis is computed from. */
export interface ContactDiagnosisFacts {
  /** The instant "now" of the service-time check. */
  now: Date;
  chatContactId: string;
  /** Null when no contact has this id in the tenant (the other checks are then skipped). */
  contact: { id: string; name: string; aiEnabled: boolean; workChatUserId: string; corpId: string } | null;
  /** The staff user the contact is added to (same tenant and corp), or null. */
  staffUser: StaffUserFact | null;
  /** The digital staff bound to that staff user, or null (unbound, or the bound id no longer exists). */
  digitalStaff: DigitalStaffFact | null;
  /** The digital staff's service time, or null when it has none (then it is always in service). */
  serviceTime: (ServiceTimeConfig & { outOfHoursMessage: string | null }) | null;
  scene: SceneFact;
  platform: PlatformFact;
}

/** What a staff (digital staff) diagnosis is computed from. */
export interface StaffDiagnosisFacts {
  now: Date;
  chatStaffId: string;
  /** Null when no digital staff has this id in the tenant (the other checks are then skipped). */
  digitalStaff: DigitalStaffFact | null;
  /** The staff users bound to it (any corp of the tenant). */
  boundUsers: StaffUserFact[];
  serviceTime: (ServiceTimeConfig & { outOfHoursMessage: string | null }) | null;
  scene: SceneFact;
  platform: PlatformFact;
}

const DAY_NAMES = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const SHORT_DAYS = ['', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
/** At most this many windows are spelled out in a service-time reason. */
const MAX_WINDOWS_SHOWN = 7;
/** At most this many bound staff users are named in a reason. */
const MAX_NAMES_SHOWN = 10;

const check = (name: DiagnosisCheckName, status: DiagnosisCheckStatus, reason: string): DiagnosisCheck => ({ name, status, reason });
const skip = (name: DiagnosisCheckName, because: string): DiagnosisCheck => check(name, 'skip', `Not checked: ${because}.`);

/**
 * The checks of a contact entry, in order. Every check is present; the ones that cannot be evaluated are `skip`.
 * @param facts gathered by the service for one contact id of one tenant
 */
export function diagnoseContact(facts: ContactDiagnosisFacts): DiagnosisCheck[] {
  const { contact, staffUser, digitalStaff } = facts;
  if (!contact) {
    const because = 'the contact was not found';
    return [
      check('contactExists', 'fail', `No contact ${facts.chatContactId} in this tenant. Use the id (\`id\`, the contact id) of an external contact of this tenant, e.g. from GET /api/{tenant}/console/workChat/{workChatUserId}/contact/external; customers appear once they add a staff user.`),
      ...(['aiSwitch', 'staffUser', 'digitalStaff', 'serviceTime', 'defaultScene', 'conversationGroup', 'platformReachable'] as const).map((name) => skip(name, because)),
    ];
  }
  const who = `${contact.name} (${contact.id})`;
  const checks: DiagnosisCheck[] = [check('contactExists', 'pass', `Contact ${who} exists; added to staff user ${contact.workChatUserId}.`)];
  checks.push(
    contact.aiEnabled
      ? check('aiSwitch', 'pass', 'AI replies are switched on for this contact.')
      : check('aiSwitch', 'fail', `AI replies are switched off for this contact, so the digital staff stays silent. Switch them on: POST /api/{tenant}/console/workChat/${contact.workChatUserId}/contact/external/${contact.id}/ai/switch (toggles) or POST /api/{tenant}/v1/workChat/contact/external/ai/switch.`),
  );

  if (!staffUser) {
    checks.push(check('staffUser', 'fail', `Staff user ${contact.workChatUserId} of the contact's corp is not known to the console. Add it with POST /api/{tenant}/console/workChat/user (workChatUserId ${contact.workChatUserId}) or sync the corp's staff, then bind it to a digital staff.`));
    checks.push(skip('digitalStaff', 'the staff user is not known'), skip('serviceTime', 'the staff user is not known'));
  } else if (!staffUser.digitalStaffId) {
    checks.push(check('staffUser', 'fail', `Staff user ${staffUser.name} (${staffUser.workChatUserId}) is not bound to a digital staff, so nobody answers its customers. Bind one: POST /api/{tenant}/v1/chat/staff/bind or POST /api/{tenant}/console/workChat/user/guide/bindDigitalStaff.`));
    checks.push(skip('digitalStaff', 'the staff user is not bound to a digital staff'), skip('serviceTime', 'the staff user is not bound to a digital staff'));
  } else {
    checks.push(check('staffUser', 'pass', `Staff user ${staffUser.name} (${staffUser.workChatUserId}) is bound to digital staff ${staffUser.digitalStaffId}.`));
    checks.push(digitalStaffCheck(digitalStaff, staffUser.digitalStaffId));
    checks.push(digitalStaff ? serviceTimeCheck(facts.serviceTime, digitalStaff, facts.now) : skip('serviceTime', 'the bound digital staff does not exist'));
  }

  const sceneOwner = staffUser ? `staff user ${staffUser.name} (${staffUser.workChatUserId})` : `staff user ${contact.workChatUserId}`;
  checks.push(sceneCheck(facts.scene, sceneOwner, digitalStaff));
  checks.push(conversationGroupCheck());
  checks.push(platformCheck(facts.platform));
  return checks;
}

/**
 * The checks of a staff entry (a digital staff), in order. Every check is present; the ones that cannot be
 * evaluated are `skip`.
 * @param facts gathered by the service for one digital staff id of one tenant
 */
export function diagnoseStaff(facts: StaffDiagnosisFacts): DiagnosisCheck[] {
  const { digitalStaff, boundUsers } = facts;
  if (!digitalStaff) {
    const because = 'the digital staff was not found';
    return [
      check('digitalStaff', 'fail', `No digital staff ${facts.chatStaffId} in this tenant. chatStaffId is the id of a digital staff (ChatStaffDto.id, from POST /api/{tenant}/v1/chat/staff); to diagnose one customer, send chatContactId instead.`),
      ...(['staffUser', 'serviceTime', 'defaultScene', 'conversationGroup', 'platformReachable'] as const).map((name) => skip(name, because)),
    ];
  }
  const checks: DiagnosisCheck[] = [digitalStaffCheck(digitalStaff, digitalStaff.id)];
  if (boundUsers.length === 0) {
    checks.push(check('staffUser', 'fail', `Digital staff ${digitalStaff.name} is bound to no staff user, so no customer reaches it. Bind staff users: POST /api/{tenant}/v1/chat/staff/bind or POST /api/{tenant}/console/workChat/user/guide/bindDigitalStaff.`));
  } else {
    const names = boundUsers.slice(0, MAX_NAMES_SHOWN).map((user) => `${user.name} (${user.workChatUserId})`);
    if (boundUsers.length > MAX_NAMES_SHOWN) names.push(`${boundUsers.length - MAX_NAMES_SHOWN} more`);
    checks.push(check('staffUser', 'pass', `Bound to ${boundUsers.length} staff user${boundUsers.length === 1 ? '' : 's'}: ${listNames(names, ', ')}.`));
  }
  checks.push(serviceTimeCheck(facts.serviceTime, digitalStaff, facts.now));
  checks.push(sceneCheck(facts.scene, `digital staff ${digitalStaff.name}`, digitalStaff));
  checks.push(conversationGroupCheck());
  checks.push(boundUsers.length === 0 && facts.platform.corps.length === 0 && facts.platform.missingCorpIds.length === 0 ? skip('platformReachable', 'no staff user is bound, so no corp is involved') : platformCheck(facts.platform));
  return checks;
}

/** Whether a list of checks is healthy: no check failed (warnings do not count; a skip always follows a failure). */
export function isHealthy(checks: readonly DiagnosisCheck[]): boolean {
  return checks.every((entry) => entry.status !== 'fail');
}

/** A one-line summary: "All 8 checks passed", or the failed and warned checks by name. */
export function summarize(checks: readonly DiagnosisCheck[]): string {
  const failed = checks.filter((entry) => entry.status === 'fail').map((entry) => entry.name);
  const warned = checks.filter((entry) => entry.status === 'warn').map((entry) => entry.name);
  const skipped = checks.filter((entry) => entry.status === 'skip').length;
  const passed = checks.filter((entry) => entry.status === 'pass').length;
  if (failed.length === 0) {
    return warned.length === 0 ? `All ${checks.length} checks passed.` : `No check failed (${passed} passed; warning: ${warned.join(', ')}).`;
  }
  const parts = [`${failed.length} of ${checks.length} checks failed: ${failed.join(', ')}`];
  if (warned.length > 0) parts.push(`warning: ${warned.join(', ')}`);
  if (skipped > 0) parts.push(`${skipped} not checked`);
  return `${parts.join('; ')}.`;
}

function digitalStaffCheck(digitalStaff: DigitalStaffFact | null, id: string): DiagnosisCheck {
  if (!digitalStaff) {
    return check('digitalStaff', 'fail', `The bound digital staff ${id} no longer exists. Bind the staff user to an existing digital staff (POST /api/{tenant}/v1/chat/staff/bind), or create one with POST /api/{tenant}/v1/chat/staff.`);
  }
  return digitalStaff.enabled
    ? check('digitalStaff', 'pass', `Digital staff ${digitalStaff.name} (${digitalStaff.id}) exists and is enabled.`)
    : check('digitalStaff', 'fail', `Digital staff ${digitalStaff.name} (${digitalStaff.id}) is disabled and does not reply. Enable it: PUT /api/{tenant}/v1/chat/staff/${digitalStaff.id} with enabled: true.`);
}

/**
 * In service now? With the local time and the windows in the reason, so the operator sees why. A digital staff
 * without a configuration is always in service (src/chat/digital-staff: serviceTimeStatus).
 */
function serviceTimeCheck(serviceTime: ContactDiagnosisFacts['serviceTime'], digitalStaff: DigitalStaffFact, now: Date): DiagnosisCheck {
  if (!serviceTime) {
    return check('serviceTime', 'pass', `No service time is configured, so digital staff ${digitalStaff.name} is always in service (limit it with POST /api/{tenant}/v1/chat/digital-staff/service-time).`);
  }
  let local: { day: number; minute: number };
  try {
    local = localDayAndMinute(serviceTime.timeZone, now);
  } catch {
    return check('serviceTime', 'fail', `The service time of digital staff ${digitalStaff.name} names the unknown time zone "${serviceTime.timeZone}". Save it again with an IANA time zone (POST /api/{tenant}/v1/chat/digital-staff/service-time).`);
  }
  const localText = `${DAY_NAMES[local.day]} ${clock(local.minute)} ${serviceTime.timeZone}`;
  if (serviceTime.windows.length === 0) {
    return check('serviceTime', 'fail', `The service time of digital staff ${digitalStaff.name} has no windows, so it is never in service. Add weekly windows: POST /api/{tenant}/v1/chat/digital-staff/service-time.`);
  }
  if (isInServiceTime(serviceTime, now)) {
    return check('serviceTime', 'pass', `In service now (${localText}).`);
  }
  const outOfHours = serviceTime.outOfHoursMessage ? ' Customers writing now get the out-of-hours message.' : ' Customers writing now get no reply (no out-of-hours message is set).';
  return check('serviceTime', 'fail', `Out of service now (${localText}); windows: ${describeWindows(serviceTime.windows)}.${outOfHours} If it should answer now, widen the windows: POST /api/{tenant}/v1/chat/digital-staff/service-time.`);
}

function sceneCheck(scene: SceneFact, owner: string, digitalStaff: DigitalStaffFact | null): DiagnosisCheck {
  if (scene.defaultWay) {
    return check('defaultScene', 'pass', `Default contact way: ${scene.defaultWay.name} (id ${scene.defaultWay.id}).`);
  }
  if (scene.visibleWays === 0) {
    const staffHint = digitalStaff ? ` with digitalStaffId ${digitalStaff.id}` : '';
    return check('defaultScene', 'fail', `No contact way serves ${owner}, so new customers cannot add it through a scene code. Create one${staffHint}: POST /api/{tenant}/v1/chat/contact/way, then make it the default: PUT /api/{tenant}/v1/chat/contact/way/{id}/setDefault.`);
  }
  return check('defaultScene', 'fail', `${scene.visibleWays} contact way${scene.visibleWays === 1 ? '' : 's'} serve${scene.visibleWays === 1 ? 's' : ''} ${owner}, but none is the default. Mark one as default: PUT /api/{tenant}/v1/chat/contact/way/{id}/setDefault.`);
}

/** Conversation groups (automation flows) are part of the second half of the chat spec: reported, not judged. */
function conversationGroupCheck(): DiagnosisCheck {
  return check('conversationGroup', 'warn', 'Not configured: this version does not model conversation groups yet, so none is assigned. Replies follow the digital staff\'s persona alone; nothing to do until conversation groups are available.');
}

function platformCheck(platform: PlatformFact): DiagnosisCheck {
  const problems: string[] = [];
  const fine: string[] = [];
  for (const corpId of platform.missingCorpIds) problems.push(`corp ${corpId} is not linked to this tenant (link it with POST /api/{tenant}/console/workChat/corps)`);
  for (const corp of platform.corps) {
    const name = `corp ${corp.corpName}`;
    if (!corp.enabled) problems.push(`${name} is disabled (enable it: PUT /api/{tenant}/console/workChat/corps/${corp.corpId} with enabled: true)`);
    else if (!corp.hasSecret) problems.push(`${name} has no application secret (set it: PUT /api/{tenant}/console/workChat/corps/${corp.corpId} with secret)`);
    else if (!corp.probe) problems.push(`${name} was not probed`);
    else if (corp.probe.ok) fine.push(`${name} (${corp.probe.elapsedMs} ms)`);
    else if (corp.probe.timedOut) problems.push(`${name}: the platform did not answer within ${platform.timeoutMs} ms (check the network path to the platform and CHAT_PLATFORM_BASE_URL)`);
    else problems.push(`${name}: ${corp.probe.detail.replace(/[.\s]+$/, '')}`);
  }
  const adapter = platform.mode === 'simulator' ? 'the built-in simulator' : 'the platform';
  if (problems.length > 0) return check('platformReachable', 'fail', `Cannot reach ${adapter} for ${listNames(problems)}.`);
  if (fine.length === 0) return check('platformReachable', 'fail', 'No corp is involved, so the platform cannot be reached for it.');
  return check('platformReachable', 'pass', `${platform.mode === 'simulator' ? 'The built-in simulator' : 'The platform'} accepts the credentials of ${listNames(fine)}.`);
}

function describeWindows(windows: ServiceTimeConfig['windows']): string {
  const sorted = [...windows].sort((a, b) => a.day_of_week - b.day_of_week || a.start.localeCompare(b.start));
  const shown = sorted.slice(0, MAX_WINDOWS_SHOWN).map((window) => `${SHORT_DAYS[window.day_of_week] ?? `day ${window.day_of_week}`} ${window.start}–${window.end}`);
  return sorted.length > MAX_WINDOWS_SHOWN ? `${shown.join(', ')} and ${sorted.length - MAX_WINDOWS_SHOWN} more` : shown.join(', ');
}

function clock(minute: number): string {
  return `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
}

function listNames(items: readonly string[], separator = '; '): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(separator)} and ${items.at(-1)}`;
}
