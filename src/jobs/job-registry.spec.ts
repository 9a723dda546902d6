import { defineJob, JobConfigurationError } from './job-definition';
import { resolveJobHandlerOptions } from './job-handler.decorator';
import { checkJobHandlers } from './job-registry';
import { resolveJobsOptions } from './jobs.options';

describe('job registry (DESIGN.md, Examples: jobs are found, not wired by hand)', () => {
  it('accepts one handler per job and declared jobs that have one', () => {
    expect(() => checkJobHandlers([{ name: 'a.run', site: 'A.handle' }, { name: 'b.run', site: 'B.handle' }], ['a.run'])).not.toThrow();
  });

  it('refuses two handlers for one job, naming both', () => {
    expect(() => checkJobHandlers([{ name: 'a.run', site: 'A.handle' }, { name: 'a.run', site: 'B.handle' }], [])).toThrow(
      /job "a\.run" has 2 handlers: A\.handle, B\.handle/,
    );
  });

  it('refuses a declared job without handler, listing every problem at once', () => {
    let error: unknown;
    try {
      checkJobHandlers([{ name: 'a.run', site: 'A.x' }, { name: 'a.run', site: 'A.y' }], ['c.run']);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(JobConfigurationError);
    expect((error as Error).message).toMatch(/"a\.run" has 2 handlers/);
    expect((error as Error).message).toMatch(/"c\.run" is declared but no provider/);
  });
});

describe('job definitions and options', () => {
  it('defineJob checks the name', () => {
    expect(defineJob<{ id: string }>('evaluation.run').name).toBe('evaluation.run');
    expect(() => defineJob('has space')).toThrow(JobConfigurationError);
    expect(() => defineJob('')).toThrow(JobConfigurationError);
  });

  it('handler options get defaults and range checks', () => {
    expect(resolveJobHandlerOptions('x')).toEqual({
      concurrency: 1,
      retryLimit: 2,
      retryDelaySeconds: 5,
      retryBackoff: false,
      expireInSeconds: 900,
      policy: 'standard',
    });
    expect(() => resolveJobHandlerOptions('x', { concurrency: 0 })).toThrow(/concurrency must be an integer from 1/);
    expect(() => resolveJobHandlerOptions('x', { retryLimit: 1.5 })).toThrow(/retryLimit/);
    expect(() => resolveJobHandlerOptions('x', { expireInSeconds: 86400 })).toThrow(/expireInSeconds/);
    expect(() => resolveJobHandlerOptions('x', { policy: 'fifo' as never })).toThrow(/policy/);
  });

  it('module options get defaults and range checks', () => {
    expect(resolveJobsOptions('postgres://x/y')).toMatchObject({ schema: 'pgboss', pollingIntervalSeconds: 0.5, runWorkers: true });
    expect(() => resolveJobsOptions('postgres://x/y', { pollingIntervalSeconds: 0.1 })).toThrow(/at least 0\.5/);
    expect(() => resolveJobsOptions('postgres://x/y', { schema: 'bad-schema' })).toThrow(/schema/);
  });
});
