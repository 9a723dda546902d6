import { plainToInstance, Transform, Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { isAbsolute, resolve } from 'node:path';
import type { ExplorationBudget } from '../evaluation/campaigns/exploration-budget';

/** Permissions an agent token may carry (deployment-gateway.md, Resources: Token). */
export const DEPLOY_PERMISSIONS = ['deploy', 'exec', 'list', 'delete'] as const;
export type DeployPermission = (typeof DEPLOY_PERMISSIONS)[number];

const toList = ({ value }: { value: unknown }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : value;

/**
 * The environment variables Atrium reads, each validated at start-up. Every one is listed with its default in
 * README.md (Configuration) and `.env.example`. Sizes are bytes, durations milliseconds.
 */
export class EnvironmentVariables {
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT: number = 3000;

  @IsOptional() @IsString()
  HOST: string = '0.0.0.0';

  @IsOptional() @IsIn(['development', 'production', 'test'])
  NODE_ENV: string = 'development';

  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /** postgres://user:pass@host:port/db; unset = embedded PostgreSQL under DATA_DIR. */
  @IsOptional() @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @IsOptional() @IsString()
  DATA_DIR: string = './.data';

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(65535)
  EMBEDDED_POSTGRES_PORT: number = 54329;

  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  SHUTDOWN_GRACE_MS: number = 10_000;

  /** Largest JSON request body in bytes (scenarios with tens of thousands of cases are several MB). */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  HTTP_JSON_BODY_LIMIT_BYTES: number = 16 * 1024 * 1024;

  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true })
  DEPLOY_PUBLIC_URL?: string;

  @IsOptional() @IsString() @MinLength(16, { message: 'DEPLOY_REGISTRATION_KEY must be at least 16 characters' })
  DEPLOY_REGISTRATION_KEY?: string;

  @IsOptional() @IsString() @MinLength(24, { message: 'DEPLOY_OWNER_TOKEN must be at least 24 characters' })
  DEPLOY_OWNER_TOKEN?: string;

  @IsOptional() @Transform(toList) @IsIn(DEPLOY_PERMISSIONS, { each: true })
  DEPLOY_DEFAULT_PERMISSIONS: DeployPermission[] = [...DEPLOY_PERMISSIONS];

  @IsOptional() @IsString()
  DEPLOY_SITES_DIR?: string;

  @IsOptional() @Transform(toList) @IsString({ each: true })
  DEPLOY_ALLOWED_DIRS?: string[];

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_ARCHIVE_BYTES: number = 100 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  DEPLOY_MAX_UNPACKED_BYTES: number = 500 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_ENTRIES: number = 20_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  DEPLOY_MAX_UPLOAD_BYTES: number = 50 * 1024 * 1024;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_DEFAULT_TIMEOUT_MS: number = 30_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EXEC_MAX_TIMEOUT_MS: number = 600_000;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  EXEC_MAX_OUTPUT_BYTES: number = 1024 * 1024;

  /** Comma-separated API keys accepted by the evaluation platform (header X-API-Key). */
  @IsOptional() @Transform(toList) @IsString({ each: true }) @MinLength(16, { each: true, message: 'each of EVAL_API_KEYS must be at least 16 characters' })
  EVAL_API_KEYS: string[] = [];

  /** Administrator password for POST /api/auth/sign-in; unset = sign-in disabled. */
  @IsOptional() @IsString() @MinLength(8, { message: 'EVAL_ADMIN_PASSWORD must be at least 8 characters' })
  EVAL_ADMIN_PASSWORD?: string;

  /** HMAC key of session tokens; unset = random per process (sessions end at restart and are not shared between instances). */
  @IsOptional() @IsString() @MinLength(32, { message: 'EVAL_SESSION_SECRET must be at least 32 characters' })
  EVAL_SESSION_SECRET?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000)
  EVAL_SESSION_TTL_MS: number = 12 * 60 * 60 * 1000;

  /** Failed sign-ins per client address within EVAL_SIGN_IN_WINDOW_MS before 429. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_SIGN_IN_MAX_FAILURES: number = 5;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  EVAL_SIGN_IN_WINDOW_MS: number = 15 * 60 * 1000;

  /** Where run-completion webhooks go; unset/empty = none are sent. */
  @IsOptional() @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  EVAL_WEBHOOK_URL?: string;

  /** Sent as X-Webhook-Secret when set. */
  @IsOptional() @IsString()
  EVAL_WEBHOOK_SECRET?: string;

  /** Platform default exploration budget (rule 4): sessions a campaign may open inside its window. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_SESSIONS_PER_WINDOW: number = 20;

  /** Platform default exploration budget: virtual-user turns per session. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  EVAL_EXPLORATION_TURNS_PER_SESSION: number = 10;

  /** Platform default exploration budget: least time between two session starts of a campaign, ms. */
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS: number = 60_000;
}

/** Typed, resolved configuration (absolute paths, derived defaults filled in). */
export interface AppConfig {
  port: number;
  host: string;
  nodeEnv: string;
  logLevel: string;
  /** Set: use that server. Undefined: start embedded PostgreSQL. */
  databaseUrl?: string;
  dataDir: string;
  embeddedPostgresPort: number;
  shutdownGraceMs: number;
  jsonBodyLimitBytes: number;
  deploy: {
    publicUrl: string;
    registrationKey?: string;
    ownerToken?: string;
    defaultPermissions: DeployPermission[];
    sitesDir: string;
    allowedDirs: string[];
    maxArchiveBytes: number;
    maxUnpackedBytes: number;
    maxEntries: number;
    maxUploadBytes: number;
  };
  exec: { defaultTimeoutMs: number; maxTimeoutMs: number; maxOutputBytes: number };
  evaluation: {
    apiKeys: string[];
    adminPassword?: string;
    sessionSecret?: string;
    sessionTtlMs: number;
    signInMaxFailures: number;
    signInWindowMs: number;
    webhookUrl?: string;
    webhookSecret?: string;
    /** Platform default exploration budget; campaigns override it field by field. */
    explorationBudget: ExplorationBudget;
  };
}

/** Thrown at start-up when an environment variable is invalid; the message names each bad variable. */
export class ConfigurationError extends Error {}

/**
 * Reads and validates the environment.
 * @param env usually `process.env`
 * @returns the resolved configuration
 * @throws ConfigurationError naming every invalid variable
 */
export function loadConfig(env: NodeJS.ProcessEnv): AppConfig {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const vars = plainToInstance(EnvironmentVariables, present, { exposeDefaultValues: true });
  const errors = validateSync(vars, { whitelist: false, forbidUnknownValues: false });
  if (errors.length > 0) {
    const lines = errors.map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join('; ')}`);
    throw new ConfigurationError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  if (vars.EXEC_DEFAULT_TIMEOUT_MS > vars.EXEC_MAX_TIMEOUT_MS) {
    throw new ConfigurationError('Invalid configuration:\n  EXEC_DEFAULT_TIMEOUT_MS: must not exceed EXEC_MAX_TIMEOUT_MS');
  }
  const dataDir = resolve(vars.DATA_DIR);
  const inData = (path: string) => (isAbsolute(path) ? path : resolve(path));
  return {
    port: vars.PORT,
    host: vars.HOST,
    nodeEnv: vars.NODE_ENV,
    logLevel: vars.LOG_LEVEL,
    databaseUrl: vars.DATABASE_URL,
    dataDir,
    embeddedPostgresPort: vars.EMBEDDED_POSTGRES_PORT,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    jsonBodyLimitBytes: vars.HTTP_JSON_BODY_LIMIT_BYTES,
    deploy: {
      publicUrl: (vars.DEPLOY_PUBLIC_URL ?? `http://localhost:${vars.PORT}`).replace(/\/+$/, ''),
      registrationKey: vars.DEPLOY_REGISTRATION_KEY,
      ownerToken: vars.DEPLOY_OWNER_TOKEN,
      defaultPermissions: [...new Set(vars.DEPLOY_DEFAULT_PERMISSIONS)],
      sitesDir: vars.DEPLOY_SITES_DIR ? inData(vars.DEPLOY_SITES_DIR) : resolve(dataDir, 'sites'),
      allowedDirs: (vars.DEPLOY_ALLOWED_DIRS ?? [resolve(dataDir, 'workspace')]).map(inData),
      maxArchiveBytes: vars.DEPLOY_MAX_ARCHIVE_BYTES,
      maxUnpackedBytes: vars.DEPLOY_MAX_UNPACKED_BYTES,
      maxEntries: vars.DEPLOY_MAX_ENTRIES,
      maxUploadBytes: vars.DEPLOY_MAX_UPLOAD_BYTES,
    },
    exec: {
      defaultTimeoutMs: vars.EXEC_DEFAULT_TIMEOUT_MS,
      maxTimeoutMs: vars.EXEC_MAX_TIMEOUT_MS,
      maxOutputBytes: vars.EXEC_MAX_OUTPUT_BYTES,
    },
    evaluation: {
      apiKeys: vars.EVAL_API_KEYS,
      adminPassword: vars.EVAL_ADMIN_PASSWORD,
      sessionSecret: vars.EVAL_SESSION_SECRET,
      sessionTtlMs: vars.EVAL_SESSION_TTL_MS,
      signInMaxFailures: vars.EVAL_SIGN_IN_MAX_FAILURES,
      signInWindowMs: vars.EVAL_SIGN_IN_WINDOW_MS,
      webhookUrl: vars.EVAL_WEBHOOK_URL,
      webhookSecret: vars.EVAL_WEBHOOK_SECRET,
      explorationBudget: {
        sessionsPerWindow: vars.EVAL_EXPLORATION_SESSIONS_PER_WINDOW,
        turnsPerSession: vars.EVAL_EXPLORATION_TURNS_PER_SESSION,
        minSessionIntervalMs: vars.EVAL_EXPLORATION_MIN_SESSION_INTERVAL_MS,
      },
    },
  };
}

/** Injection token of the resolved {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
