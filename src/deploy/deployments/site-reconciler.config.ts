import { Type } from 'class-transformer';
import { IsInt, IsOptional, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const LEFTOVERS = 'Deploy sites and uploads';

/** The gateway's sweep of crash leftovers (issue 19 item 5: "restart after a crash just works"). */
export class SiteReconcilerVariables {
  @ConfigVariable({
    group: LEFTOVERS,
    description:
      'a staging folder (`sites/.staging/*`) or temporary upload (`DATA_DIR/tmp/uploads/*`) with nothing changed for this long is a crash leftover and is removed; with the embedded database (one Atrium per DATA_DIR) the start-up sweep removes every one at once',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  DEPLOY_LEFTOVER_GRACE_MS: number = 15 * 60_000;

  @ConfigVariable({ group: LEFTOVERS, description: 'how often the leftover and orphan-site sweep runs after the one at start-up', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000)
  DEPLOY_LEFTOVER_SWEEP_INTERVAL_MS: number = 5 * 60_000;
}

/** The slice `siteReconciler`: `graceMs`, `sweepIntervalMs` (ms). */
export const siteReconcilerConfig = declareConfig({
  wing: 'deploy',
  variables: SiteReconcilerVariables,
  resolve: (vars) => ({
    siteReconciler: { graceMs: vars.DEPLOY_LEFTOVER_GRACE_MS, sweepIntervalMs: vars.DEPLOY_LEFTOVER_SWEEP_INTERVAL_MS },
  }),
});

/** The resolved slice. */
export type SiteReconcilerConfig = ReturnType<typeof siteReconcilerConfig.resolve>;

declare module '../../config/app-config' {
  /** The gateway's `siteReconciler` slice. */
  interface AppConfig extends SiteReconcilerConfig {}
}
