import { HttpStatus, Inject, Injectable, Logger, Module } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProblemException } from '../http/problem-details';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import type { GuessKind, GuessLimit } from './guess-limits.config';
import { GuessWindowEntity } from './guess-window.entity';
import { clientKeyOf, retryAfterSeconds, windowStartOf } from './guess-window.rules';

/**
 * 429 for a client that used up its failures of one credential kind in the current window. Carries `Retry-After`
 * (seconds to the window's end). `firstInWindow` is true for the first refusal of the window only, so an audit
 * trail can record refusals in aggregate (one row per window, kind and client), not one row per guess.
 */
export class GuessLimitExceeded extends ProblemException {
  constructor(
    readonly kind: GuessKind,
    readonly clientKey: string,
    readonly retryAfter: number,
    readonly firstInWindow: boolean,
  ) {
    super(
      HttpStatus.TOO_MANY_REQUESTS,
      `Too many failed attempts with this credential from your address; try again in ${retryAfter} s.`,
      { credential: kind, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}

interface Reservation {
  kind: GuessKind;
  clientKey: string;
  windowStart: Date;
}

/**
 * Race-free guessing limits kept in PostgreSQL (issue 12 item 5). Every attempt first reserves a check with one
 * atomic upsert on (kind, client, window): it is let through only while the window's charged checks (failures plus
 * checks in flight) are under the kind's limit, otherwise it gets 429 unchecked. A success gives its charge back, a
 * failure keeps it. So however many attempts arrive at once, no more than `maxFailures` wrong credentials are ever
 * checked per client and window, on any number of instances. Limits: AUTH_GUESS_* (guess-limits.config.ts).
 */
@Injectable()
export class GuessLimiter {
  private readonly logger = new Logger('GuessLimits');
  private lastSweepAt = 0;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * Checks a credential under the limit of its kind.
   * @param kind which credential is being checked
   * @param clientAddress the request's client address (`request.ip`)
   * @param limit the kind's limit; default: AUTH_GUESS_* for the kind (required for `eval-password`)
   * @param verify the pure check: resolves to the principal, or undefined for a wrong credential; it runs only when
   *   the reservation was granted. A thrown error counts as no attempt (the charge is given back) and is rethrown.
   * @returns what `verify` returned (undefined = wrong credential, now counted as a failure)
   * @throws GuessLimitExceeded (429 with Retry-After) when the client has no failures left in this window
   */
  async check<T>(
    kind: GuessKind,
    clientAddress: string | undefined,
    verify: () => Promise<T | undefined> | T | undefined,
    limit: GuessLimit = this.limitOf(kind),
  ): Promise<T | undefined> {
    const { maxFailures, windowMs } = limit;
    const now = Date.now();
    const reservation: Reservation = { kind, clientKey: clientKeyOf(clientAddress), windowStart: new Date(windowStartOf(now, windowMs)) };
    const rows: { granted: boolean; refused: number; inserted: boolean }[] = await this.dataSource.query(
      `INSERT INTO auth_guess_window AS w (kind, client_key, window_start, failures, refused, last_granted, first_at, last_at)
       VALUES ($1, $2, $3, 1, 0, true, now(), now())
       ON CONFLICT (kind, client_key, window_start) DO UPDATE SET
         failures = w.failures + CASE WHEN w.failures < $4 THEN 1 ELSE 0 END,
         refused = w.refused + CASE WHEN w.failures < $4 THEN 0 ELSE 1 END,
         last_granted = w.failures < $4,
         last_at = now()
       RETURNING last_granted AS granted, refused, (xmax = 0) AS inserted`,
      [kind, reservation.clientKey, reservation.windowStart, maxFailures],
    );
    const [{ granted, refused, inserted }] = rows;
    if (inserted) await this.sweep(now);
    if (!granted) {
      const firstInWindow = refused === 1;
      if (firstInWindow) {
        this.logger.warn(`Guessing limit reached: ${kind} from ${reservation.clientKey}; further attempts in this window get 429 and are counted in auth_guess_window.`);
      }
      throw new GuessLimitExceeded(kind, reservation.clientKey, retryAfterSeconds(Date.now(), windowMs), firstInWindow);
    }
    let result: T | undefined;
    try {
      result = await verify();
    } catch (error) {
      await this.giveBack(reservation);
      throw error;
    }
    if (result !== undefined) await this.giveBack(reservation);
    return result;
  }

  /**
   * The counts of one client for one kind in the current window (for tests and operators).
   * @returns failures (charged checks) and refused attempts; zeros when nothing was counted
   */
  async current(kind: GuessKind, clientAddress: string | undefined, limit: GuessLimit = this.limitOf(kind)): Promise<{ failures: number; refused: number }> {
    const { windowMs } = limit;
    const row = await this.dataSource.getRepository(GuessWindowEntity).findOneBy({
      kind,
      clientKey: clientKeyOf(clientAddress),
      windowStart: new Date(windowStartOf(Date.now(), windowMs)),
    });
    return { failures: row?.failures ?? 0, refused: row?.refused ?? 0 };
  }

  private limitOf(kind: GuessKind): GuessLimit {
    const limit = (this.config.guessLimits.limits as Partial<Record<GuessKind, GuessLimit>>)[kind];
    if (!limit) throw new Error(`No configured guessing limit for ${kind}: pass one.`);
    return limit;
  }

  private async giveBack(reservation: Reservation): Promise<void> {
    await this.dataSource.query(
      `UPDATE auth_guess_window SET failures = GREATEST(failures - 1, 0) WHERE kind = $1 AND client_key = $2 AND window_start = $3`,
      [reservation.kind, reservation.clientKey, reservation.windowStart],
    );
  }

  /** Deletes windows past the retention, at most once a minute per instance (a new window's first row triggers it). */
  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweepAt < 60_000) return;
    this.lastSweepAt = now;
    // A day is the longest window any kind may have (AUTH_GUESS_*_WINDOW_MS ≤ 1 day).
    const longestWindow = Math.max(86_400_000, ...Object.values(this.config.guessLimits.limits).map((limit) => limit.windowMs));
    const cutoff = new Date(now - longestWindow - this.config.guessLimits.retentionMs);
    await this.dataSource.query(`DELETE FROM auth_guess_window WHERE window_start < $1`, [cutoff]);
  }
}

/** Provides {@link GuessLimiter} to the wings that check guessable credentials (deploy, evaluation). */
@Module({
  imports: [TypeOrmModule.forFeature([GuessWindowEntity])],
  providers: [GuessLimiter],
  exports: [GuessLimiter],
})
export class GuessLimitsModule {}
