import * as pg from 'pg';
import { ATRIUM_PG_TYPES, isoOfTimestamptzText, parseTimestamptz, TIMESTAMPTZ_OID } from './timestamptz-parser';

/** node-postgres's own parser: the reference every answer must equal. */
const library = pg.types.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => unknown;

/** The same value by both parsers: equal times (or the same non-Date answer). */
function expectSameAsLibrary(text: string): void {
  const ours = parseTimestamptz(text);
  const theirs = library(text);
  if (theirs instanceof Date) {
    expect(ours).toBeInstanceOf(Date);
    expect([text, (ours as Date).getTime()]).toEqual([text, theirs.getTime()]);
  } else {
    expect([text, ours]).toEqual([text, theirs]);
  }
}

/** `count` timestamptz texts of the fast path's shape (years 1000–9999, days 1..maxDay, 0–6 fraction digits), seeded. */
function randomTimes(seed: number, count: number, maxDay: number): string[] {
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const pad = (value: number, width: number) => String(value).padStart(width, '0');
  return Array.from({ length: count }, () => {
    const year = 1000 + Math.floor(random() * 9000);
    const fraction = Math.floor(random() * 7);
    const digits = Array.from({ length: fraction }, () => Math.floor(random() * 10)).join('');
    return (
      `${pad(year, 4)}-${pad(1 + Math.floor(random() * 12), 2)}-${pad(1 + Math.floor(random() * maxDay), 2)} ` +
      `${pad(Math.floor(random() * 24), 2)}:${pad(Math.floor(random() * 60), 2)}:${pad(Math.floor(random() * 60), 2)}${fraction ? `.${digits}` : ''}+00`
    );
  });
}

describe('parseTimestamptz', () => {
  it('reads what PostgreSQL writes to a UTC session, to the millisecond, as node-postgres does', () => {
    expect(parseTimestamptz('2026-11-26 13:07:49.123456+00')).toEqual(new Date('2026-11-26T13:07:49.123Z'));
    expect(parseTimestamptz('2026-11-26 13:07:49+00')).toEqual(new Date('2026-11-26T13:07:49.000Z'));
    expect(parseTimestamptz('1999-12-31 23:59:59.9999+00')).toEqual(new Date('1999-12-31T23:59:59.999Z'));
    for (const text of ['2026-02-28 00:00:00.5+00', '2024-02-29 12:30:00.05+00', '2026-01-01 00:00:00.000001+00', '9999-12-31 23:59:59.999999+00', '1000-01-01 00:00:00+00']) {
      expectSameAsLibrary(text);
    }
  });

  it('agrees with node-postgres on 20,000 random times with every fraction length', () => {
    for (const text of randomTimes(42, 20_000, 28)) expectSameAsLibrary(text);
  });

  it('leaves every other shape to node-postgres (offsets, BC, infinity, short years, junk)', () => {
    for (const text of [
      '2026-11-26 13:07:49.123+05:30',
      '2026-11-26 13:07:49-08',
      '2026-11-26 13:07:49.5+00 BC',
      '0099-01-01 00:00:00+00',
      '0001-01-01 00:00:00+00 BC',
      'infinity',
      '-infinity',
      '2026-11-26 13:07:49.+00',
      '2026-11-26T13:07:49+00',
      '2026-1x-26 13:07:49+00',
      '12026-11-26 13:07:49+00',
      '2026-11-26 13:07:49.1234567+00',
      '',
    ]) {
      expectSameAsLibrary(text);
    }
  });

  it('is the timestamptz text parser of the app pools\' types; other types keep pg\'s parsers', () => {
    expect(ATRIUM_PG_TYPES.getTypeParser(TIMESTAMPTZ_OID, 'text')).toBe(parseTimestamptz);
    expect(ATRIUM_PG_TYPES.getTypeParser(TIMESTAMPTZ_OID)).toBe(parseTimestamptz);
    expect(ATRIUM_PG_TYPES.getTypeParser(TIMESTAMPTZ_OID, 'binary')).toBe(pg.types.getTypeParser(TIMESTAMPTZ_OID, 'binary'));
    expect(ATRIUM_PG_TYPES.getTypeParser(1114, 'text')).toBe(pg.types.getTypeParser(1114, 'text'));
    expect(ATRIUM_PG_TYPES.getTypeParser(23)).toBe(pg.types.getTypeParser(23));
  });
});

describe('isoOfTimestamptzText', () => {
  /** What the entity path answers for the same column: the library's Date, as ISO text. */
  const viaDate = (text: string) => (library(text) as Date).toISOString();

  it('rewrites what PostgreSQL writes to a UTC session into toISOString\'s text', () => {
    expect(isoOfTimestamptzText('2026-11-26 13:07:49.123456+00')).toBe('2026-11-26T13:07:49.123Z');
    expect(isoOfTimestamptzText('2026-11-26 13:07:49+00')).toBe('2026-11-26T13:07:49.000Z');
    expect(isoOfTimestamptzText('2026-11-26 13:07:49.5+00')).toBe('2026-11-26T13:07:49.500Z');
    expect(isoOfTimestamptzText('2026-11-26 13:07:49.000999+00')).toBe('2026-11-26T13:07:49.000Z');
    expect(isoOfTimestamptzText('1969-12-31 23:59:59.999+00')).toBe('1969-12-31T23:59:59.999Z');
  });

  it('equals the Date path on every fraction of three digits and more, before and after 1970', () => {
    for (let ms = 0; ms < 1000; ms++) {
      const three = String(ms).padStart(3, '0');
      for (const fraction of [three, `${three}000`, `${three}999`, three.replace(/0+$/, '') || '0']) {
        for (const day of ['1969-07-20 20:17:40', '2026-11-26 13:07:49']) {
          const text = `${day}.${fraction}+00`;
          expect([text, isoOfTimestamptzText(text)]).toEqual([text, viaDate(text)]);
        }
      }
    }
  });

  it('equals the Date path on every fraction of one to six digits (the three digits it keeps are the library\'s milliseconds)', () => {
    const mismatches: string[] = [];
    for (let length = 1; length <= 6; length++) {
      for (let value = 0; value < 10 ** length; value++) {
        const text = `2026-11-26 13:07:49.${String(value).padStart(length, '0')}+00`;
        if (isoOfTimestamptzText(text) !== viaDate(text)) mismatches.push(text);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('equals the Date path on 20,000 random times, month ends and leap days', () => {
    const texts = ['2024-02-29 00:00:00+00', '2000-02-29 23:59:59.999999+00', '1900-02-28 12:00:00.1+00', '2026-12-31 23:59:59.5+00', '1000-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00'];
    // Days past a month's end (2026-02-31) are not PostgreSQL's, but must still match what the Date makes of them.
    for (const text of [...texts, ...randomTimes(7, 20_000, 31)]) expect([text, isoOfTimestamptzText(text)]).toEqual([text, viaDate(text)]);
  });

  it('answers other shapes through the library\'s Date (offsets, BC, short years), and throws for infinity as toISOString does', () => {
    for (const text of ['2026-11-26 13:07:49.123+05:30', '2026-11-26 13:07:49-08', '2026-11-26 13:07:49.5+00 BC', '0099-01-01 00:00:00+00', '2026-11-26 24:00:00+00', '2026-13-01 00:00:00+00']) {
      expect([text, isoOfTimestamptzText(text)]).toEqual([text, viaDate(text)]);
    }
    // A letter where a digit belongs: whatever the library makes of it (an Invalid Date throws), never a rewritten text.
    const outcome = (read: () => string) => {
      try {
        return read();
      } catch {
        return 'thrown';
      }
    };
    for (const text of ['2026-11-26 1a:07:49+00', '2026-11-26 13:07:4x.123+00', '2026-1x-26 13:07:49+00', '20x6-11-26 13:07:49+00', '2026-11-26 13:07:49.12a+00']) {
      expect([text, outcome(() => isoOfTimestamptzText(text))]).toEqual([text, outcome(() => viaDate(text))]);
    }
    expect(() => isoOfTimestamptzText('infinity')).toThrow(RangeError);
    expect(() => isoOfTimestamptzText('-infinity')).toThrow(RangeError);
  });
});
