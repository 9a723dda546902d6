import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const GROUP = 'Server';

/**
 * Environment variables of JSON request bodies (issue 19, item 4). The largest limit, for the routes that take big
 * documents (`@JsonBodyLimit('document')`: scenarios, intelligent-evaluation plans and reports, tool providers), stays
 * HTTP_JSON_BODY_LIMIT_BYTES of the core (core.config.ts).
 */
export class BodyLimitVariables {
  @ConfigVariable({ group: GROUP, description: 'largest JSON request body of every route that does not take a big document (413 above; those routes use HTTP_JSON_BODY_LIMIT_BYTES)', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(1024 * 1024 * 1024)
  HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES: number = 1024 * 1024;

  @ConfigVariable({ group: GROUP, description: 'deepest nesting of arrays and objects in a JSON request body (400 above, checked before parsing)', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(2) @Max(10_000)
  HTTP_JSON_MAX_DEPTH: number = 64;
}

/** The request-body slice of AppConfig: `httpBodies.defaultJsonLimitBytes` (bytes) and `httpBodies.maxJsonDepth`. */
export const bodyLimitsConfig = declareConfig({
  wing: 'core',
  variables: BodyLimitVariables,
  resolve: (vars) => ({
    httpBodies: { defaultJsonLimitBytes: vars.HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES, maxJsonDepth: vars.HTTP_JSON_MAX_DEPTH },
  }),
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof bodyLimitsConfig.resolve> {}
}
