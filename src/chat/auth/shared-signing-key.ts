import { Logger } from '@nestjs/common';
import type { JWK } from 'jose';
import { readFile, rename, writeFile } from 'node:fs/promises';
import type { DataSource } from 'typeorm';
import { sharedSecret } from '../../common/cluster/shared-secrets';
import { randomSecret } from '../../common/crypto/secrets';
import { loadOrCreateSigningKey } from './signing-key';

/** Name of the built-in authorization server's signing key in `core_shared_secret`. */
export const SIGNING_KEY_SECRET = 'chat-oauth-signing-key';
/** Name of the key that signs the built-in authorization server's cookies, in `core_shared_secret`. */
export const COOKIE_KEY_SECRET = 'chat-oauth-cookie-key';

/**
 * The key oidc-provider signs its session and interaction cookies with (issue 13 item 2), shared by every instance
 * (sealed in `core_shared_secret`, issue 20 item 5): a browser flow that one instance started and another continues
 * must find its cookies valid. Generated (256 bits) by the first instance.
 * @throws as {@link sharedSecret} (another ATRIUM_SECRET_KEY than the one that stored it)
 */
export async function shareCookieKey(dataSource: DataSource): Promise<string> {
  return (await sharedSecret(dataSource, COOKIE_KEY_SECRET, () => randomSecret(32))).value;
}

/**
 * Makes every instance sign chat access tokens with one key (issue 20 item 5), before the authorization server loads
 * it from `file`: the database holds the key (sealed, in `core_shared_secret`); the first instance seeds it with its
 * local key file (generated as before when missing, so a single instance keeps the key it had), and an instance
 * whose file holds another key gets the shared one written over it (the old file kept as `<file>.replaced`), with a
 * warning: tokens it signed alone stop verifying, as they already did on the other instances.
 * @param file `$DATA_DIR/chat-oauth/signing-key.jwk.json`
 * @throws as {@link loadOrCreateSigningKey} and {@link sharedSecret} (another ATRIUM_SECRET_KEY than the seeder's)
 */
export async function shareSigningKey(dataSource: DataSource, file: string): Promise<void> {
  const shared = await sharedSecret(dataSource, SIGNING_KEY_SECRET, async () => JSON.stringify((await loadOrCreateSigningKey(file)).privateJwk));
  const sharedJwk = JSON.parse(shared.value) as JWK;
  const local = await loadOrCreateSigningKey(file);
  if (local.privateJwk.kid === sharedJwk.kid) return;
  const text = await readFile(file, 'utf8');
  await writeFile(`${file}.replaced`, text, { mode: 0o600 });
  const next = `${file}.next`;
  await writeFile(next, `${JSON.stringify(sharedJwk, null, 2)}\n`, { mode: 0o600 });
  await rename(next, file);
  new Logger('ChatAuthorizationServer').warn(
    `The local OAuth2 signing key ${local.privateJwk.kid} differed from the one the instances share (${sharedJwk.kid}); using the shared key (old file kept as ${file}.replaced).`,
  );
}
