import type { DataSource } from 'typeorm';
import { SecretSealError, secretSealer } from '../crypto/secret-sealer';

/** A shared secret's value and whether this call made it. */
export interface SharedSecret {
  value: string;
  /** True when this instance generated and stored it (the first one to start). */
  created: boolean;
}

/**
 * A signing secret shared by every instance on the database (issue 20 item 5: "shared through the database …, never
 * generated per instance"), in `core_shared_secret`, sealed with ATRIUM_SECRET_KEY. The first instance to ask stores
 * `generate()`'s value (`ON CONFLICT DO NOTHING`, so instances starting together agree on one); everyone else reads it.
 * @param name key of the secret, e.g. `eval-session-secret` (≤ 64 chars)
 * @param generate makes the value when none is stored (a seed read from an older local file is fine)
 * @throws Error naming ATRIUM_SECRET_KEY when the stored value was sealed with another key: this instance's key differs
 *   from the one that stored it (several instances each generated their own `$DATA_DIR/secret.key`)
 */
export async function sharedSecret(dataSource: DataSource, name: string, generate: () => string | Promise<string>): Promise<SharedSecret> {
  const stored = await readShared(dataSource, name);
  if (stored !== undefined) return { value: stored, created: false };
  const value = await generate();
  const inserted = (await dataSource.query(
    `INSERT INTO core_shared_secret (name, sealed_value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING name`,
    [name, secretSealer().seal(value)],
  )) as unknown[];
  if (inserted.length > 0) return { value, created: true };
  // Another instance stored its value between our read and our insert: use that one.
  return { value: (await readShared(dataSource, name))!, created: false };
}

async function readShared(dataSource: DataSource, name: string): Promise<string | undefined> {
  const rows = (await dataSource.query(`SELECT sealed_value FROM core_shared_secret WHERE name = $1`, [name])) as { sealed_value: string }[];
  if (rows.length === 0) return undefined;
  try {
    return secretSealer().open(rows[0].sealed_value);
  } catch (error) {
    if (!(error instanceof SecretSealError)) throw error;
    throw new Error(
      `The shared secret "${name}" in the database was sealed with another ATRIUM_SECRET_KEY than this instance's. Every instance on one database needs the same ATRIUM_SECRET_KEY (docs/scaling.md).`,
      { cause: error },
    );
  }
}
