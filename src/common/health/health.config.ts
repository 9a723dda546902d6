import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const HEALTH = 'Health probes';

/** Environment variables of `GET /api/health/ready` (issue 15 item 3; docs/operations.md). */
export class HealthVariables {
  @ConfigVariable({ group: HEALTH, description: '`/api/health/ready` answers 503 when the file system holding DATA_DIR has less free space than this', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  HEALTH_MIN_FREE_DISK_BYTES: number = 512 * 1024 * 1024;
}

/** The readiness probe's resolved settings (`config.health`). */
export interface HealthSettings {
  /** Least free space under DATA_DIR for "ready", bytes. */
  minFreeDiskBytes: number;
}

/** The health probes' slice of AppConfig. */
export const healthConfig = declareConfig({
  wing: 'core',
  variables: HealthVariables,
  resolve: (vars): { health: HealthSettings } => ({ health: { minFreeDiskBytes: vars.HEALTH_MIN_FREE_DISK_BYTES } }),
});

declare module '../../config/app-config' {
  interface AppConfig extends ReturnType<typeof healthConfig.resolve> {}
}
