import { SetMetadata } from '@nestjs/common';
import { assertJobName, JobConfigurationError, JobDefinition } from './job-definition';

/**
 * How a queue treats `singletonKey` (pg-boss queue policies). A job without a key counts as key `""`, so on any
 * policy but `standard` keyless jobs also exclude each other.
 * - `standard`: no limit; `singletonKey` is refused by `JobsService.enqueue`.
 * - `short`: at most one *queued* job per key (a second enqueue returns null).
 * - `singleton`: at most one *running* job per key; more may queue.
 * - `stately`: at most one queued and one running job per key.
 */
export type JobQueuePolicy = 'standard' | 'short' | 'singleton' | 'stately';

/** Options of {@link JobHandler}; they are stored on the queue, so they apply to jobs enqueued by any instance. */
export interface JobHandlerOptions {
  /** Jobs of this kind one app instance runs at the same time (one polling worker each). Integer >= 1; default 1. */
  concurrency?: number;
  /** Extra attempts after the first one fails; 0 = never retried. Integer >= 0; default 2. */
  retryLimit?: number;
  /** Seconds from a failed attempt to the next one. Integer >= 0; default 5. */
  retryDelaySeconds?: number;
  /** Double the delay on every retry (with jitter). Default false. */
  retryBackoff?: boolean;
  /**
   * Seconds one attempt may run before pg-boss fails it (and retries it). It is also how long a job held by a
   * process that died waits before another instance picks it up. Integer 1..86399; default 900 (15 min).
   */
  expireInSeconds?: number;
  /** Queue policy, see {@link JobQueuePolicy}. Default `standard`. */
  policy?: JobQueuePolicy;
}

/** Handler options with every default filled in. */
export type ResolvedJobHandlerOptions = Required<JobHandlerOptions>;

/** What {@link JobHandler} records on the decorated method. */
export interface JobHandlerMetadata {
  name: string;
  options: ResolvedJobHandlerOptions;
}

/** Reflect-metadata key under which {@link JobHandler} stores its {@link JobHandlerMetadata}. */
export const JOB_HANDLER_METADATA = 'atrium:job-handler';

const DEFAULTS: ResolvedJobHandlerOptions = {
  concurrency: 1,
  retryLimit: 2,
  retryDelaySeconds: 5,
  retryBackoff: false,
  expireInSeconds: 15 * 60,
  policy: 'standard',
};

const POLICIES: readonly JobQueuePolicy[] = ['standard', 'short', 'singleton', 'stately'];

/**
 * Fills in defaults and checks ranges.
 * @throws JobConfigurationError naming the job and the bad option
 */
export function resolveJobHandlerOptions(name: string, options: JobHandlerOptions = {}): ResolvedJobHandlerOptions {
  const resolved = { ...DEFAULTS, ...options };
  const integer = (key: keyof JobHandlerOptions, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const value = resolved[key];
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      throw new JobConfigurationError(`Job "${name}": ${key} must be an integer from ${min} to ${max}, got ${String(value)}.`);
    }
  };
  integer('concurrency', 1, 100);
  integer('retryLimit', 0);
  integer('retryDelaySeconds', 0);
  // pg-boss refuses expirations of 24 h or more.
  integer('expireInSeconds', 1, 24 * 60 * 60 - 1);
  if (!POLICIES.includes(resolved.policy)) {
    throw new JobConfigurationError(`Job "${name}": policy must be one of ${POLICIES.join(', ')}, got ${String(resolved.policy)}.`);
  }
  return resolved;
}

/** A method decorator that only fits `(data: T) => Promise<…>` methods, so the payload type is checked. */
export type JobHandlerDecorator<T> = <M extends (data: T) => Promise<unknown>>(
  target: object,
  propertyKey: string | symbol,
  descriptor: TypedPropertyDescriptor<M>,
) => void;

/**
 * Marks a provider method as the handler of a job (DESIGN.md, Examples: "Jobs are found, not wired by hand").
 * `JobsModule` finds it at start-up, creates the queue and starts `concurrency` workers; the app refuses to start
 * when two methods handle the same job.
 *
 * The method is `async (data: T) => Promise<void>`; it is called with the payload given to `JobsService.enqueue`.
 * Resolving completes the job; throwing fails the attempt, which is retried per the options and logged as an
 * error after the last one.
 *
 * **Handlers must be idempotent.** A job runs at least once, not exactly once: a job whose process died, or that
 * outlived `expireInSeconds`, or that was still running when shutdown gave up waiting, runs again from the start
 * (possibly on another instance) while the first attempt's effects remain.
 *
 * @example
 * ```ts
 * @JobHandler(RUN_EVALUATION, { concurrency: 2, retryLimit: 3 })
 * async handle(data: { runId: string }): Promise<void> { ... }
 * ```
 * @param job the job's definition (from `defineJob`) or its name
 * @param options see {@link JobHandlerOptions}
 * @throws JobConfigurationError at class definition for a bad name or option
 */
export function JobHandler<T extends object>(job: JobDefinition<T>, options?: JobHandlerOptions): JobHandlerDecorator<T>;
export function JobHandler(name: string, options?: JobHandlerOptions): JobHandlerDecorator<any>;
export function JobHandler(job: JobDefinition<object> | string, options?: JobHandlerOptions): JobHandlerDecorator<any> {
  const name = typeof job === 'string' ? job : job.name;
  assertJobName(name);
  const metadata: JobHandlerMetadata = { name, options: resolveJobHandlerOptions(name, options) };
  return (target, propertyKey, descriptor) => SetMetadata(JOB_HANDLER_METADATA, metadata)(target, propertyKey, descriptor);
}
