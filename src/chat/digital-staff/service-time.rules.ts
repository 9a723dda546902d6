/**
 * Service-time rules of a digital staff (chat-management-api.md, "Digital staff service time"; issue 5, Digital
 * staff: "weekly windows with a time zone, validated (no overlaps, end after start); a pure function answers 'is
 * this staff in service at instant t'"). Plain functions, no I/O.
 *
 * A configuration is a set of weekly windows in local wall-clock time of one IANA time zone. A window covers the
 * half-open minute range [start, end) of one ISO day of the week (1 = Monday … 7 = Sunday); `end` may be "24:00"
 * (the end of that day). A span over midnight is two windows (e.g. Friday 22:00–24:00 and Saturday 00:00–02:00).
 * Because windows are in wall-clock time, daylight-saving shifts are followed: a window 09:00–17:00 in
 * Europe/Berlin is 08:00–16:00 UTC in summer and 07:00–15:00 UTC in winter; local minutes skipped by a spring-forward
 * never occur, and minutes repeated by a fall-back are in service both times when the window covers them.
 */

/** One weekly window, as stored (jsonb of chat_digital_staff_service_time.windows). */
export interface ServiceTimeWindow {
  /** ISO day of the week: 1 = Monday … 7 = Sunday. */
  day_of_week: number;
  /** Local start time "HH:mm" (00:00..23:59), inclusive. */
  start: string;
  /** Local end time "HH:mm" (00:01..24:00), exclusive; after `start`. */
  end: string;
}

/** What {@link isInServiceTime} needs of a configuration. */
export interface ServiceTimeConfig {
  /** IANA time zone, e.g. `Asia/Shanghai`. */
  timeZone: string;
  windows: readonly ServiceTimeWindow[];
}

/** "HH:mm", 00:00..23:59, or 24:00 (allowed as an end only). */
const TIME_PATTERN = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
/** The shape of an IANA zone name: `Area/Location[/Sub]` or a single word such as `UTC`. */
const ZONE_PATTERN = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };
const DAY_NAMES = ['', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const formatters = new Map<string, Intl.DateTimeFormat>();

/**
 * Minutes since local midnight of "HH:mm" ("24:00" → 1440).
 * @throws Error when the text is not "HH:mm" (validate first with {@link validateServiceTime})
 */
export function minutesOfDay(time: string): number {
  if (!TIME_PATTERN.test(time)) throw new Error(`Not a time "HH:mm": ${time}`);
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** Whether `timeZone` is an IANA time zone name this runtime knows (Intl), e.g. `Europe/Berlin`, `UTC`. */
export function isValidTimeZone(timeZone: string): boolean {
  if (typeof timeZone !== 'string' || !ZONE_PATTERN.test(timeZone)) return false;
  try {
    formatterFor(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** One problem of a configuration: the request field (`timeZone`, `windows[2].end`, `windows`) and why. */
export interface ServiceTimeProblem {
  field: string;
  message: string;
}

/**
 * Checks a configuration and returns every problem as a sentence a person can act on (empty when valid): the time
 * zone is an IANA name, each window has a day of week 1..7 and "HH:mm" times with end after start, and windows of
 * the same day do not overlap (touching windows, 09:00–12:00 and 12:00–14:00, are fine).
 * @param config time zone and windows as received
 * @returns problems in the order found; `windows[i]` names a window by its index in the input
 */
export function validateServiceTime(config: ServiceTimeConfig): ServiceTimeProblem[] {
  const reasons: ServiceTimeProblem[] = [];
  const problem = (field: string, message: string) => reasons.push({ field, message });
  if (!isValidTimeZone(config.timeZone)) {
    problem('timeZone', `timeZone "${config.timeZone}" is not an IANA time zone (e.g. "Asia/Shanghai", "Europe/Berlin", "UTC").`);
  }
  const valid: { index: number; day: number; start: number; end: number }[] = [];
  config.windows.forEach((window, index) => {
    const at = `windows[${index}]`;
    let ok = true;
    if (!Number.isInteger(window.day_of_week) || window.day_of_week < 1 || window.day_of_week > 7) {
      problem(`${at}.dayOfWeek`, `${at}.dayOfWeek must be 1 (Monday) to 7 (Sunday).`);
      ok = false;
    }
    const startOk = TIME_PATTERN.test(window.start) && window.start !== '24:00';
    const endOk = TIME_PATTERN.test(window.end);
    if (!startOk) problem(`${at}.start`, `${at}.start must be a time "HH:mm" from 00:00 to 23:59, not "${window.start}".`);
    if (!endOk) problem(`${at}.end`, `${at}.end must be a time "HH:mm" from 00:01 to 24:00, not "${window.end}".`);
    if (startOk && endOk && minutesOfDay(window.end) <= minutesOfDay(window.start)) {
      problem(`${at}.end`, `${at} must end after it starts (start ${window.start}, end ${window.end}); split a span over midnight into two windows ending at 24:00 and starting at 00:00.`);
      ok = false;
    }
    if (ok && startOk && endOk) valid.push({ index, day: window.day_of_week, start: minutesOfDay(window.start), end: minutesOfDay(window.end) });
  });
  valid.sort((a, b) => a.day - b.day || a.start - b.start || a.index - b.index);
  // Sweep each day in start order, remembering the window that reaches furthest so far: a window starting before
  // that one ends overlaps it (this also catches a window nested in an earlier, longer one).
  let reach: (typeof valid)[number] | undefined;
  for (const current of valid) {
    if (reach && reach.day === current.day && current.start < reach.end) {
      const [first, second] = [reach, current].sort((a, b) => a.index - b.index);
      problem(
        `windows[${second.index}]`,
        `windows[${first.index}] and windows[${second.index}] overlap on ${DAY_NAMES[current.day]} (${describe(config.windows[first.index])} and ${describe(config.windows[second.index])}).`,
      );
    }
    if (!reach || reach.day !== current.day || current.end > reach.end) reach = current;
  }
  return reasons;
}

/**
 * Whether a digital staff with this configuration is in service at `instant`: the instant's local day of the week
 * and minute in `config.timeZone` fall inside a window ([start, end), minute precision: 17:00 is outside a window
 * ending 17:00, 16:59:59 is inside). Time-zone and DST aware (Intl). A configuration without windows is never in
 * service.
 * @param config a valid configuration ({@link validateServiceTime} returns no reasons)
 * @param instant the moment to check
 * @throws RangeError when the time zone is unknown
 */
export function isInServiceTime(config: ServiceTimeConfig, instant: Date): boolean {
  const { day, minute } = localDayAndMinute(config.timeZone, instant);
  return config.windows.some((window) => window.day_of_week === day && minutesOfDay(window.start) <= minute && minute < minutesOfDay(window.end));
}

/**
 * The ISO day of the week (1 = Monday … 7 = Sunday) and minute of the day (0..1439) of `instant` in `timeZone`.
 * @throws RangeError when the time zone is unknown
 */
export function localDayAndMinute(timeZone: string, instant: Date): { day: number; minute: number } {
  const local = localTime(timeZone, instant);
  return { day: local.weekday, minute: local.hour * 60 + local.minute };
}

/**
 * The wall-clock date and time of `instant` in `timeZone`: month 1..12, ISO weekday 1 (Monday) … 7, hour 0..23.
 * @throws RangeError when the time zone is unknown
 */
export function localTime(timeZone: string, instant: Date): { year: number; month: number; day: number; weekday: number; hour: number; minute: number } {
  const parts = formatterFor(timeZone).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = WEEKDAYS[part('weekday')];
  const result = { year: Number(part('year')), month: Number(part('month')), day: Number(part('day')), weekday, hour: Number(part('hour')) % 24, minute: Number(part('minute')) };
  if (!weekday || Object.values(result).some((value) => Number.isNaN(value))) throw new RangeError(`Cannot read the local time of ${instant.toISOString()} in ${timeZone}.`);
  return result;
}

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function describe(window: ServiceTimeWindow): string {
  return `${window.start}–${window.end}`;
}
