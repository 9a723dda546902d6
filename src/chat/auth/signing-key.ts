import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/** The JWS algorithm of the built-in authorization server's access tokens. */
export const BUILT_IN_SIGNING_ALG = 'ES256';

/** The built-in authorization server's signing key: the private JWK (for oidc-provider) and its public half (the JWKS). */
export interface SigningKey {
  privateJwk: JWK;
  publicJwk: JWK;
  /** True when this call generated the key (first start). */
  created: boolean;
}

/**
 * Loads the built-in authorization server's signing key from `file`, generating it on first start (issue 5: "tokens
 * signed with a key kept under ./.data/"). The key is a P-256 key for ES256, written as a private JWK with mode 0600
 * in a 0700 folder; an existing file readable by others is narrowed to 0600. The file is created exclusively, so
 * two instances starting on one data folder end up with the same key.
 * @param file absolute path, normally `$DATA_DIR/chat-oauth/signing-key.jwk.json`
 * @throws Error naming the file when it exists but holds no usable ES256 private key
 */
export async function loadOrCreateSigningKey(file: string): Promise<SigningKey> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const existing = await readKeyFile(file);
  if (existing) return { ...existing, created: false };
  const { privateKey } = await generateKeyPair(BUILT_IN_SIGNING_ALG, { extractable: true });
  const jwk = await exportJWK(privateKey);
  const kid = await calculateJwkThumbprint(publicHalf(jwk));
  const privateJwk: JWK = { ...jwk, kid, alg: BUILT_IN_SIGNING_ALG, use: 'sig' };
  try {
    await writeFile(file, `${JSON.stringify(privateJwk, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    // Another instance wrote it first: use that one.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      const theirs = await readKeyFile(file);
      if (theirs) return { ...theirs, created: false };
    }
    throw error;
  }
  return { privateJwk, publicJwk: publicHalf(privateJwk), created: true };
}

/** The public members of an EC JWK (what the JWKS publishes). */
export function publicHalf(jwk: JWK): JWK {
  const { kty, crv, x, y, kid, alg, use } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, x, y, kid, alg, use }).filter(([, value]) => value !== undefined)) as JWK;
}

async function readKeyFile(file: string): Promise<Omit<SigningKey, 'created'> | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let jwk: JWK;
  try {
    jwk = JSON.parse(text) as JWK;
  } catch {
    throw new Error(`${file} is not a JSON Web Key; move it away to let Atrium generate a new signing key (tokens issued with the old key stop working).`);
  }
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.d || !jwk.x || !jwk.y || !jwk.kid) {
    throw new Error(`${file} does not hold an ES256 (P-256) private key with a kid; move it away to let Atrium generate a new one.`);
  }
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  const privateJwk: JWK = { ...jwk, alg: BUILT_IN_SIGNING_ALG, use: 'sig' };
  return { privateJwk, publicJwk: publicHalf(privateJwk) };
}
