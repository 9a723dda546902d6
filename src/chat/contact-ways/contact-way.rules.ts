import { randomBytes } from 'node:crypto';

/**
 * Pure rules of contact ways (chat-management-api.md, "Contact way (scene code)"; issue 5: "setDefault (one default
 * per digital staff/staff user …)"). No I/O.
 */

/** A `state` the API accepts: 1..30 letters, digits, `_` or `-` (the platform's limit is 30 characters). */
export const WAY_STATE_PATTERN = /^[A-Za-z0-9_-]{1,30}$/;

/** A platform userid the API accepts: 1..64 characters without spaces. */
export const WORK_CHAT_USER_ID_PATTERN = /^\S{1,64}$/;

/** Most staff users on one contact way (the platform's limit). */
export const MAX_CONTACT_WAY_USERS = 100;

/**
 * A new random `state` for a way created without one, so customers who add through it are still attributed to
 * it: `prefix` + 16 random characters (letters and digits).
 * @param prefix `cw` for contact ways, `gw` for group ways
 */
export function generateWayState(prefix: 'cw' | 'gw'): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, '0').slice(0, 16)}`;
}

/** What decides a contact way's default scope. */
export interface ContactWayScopeInput {
  corpId: string;
  digitalStaffId: string | null;
  workChatUserIds: string[];
}

/**
 * The scope in which a contact way may be the default — there is at most one default per scope:
 * - the way has a digital staff → `ds:<digital staff id>` (the digital staff's default scene code);
 * - else it has exactly one staff user → `user:<corp id>:<platform userid>` (that staff user's default scene code);
 * - else (several staff users, no digital staff) → null: it cannot be a default.
 */
export function contactWayDefaultScope(way: ContactWayScopeInput): string | null {
  if (way.digitalStaffId) return `ds:${way.digitalStaffId}`;
  if (way.workChatUserIds.length === 1) return `user:${way.corpId}:${way.workChatUserIds[0]}`;
  return null;
}

/** What decides a group way's default scope. */
export interface GroupWayScopeInput {
  corpId: string;
  digitalStaffId: string | null;
}

/**
 * The scope in which a group way may be the default (at most one default per scope): its digital staff
 * (`ds:<id>`) when it has one, else its corp (`corp:<corp id>`).
 */
export function groupWayDefaultScope(way: GroupWayScopeInput): string {
  return way.digitalStaffId ? `ds:${way.digitalStaffId}` : `corp:${way.corpId}`;
}

/**
 * The key of the transaction-scoped advisory lock that serialises setDefault within one scope (two concurrent
 * requests in a scope would otherwise both clear "the previous default" before either sets its own).
 * @param table `chat_contact_way` or `chat_group_way`
 */
export function defaultScopeLockKey(table: string, tenantId: string, scope: string): string {
  return `${table}:${tenantId}:${scope}`;
}
