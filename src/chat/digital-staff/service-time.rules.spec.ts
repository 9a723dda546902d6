import { isInServiceTime, isValidTimeZone, localDayAndMinute, minutesOfDay, ServiceTimeConfig, ServiceTimeWindow, validateServiceTime } from './service-time.rules';

const w = (day_of_week: number, start: string, end: string): ServiceTimeWindow => ({ day_of_week, start, end });
const at = (iso: string) => new Date(iso);

describe('service-time rules (chat-management-api.md, Digital staff service time)', () => {
  describe('isInServiceTime', () => {
    it('uses [start, end) at minute precision in a zone without DST (Asia/Shanghai, UTC+8)', () => {
      const config: ServiceTimeConfig = { timeZone: 'Asia/Shanghai', windows: [w(1, '09:00', '18:00')] };
      // 2026-03-02 is a Monday.
      expect(isInServiceTime(config, at('2026-03-02T00:59:59Z'))).toBe(false); // 08:59:59 local
      expect(isInServiceTime(config, at('2026-03-02T01:00:00Z'))).toBe(true); // 09:00
      expect(isInServiceTime(config, at('2026-03-02T09:59:59Z'))).toBe(true); // 17:59:59
      expect(isInServiceTime(config, at('2026-03-02T10:00:00Z'))).toBe(false); // 18:00
      // Tuesday at the same local time: no window that day.
      expect(isInServiceTime(config, at('2026-03-03T02:00:00Z'))).toBe(false);
    });

    it('follows wall-clock time across DST in Europe/Berlin (09:00 local is 08:00 UTC in winter, 07:00 UTC in summer)', () => {
      const config: ServiceTimeConfig = { timeZone: 'Europe/Berlin', windows: [w(1, '09:00', '17:00')] };
      expect(isInServiceTime(config, at('2026-01-05T07:59:00Z'))).toBe(false); // Mon 08:59 CET
      expect(isInServiceTime(config, at('2026-01-05T08:00:00Z'))).toBe(true); // Mon 09:00 CET
      expect(isInServiceTime(config, at('2026-07-06T06:59:00Z'))).toBe(false); // Mon 08:59 CEST
      expect(isInServiceTime(config, at('2026-07-06T07:00:00Z'))).toBe(true); // Mon 09:00 CEST
      expect(isInServiceTime(config, at('2026-07-06T14:59:00Z'))).toBe(true); // Mon 16:59 CEST
      expect(isInServiceTime(config, at('2026-07-06T15:00:00Z'))).toBe(false); // Mon 17:00 CEST
    });

    it('handles the skipped and the repeated hour of America/New_York (2026-03-08 and 2026-11-01, Sundays)', () => {
      const springGap: ServiceTimeConfig = { timeZone: 'America/New_York', windows: [w(7, '02:00', '03:00')] };
      expect(isInServiceTime(springGap, at('2026-03-08T06:59:00Z'))).toBe(false); // 01:59 EST
      expect(isInServiceTime(springGap, at('2026-03-08T07:00:00Z'))).toBe(false); // 03:00 EDT: 02:xx never happened
      const aroundGap: ServiceTimeConfig = { timeZone: 'America/New_York', windows: [w(7, '01:00', '04:00')] };
      expect(isInServiceTime(aroundGap, at('2026-03-08T07:30:00Z'))).toBe(true); // 03:30 EDT
      expect(isInServiceTime(aroundGap, at('2026-03-08T08:00:00Z'))).toBe(false); // 04:00 EDT
      const repeated: ServiceTimeConfig = { timeZone: 'America/New_York', windows: [w(7, '01:00', '02:00')] };
      expect(isInServiceTime(repeated, at('2026-11-01T05:30:00Z'))).toBe(true); // 01:30 EDT
      expect(isInServiceTime(repeated, at('2026-11-01T06:30:00Z'))).toBe(true); // 01:30 EST, the second time
      expect(isInServiceTime(repeated, at('2026-11-01T07:00:00Z'))).toBe(false); // 02:00 EST
    });

    it('handles a half-hour offset (Asia/Kolkata, UTC+5:30) and a half-hour DST shift (Australia/Lord_Howe)', () => {
      const kolkata: ServiceTimeConfig = { timeZone: 'Asia/Kolkata', windows: [w(1, '09:00', '17:30')] };
      expect(isInServiceTime(kolkata, at('2026-03-02T03:29:00Z'))).toBe(false); // 08:59
      expect(isInServiceTime(kolkata, at('2026-03-02T03:30:00Z'))).toBe(true); // 09:00
      expect(isInServiceTime(kolkata, at('2026-03-02T11:59:00Z'))).toBe(true); // 17:29
      expect(isInServiceTime(kolkata, at('2026-03-02T12:00:00Z'))).toBe(false); // 17:30
      // Lord Howe falls back 30 minutes on 2026-04-05 at 02:00 (+11 → +10:30): 01:45 local happens twice.
      const lordHowe: ServiceTimeConfig = { timeZone: 'Australia/Lord_Howe', windows: [w(7, '01:30', '02:00')] };
      expect(isInServiceTime(lordHowe, at('2026-04-04T14:45:00Z'))).toBe(true);
      expect(isInServiceTime(lordHowe, at('2026-04-04T15:15:00Z'))).toBe(true);
      expect(isInServiceTime(lordHowe, at('2026-04-04T15:30:00Z'))).toBe(false); // 02:00 +10:30
    });

    it('uses the local day of the week, which can differ from the UTC day (Pacific/Auckland, UTC+13 in January)', () => {
      const config: ServiceTimeConfig = { timeZone: 'Pacific/Auckland', windows: [w(1, '00:00', '02:00')] };
      // Sunday 12:00 UTC is Monday 01:00 in Auckland.
      expect(isInServiceTime(config, at('2026-01-04T12:00:00Z'))).toBe(true);
      expect(isInServiceTime({ ...config, timeZone: 'UTC' }, at('2026-01-04T12:00:00Z'))).toBe(false);
      expect(localDayAndMinute('Pacific/Auckland', at('2026-01-04T12:00:00Z'))).toEqual({ day: 1, minute: 60 });
    });

    it('covers a span over midnight as two windows, and "24:00" as the end of the day', () => {
      const config: ServiceTimeConfig = { timeZone: 'Asia/Tokyo', windows: [w(5, '22:00', '24:00'), w(6, '00:00', '02:00')] };
      // 2026-03-06 is a Friday; Tokyo is UTC+9.
      expect(isInServiceTime(config, at('2026-03-06T12:59:00Z'))).toBe(false); // Fri 21:59
      expect(isInServiceTime(config, at('2026-03-06T13:00:00Z'))).toBe(true); // Fri 22:00
      expect(isInServiceTime(config, at('2026-03-06T14:59:59Z'))).toBe(true); // Fri 23:59:59
      expect(isInServiceTime(config, at('2026-03-06T15:00:00Z'))).toBe(true); // Sat 00:00
      expect(isInServiceTime(config, at('2026-03-06T16:59:00Z'))).toBe(true); // Sat 01:59
      expect(isInServiceTime(config, at('2026-03-06T17:00:00Z'))).toBe(false); // Sat 02:00
      expect(localDayAndMinute('Asia/Tokyo', at('2026-03-06T14:59:00Z'))).toEqual({ day: 5, minute: 1439 });
      expect(localDayAndMinute('Asia/Tokyo', at('2026-03-06T15:00:00Z'))).toEqual({ day: 6, minute: 0 });
    });

    it('is never in service without windows, and throws on an unknown zone', () => {
      expect(isInServiceTime({ timeZone: 'UTC', windows: [] }, at('2026-03-02T12:00:00Z'))).toBe(false);
      expect(() => isInServiceTime({ timeZone: 'Mars/Olympus_Mons', windows: [w(1, '00:00', '24:00')] }, new Date())).toThrow(RangeError);
    });
  });

  describe('validateServiceTime', () => {
    it('accepts a valid week with touching windows and a 24:00 end', () => {
      expect(
        validateServiceTime({ timeZone: 'Europe/Berlin', windows: [w(1, '09:00', '12:00'), w(1, '12:00', '18:00'), w(5, '20:00', '24:00'), w(6, '00:00', '02:00')] }),
      ).toEqual([]);
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(7, '00:00', '24:00')] })).toEqual([]);
    });

    it('refuses names that are not IANA time zones', () => {
      for (const timeZone of ['Mars/Olympus_Mons', 'UTC+8', '+08:00', '', 'Europe/', 'europe berlin']) {
        expect(validateServiceTime({ timeZone, windows: [] })).toEqual([{ field: 'timeZone', message: expect.stringContaining('is not an IANA time zone') }]);
      }
      expect(isValidTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
      expect(isValidTimeZone('Etc/GMT-8')).toBe(true);
    });

    it('refuses bad days and times, naming the window and field', () => {
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(0, '09:00', '10:00'), w(8, '09:00', '10:00'), w(1.5, '09:00', '10:00')] }).map((p) => p.field)).toEqual([
        'windows[0].dayOfWeek',
        'windows[1].dayOfWeek',
        'windows[2].dayOfWeek',
      ]);
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(1, '9:00', '10:00'), w(1, '24:00', '24:00'), w(2, '10:00', '24:01'), w(3, '10:60', '11:00')] })).toEqual([
        { field: 'windows[0].start', message: 'windows[0].start must be a time "HH:mm" from 00:00 to 23:59, not "9:00".' },
        { field: 'windows[1].start', message: 'windows[1].start must be a time "HH:mm" from 00:00 to 23:59, not "24:00".' },
        { field: 'windows[2].end', message: 'windows[2].end must be a time "HH:mm" from 00:01 to 24:00, not "24:01".' },
        { field: 'windows[3].start', message: 'windows[3].start must be a time "HH:mm" from 00:00 to 23:59, not "10:60".' },
      ]);
    });

    it('refuses windows that do not end after they start', () => {
      const problems = validateServiceTime({ timeZone: 'UTC', windows: [w(1, '18:00', '09:00'), w(2, '09:00', '09:00')] });
      expect(problems.map((p) => p.field)).toEqual(['windows[0].end', 'windows[1].end']);
      expect(problems[0].message).toBe(
        'windows[0] must end after it starts (start 18:00, end 09:00); split a span over midnight into two windows ending at 24:00 and starting at 00:00.',
      );
    });

    it('refuses overlapping windows on the same day (in any input order), not on different days', () => {
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(3, '13:00', '15:00'), w(1, '09:00', '10:00'), w(3, '09:00', '13:01')] })).toEqual([
        { field: 'windows[2]', message: 'windows[0] and windows[2] overlap on Wednesday (13:00–15:00 and 09:00–13:01).' },
      ]);
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(2, '09:00', '10:00'), w(2, '09:00', '10:00')] })).toHaveLength(1);
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(2, '09:00', '17:00'), w(3, '09:00', '17:00')] })).toEqual([]);
      // A window inside another one.
      expect(validateServiceTime({ timeZone: 'UTC', windows: [w(4, '08:00', '20:00'), w(4, '10:00', '11:00'), w(4, '19:00', '21:00')] }).map((p) => p.field)).toEqual([
        'windows[1]',
        'windows[2]',
      ]);
    });
  });

  it('minutesOfDay reads "HH:mm" and 24:00, and refuses anything else', () => {
    expect(minutesOfDay('00:00')).toBe(0);
    expect(minutesOfDay('23:59')).toBe(1439);
    expect(minutesOfDay('24:00')).toBe(1440);
    expect(() => minutesOfDay('7:00')).toThrow('Not a time');
  });
});
