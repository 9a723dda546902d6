import { randomBytes } from 'node:crypto';

/**
 * Identifiers the simulated platform hands out, shaped like the real platform's (prefix + random characters), so
 * code that stores or shows them meets realistic values. Random, never sequential: they cannot be guessed.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random letters and digits. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  // 62 does not divide 256: bytes >= 248 are skipped so every character is equally likely.
  for (let i = 0; i < bytes.length && out.length < length; i++) if (bytes[i] < 248) out += ALPHABET[bytes[i] % 62];
  return out.length === length ? out : out + randomToken(length - out.length);
}

export const simIds = {
  /** Contact way / join way config id: 32 lowercase hex characters. */
  configId: (): string => randomBytes(16).toString('hex'),
  /** Customer id: `wm` + 30 characters. */
  externalUserId: (): string => `wm${randomToken(30)}`,
  /** Group chat id: `wr` + 30 characters. */
  chatId: (): string => `wr${randomToken(30)}`,
  /** Tag or tag group id: `et` + 30 characters. */
  tagId: (): string => `et${randomToken(30)}`,
  /** Message id: `msg` + 29 characters. */
  msgId: (): string => `msg${randomToken(29)}`,
  /** Temporary media id: `3` + 40 characters. */
  mediaId: (): string => `3${randomToken(40)}`,
  /** The path segment of a QR code URL. */
  qrCode: (): string => randomToken(24),
};
