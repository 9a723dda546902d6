import type { AppConfig } from './config/app-config';

/** Where the database is: DATABASE_URL (its password never shown) or the embedded server. */
export type DatabaseInUse = { kind: 'external'; url: string } | { kind: 'embedded'; port: number; dataDir: string };

/** `url` without its password (`postgres://atrium:***@db:5432/atrium`); unparseable: `(unparseable URL)`. Pure. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/**
 * The one start-up summary (issue 15 item 4): the URL, the docs, the database in use, the wings and how each
 * authenticates, and where metrics and probes are. Pure; secrets never appear (credentials are named by variable,
 * generated ones are printed once on stderr by the code that makes them, as before). This file is a composition root
 * (like app.module.ts): it reads every wing's configuration.
 * @param baseUrl the URL the server listens on (`http://localhost:3000`)
 * @returns `{ lines, fields }`: the printed block's lines and the same facts as log fields
 */
export function startupSummary(config: AppConfig, baseUrl: string, database: DatabaseInUse): { lines: string[]; fields: Record<string, unknown> } {
  const databaseText = database.kind === 'external' ? withoutPassword(database.url) : `embedded PostgreSQL on 127.0.0.1:${database.port} (data in ${database.dataDir})`;
  const chatAuth = config.chatAuth.issuer ? `OAuth2 bearer tokens from ${config.chatAuth.issuer}` : `OAuth2 bearer tokens from the built-in server at ${config.chatAuth.publicUrl}/oauth`;
  const deployAuth = `agent tokens from POST /api/auth/register (registration key: ${config.deploy.registrationKey ? 'DEPLOY_REGISTRATION_KEY' : 'generated'}), owner token: ${config.deploy.ownerToken ? 'DEPLOY_OWNER_TOKEN' : 'generated'}`;
  const evalAuth = `X-API-Key (${config.evaluation.apiKeys.length} from EVAL_API_KEYS, plus named keys), sign-in ${config.evaluation.adminPassword ? 'on' : 'off (EVAL_ADMIN_PASSWORD unset)'}`;
  const metricsText = config.metrics.port !== undefined && config.metrics.port !== config.port ? `port ${config.metrics.port} /metrics` : `${baseUrl}/metrics`;
  const fields = {
    url: baseUrl,
    docs: `${baseUrl}/docs`,
    database: databaseText,
    wings: { chat: chatAuth, deploy: deployAuth, evaluation: evalAuth },
    metrics: `${metricsText}${config.metrics.token ? ' (METRICS_TOKEN)' : ''}`,
    probes: `${baseUrl}/api/health/live, ${baseUrl}/api/health/ready`,
  };
  const lines = [
    `Atrium is listening on ${fields.url}`,
    `  docs        ${fields.docs}`,
    `  database    ${fields.database}`,
    `  chat        ${chatAuth}`,
    `  deploy      ${deployAuth}`,
    `  evaluation  ${evalAuth}`,
    `  metrics     ${fields.metrics}`,
    `  probes      ${fields.probes}`,
  ];
  return { lines, fields };
}
