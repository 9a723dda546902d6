import { OAuthClientEntity } from '../../chat/auth/oauth-client.entity';
import { TenantEntity } from '../../chat/tenants/tenant.entity';
import type { AppConfig } from '../../config/app-config';
import { type CliDatabase, type DatabaseSource, openCliDatabase } from '../cli-database';

export type { DatabaseSource };

/** An open connection to Atrium's database, and how to let go of it. */
export type ChatCliDatabase = CliDatabase;

/**
 * Opens Atrium's database for `atrium-chat` with the tenant and OAuth client entities (see {@link openCliDatabase}:
 * DATABASE_URL, else the running embedded server, else one started for the command).
 * @param config the validated environment (loadConfig of src/app.config.ts), like the app's
 */
export function openChatDatabase(config: AppConfig): Promise<ChatCliDatabase> {
  return openCliDatabase(config, [TenantEntity, OAuthClientEntity]);
}
