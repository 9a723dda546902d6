import { isInServiceTime, localTime, minutesOfDay, type ServiceTimeConfig } from '../digital-staff/service-time.rules';

/**
 * The out-of-service window of a digital staff (issue 6, "The inbound pipeline": the out-of-hours message is sent
 * once per out-of-service window per contact). Pure functions, no I/O.
 *
 * Definition: an **out-of-service window** is a maximal stretch of time in which the digital staff is not in service
 * (service-time.rules.ts `isInServiceTime`): it starts at the instant the last service window before it ended — the
 * local `end` wall-clock time of a weekly window, in the configuration's time zone, that is not immediately followed
 * by another window (Friday 22:00–24:00 followed by Saturday 00:00–02:00 is one service stretch) — and it lasts until
 * the next service window starts. Every instant inside one out-of-service window has the same start, so the start
 * is the key "(tenant, contact, window start)" that lets the pipeline send the message once per window.
 *
 * A configuration without windows is never in service: its one endless out-of-service window starts at
 * {@link NEVER_IN_SERVICE_START} (the Unix epoch). A changed configuration may give a different start (and so one
 * more out-of-hours message) for the same customer.
 */

/** The start of the single out-of-service window of a configuration without service windows. */
export const NEVER_IN_SERVICE_START = new Date(0);

/** Days looked back for the last window end: a week plus one day covers every weekly window. */
const LOOKBACK_DAYS = 8;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The start of the out-of-service window that contains `instant`.
 * @param config a valid service-time configuration (validateServiceTime gives no problems)
 * @param instant a moment at which the digital staff is out of service
 * @returns the instant the window started (UTC), or {@link NEVER_IN_SERVICE_START} for a configuration without
 *   windows; null when the digital staff is in service at `instant` (there is no out-of-service window then)
 * @throws RangeError when the time zone is unknown
 */
export function outOfServiceWindowStart(config: ServiceTimeConfig, instant: Date): Date | null {
  if (isInServiceTime(config, instant)) return null;
  if (config.windows.length === 0) return NEVER_IN_SERVICE_START;
  const today = localTime(config.timeZone, instant);
  let latest: number | null = null;
  for (let back = 0; back <= LOOKBACK_DAYS; back++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day) - back * DAY_MS);
    const weekday = ((((today.weekday - 1 - back) % 7) + 7) % 7) + 1;
    for (const window of config.windows) {
      if (window.day_of_week !== weekday) continue;
      const end = zonedInstant(config.timeZone, date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate(), minutesOfDay(window.end));
      if (end.getTime() > instant.getTime()) continue;
      // An end followed at once by another window (touching windows, a span over midnight) does not end service.
      if (isInServiceTime(config, end)) continue;
      if (latest === null || end.getTime() > latest) latest = end.getTime();
    }
  }
  // Unreachable for a valid configuration with windows (some window ended within the last 8 days).
  return latest === null ? NEVER_IN_SERVICE_START : new Date(latest);
}

/**
 * The UTC instant of a local wall-clock time in `timeZone` (minute `minuteOfDay` of the local date; 1440 = the next
 * day's 00:00). A wall-clock time skipped by a daylight-saving change maps to the instant one offset later; a
 * repeated one to its first occurrence or second, deterministically.
 */
export function zonedInstant(timeZone: string, year: number, month: number, day: number, minuteOfDay: number): Date {
  const wall = Date.UTC(year, month - 1, day, 0, minuteOfDay);
  let guess = wall - offsetMinutes(timeZone, new Date(wall)) * 60_000;
  guess = wall - offsetMinutes(timeZone, new Date(guess)) * 60_000;
  return new Date(guess);
}

/** Minutes `timeZone` is ahead of UTC at `instant` (e.g. 480 for Asia/Shanghai). */
export function offsetMinutes(timeZone: string, instant: Date): number {
  const local = localTime(timeZone, instant);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute);
  return Math.round((asUtc - Math.floor(instant.getTime() / 60_000) * 60_000) / 60_000);
}
