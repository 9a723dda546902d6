import { randomHexId, randomSecret } from '../../common/crypto/secrets';

const TOKEN_PATTERN = /^atr_([0-9a-f]{8})_([A-Za-z0-9_-]{43})$/;

/** A freshly minted agent token: the full value (shown once) and its public prefix. */
export interface MintedToken {
  token: string;
  prefix: string;
}

/**
 * Mints `atr_<prefix>_<secret>`: an 8-hex-char public prefix (how admins address the token) and 256 random bits.
 * The `atr_` marker lets secret scanners recognise leaked tokens.
 */
export function mintAgentToken(): MintedToken {
  const prefix = randomHexId(8);
  return { token: `atr_${prefix}_${randomSecret(32)}`, prefix };
}

/** Reads the prefix of a well-formed agent token, or undefined for anything else. */
export function agentTokenPrefix(token: string): string | undefined {
  return TOKEN_PATTERN.exec(token)?.[1];
}
