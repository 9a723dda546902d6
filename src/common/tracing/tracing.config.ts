import { IsOptional, IsString, Matches } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const TRACES = 'Traces';

/**
 * OpenTelemetry's own variables as Atrium reads them (issue 15 item 2; docs/metrics.md). They are read before the
 * rest of the configuration, by src/tracing-preload.ts, so the instrumentations load before the modules they patch;
 * this declaration documents and validates them.
 */
export class TracingVariables {
  @ConfigVariable({
    group: TRACES,
    description: 'OTLP/HTTP collector base URL (`http://collector:4318`); traces go to `<this>/v1/traces`. Unset: no tracing at all',
    unit: 'url',
  })
  @IsOptional() @Matches(/^https?:\/\/\S+$/, { message: 'OTEL_EXPORTER_OTLP_ENDPOINT must be an http(s) URL' })
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  @ConfigVariable({ group: TRACES, description: 'the `service.name` of the spans', unit: 'text' })
  @IsOptional() @IsString()
  OTEL_SERVICE_NAME: string = 'atrium';
}

/** The tracing slice of AppConfig (`config.tracing`). */
export const tracingConfig = declareConfig({
  wing: 'core',
  variables: TracingVariables,
  resolve: (vars): { tracing: { endpoint?: string; serviceName: string } } => ({ tracing: { endpoint: vars.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: vars.OTEL_SERVICE_NAME } }),
});

declare module '../../config/app-config' {
  interface AppConfig extends ReturnType<typeof tracingConfig.resolve> {}
}
