import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Sealing of third-party secrets at rest (issue 19, item 6): AES-256-GCM with a random 96-bit IV per value, under a
 * 32-byte key from `ATRIUM_SECRET_KEY` (or the key file the embedded default generates). A sealed value is one line
 * of text, `v1:<kid>:<iv>:<tag>:<ciphertext>` (base64url parts), so it fits a `text` column and a JSON string:
 * - `kid` (8 chars) names the key that sealed it: rotation keeps old keys to open old rows until they are resealed;
 * - the additional authenticated data is `v1:<kid>`, so a value cannot be moved to another key id unnoticed.
 */
export const SEAL_VERSION = 'v1';

/** A sealed value, strictly: version, 8-char key id, 16-char IV, 22-char tag, ciphertext (may be empty). */
export const SEALED_PATTERN = /^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$/;

/** The same rule as {@link SEALED_PATTERN}, in PostgreSQL's regex syntax (`col ~ '…'`), for the sweep's SQL. */
export const SEALED_SQL_PATTERN = '^v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]*$';

/** A sealed value could not be opened: unknown key id (key missing from the configuration) or tampered data. */
export class SecretSealError extends Error {}

/** A 32-byte AES key and its id. */
export interface SealingKey {
  /** 8 base64url characters derived from the key (SHA-256), safe to store and log. */
  id: string;
  key: Buffer;
}

/**
 * Parses a key as configured: 64 hex characters, or base64/base64url of exactly 32 bytes (`openssl rand -hex 32`).
 * @throws SecretSealError naming what is wrong (never echoing the value)
 */
export function parseSealingKey(text: string): SealingKey {
  const trimmed = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(trimmed)) key = Buffer.from(trimmed.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
  if (!key || key.length !== 32) throw new SecretSealError('a secret key must be 32 random bytes, written as 64 hex characters or 43 base64url characters (openssl rand -hex 32)');
  return { id: keyIdOf(key), key };
}

/** The stored id of a key: the first 8 base64url characters of SHA-256("atrium-secret-key\0" + key). */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update('atrium-secret-key\0').update(key).digest('base64url').slice(0, 8);
}

/** Whether `value` has the exact shape of a sealed value (a plain secret of another shape is never mistaken). */
export function isSealed(value: unknown): value is string {
  return typeof value === 'string' && SEALED_PATTERN.test(value);
}

/** The key id a sealed value names, or undefined for a value that is not sealed. */
export function sealedKeyId(value: string): string | undefined {
  return isSealed(value) ? value.split(':')[1] : undefined;
}

/**
 * Seals one UTF-8 string under `key`.
 * @returns `v1:<kid>:<iv>:<tag>:<ciphertext>`, about 50 + 4/3 × bytes characters
 */
export function sealWith(key: SealingKey, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(Buffer.from(`${SEAL_VERSION}:${key.id}`));
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return [SEAL_VERSION, key.id, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join(':');
}

/**
 * Opens a sealed value with whichever of `keys` has its key id.
 * @throws SecretSealError when the value is not sealed, its key is not among `keys`, or it fails authentication
 */
export function unsealWith(keys: readonly SealingKey[], sealed: string): string {
  if (!isSealed(sealed)) throw new SecretSealError('not a sealed value');
  const [, id, iv, tag, ciphertext] = sealed.split(':');
  const key = keys.find((candidate) => candidate.id === id);
  if (!key) throw new SecretSealError(`sealed under key ${id}, which is neither ATRIUM_SECRET_KEY nor one of ATRIUM_SECRET_KEY_PREVIOUS`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(`${SEAL_VERSION}:${id}`));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretSealError(`a value sealed under key ${id} failed authentication (altered or truncated)`);
  }
}

/**
 * The process's keys: `current` seals, every key (current first, then previous ones) opens.
 */
export class SecretSealer {
  readonly keys: readonly SealingKey[];

  /**
   * @param current the key new values are sealed with
   * @param previous keys of earlier rotations, kept to open rows not yet resealed
   */
  constructor(
    readonly current: SealingKey,
    previous: readonly SealingKey[] = [],
  ) {
    this.keys = [current, ...previous.filter((key) => key.id !== current.id)];
  }

  /** Seals `plain` under the current key. */
  seal(plain: string): string {
    return sealWith(this.current, plain);
  }

  /**
   * Opens a sealed value; a value that is not sealed (a row written before sealing, not yet swept) is returned as is.
   * @throws SecretSealError a sealed value whose key is unknown or which fails authentication
   */
  open(value: string): string {
    return isSealed(value) ? unsealWith(this.keys, value) : value;
  }

  /** Whether `value` is sealed under the current key (nothing to do for a rotation). */
  isCurrent(value: string): boolean {
    return sealedKeyId(value) === this.current.id;
  }
}

let installed: SecretSealer | undefined;

/**
 * Makes `sealer` the process's sealer, used by the sealed column transformers (src/database/sealed-column.ts). Called
 * before the DataSource loads any row (DatabaseModule's factory); calling it again replaces the keys (a restarted app).
 */
export function installSecretSealer(sealer: SecretSealer): void {
  installed = sealer;
}

/**
 * The process's sealer.
 * @throws Error when none is installed yet (a DataSource with sealed entities built outside DatabaseModule)
 */
export function secretSealer(): SecretSealer {
  if (!installed) throw new Error('No secret sealer installed: sealed columns are read and written only after DatabaseModule resolved ATRIUM_SECRET_KEY');
  return installed;
}
