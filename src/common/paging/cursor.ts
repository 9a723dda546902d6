import { BadRequestException } from '@nestjs/common';
import { createHash, createHmac, createSecretKey, timingSafeEqual, type Hash, type KeyObject } from 'node:crypto';

/** Longest `cursor` a list accepts (characters); a real one is far shorter. */
export const MAX_CURSOR_LENGTH = 2048;

/** A cursor's shape as text: base64url payload, a dot, base64url signature (validated before anything is decoded). */
export const CURSOR_PATTERN = /^[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{43}$/;

/**
 * What a list's `cursor` carries (issue 23 item 1: keyset pagination beside `page`/`size`).
 * - `q`: fingerprint of the list's filtered, ordered statement and its parameters (tenant, owner, filters, sort), so a
 *   cursor opens only the very list it came from: another tenant's, another owner's or another filter's is refused;
 * - `p`: the page number the cursor's page has in `page`/`size` terms (the response's `page`);
 * - `k`: the last row's sort key values, as PostgreSQL text (`null` for NULL), the list's tie-breaker id last.
 */
export interface CursorPayload {
  q: string;
  p: number;
  k: Array<string | null>;
}

/** A cursor that is not one of ours, was altered, or belongs to another list, tenant or filter: 400. */
export function invalidCursor(reason: string): BadRequestException {
  return new BadRequestException(`cursor is not valid for this list (${reason}); start again from page 0 without a cursor.`);
}

/** Fingerprint of a list's statement (SQL text and parameters), as {@link CursorPayload.q}: 22 base64url characters. */
export function listFingerprint(sql: string, parameters: readonly unknown[]): string {
  return createHash('sha256').update(sql).update('\u0000').update(JSON.stringify(parameters)).digest('base64url').slice(0, 22);
}

/**
 * {@link listFingerprint} of one kept statement, its text's share of the hash computed once per text: the same result
 * for a 1–3 KB list statement without hashing it on every request (issue 14 item 1).
 */
export class ListFingerprints {
  private sql?: string;
  private prefix?: Hash;

  /** @returns what `listFingerprint(sql, parameters)` returns */
  of(sql: string, parameters: readonly unknown[]): string {
    if (sql !== this.sql || !this.prefix) {
      this.sql = sql;
      this.prefix = createHash('sha256').update(sql).update('\u0000');
    }
    return this.prefix.copy().update(JSON.stringify(parameters)).digest('base64url').slice(0, 22);
  }
}

/**
 * Signs a cursor: `base64url(JSON payload).base64url(HMAC-SHA256(key, payload))`. Opaque to clients; the values it
 * carries are a row's sort keys, which that client could already read.
 * @param key the signing key ({@link cursorKeyOf}: derived from ATRIUM_SECRET_KEY, see ListPager)
 */
export function signCursor(payload: CursorPayload, key: KeyObject): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

/**
 * Opens a cursor signed by {@link signCursor} under one of `keys` and checks it belongs to the list `fingerprint`
 * with `keyCount` sort keys.
 * @throws BadRequestException (400) malformed, bad signature, another list/tenant/filter/sort, wrong key count
 */
export function openCursor(cursor: string, keys: readonly KeyObject[], fingerprint: string, keyCount: number): CursorPayload {
  if (cursor.length > MAX_CURSOR_LENGTH || !CURSOR_PATTERN.test(cursor)) throw invalidCursor('malformed');
  const [body, signature] = cursor.split('.');
  const given = Buffer.from(signature, 'base64url');
  const signed = keys.some((key) => {
    const expected = createHmac('sha256', key).update(body).digest();
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!signed) throw invalidCursor('bad signature');
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw invalidCursor('malformed');
  }
  if (payload?.q !== fingerprint) throw invalidCursor('it belongs to another list, tenant, filter or sort');
  const valuesOk = Array.isArray(payload.k) && payload.k.length === keyCount && payload.k.every((value) => value === null || typeof value === 'string');
  if (!valuesOk || !Number.isSafeInteger(payload.p) || payload.p < 0) throw invalidCursor('malformed');
  return payload;
}

/**
 * Derives the cursor signing key from a secret (the sealing key), so cursors verify on every instance sharing it.
 * A KeyObject, not bytes: Node 24's createHmac checks a Buffer key at ~8 µs a call against ~1.4 µs for a KeyObject
 * (issue 14: one signature per list page).
 */
export function cursorKeyOf(secret: Buffer): KeyObject {
  return createSecretKey(createHmac('sha256', secret).update('atrium-list-cursor-v1').digest());
}
