import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobsService } from '../../jobs/jobs.service';
import { ANALYSE_CAMPAIGN } from './analysis-jobs';
import { PeriodicSweep, type SweepContext } from '../../jobs/periodic-sweep';

/** A stale record the sweep took over. */
interface StaleRow {
  campaign_id: string;
  generation: number;
  attempts: number;
  error: string | null;
}

/**
 * The safety net that keeps an analysis from staying `generating` forever (issue 4, acceptance 6). At start-up and
 * every EVAL_ANALYSIS_SWEEP_INTERVAL_MS, each instance looks for generating records whose heartbeat is older than
 * EVAL_ANALYSIS_STALE_MS: their worker died without handing the job back (killed process), or the queue has no job
 * for them any more (it gave up after its retries). Each such record is taken over in one transaction: the claim is
 * cleared and the job enqueued again (it resumes after the scenarios already diagnosed), or — when it already had
 * EVAL_ANALYSIS_MAX_RUNS worker runs — it ends `failed` with the reason. `FOR UPDATE SKIP LOCKED` keeps two
 * instances from taking over the same record; a duplicate job is harmless (the job's claim lets one run work).
 */
@Injectable()
export class AnalysisSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AnalysisSweeper.name);
  private readonly periodic = new PeriodicSweep('Analysis sweep', (context) => this.sweep(context), this.logger);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly jobs: JobsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Sweeps once now (records left by a previous process), then every EVAL_ANALYSIS_SWEEP_INTERVAL_MS. */
  onApplicationBootstrap(): void {
    this.periodic.start(this.config.evaluation.analysis.sweepIntervalMs);
  }

  /** Stops sweeping and waits for a sweep in progress. */
  async onModuleDestroy(): Promise<void> {
    await this.periodic.stop();
  }

  /**
   * One pass; after a database outage this sweep saw, nothing is taken over until the database has answered for
   * EVAL_ANALYSIS_STALE_MS (heartbeats went stale while their workers waited to write them; issue 20 item 2).
   * @param context from PeriodicSweep (default: no outage seen)
   * @returns how many records were taken over (re-enqueued or failed)
   */
  async sweep(context: SweepContext = { databaseAnsweringForMs: Infinity }): Promise<number> {
    const { staleMs, maxRuns } = this.config.evaluation.analysis;
    let resumed = 0;
    const rows = await this.dataSource.transaction(async (manager) => {
      // One instance sweeps at a time (issue 20 item 5); the others skip this pass. SKIP LOCKED below already keeps two
      // sweeps off the same row: the lock saves the duplicate scan and makes a pass's counts its own.
      const [{ locked }] = (await manager.query(`SELECT pg_try_advisory_xact_lock(hashtext('atrium:eval-analysis-sweep')) AS locked`)) as [{ locked: boolean }];
      if (!locked || !PeriodicSweep.outageGraceOver(context, staleMs)) return [];
      const [stale] = (await manager.query(
        `UPDATE eval_campaign_analysis SET worker_id = NULL, heartbeat_at = now(), updated_at = now()
          WHERE id IN (
            SELECT id FROM eval_campaign_analysis
             WHERE status = 'generating' AND heartbeat_at < now() - $1::int * interval '1 millisecond'
             FOR UPDATE SKIP LOCKED)
          RETURNING campaign_id, generation, attempts, error`,
        [staleMs],
      )) as [StaleRow[], number];
      for (const row of stale) {
        if (row.attempts >= maxRuns) {
          const reason =
            `The analysis stopped without finishing: no worker reported on it for ${staleMs} ms (the app stopped or was killed, or the queue abandoned its job), ` +
            `and was given up after EVAL_ANALYSIS_MAX_RUNS=${maxRuns} worker run${maxRuns === 1 ? '' : 's'}.${row.error ? ` Last: ${row.error}` : ''}`;
          await manager.query(
            `UPDATE eval_campaign_analysis SET status = 'failed', phase = 'done', error = $3, finished_at = now(), updated_at = now()
              WHERE campaign_id = $1 AND generation = $2 AND status = 'generating'`,
            [row.campaign_id, row.generation, reason],
          );
        } else {
          await this.jobs.enqueue(ANALYSE_CAMPAIGN, { campaignId: row.campaign_id, generation: Number(row.generation) }, { manager });
          resumed++;
        }
      }
      return stale;
    });
    if (resumed > 0) this.jobs.notify(ANALYSE_CAMPAIGN);
    if (rows.length > 0) this.logger.warn(`Analysis sweep took over ${rows.length} stale analyses (${resumed} resumed, ${rows.length - resumed} failed)`);
    return rows.length;
  }
}
