import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Max, Min, MinLength } from 'class-validator';
import { resolve } from 'node:path';
import { ConfigurationError, ConfigVariable, declareConfig, toList, typedSlice } from '../config/config-variable';
import { isWithin } from './allowed-paths';
import { absolutePath } from '../config/core.config';
import { DEPLOY_PERMISSIONS, type DeployPermission } from './auth/deploy-principal';

const GATEWAY = 'Deploy gateway';
const SITES = 'Deploy sites and uploads';
const EXEC = 'Exec';

/** The deployment gateway's environment variables (deployment-gateway.md): tokens, sites, uploads and exec limits. */
export class DeployVariables {
  @ConfigVariable({
    group: GATEWAY,
    description: 'base of the site URLs returned by `POST /api/deploy`',
    unit: 'url',
    defaultText: 'http://localhost:$PORT',
  })
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true })
  DEPLOY_PUBLIC_URL?: string;

  @ConfigVariable({
    group: GATEWAY,
    description: 'key agents register with (min. 16 chars); valid for nothing else',
    unit: 'text',
    defaultText: 'generated at first start',
    secret: true,
  })
  @IsOptional() @IsString() @MinLength(16, { message: 'DEPLOY_REGISTRATION_KEY must be at least 16 characters' })
  DEPLOY_REGISTRATION_KEY?: string;

  @ConfigVariable({
    group: GATEWAY,
    description: 'the owner\'s credential for `/api/admin/*` (min. 24 chars)',
    unit: 'text',
    defaultText: 'generated at first start',
    secret: true,
  })
  @IsOptional() @IsString() @MinLength(24, { message: 'DEPLOY_OWNER_TOKEN must be at least 24 characters' })
  DEPLOY_OWNER_TOKEN?: string;

  @ConfigVariable({ group: GATEWAY, description: 'permissions a new token gets (an agent may ask for fewer)', unit: 'list' })
  @IsOptional() @Transform(toList) @IsIn(DEPLOY_PERMISSIONS, { each: true })
  DEPLOY_DEFAULT_PERMISSIONS: DeployPermission[] = [...DEPLOY_PERMISSIONS];

  @ConfigVariable({
    group: SITES,
    description: 'where published sites live, as `<contactId>/<directory_name>/`',
    unit: 'path',
    defaultText: '$DATA_DIR/sites',
  })
  @IsOptional() @IsString()
  DEPLOY_SITES_DIR?: string;

  @ConfigVariable({
    group: SITES,
    description: 'comma-separated folders that `exec` (cwd) and `upload` may touch',
    unit: 'list',
    defaultText: '$DATA_DIR/workspace',
  })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  DEPLOY_ALLOWED_DIRS?: string[];

  @ConfigVariable({ group: SITES, description: 'largest site archive (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_ARCHIVE_BYTES: number = 100 * 1024 * 1024;

  @ConfigVariable({ group: SITES, description: 'largest unpacked site (400 above; zip-bomb guard)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_UNPACKED_BYTES: number = 500 * 1024 * 1024;

  @ConfigVariable({ group: SITES, description: 'most entries in a site archive', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_ENTRIES: number = 20_000;

  @ConfigVariable({ group: SITES, description: 'largest `POST /api/upload` file (413 above)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_UPLOAD_BYTES: number = 50 * 1024 * 1024;

  @ConfigVariable({ group: EXEC, description: 'exec timeout when the request gives none', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_DEFAULT_TIMEOUT_MS: number = 30_000;

  @ConfigVariable({ group: EXEC, description: 'largest timeout a request may ask for (400 above)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_MAX_TIMEOUT_MS: number = 600_000;

  @ConfigVariable({ group: EXEC, description: 'stdout and stderr are each cut (and marked truncated) past this', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  EXEC_MAX_OUTPUT_BYTES: number = 1024 * 1024;
}

/** Deployment gateway (deployment-gateway.md): URL without a trailing slash, folders absolute, sizes in bytes. */
export interface DeployGatewayConfig {
  publicUrl: string;
  /** Secret; undefined = generated at first start and kept (hashed) in the database. */
  registrationKey?: string;
  /** Secret; undefined = generated at first start and kept (hashed) in the database. */
  ownerToken?: string;
  /** Permissions a new agent token gets unless it asks for fewer. */
  defaultPermissions: DeployPermission[];
  sitesDir: string;
  /** Folders `exec` (cwd) and `upload` may touch. */
  allowedDirs: string[];
  maxArchiveBytes: number;
  maxUnpackedBytes: number;
  maxEntries: number;
  maxUploadBytes: number;
}

/**
 * Workspace roots may lie inside DATA_DIR (the default `$DATA_DIR/workspace`) but must not be DATA_DIR or contain it:
 * a namespace called `sites`, `tmp` or `postgres` would then get that folder mounted writable in the exec sandbox.
 * @throws ConfigurationError naming DEPLOY_ALLOWED_DIRS
 */
function workspaceRootsOutsideData(roots: string[], dataDir: string): { allowedDirs: string[] } {
  const covering = roots.filter((root) => isWithin(root, dataDir));
  if (covering.length > 0) {
    throw new ConfigurationError(`Invalid configuration:\n  DEPLOY_ALLOWED_DIRS: ${covering.join(', ')} is DATA_DIR or contains it; use a folder of its own (default $DATA_DIR/workspace)`);
  }
  return { allowedDirs: roots };
}

/**
 * The deployment gateway's slices of AppConfig: `deploy` (public URL, credentials, folders as absolute paths, archive
 * and upload limits in bytes) and `exec` (timeouts in ms, output cap in bytes).
 */
export const deployConfig = declareConfig({
  wing: 'deploy',
  variables: DeployVariables,
  check: (vars) => (vars.EXEC_DEFAULT_TIMEOUT_MS > vars.EXEC_MAX_TIMEOUT_MS ? ['EXEC_DEFAULT_TIMEOUT_MS: must not exceed EXEC_MAX_TIMEOUT_MS'] : []),
  resolve: (vars, base) => ({
    deploy: typedSlice<DeployGatewayConfig>({
      ...workspaceRootsOutsideData((vars.DEPLOY_ALLOWED_DIRS ?? [resolve(base.dataDir, 'workspace')]).map(absolutePath), base.dataDir),
      publicUrl: (vars.DEPLOY_PUBLIC_URL ?? `http://localhost:${base.port}`).replace(/\/+$/, ''),
      registrationKey: vars.DEPLOY_REGISTRATION_KEY,
      ownerToken: vars.DEPLOY_OWNER_TOKEN,
      defaultPermissions: [...new Set(vars.DEPLOY_DEFAULT_PERMISSIONS)],
      sitesDir: vars.DEPLOY_SITES_DIR ? absolutePath(vars.DEPLOY_SITES_DIR) : resolve(base.dataDir, 'sites'),
      maxArchiveBytes: vars.DEPLOY_MAX_ARCHIVE_BYTES,
      maxUnpackedBytes: vars.DEPLOY_MAX_UNPACKED_BYTES,
      maxEntries: vars.DEPLOY_MAX_ENTRIES,
      maxUploadBytes: vars.DEPLOY_MAX_UPLOAD_BYTES,
    }),
    /** `POST /api/exec`: timeouts in ms, stdout/stderr each cut past `maxOutputBytes`. */
    exec: {
      defaultTimeoutMs: vars.EXEC_DEFAULT_TIMEOUT_MS,
      maxTimeoutMs: vars.EXEC_MAX_TIMEOUT_MS,
      maxOutputBytes: vars.EXEC_MAX_OUTPUT_BYTES,
    },
  }),
});

/** The deployment gateway's resolved values (`deploy`, `exec`). */
export type DeployConfig = ReturnType<typeof deployConfig.resolve>;

declare module '../config/app-config' {
  /** The deployment gateway's slices: `deploy` and `exec`. */
  interface AppConfig extends DeployConfig {}
}
