import { Injectable } from '@nestjs/common';
import type { Gauge, Histogram } from 'prom-client';
import { MetricsRegistry } from '../common/metrics/metrics.registry';

/** Job latency buckets, seconds: 10 ms to 1 h (an evaluation run is one job). */
const JOB_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600];

/** Longest a scrape waits for the queue counts, ms: a stopped database must not hang Prometheus. */
const COUNT_TIMEOUT_MS = 1000;

/** What the queue count query returns, one row per (queue, state). */
type CountRow = { name: string; state: string; n: number };

/**
 * The job runner's metrics (issue 15 item 1, pg-boss): `atrium_jobs{queue,state}` — jobs `waiting` (created or
 * waiting for a retry) and `active`, per queue, counted in PostgreSQL at each scrape (every instance sees the whole
 * queue); `atrium_job_duration_seconds{queue,outcome}` — each attempt's run time on this instance (`completed` /
 * `failed`); `atrium_job_wait_seconds{queue}` — from enqueue to the first attempt's start.
 */
@Injectable()
export class JobMetrics {
  private readonly counts: Gauge<'queue' | 'state'>;
  private readonly duration: Histogram<'queue' | 'outcome'>;
  private readonly wait: Histogram<'queue'>;
  private source?: { queues: readonly string[]; count: () => Promise<CountRow[]> };

  constructor(metrics: MetricsRegistry) {
    const self = this;
    this.counts = metrics.gauge({
      name: 'atrium_jobs',
      help: 'Jobs waiting (created or waiting for a retry) and active, per queue.',
      labelNames: ['queue', 'state'],
      async collect() {
        await self.collectCounts(this);
      },
    });
    this.duration = metrics.histogram({ name: 'atrium_job_duration_seconds', help: 'Run time of each job attempt, by queue and outcome, seconds.', labelNames: ['queue', 'outcome'], buckets: JOB_BUCKETS });
    this.wait = metrics.histogram({ name: 'atrium_job_wait_seconds', help: 'From enqueue to the start of the first attempt, by queue, seconds.', labelNames: ['queue'], buckets: JOB_BUCKETS });
  }

  /**
   * Starts counting the queues at each scrape.
   * @param queues the job names of this app (each reported, 0 when empty)
   * @param schema pg-boss's schema (a validated identifier, JOBS_OPTIONS)
   * @param query runs SQL on the job runner's pool
   */
  watchQueues(queues: readonly string[], schema: string, query: (text: string) => Promise<{ rows: unknown[] }>): void {
    const sql = `SELECT name, state::text AS state, count(*)::int AS n FROM "${schema}".job WHERE state IN ('created', 'retry', 'active') GROUP BY name, state`;
    this.source = { queues, count: async () => (await query(sql)).rows as CountRow[] };
  }

  /** Records one attempt that ended. `started` is Date.now() at its start (ms). */
  attemptEnded(job: { name: string; retryCount: number; createdOn?: Date; startedOn?: Date }, outcome: 'completed' | 'failed', started: number): void {
    this.duration.observe({ queue: job.name, outcome }, (Date.now() - started) / 1000);
    if (job.retryCount === 0 && job.createdOn instanceof Date) {
      const startedAt = job.startedOn instanceof Date ? job.startedOn.getTime() : started;
      this.wait.observe({ queue: job.name }, Math.max(0, (startedAt - job.createdOn.getTime()) / 1000));
    }
  }

  /** Sets the gauge from PostgreSQL; leaves the last values when the database doesn't answer in time. */
  private async collectCounts(gauge: Gauge<'queue' | 'state'>): Promise<void> {
    if (!this.source) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), COUNT_TIMEOUT_MS)));
    const rows = await Promise.race([this.source.count().catch(() => undefined), timeout]);
    clearTimeout(timer);
    if (!rows) return;
    const values = new Map<string, { waiting: number; active: number }>(this.source.queues.map((queue) => [queue, { waiting: 0, active: 0 }]));
    for (const row of rows) {
      const entry = values.get(row.name) ?? { waiting: 0, active: 0 };
      if (row.state === 'active') entry.active += row.n;
      else entry.waiting += row.n;
      values.set(row.name, entry);
    }
    gauge.reset();
    for (const [queue, { waiting, active }] of values) {
      gauge.set({ queue, state: 'waiting' }, waiting);
      gauge.set({ queue, state: 'active' }, active);
    }
  }
}
