import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { parseSealingKey, SecretSealer } from './secret-sealer';

/** Name of the generated key file under DATA_DIR. */
export const SECRET_KEY_FILE = 'secret.key';

/** Where the sealing keys come from: the configured text (AppConfig.secretKey) and the data folder. */
export interface SecretKeySource {
  /** ATRIUM_SECRET_KEY, or undefined to use (or generate) `$DATA_DIR/secret.key`. */
  current?: string;
  /** ATRIUM_SECRET_KEY_PREVIOUS. */
  previous: readonly string[];
  dataDir: string;
  /** true when DATABASE_URL is set: a generated key is then per-instance, which scale-out cannot use. */
  externalDatabase: boolean;
  /** Receives the one warning about a key generated for an external database. */
  warn?: (message: string) => void;
}

/**
 * Resolves the process's {@link SecretSealer} (issue 19, item 6): ATRIUM_SECRET_KEY when set; otherwise the key in
 * `$DATA_DIR/secret.key`, generated at first start (32 random bytes as hex, mode 0600, created exclusively so two
 * processes starting together agree on one key). With DATABASE_URL set and no ATRIUM_SECRET_KEY the key is still
 * generated, with a warning: every instance sharing that database must be given the same key, which cannot live in
 * the database it protects.
 * @throws Error when the key file is unreadable or holds no valid key, or a configured key is invalid
 */
export async function loadSecretSealer(source: SecretKeySource): Promise<SecretSealer> {
  const previous = source.previous.map((text) => parseSealingKey(text));
  if (source.current) return new SecretSealer(parseSealingKey(source.current), previous);
  const file = join(source.dataDir, SECRET_KEY_FILE);
  let text = await readKeyFile(file);
  if (text === undefined) {
    await mkdir(source.dataDir, { recursive: true });
    try {
      await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    text = (await readKeyFile(file))!;
    if (source.externalDatabase) {
      source.warn?.(
        `ATRIUM_SECRET_KEY is not set: generated ${file}. Secrets in DATABASE_URL's database are sealed with it; ` +
          'copy it into ATRIUM_SECRET_KEY before starting a second instance or moving the data folder, or they cannot be read.',
      );
    }
  }
  try {
    return new SecretSealer(parseSealingKey(text), previous);
  } catch (error) {
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** The key file's text, or undefined when missing; tightens its mode to 0600 if it was looser. */
async function readKeyFile(file: string): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if ((info.mode & 0o077) !== 0) await chmod(file, 0o600);
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
