import type { ServiceTimeConfig } from '../digital-staff/service-time.rules';
import { NEVER_IN_SERVICE_START, offsetMinutes, outOfServiceWindowStart, zonedInstant } from './out-of-hours.rules';

/** Weekdays 09:00–18:00 in Shanghai (UTC+8, no DST). */
const OFFICE: ServiceTimeConfig = { timeZone: 'Asia/Shanghai', windows: [1, 2, 3, 4, 5].map((day_of_week) => ({ day_of_week, start: '09:00', end: '18:00' })) };

describe('outOfServiceWindowStart (the out-of-hours message is sent once per window)', () => {
  it('is null while in service', () => {
    // Wednesday 2026-03-04 10:00 Shanghai = 02:00 UTC.
    expect(outOfServiceWindowStart(OFFICE, new Date('2026-03-04T02:00:00Z'))).toBeNull();
  });

  it('is the end of the last service window: the evening and the next early morning share it', () => {
    const evening = outOfServiceWindowStart(OFFICE, new Date('2026-03-04T12:30:00Z')); // Wed 20:30 local
    const night = outOfServiceWindowStart(OFFICE, new Date('2026-03-04T20:00:00Z')); // Thu 04:00 local
    expect(evening?.toISOString()).toBe('2026-03-04T10:00:00.000Z'); // Wed 18:00 local
    expect(night?.toISOString()).toBe('2026-03-04T10:00:00.000Z');
  });

  it('the instant service ends starts the window (end is exclusive)', () => {
    expect(outOfServiceWindowStart(OFFICE, new Date('2026-03-04T10:00:00Z'))?.toISOString()).toBe('2026-03-04T10:00:00.000Z');
    expect(outOfServiceWindowStart(OFFICE, new Date('2026-03-04T09:59:00Z'))).toBeNull();
  });

  it('the weekend is one window from Friday 18:00 to Monday 09:00', () => {
    const saturday = outOfServiceWindowStart(OFFICE, new Date('2026-03-07T04:00:00Z'));
    const mondayDawn = outOfServiceWindowStart(OFFICE, new Date('2026-03-08T23:00:00Z')); // Mon 07:00 local
    expect(saturday?.toISOString()).toBe('2026-03-06T10:00:00.000Z');
    expect(mondayDawn?.toISOString()).toBe('2026-03-06T10:00:00.000Z');
  });

  it('a new window starts after the next service window', () => {
    const wednesday = outOfServiceWindowStart(OFFICE, new Date('2026-03-04T12:30:00Z'));
    const thursday = outOfServiceWindowStart(OFFICE, new Date('2026-03-05T12:30:00Z'));
    expect(thursday?.getTime()).toBeGreaterThan(wednesday!.getTime());
  });

  it('touching windows and spans over midnight are one service stretch', () => {
    const config: ServiceTimeConfig = {
      timeZone: 'UTC',
      windows: [
        { day_of_week: 5, start: '22:00', end: '24:00' },
        { day_of_week: 6, start: '00:00', end: '02:00' },
      ],
    };
    // Saturday 2026-03-07 05:00 UTC: the stretch ended Saturday 02:00, not Friday 24:00.
    expect(outOfServiceWindowStart(config, new Date('2026-03-07T05:00:00Z'))?.toISOString()).toBe('2026-03-07T02:00:00.000Z');
  });

  it('a configuration without windows has one endless window', () => {
    expect(outOfServiceWindowStart({ timeZone: 'UTC', windows: [] }, new Date('2026-03-04T12:00:00Z'))).toEqual(NEVER_IN_SERVICE_START);
  });

  it('follows daylight saving time (Europe/Berlin)', () => {
    const config: ServiceTimeConfig = { timeZone: 'Europe/Berlin', windows: [1, 2, 3, 4, 5, 6, 7].map((day_of_week) => ({ day_of_week, start: '09:00', end: '17:00' })) };
    // Summer (UTC+2): 17:00 local = 15:00 UTC. Winter (UTC+1): 16:00 UTC.
    expect(outOfServiceWindowStart(config, new Date('2026-07-01T20:00:00Z'))?.toISOString()).toBe('2026-07-01T15:00:00.000Z');
    expect(outOfServiceWindowStart(config, new Date('2026-01-14T20:00:00Z'))?.toISOString()).toBe('2026-01-14T16:00:00.000Z');
  });
});

describe('zonedInstant / offsetMinutes', () => {
  it('converts local wall-clock times to UTC', () => {
    expect(zonedInstant('Asia/Shanghai', 2026, 3, 4, 18 * 60).toISOString()).toBe('2026-03-04T10:00:00.000Z');
    expect(zonedInstant('UTC', 2026, 3, 4, 1440).toISOString()).toBe('2026-03-05T00:00:00.000Z');
    expect(offsetMinutes('Asia/Shanghai', new Date('2026-03-04T00:00:00Z'))).toBe(480);
    expect(offsetMinutes('America/New_York', new Date('2026-01-10T12:00:00Z'))).toBe(-300);
  });
});
