import { INestApplicationContext, Injectable } from '@nestjs/common';
import { Client } from 'pg';
import { defineJob } from '../../src/jobs/job-definition';
import { JobHandler } from '../../src/jobs/job-handler.decorator';
import { QUEUE_CREATION_LOCK_KEY } from '../../src/jobs/jobs.service';
import { createTestDatabase, startJobsApp, TestDatabase } from './jobs-test-support';
import { advisoryLockRowsSql } from '../support/advisory-locks';

/**
 * Instances started together on a fresh database (issue 20 item 6, a rolling deploy of two replicas): pg-boss's
 * create_queue run by two instances at once deadlocked (PostgreSQL aborted one, and that instance failed to start;
 * 1 start in 4 with two instances of the app here). Each instance now creates its queues under a session advisory
 * lock: a start waits while another session holds it, and concurrent starts all succeed.
 */
const JOBS = ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => defineJob<{ n: number }>(`test.queue-lock.${name}`));

@Injectable()
class ManyQueuesHandler {
  @JobHandler(JOBS[0]) async a(): Promise<void> {}
  @JobHandler(JOBS[1]) async b(): Promise<void> {}
  @JobHandler(JOBS[2]) async c(): Promise<void> {}
  @JobHandler(JOBS[3]) async d(): Promise<void> {}
  @JobHandler(JOBS[4]) async e(): Promise<void> {}
  @JobHandler(JOBS[5]) async f(): Promise<void> {}
}

describe('queue creation under an advisory lock', () => {
  const databases: TestDatabase[] = [];
  const apps: INestApplicationContext[] = [];

  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close().catch(() => undefined)));
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });

  it('a start waits while another session holds the lock, then creates its queues', async () => {
    const database = await createTestDatabase();
    databases.push(database);
    const holder = new Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query(`SELECT pg_advisory_lock(${QUEUE_CREATION_LOCK_KEY})`);
      let started = false;
      const starting = startJobsApp(database.url, { providers: [ManyQueuesHandler] }).then((app) => {
        apps.push(app);
        started = true;
        return app;
      });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(started).toBe(false);
      expect((await holder.query(advisoryLockRowsSql(QUEUE_CREATION_LOCK_KEY, 'waiting'))).rows[0].n).toBe(1);
      await holder.query(`SELECT pg_advisory_unlock(${QUEUE_CREATION_LOCK_KEY})`);
      await starting;
      const queues = await database.query<{ name: string }>(`SELECT name FROM pgboss.queue WHERE name LIKE 'test.queue-lock.%' ORDER BY name`);
      expect(queues.map((queue) => queue.name)).toEqual(JOBS.map((job) => job.name));
    } finally {
      await holder.end();
    }
  }, 60_000);

  it('three instances started at once on a fresh database all start, four times over', async () => {
    for (let round = 0; round < 4; round++) {
      const database = await createTestDatabase();
      databases.push(database);
      const results = await Promise.allSettled([0, 1, 2].map(() => startJobsApp(database.url, { providers: [ManyQueuesHandler] })));
      for (const result of results) if (result.status === 'fulfilled') apps.push(result.value);
      expect(results.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason))).toEqual([]);
      const queues = await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.queue WHERE name LIKE 'test.queue-lock.%'`);
      expect(queues[0].n).toBe(JOBS.length);
      await Promise.all(apps.splice(0).map((app) => app.close()));
    }
  }, 180_000);
});
