import type { CoreConfig } from './core.config';

export { ConfigurationError } from './config-variable';

/**
 * The typed, resolved configuration every service injects as {@link APP_CONFIG} (absolute paths, derived defaults
 * filled in). Here it holds only the shared core's values ({@link CoreConfig}: server, logging, database, data folder,
 * file storage). Each wing adds its own slices from its declaration file by augmenting this interface
 * (`declare module '.../config/app-config' { interface AppConfig extends ChatConfig {} }`): src/chat/chat.config.ts,
 * src/deploy/deploy.config.ts, src/evaluation/evaluation.config.ts. The composition root src/app.config.ts loads them
 * all (issue 15 item 7: config lives with its wing).
 */
export interface AppConfig extends CoreConfig {}

/** Injection token of the resolved {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
