import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { RUN_EVALUATION } from './run-jobs';
import { returnedRows, RUN_SWEEP_LOCK_SQL, TAKE_OVER_EXPIRED_RUNS_SQL } from './run-lease';
import { PeriodicSweep } from '../../jobs/periodic-sweep';

/** Most runs one pass takes over (the rest wait for the next pass). */
const MAX_RUNS_PER_PASS = 200;

/**
 * The run sweeper (issue 19 acceptance 5: "the run completes" after a SIGKILL; issue 20 item 2 extends the same
 * lease-and-sweep to every durable job kind). At start-up and every EVAL_RUN_SWEEP_INTERVAL_MS it looks for
 * `running` runs whose lease (run-lease.ts) ran out — their instance was killed or froze, or their job was lost — and
 * hands each back to the queue: the owner is cleared and a RUN_EVALUATION job enqueued in the same transaction. The
 * job's claim lets exactly one execution work; it skips every case already stored, so only the cases in flight at
 * the kill are sent again.
 *
 * Several instances: the pass runs under a transaction-scoped advisory lock (`pg_try_advisory_xact_lock`), so one
 * instance sweeps at a time and the others skip that pass; the rows are also locked `FOR UPDATE SKIP LOCKED`.
 */
@Injectable()
export class RunLeaseSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(RunLeaseSweeper.name);
  private readonly periodic = new PeriodicSweep('Run sweep', () => this.sweep(), this.logger);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sweeps once now (runs left by a killed process), then every EVAL_RUN_SWEEP_INTERVAL_MS. */
  onApplicationBootstrap(): void {
    this.periodic.start(this.config.evalRuns.sweepIntervalMs);
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async onModuleDestroy(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One pass.
   * @returns the ids of the runs handed back to the queue (empty when none, or another instance holds the sweep lock)
   * @throws the database error (the caller logs it; the next pass tries again)
   */
  async sweep(): Promise<string[]> {
    const ids = await this.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query(RUN_SWEEP_LOCK_SQL)) as [{ locked: boolean }];
      if (!locked) return [];
      const rows = returnedRows<{ id: string }>(await manager.query(TAKE_OVER_EXPIRED_RUNS_SQL, [this.config.evalRuns.leaseMs, MAX_RUNS_PER_PASS]));
      for (const row of rows) await this.jobs.enqueue(RUN_EVALUATION, { runId: row.id }, { manager });
      return rows.map((row) => row.id);
    });
    if (ids.length > 0) {
      this.jobs.notify(RUN_EVALUATION);
      this.logger.warn(`Run sweep handed ${ids.length} run(s) whose lease ran out back to the queue: ${ids.join(', ')}`);
    }
    return ids;
  }
}
