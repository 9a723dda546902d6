import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The deploy client's configuration file (deployment-gateway.md, Resources: "Client configuration file").
 * `token` is null until registration succeeds; `agentId` may be an empty string.
 * `instanceName` is optional and only sent at registration.
 */
export interface DeployClientConfig {
  /** Gateway base URL, e.g. `https://deploy.example.com` (http or https only). */
  apiUrl: string;
  /** Key used once for self-registration (POST /api/auth/register); never a substitute for the token. */
  registrationKey: string;
  /** Bearer token issued by registration, or null before registration. */
  token: string | null;
  /** Agent identifier, may be empty. */
  agentId: string;
  /** Optional instance name sent at registration. */
  instanceName?: string;
}

/** Thrown for any configuration problem (missing file, invalid JSON, missing env variable). Message is one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Where the config file lives (deployment-gateway.md, Resources): `$ATRIUM_DEPLOY_CONFIG` if set, else
 * `$XDG_CONFIG_HOME/atrium-deploy/config.json`, else `~/.config/atrium-deploy/config.json`.
 * @param env environment to read (defaults to `process.env`; injectable for tests)
 * @param home home directory fallback (defaults to `os.homedir()`)
 * @returns absolute path of the config file
 */
export function resolveConfigPath(env: NodeJS.ProcessEnv = process.env, home: string = os.homedir()): string {
  if (env.ATRIUM_DEPLOY_CONFIG) return path.resolve(env.ATRIUM_DEPLOY_CONFIG);
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.resolve(base, 'atrium-deploy', 'config.json');
}

/**
 * Validates that `apiUrl` is an absolute http(s) URL and returns it without a trailing slash.
 * @throws ConfigError when the value is not an http(s) URL
 */
export function normalizeApiUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`apiUrl is not a valid URL: ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`apiUrl must use http or https, got ${url.protocol}`);
  }
  return url.toString().replace(/\/+$/, '');
}

/**
 * Builds a fresh config from environment variables (deployment-gateway.md, Resources: "Environment variables for
 * initialisation"). `DEPLOY_API_URL` and `DEPLOY_REGISTRATION_KEY` are required; `DEPLOY_AGENT_ID` and
 * `DEPLOY_INSTANCE_NAME` are optional. The token starts as null.
 * @throws ConfigError naming the first missing required variable, or when the URL is invalid
 */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): DeployClientConfig {
  for (const name of ['DEPLOY_API_URL', 'DEPLOY_REGISTRATION_KEY'] as const) {
    if (!env[name]?.trim()) throw new ConfigError(`environment variable ${name} is required but not set`);
  }
  const config: DeployClientConfig = {
    apiUrl: normalizeApiUrl(env.DEPLOY_API_URL!.trim()),
    registrationKey: env.DEPLOY_REGISTRATION_KEY!.trim(),
    token: null,
    agentId: env.DEPLOY_AGENT_ID?.trim() ?? '',
  };
  const instanceName = env.DEPLOY_INSTANCE_NAME?.trim();
  if (instanceName) config.instanceName = instanceName;
  return config;
}

/**
 * Reads and validates the config file.
 * @param file path of the config file (see {@link resolveConfigPath})
 * @returns the parsed config
 * @throws ConfigError when the file is missing (hinting at `init-config`), not JSON, or lacks required fields
 */
export async function readConfig(file: string): Promise<DeployClientConfig> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ConfigError(`no config file at ${file}; run "atrium-deploy init-config" first`);
    }
    throw new ConfigError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new ConfigError(`config file ${file} is not valid JSON`);
  }
  if (typeof raw !== 'object' || raw === null) throw new ConfigError(`config file ${file} must hold a JSON object`);
  const obj = raw as Record<string, unknown>;
  for (const key of ['apiUrl', 'registrationKey'] as const) {
    if (typeof obj[key] !== 'string' || !obj[key]) throw new ConfigError(`config file ${file} lacks "${key}"`);
  }
  if (obj.token !== null && obj.token !== undefined && typeof obj.token !== 'string') {
    throw new ConfigError(`config file ${file} has an invalid "token"`);
  }
  const config: DeployClientConfig = {
    apiUrl: normalizeApiUrl(obj.apiUrl as string),
    registrationKey: obj.registrationKey as string,
    token: (obj.token as string | null | undefined) || null,
    agentId: typeof obj.agentId === 'string' ? obj.agentId : '',
  };
  if (typeof obj.instanceName === 'string' && obj.instanceName) config.instanceName = obj.instanceName;
  return config;
}

/**
 * Writes the config file atomically (temp file + rename) with mode 0600, creating missing parent
 * directories with mode 0700. Existing parent directories are left untouched (they may be shared, e.g. /tmp).
 * @param file path of the config file
 * @param config config to store
 * @throws the underlying fs error when the directory or file cannot be written
 */
export async function writeConfig(file: string, config: DeployClientConfig): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    // 'wx' refuses to follow a pre-existing path; chmod guards against an unusual umask.
    const handle = await fs.open(tmp, 'wx', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(JSON.stringify(config, null, 2) + '\n', 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
