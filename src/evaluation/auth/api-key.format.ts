import { randomSecret, sha256Hex } from '../../common/crypto/secrets';

/**
 * Pure rules of named evaluation API keys (issue 19 item 6): their names, their generated values and how they are
 * stored (SHA-256 only).
 */

/** A key name: lowercase letters, digits, `.`, `_`, `-`, 1..64 characters, starting with a letter or digit. */
export const API_KEY_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** Names of keys seeded from EVAL_API_KEYS: `env-1`, `env-2`, … (refused when creating through the API). */
export const ENV_KEY_NAME_PATTERN = /^env-\d+$/;

/** Prefix of generated keys, so a leaked one is recognisable in logs and secret scanners. */
export const GENERATED_KEY_PREFIX = 'atrk_';

/** The name of the `index`-th (0-based) key of EVAL_API_KEYS. */
export function envKeyName(index: number): string {
  return `env-${index + 1}`;
}

/** A new key: `atrk_` + 256 random bits as base64url (48 characters). Shown once, stored as {@link apiKeyHash}. */
export function generateApiKey(): string {
  return `${GENERATED_KEY_PREFIX}${randomSecret(32)}`;
}

/**
 * What is stored of a key: its SHA-256 in hex. Keys are high-entropy (generated: 256 bits; EVAL_API_KEYS: at least
 * 16 characters chosen by the operator), so a fast hash is enough; lookups by hash reveal nothing by their timing.
 */
export function apiKeyHash(key: string): string {
  return sha256Hex(key);
}

/** The subject a key's caller acts as, in logs and records: `api-key:<name>`. */
export function apiKeySubject(name: string): string {
  return `api-key:${name}`;
}
