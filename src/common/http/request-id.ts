import { randomUUID } from 'node:crypto';

/** A caller's X-Request-Id we keep: 1–128 characters of letters, digits and `. _ : -` (no spaces, no log injection). */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * The request's id (issue 15 item 2: "Every request gets an X-Request-Id, kept when the caller sends one"). Pure
 * but for the random fallback.
 * @param header the incoming `X-Request-Id` header (a repeated header arrives as an array: its first value counts)
 * @returns the caller's id when it is sane, else a new UUID
 */
export function requestIdFor(header: string | string[] | undefined): string {
  const given = Array.isArray(header) ? header[0] : header;
  return typeof given === 'string' && SANE_REQUEST_ID.test(given) ? given : randomUUID();
}
