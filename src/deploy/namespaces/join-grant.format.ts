import { randomHexId, randomSecret } from '../../common/crypto/secrets';

const JOIN_GRANT_PATTERN = /^atj_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

/** A freshly minted join code: the full value (shown once) and its public prefix. */
export interface MintedJoinGrant {
  code: string;
  prefix: string;
}

/**
 * Mints `atj_<prefix>_<secret>`: an 8-hex-char public prefix (how the owner lists and revokes the grant) and 256
 * random bits. The `atj_` marker tells it apart from an agent token (`atr_`) and lets secret scanners spot it.
 */
export function mintJoinGrant(): MintedJoinGrant {
  const prefix = randomHexId(8);
  return { code: `atj_${prefix}_${randomSecret(32)}`, prefix };
}

/** Reads the prefix of a well-formed join code, or undefined for anything else. */
export function joinGrantPrefix(code: string): string | undefined {
  return JOIN_GRANT_PATTERN.exec(code)?.[1];
}
