import '../common/crypto/secret-key.config';
import { loadSecretSealer } from '../common/crypto/secret-key';
import type { SecretSealer } from '../common/crypto/secret-sealer';
import type { AppConfig } from '../config/app-config';

/**
 * The sealer for a process configured by `config` (issue 19, item 6): ATRIUM_SECRET_KEY(_PREVIOUS), else the key file
 * under DATA_DIR (generated at first start; `warn` hears about a key generated while DATABASE_URL is set).
 * @throws Error an invalid key or an unreadable key file
 */
export function sealerFor(config: AppConfig, warn?: (message: string) => void): Promise<SecretSealer> {
  const keys = config.secretKey;
  return loadSecretSealer({ current: keys.current, previous: keys.previous, dataDir: config.dataDir, externalDatabase: Boolean(config.databaseUrl), warn });
}

