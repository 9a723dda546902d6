import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const GROUP = 'Deployment gateway';

/** Environment variables of namespace ownership (issue 12, item 3): the lifetime of join grants. */
export class DeployNamespaceVariables {
  @ConfigVariable({ group: GROUP, description: 'lifetime of an owner-issued join grant when the owner names none', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000)
  DEPLOY_JOIN_GRANT_TTL_MS: number = 24 * 3600_000;

  @ConfigVariable({ group: GROUP, description: 'longest lifetime the owner may give a join grant (400 above)', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60_000) @Max(365 * 24 * 3600_000)
  DEPLOY_JOIN_GRANT_MAX_TTL_MS: number = 7 * 24 * 3600_000;
}

/** The `deployNamespaces` slice of AppConfig: join grant lifetimes in ms. */
export const deployNamespacesConfig = declareConfig({
  wing: 'deploy',
  variables: DeployNamespaceVariables,
  check: (vars) =>
    vars.DEPLOY_JOIN_GRANT_TTL_MS > vars.DEPLOY_JOIN_GRANT_MAX_TTL_MS ? ['DEPLOY_JOIN_GRANT_TTL_MS: must not exceed DEPLOY_JOIN_GRANT_MAX_TTL_MS'] : [],
  resolve: (vars) => ({
    deployNamespaces: { joinGrantTtlMs: vars.DEPLOY_JOIN_GRANT_TTL_MS, joinGrantMaxTtlMs: vars.DEPLOY_JOIN_GRANT_MAX_TTL_MS },
  }),
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof deployNamespacesConfig.resolve> {}
}
