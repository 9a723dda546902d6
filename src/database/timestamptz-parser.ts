import * as pg from 'pg';

/** PostgreSQL's type OID of `timestamptz`. */
export const TIMESTAMPTZ_OID = 1184;

const pgTypes = pg.types;
/** node-postgres's own text parser of timestamptz (the `postgres-date` package): the fallback and the reference. */
const libraryParser = pgTypes.getTypeParser(TIMESTAMPTZ_OID, 'text') as (text: string) => Date | number | null;

const ZERO = 48;
const NINE = 57;

/** The number written by the ASCII digits text[from, to), or -1 when one is not a digit. */
function digits(text: string, from: number, to: number): number {
  let value = 0;
  for (let at = from; at < to; at++) {
    const code = text.charCodeAt(at);
    if (code < ZERO || code > NINE) return -1;
    value = value * 10 + (code - ZERO);
  }
  return value;
}

/**
 * Whether `text` has the fast path's shape: 'YYYY-MM-DD HH:MM:SS', then nothing or '.' and 1–6 digits, then '+00'
 * (the separators and the fraction checked here; the date and time digits by the callers).
 */
function hasFastPathShape(text: string): boolean {
  const length = text.length;
  if (length < 22 || length > 29 || length === 23 || text.charCodeAt(length - 3) !== 43 || text.charCodeAt(length - 2) !== ZERO || text.charCodeAt(length - 1) !== ZERO) {
    return false;
  }
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 32 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return false;
  return length === 22 || (text.charCodeAt(19) === 46 && digits(text, 20, length - 3) >= 0);
}

/**
 * The instant of a `timestamptz` text of the fast path's shape (DateStyle ISO, TimeZone UTC:
 * `2026-11-26 13:07:49.123456+00`, a four-digit year from 1000), in ms since the epoch, computed as node-postgres's
 * own parser does; NaN for every other shape (another offset, BC, infinity, a short year).
 */
function fastPathTime(text: string): number {
  if (!hasFastPathShape(text)) return NaN;
  const length = text.length;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return NaN;
  // The library's arithmetic exactly: 1000 × the fraction as a float, truncated to whole ms by Date.UTC.
  const milliseconds = length > 22 ? 1000 * parseFloat(text.slice(19, length - 3)) : 0;
  return Date.UTC(year, month - 1, day, hour, minute, second, milliseconds);
}

/**
 * Parses a `timestamptz` as PostgreSQL writes it to an Atrium session (DateStyle ISO, TimeZone UTC:
 * `2026-11-26 13:07:49.123456+00`) into the same Date as node-postgres's own parser, 2.5–3× faster (0.12–0.15 against 0.29–0.42 µs a value, Node 20 and 24)
 * (issue 14 item 1: a contact list page parses 100 timestamps; the library's regular expressions were 6 % of a list
 * request's CPU). Only that exact shape, with a four-digit year from 1000, takes the fast path; anything else
 * (another offset, BC, infinity, a short year) goes to the library's parser, so the result is always the library's.
 * @param text the column's text
 * @returns a Date (milliseconds: the fraction's first three digits, as the library truncates), or what the library
 *   returns for other shapes (a number for ±infinity)
 */
export function parseTimestamptz(text: string): Date | number | null {
  const time = fastPathTime(text);
  return Number.isNaN(time) ? libraryParser(text) : new Date(time);
}

/**
 * The ISO 8601 text (`Date.prototype.toISOString`, e.g. `2026-11-26T13:07:49.123Z`) of a `timestamptz` read as text
 * (`column::text`), without a Date or any arithmetic: what `parseTimestamptz(text).toISOString()` gives, for a list
 * that answers its times as text (issue 14 item 1). Texts of the fast path's shape whose fields are a real time of
 * day and date are cut and joined: the date, `T`, the time, the fraction's first three digits (zero-padded) and `Z`.
 * The library's milliseconds, `1000 × parseFloat(fraction)` truncated, equal those three digits for every fraction of
 * one to six digits (checked for all 1,111,110 of them in the spec). Any other text goes through the Date.
 * @throws RangeError a text the library reads as ±infinity (no ISO text), as `toISOString` would, or not as a time
 */
export function isoOfTimestamptzText(text: string): string {
  if (!hasFastPathShape(text)) return isoViaLibrary(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hour = digits(text, 11, 13);
  const minute = digits(text, 14, 16);
  const second = digits(text, 17, 19);
  if (year < 1000 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return isoViaLibrary(text);
  // Fields that Date.UTC would carry over (Feb 30, 24:00) are left to the Date; PostgreSQL never writes them.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) return new Date(fastPathTime(text)).toISOString();
  // The fraction is text[20, length - 3): none (length 22), or 1–6 digits after the dot at 19.
  const fractionDigits = text.length - 23;
  if (fractionDigits >= 3) return `${text.slice(0, 10)}T${text.slice(11, 23)}Z`;
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fractionDigits > 0 ? text.slice(20, 20 + fractionDigits) : ''}${PADDING[fractionDigits]}Z`;
}

/**
 * The library's Date of `text` as ISO text.
 * @throws RangeError ±infinity (as `toISOString`), or a text the library does not read as a time (it gives null)
 */
function isoViaLibrary(text: string): string {
  const value = libraryParser(text);
  if (value === null) throw new RangeError(`not a timestamptz text: ${JSON.stringify(text.slice(0, 40))}`);
  return new Date(value).toISOString();
}

/** Zeros completing a fraction of `index` digits (-1: none, no dot) to three. */
const PADDING: Record<number, string> = { [-1]: '000', 1: '00', 2: '0' };

/** Days of `month` (1–12) of a Gregorian `year`. */
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * node-postgres's type parsers with {@link parseTimestamptz} for `timestamptz` text values: the `types` option of the
 * app's pools (guarded-pg.ts). Every other type is parsed by pg's own parsers.
 */
export const ATRIUM_PG_TYPES = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
    if (oid === TIMESTAMPTZ_OID && format !== 'binary') return parseTimestamptz;
    return format === undefined ? pgTypes.getTypeParser(oid) : pgTypes.getTypeParser(oid, format);
  },
};
