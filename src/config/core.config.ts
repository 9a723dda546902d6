import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { isAbsolute, resolve } from 'node:path';
import { ConfigVariable, declareConfig, typedSlice } from './config-variable';

const SERVER = 'Server';
const DATABASE = 'Database and files';

/** The shared core's environment variables: server, logging, database, data folder. */
export class CoreVariables {
  @ConfigVariable({ group: SERVER, description: 'HTTP port', unit: 'port' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0) @Max(65535)
  PORT: number = 3000;

  @ConfigVariable({ group: SERVER, description: 'listen address', unit: 'text' })
  @IsOptional() @IsString()
  HOST: string = '0.0.0.0';

  @ConfigVariable({ group: SERVER, description: 'run mode', unit: 'text' })
  @IsOptional() @IsIn(['development', 'production', 'test'])
  NODE_ENV: string = 'development';

  @ConfigVariable({ group: SERVER, description: 'pino log level; logs are JSON lines with credentials censored', unit: 'text' })
  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  @ConfigVariable({ group: SERVER, description: 'on SIGTERM/SIGINT, in-flight requests may finish for this long', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  SHUTDOWN_GRACE_MS: number = 10_000;

  @ConfigVariable({ group: SERVER, description: 'largest JSON request body of the routes that take big documents: scenarios, intelligent-evaluation plans and reports, tool providers (413 above); other routes: HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024)
  HTTP_JSON_BODY_LIMIT_BYTES: number = 16 * 1024 * 1024;

  @ConfigVariable({ group: DATABASE, description: '`postgres://…` of your PostgreSQL; unset = embedded PostgreSQL under DATA_DIR', unit: 'url' })
  @IsOptional() @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// URL' })
  DATABASE_URL?: string;

  @ConfigVariable({ group: DATABASE, description: 'embedded database, sites, workspaces, temporary uploads', unit: 'path' })
  @IsOptional() @IsString()
  DATA_DIR: string = './.data';

  @ConfigVariable({ group: DATABASE, description: 'port of the embedded PostgreSQL (127.0.0.1)', unit: 'port' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(65535)
  EMBEDDED_POSTGRES_PORT: number = 54329;

  @ConfigVariable({
    group: DATABASE,
    description: 'root of the local file storage (evaluation files under random keys `<namespace>/<aa>/<bb>/<id>`; writes in progress in `.tmp/`)',
    unit: 'path',
    defaultText: '$DATA_DIR/files',
  })
  @IsOptional() @IsString()
  STORAGE_DIR?: string;
}

/** Resolves a configured path against the working directory. */
export const absolutePath = (path: string) => (isAbsolute(path) ? path : resolve(path));

/** The shared core's slice of AppConfig (DESIGN.md, Shape: `config/`). */
export const coreConfig = declareConfig({
  wing: 'core',
  variables: CoreVariables,
  resolve: (vars) => ({
    port: vars.PORT,
    host: vars.HOST,
    nodeEnv: vars.NODE_ENV,
    logLevel: vars.LOG_LEVEL,
    /** Set: use that server. Undefined: start embedded PostgreSQL. */
    ...typedSlice<{ databaseUrl?: string }>({ databaseUrl: vars.DATABASE_URL }),
    dataDir: resolve(vars.DATA_DIR),
    embeddedPostgresPort: vars.EMBEDDED_POSTGRES_PORT,
    shutdownGraceMs: vars.SHUTDOWN_GRACE_MS,
    jsonBodyLimitBytes: vars.HTTP_JSON_BODY_LIMIT_BYTES,
    /** File storage port (DESIGN.md, External peers): the local adapter keeps blobs under `root`. */
    storage: { root: vars.STORAGE_DIR ? absolutePath(vars.STORAGE_DIR) : resolve(vars.DATA_DIR, 'files') },
  }),
});

/** The core's resolved values. */
export type CoreConfig = ReturnType<typeof coreConfig.resolve>;
