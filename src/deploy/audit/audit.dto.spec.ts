import { isCalendarDate } from './audit.dto';

describe('isCalendarDate', () => {
  it.each(['2026-11-21', '2024-02-29'])('accepts %s', (value) => expect(isCalendarDate(value)).toBe(true));
  it.each(['2026-02-30', '2026-13-01', '21-11-2026', '2026/11/21', '2026-11-21T00:00', ''])('refuses %j', (value) =>
    expect(isCalendarDate(value)).toBe(false),
  );
});
