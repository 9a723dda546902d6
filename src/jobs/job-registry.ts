import { JobConfigurationError, JobDefinition } from './job-definition';

/**
 * The jobs one module declares through `JobsModule.forFeature`; start-up fails when one of them has no handler
 * (DESIGN.md, Examples: "Jobs are found, not wired by hand").
 */
export class DeclaredJobs {
  /** @param jobs the module's job definitions */
  constructor(readonly jobs: readonly JobDefinition<object>[]) {}
}

/** Where a handler was found: its job name and `Class.method`, for error messages. */
export interface JobHandlerSite {
  name: string;
  site: string;
}

/**
 * The start-up rule of DESIGN.md (Examples: "the app refuses to run if a job has no handler or two").
 * @param handlers every `@JobHandler` method found in the app
 * @param declared every job name declared with `JobsModule.forFeature`
 * @throws JobConfigurationError listing each job with two or more handlers and each declared job with none
 */
export function checkJobHandlers(handlers: readonly JobHandlerSite[], declared: Iterable<string>): void {
  const sitesByJob = new Map<string, string[]>();
  for (const { name, site } of handlers) sitesByJob.set(name, [...(sitesByJob.get(name) ?? []), site]);
  const problems: string[] = [];
  for (const [jobName, sites] of sitesByJob) {
    if (sites.length > 1) problems.push(`job "${jobName}" has ${sites.length} handlers: ${sites.join(', ')}`);
  }
  for (const jobName of new Set(declared)) {
    if (!sitesByJob.has(jobName)) problems.push(`job "${jobName}" is declared but no provider has a @JobHandler for it`);
  }
  if (problems.length > 0) throw new JobConfigurationError(`Job handlers are misconfigured:\n  ${problems.join('\n  ')}`);
}
