import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min, MinLength } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const METRICS = 'Metrics';

/** Environment variables of the Prometheus endpoint (issue 15 item 1; docs/metrics.md). */
export class MetricsVariables {
  @ConfigVariable({
    group: METRICS,
    description: 'port of `GET /metrics` (Prometheus text format); unset or equal to PORT: served on the app\'s own port, otherwise only on this one (on HOST)',
    unit: 'port',
    defaultText: 'PORT',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(65535)
  METRICS_PORT?: number;

  @ConfigVariable({ group: METRICS, description: 'when set, `/metrics` answers only `Authorization: Bearer <this>` (401 otherwise); unset: public', unit: 'text', secret: true })
  @IsOptional() @IsString() @MinLength(16, { message: 'METRICS_TOKEN must be at least 16 characters' })
  METRICS_TOKEN?: string;
}

/** The metrics endpoint's resolved settings (`config.metrics`). */
export interface MetricsSettings {
  /** A port of its own, or undefined: the app's port. */
  port?: number;
  /** The bearer token scrapes must send, or undefined: public. */
  token?: string;
}

/** The metrics slice of AppConfig. */
export const metricsConfig = declareConfig({
  wing: 'core',
  variables: MetricsVariables,
  resolve: (vars): { metrics: MetricsSettings } => ({ metrics: { port: vars.METRICS_PORT, token: vars.METRICS_TOKEN } }),
});

declare module '../../config/app-config' {
  interface AppConfig extends ReturnType<typeof metricsConfig.resolve> {}
}
