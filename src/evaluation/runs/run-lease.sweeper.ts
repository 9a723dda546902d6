import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { RUN_EVALUATION } from './run-jobs';
import { returnedRows, RUN_SWEEP_LOCK_SQL, TAKE_OVER_EXPIRED_RUNS_SQL } from './run-lease';
import { PeriodicSweep, type SweepContext } from '../../jobs/periodic-sweep';

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
  private readonly periodic = new PeriodicSweep('Run sweep', (context) => this.sweep(context), this.logger);

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
   * One pass. After a database outage this sweep saw, it takes nothing over until the database has answered for
   * EVAL_RUN_LEASE_MS (PeriodicSweep.outageGraceOver): leases ran out during the outage while their holders waited
   * to renew them, and those holders still have results to store (a take-over would send those cases again).
   * @param context from PeriodicSweep (default: no outage seen)
   * @returns the ids of the runs handed back to the queue (empty when none, during the grace after an outage, or
   *   when another instance holds the sweep lock)
   * @throws the database error (the caller logs it; the next pass tries again)
   */
  async sweep(context: SweepContext = { databaseAnsweringForMs: Infinity }): Promise<string[]> {
    const ids = await this.dataSource.transaction(async (manager) => {
      const [{ locked }] = (await manager.query(RUN_SWEEP_LOCK_SQL)) as [{ locked: boolean }];
      if (!locked || !PeriodicSweep.outageGraceOver(context, this.config.evalRuns.leaseMs)) return [];
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
