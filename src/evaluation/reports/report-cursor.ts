/**
 * The opaque cursor of a paged report (issue 23 item 3): the (position, repetition) key of the last case of the
 * page, base64url-encoded so clients treat it as a token. Pure rules.
 */

/** The key a report's cases are ordered by: the case's position in the run's snapshot, then its repetition. */
export interface ReportCaseKey {
  position: number;
  repeatIndex: number;
}

/** Largest length of a cursor the API accepts. */
export const REPORT_CURSOR_MAX_LENGTH = 64;
/** What a cursor looks like (base64url). */
export const REPORT_CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** The cursor that continues after `key`. */
export function encodeReportCursor(key: ReportCaseKey): string {
  return Buffer.from(`c1:${key.position}:${key.repeatIndex}`, 'utf8').toString('base64url');
}

/**
 * The key a cursor continues after.
 * @returns null when `cursor` is not one this server issued (the caller answers 400)
 */
export function decodeReportCursor(cursor: string): ReportCaseKey | null {
  if (!REPORT_CURSOR_PATTERN.test(cursor)) return null;
  const match = /^c1:(\d{1,9}):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) return null;
  return { position: Number(match[1]), repeatIndex: Number(match[2]) };
}
