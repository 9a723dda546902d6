import { Matches } from 'class-validator';
import { availableParallelism } from 'node:os';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const GROUP = 'Scaling out';

/**
 * How many worker processes `ATRIUM_WORKERS` asks for (issue 20 item 7).
 * @param value `auto` (one per core: os.availableParallelism()) or a whole number 1..64
 * @param cores the machine's cores (for `auto`)
 * @returns the number of processes serving requests
 */
export function workerCount(value: string, cores = availableParallelism()): number {
  return value === 'auto' ? Math.max(1, cores) : Number(value);
}

/** Variables of running several processes or replicas (issue 20 items 5 and 7). */
export class ClusterVariables {
  @ConfigVariable({
    group: GROUP,
    description:
      'processes serving requests on this machine behind one port (node:cluster): a number 1..64, or `auto` for one per core. Above 1 the primary starts embedded PostgreSQL and runs the migrations once, then forks the workers; each worker opens its own pools (docs/scaling.md)',
    unit: 'count',
  })
  @Matches(/^(auto|[1-9]|[1-5][0-9]|6[0-4])$/, { message: 'ATRIUM_WORKERS must be auto or a whole number 1..64' })
  ATRIUM_WORKERS: string = '1';
}

/** The `cluster` slice of AppConfig: `workers` (resolved count). */
export const clusterConfig = declareConfig({
  wing: 'core',
  variables: ClusterVariables,
  resolve: (vars) => ({ cluster: { workers: workerCount(vars.ATRIUM_WORKERS) } }),
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof clusterConfig.resolve> {}
}
