import type { Logger } from '@nestjs/common';
import { classifyDatabaseError } from '../common/http/database-problem';

/** What a pass is told about the database, as this sweep saw it (see {@link PeriodicSweep}). */
export interface SweepContext {
  /**
   * How long (ms) the database has answered this sweep since the last pass that found it unavailable: 0 for the
   * first pass after such an outage, Infinity when no pass of this process ever found it unavailable.
   */
  databaseAnsweringForMs: number;
}

/**
 * The shell every sweeper shares (issue 20: a lease and a sweeper per durable job kind): one pass at once, then one
 * every `intervalMs`, never two at a time in one process (a pass still running skips the tick); a failed pass is
 * logged and the next one tries again. The passes themselves coordinate across instances (advisory locks).
 *
 * Outages: a lease stored as a time in the database runs out while the database is away, although its holder is
 * alive and only waiting to renew it. So the sweep tells each pass how long the database has answered since a pass
 * last found it unavailable (a rejection that `classifyDatabaseError` calls 503); a sweeper takes leases over only
 * once that is at least one lease long ({@link PeriodicSweep.outageGraceOver}), which gives every holder a full lease
 * to renew once the database is back (issue 20 item 2: a run's cases are not sent twice across an outage).
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;
  /** When a pass last failed because the database was unavailable (ms since epoch). */
  private unavailableAt?: number;
  /** When the first pass after that failure started that succeeded (ms since epoch). */
  private answeringSince?: number;

  /**
   * @param label names the sweep in the error log line ("Run sweep failed: …")
   * @param pass one pass; its errors are logged, never thrown out of the timer
   */
  constructor(
    private readonly label: string,
    private readonly pass: (context: SweepContext) => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /**
   * Whether a pass may take over leases of `leaseMs` (ms): the database answered for at least that long since the
   * last outage this sweep saw (always true when it saw none).
   */
  static outageGraceOver(context: SweepContext, leaseMs: number): boolean {
    return context.databaseAnsweringForMs >= leaseMs;
  }

  /** Runs a pass now, then every `intervalMs` (ms); the timer does not keep the process alive. */
  start(intervalMs: number): void {
    const tick = () => {
      if (this.running) return;
      this.running = this.runPass().finally(() => (this.running = undefined));
    };
    tick();
    this.timer = setInterval(tick, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One pass with its context; records outages and recoveries, logs failures. */
  private async runPass(): Promise<void> {
    const startedAt = Date.now();
    const databaseAnsweringForMs = this.unavailableAt === undefined ? Infinity : this.answeringSince === undefined ? 0 : startedAt - this.answeringSince;
    try {
      await this.pass({ databaseAnsweringForMs });
      if (this.unavailableAt !== undefined && this.answeringSince === undefined) this.answeringSince = startedAt;
    } catch (error) {
      if (classifyDatabaseError(error)?.status === 503) {
        this.unavailableAt = Date.now();
        this.answeringSince = undefined;
      }
      this.logger.error(`${this.label} failed: ${(error as Error).message}`, (error as Error).stack);
    }
  }
}
