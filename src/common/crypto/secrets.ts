import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** SHA-256 of a UTF-8 string, lowercase hex (64 chars). Tokens and keys are stored only in this form. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/**
 * Compares two secrets in constant time, whatever their lengths (both are hashed first, so the comparison
 * never short-circuits on length).
 */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** `bytes` of cryptographic randomness as base64url (32 bytes → 43 chars). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Random lowercase hex id of `length` characters. */
export function randomHexId(length: number): string {
  return randomBytes(Math.ceil(length / 2)).toString('hex').slice(0, length);
}
