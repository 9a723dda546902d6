/**
 * Named customer profiles (chat-management-api.md, Customer profile: `{T}/v1/customers/profiles/{name}`; Partner
 * customer info: `improveUserInfo`, `improveCustomerInfo`). A contact's `profile` column maps a profile name to a
 * JSON object of attributes. Pure rules, no I/O.
 */

/** Profile names: a letter, then up to 63 letters, digits, `_`, `.` or `-`. */
export const PROFILE_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

/** The profile partner customer info is merged into. */
export const PARTNER_PROFILE_NAME = 'partner';

/** A JSON object of profile attributes. */
export type ProfileAttributes = Record<string, unknown>;

/**
 * Applies an update to a named profile.
 * - `replace` false (default): shallow merge — each given key is set, a key given as `null` is removed, keys not
 *   given are kept.
 * - `replace` true: the profile becomes the given attributes (keys given as `null` are left out).
 * @param current the profile's attributes now, or undefined when it does not exist yet
 * @returns a new object (inputs are not changed)
 */
export function applyProfileUpdate(current: ProfileAttributes | undefined, attributes: ProfileAttributes, replace = false): ProfileAttributes {
  const next: ProfileAttributes = replace ? {} : { ...(current ?? {}) };
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** Size of the attributes as stored (UTF-8 bytes of their JSON text). */
export function profileSizeBytes(attributes: ProfileAttributes): number {
  return Buffer.byteLength(JSON.stringify(attributes), 'utf8');
}

/** What a partner tells about a customer (improveUserInfo / improveCustomerInfo). Undefined fields are not given. */
export interface PartnerInfo {
  name?: string;
  nickname?: string;
  mobile?: string;
  gender?: number;
  company?: string;
  openId?: string;
  unionId?: string;
  /** Further partner attributes, merged like a profile update (`null` removes a key). */
  attributes?: ProfileAttributes;
}

/**
 * Merges partner info into the `partner` profile: the named fields given replace those stored, `attributes` merge
 * shallowly, and `improvedAt` (ISO 8601) / `improvedBy` (the operation) record the last improvement.
 * @param current the partner profile now, or undefined
 * @param operation `improveUserInfo` or `improveCustomerInfo`
 * @param now the time of the improvement
 */
export function mergePartnerInfo(current: ProfileAttributes | undefined, info: PartnerInfo, operation: string, now: Date): ProfileAttributes {
  const fields: ProfileAttributes = {};
  for (const key of ['name', 'nickname', 'mobile', 'gender', 'company', 'openId', 'unionId'] as const) {
    if (info[key] !== undefined) fields[key] = info[key];
  }
  const merged = applyProfileUpdate(current, { ...(info.attributes ?? {}), ...fields });
  return { ...merged, improvedAt: now.toISOString(), improvedBy: operation };
}
