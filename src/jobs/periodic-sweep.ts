import type { Logger } from '@nestjs/common';

/**
 * The shell every sweeper shares (issue 20: a lease and a sweeper per durable job kind): one pass at once, then one
 * every `intervalMs`, never two at a time in one process (a pass still running skips the tick); a failed pass is
 * logged and the next one tries again. The passes themselves coordinate across instances (advisory locks).
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private running?: Promise<unknown>;

  /**
   * @param label names the sweep in the error log line ("Run sweep failed: …")
   * @param pass one pass; its errors are logged, never thrown out of the timer
   */
  constructor(
    private readonly label: string,
    private readonly pass: () => Promise<unknown>,
    private readonly logger: Logger,
  ) {}

  /** Runs a pass now, then every `intervalMs` (ms); the timer does not keep the process alive. */
  start(intervalMs: number): void {
    const tick = () => {
      if (this.running) return;
      this.running = this.pass()
        .catch((error: Error) => this.logger.error(`${this.label} failed: ${error.message}`, error.stack))
        .finally(() => (this.running = undefined));
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
}
