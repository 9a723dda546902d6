/** Job names: letters, digits, `.`, `_`, `-`; namespaced by wing by convention (`evaluation.run`). */
const JOB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * A job kind that a wing declares once and uses both to enqueue and to handle, so the payload type `T` is shared
 * by both sides (DESIGN.md, Examples: "Jobs are found, not wired by hand").
 * `T` is the payload: a JSON object (not an array); it is stored as `jsonb`, so `Date`s come back as strings.
 */
export interface JobDefinition<T extends object = object> {
  readonly name: string;
  /** Type-only marker that carries `T`; never set at run time. */
  readonly __payload?: T;
}

/** Thrown when a job or its handler is declared wrongly (bad name or options, no handler, two handlers). */
export class JobConfigurationError extends Error {
  override readonly name = 'JobConfigurationError';
}

/**
 * Checks a job name.
 * @throws JobConfigurationError when `name` is not 1..100 of `[A-Za-z0-9._-]` starting with a letter or digit
 */
export function assertJobName(name: string): void {
  if (typeof name !== 'string' || !JOB_NAME.test(name)) {
    throw new JobConfigurationError(`Invalid job name "${String(name)}": use 1..100 of letters, digits, ".", "_", "-".`);
  }
}

/**
 * Declares a job kind (DESIGN.md, Jobs). Pure: it registers nothing; list the definition in
 * `JobsModule.forFeature([...])` so start-up fails when no provider handles it.
 * @example export const RUN_EVALUATION = defineJob<{ runId: string }>('evaluation.run');
 * @param name unique job (queue) name, e.g. `evaluation.run`
 * @returns a frozen `{ name }` typed with the payload `T`
 * @throws JobConfigurationError for an invalid name
 */
export function defineJob<T extends object>(name: string): JobDefinition<T> {
  assertJobName(name);
  return Object.freeze({ name });
}
