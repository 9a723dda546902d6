import { INestApplicationContext, Injectable } from '@nestjs/common';
import PgBoss from 'pg-boss';
import { DataSource } from 'typeorm';
import { defineJob, JobConfigurationError } from '../../src/jobs/job-definition';
import { JobHandler } from '../../src/jobs/job-handler.decorator';
import { JobsModule } from '../../src/jobs/jobs.module';
import { JobsService } from '../../src/jobs/jobs.service';
import { CapturingLogger, createTestDatabase, sleep, startJobsApp, TestDatabase, waitFor } from './jobs-test-support';

/** Payloads each handler received, by job name, in order. */
const received = new Map<string, unknown[]>();
const record = (name: string, data: unknown) => received.set(name, [...(received.get(name) ?? []), data]);
const countOf = (name: string) => received.get(name)?.length ?? 0;

interface Item {
  n: number;
}
const ECHO = defineJob<Item>('test.echo');
const FLAKY = defineJob<Item>('test.flaky');
const SLOW = defineJob<Item>('test.slow');
const UNIQUE = defineJob<{ key: string }>('test.unique');
const SHORT_LIVED = defineJob<Item>('test.short-lived');
const ORPHAN = defineJob<Item>('test.orphan');

@Injectable()
class EchoHandler {
  @JobHandler(ECHO, { concurrency: 2 })
  async handle(data: Item): Promise<void> {
    await sleep(20);
    record(ECHO.name, data);
  }
}

@Injectable()
class FlakyHandler {
  @JobHandler(FLAKY, { retryLimit: 2, retryDelaySeconds: 0 })
  async handle(data: Item): Promise<void> {
    record(FLAKY.name, data);
    throw new Error(`boom ${data.n}`);
  }
}

/** Runs for `slowMs`, or until `releaseSlow()`. */
let slowMs = 0;
let releaseSlow: () => void = () => undefined;
@Injectable()
class SlowHandler {
  @JobHandler(SLOW, { retryDelaySeconds: 0 })
  async handle(data: Item): Promise<void> {
    record(`${SLOW.name}:start`, data);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, slowMs);
      releaseSlow = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    record(SLOW.name, data);
  }
}

@Injectable()
class UniqueHandler {
  @JobHandler(UNIQUE, { policy: 'short' })
  async handle(data: { key: string }): Promise<void> {
    record(UNIQUE.name, data);
  }
}

@Injectable()
class ShortLivedHandler {
  @JobHandler(SHORT_LIVED, { expireInSeconds: 1, retryDelaySeconds: 0 })
  async handle(data: Item): Promise<void> {
    record(SHORT_LIVED.name, data);
  }
}

@Injectable()
class SecondEchoHandler {
  @JobHandler('test.echo')
  async handle(): Promise<void> {}
}

/** The state and retry count of a job, wherever pg-boss keeps it now. */
async function jobRow(db: TestDatabase, id: string): Promise<{ state: string; retry_count: number } | undefined> {
  const [row] = await db.query<{ state: string; retry_count: number }>('SELECT state::text, retry_count FROM pgboss.job WHERE id = $1', [id]);
  return row;
}

describe('jobs (DESIGN.md, Jobs; Examples: jobs are found, not wired by hand)', () => {
  let db: TestDatabase;
  const apps: INestApplicationContext[] = [];
  const start = async (...args: Parameters<typeof startJobsApp>) => {
    const app = await startJobsApp(...args);
    apps.push(app);
    return app;
  };
  const close = async (app: INestApplicationContext) => {
    apps.splice(apps.indexOf(app), 1);
    await app.close();
  };

  beforeEach(async () => {
    received.clear();
    slowMs = 0;
    db = await createTestDatabase();
  });
  afterEach(async () => {
    releaseSlow();
    for (const app of apps.splice(0)) await app.close();
    await db.drop();
  });

  it('runs an enqueued job exactly once, in its own pgboss schema', async () => {
    const app = await start(db.url, { providers: [EchoHandler] });
    const id = await app.get(JobsService).enqueue(ECHO, { n: 1 });

    await waitFor('the job to run', () => countOf(ECHO.name) === 1);
    await waitFor('the job to be completed', async () => (await jobRow(db, id))?.state === 'completed');
    await sleep(1500); // three polling intervals: nothing runs it again
    expect(received.get(ECHO.name)).toEqual([{ n: 1 }]);
    const [schema] = await db.query<{ n: string }>(`SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'pgboss' AND tablename = 'job'`);
    expect(Number(schema.n)).toBe(1);
  });

  it('runs each job once when two instances share the database', async () => {
    const first = await start(db.url, { providers: [EchoHandler] });
    await start(db.url, { providers: [EchoHandler] });
    const jobs = first.get(JobsService);
    for (let n = 0; n < 30; n++) await jobs.enqueue(ECHO, { n });

    await waitFor('all jobs to run', () => countOf(ECHO.name) >= 30);
    await sleep(1500);
    const seen = (received.get(ECHO.name) as Item[]).map((item) => item.n).sort((a, b) => a - b);
    expect(seen).toEqual([...Array(30).keys()]);
  });

  it('retries a failing job retryLimit times, then fails it and logs an error', async () => {
    const logger = new CapturingLogger();
    const app = await start(db.url, { providers: [FlakyHandler], logger });
    const id = await app.get(JobsService).enqueue(FLAKY, { n: 7 });

    await waitFor('the job to fail for good', async () => (await jobRow(db, id))?.state === 'failed');
    await sleep(1500);
    expect(countOf(FLAKY.name)).toBe(3); // first attempt + retryLimit 2
    expect(await jobRow(db, id)).toEqual({ state: 'failed', retry_count: 2 });
    const lines = logger.lines.filter((line) => line.context === 'Jobs' && line.message.includes(id));
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      expect.stringMatching(/attempt 1 of 3\).*will retry after 0 s.*boom 7/),
      expect.stringMatching(/attempt 2 of 3\).*will retry after 0 s.*boom 7/),
    ]);
    expect(lines.filter((line) => line.level === 'error').map((line) => line.message)).toEqual([
      expect.stringMatching(/attempt 3 of 3\) failed for the last time.*boom 7/),
    ]);
  });

  it('refuses to start when two handlers claim one job', async () => {
    await expect(startJobsApp(db.url, { providers: [EchoHandler, SecondEchoHandler] })).rejects.toThrow(
      /job "test\.echo" has 2 handlers: EchoHandler\.handle, SecondEchoHandler\.handle/,
    );
  });

  it('refuses to start when a declared job has no handler', async () => {
    await expect(
      startJobsApp(db.url, { providers: [EchoHandler], imports: [JobsModule.forFeature([ECHO, ORPHAN])] }),
    ).rejects.toThrow(/job "test\.orphan" is declared but no provider has a @JobHandler for it/);
    // Declared and handled: starts.
    await close(await start(db.url, { providers: [EchoHandler], imports: [JobsModule.forFeature([ECHO])] }));
  });

  it('throws at once when enqueuing a job nobody handles, storing nothing', async () => {
    const app = await start(db.url, { providers: [EchoHandler] });
    const jobs = app.get(JobsService);
    await expect(jobs.enqueue(ORPHAN, { n: 1 })).rejects.toThrow(JobConfigurationError);
    await expect(jobs.enqueue(ORPHAN, { n: 1 })).rejects.toThrow(/no provider in this app has a @JobHandler for it/);
    const [count] = await db.query<{ n: string }>('SELECT count(*) AS n FROM pgboss.job');
    expect(Number(count.n)).toBe(0);
  });

  it('runs a job enqueued while no worker ran once an instance with workers starts', async () => {
    const producer = await start(db.url, { providers: [EchoHandler], options: { runWorkers: false } });
    const id = await producer.get(JobsService).enqueue(ECHO, { n: 42 });
    await sleep(1000);
    expect(countOf(ECHO.name)).toBe(0);
    await close(producer);

    await start(db.url, { providers: [EchoHandler] });
    await waitFor('the job to run on the new instance', () => countOf(ECHO.name) === 1);
    await waitFor('the job to be completed', async () => (await jobRow(db, id))?.state === 'completed');
    expect(received.get(ECHO.name)).toEqual([{ n: 42 }]);
  });

  it('runs again a job whose process died while running it, after expireInSeconds', async () => {
    const producer = await start(db.url, { providers: [ShortLivedHandler], options: { runWorkers: false } });
    const id = await producer.get(JobsService).enqueue(SHORT_LIVED, { n: 5 });
    await close(producer);
    // A real pg-boss takes the job (state active) and never finishes it: the process that "died".
    const dead = new PgBoss({ connectionString: db.url, schedule: false, supervise: false });
    await dead.start();
    expect(await dead.fetch('test.short-lived')).toEqual([expect.objectContaining({ id })]);
    await dead.stop({ graceful: false });
    expect((await jobRow(db, id))?.state).toBe('active');

    await start(db.url, { providers: [ShortLivedHandler] });
    await waitFor('the expired job to run again', () => countOf(SHORT_LIVED.name) === 1);
    await waitFor('the job to be completed', async () => (await jobRow(db, id))?.state === 'completed');
    expect(await jobRow(db, id)).toEqual({ state: 'completed', retry_count: 1 });
  });

  it('on shutdown waits for a running handler to finish', async () => {
    slowMs = 1500;
    const app = await start(db.url, { providers: [SlowHandler] });
    const id = await app.get(JobsService).enqueue(SLOW, { n: 1 });
    await waitFor('the handler to start', () => countOf(`${SLOW.name}:start`) === 1);

    await close(app);
    expect(countOf(SLOW.name)).toBe(1);
    expect((await jobRow(db, id))?.state).toBe('completed');
  });

  it('on shutdown gives up after shutdownTimeoutMs and the job is retried by the next instance', async () => {
    slowMs = 60_000;
    const logger = new CapturingLogger();
    const app = await start(db.url, { providers: [SlowHandler], options: { shutdownTimeoutMs: 1000 }, logger });
    const id = await app.get(JobsService).enqueue(SLOW, { n: 2 });
    await waitFor('the handler to start', () => countOf(`${SLOW.name}:start`) === 1);

    const closing = Date.now();
    await close(app);
    expect(Date.now() - closing).toBeLessThan(5000);
    expect(countOf(SLOW.name)).toBe(0);
    expect((await jobRow(db, id))?.state).toBe('retry');
    expect(logger.lines).toContainEqual(expect.objectContaining({ level: 'log', message: expect.stringMatching(/Stopping job workers/) }));
    releaseSlow(); // the abandoned attempt ends; its completion no longer counts

    slowMs = 0;
    await start(db.url, { providers: [SlowHandler] });
    await waitFor('the job to be completed on the next instance', async () => (await jobRow(db, id))?.state === 'completed');
    expect(await jobRow(db, id)).toEqual({ state: 'completed', retry_count: 1 });
  });

  it('enqueues inside a TypeORM transaction: the job exists only if the transaction commits', async () => {
    const app = await start(db.url, { providers: [EchoHandler] });
    const jobs = app.get(JobsService);
    const dataSource = await new DataSource({ type: 'postgres', url: db.url }).initialize();
    try {
      await expect(
        dataSource.transaction(async (manager) => {
          await jobs.enqueue(ECHO, { n: 1 }, { manager });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const id = await dataSource.transaction((manager) => jobs.enqueue(ECHO, { n: 2 }, { manager }));

      await waitFor('the committed job to run', () => countOf(ECHO.name) === 1);
      await sleep(1000);
      expect(received.get(ECHO.name)).toEqual([{ n: 2 }]);
      expect((await jobRow(db, id))?.state).toBe('completed');
    } finally {
      await dataSource.destroy();
    }
  });

  it('deduplicates by singletonKey on a "short" queue and refuses keys on a "standard" one', async () => {
    const app = await start(db.url, { providers: [UniqueHandler, EchoHandler], options: { runWorkers: false } });
    const jobs = app.get(JobsService);
    const first = await jobs.enqueue(UNIQUE, { key: 'a' }, { singletonKey: 'a', startAfterSeconds: 60 });
    expect(first).toEqual(expect.any(String));
    expect(await jobs.enqueue(UNIQUE, { key: 'a' }, { singletonKey: 'a' })).toBeNull();
    expect(await jobs.enqueue(UNIQUE, { key: 'b' }, { singletonKey: 'b' })).toEqual(expect.any(String));
    await expect(jobs.enqueue(ECHO, { n: 1 }, { singletonKey: 'x' })).rejects.toThrow(/policy is "standard"/);
  });
});
