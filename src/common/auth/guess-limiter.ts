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
      kind === 'sign-in-start'
        ? `Too many sign-ins started from your address; try again in ${retryAfter} s.`
        : `Too many failed attempts with this credential from your address; try again in ${retryAfter} s.`,
      { credential: kind, retryAfterSeconds: retryAfter },
      { 'Retry-After': String(retryAfter) },
    );
  }
}

/** What the upsert on a window decided for one attempt. */
type Outcome = 'granted' | 'busy' | 'refused';

interface Reservation {
  kind: GuessKind;
  clientKey: string;
  windowStart: Date;
}

/** How long an attempt waits between two tries while checks in flight stand in its way (ms). */
const BUSY_RETRY_MS = 20;

/**
 * Race-free guessing limits kept in PostgreSQL (issue 12 item 5). Every attempt first reserves a check with one
 * atomic upsert on (kind, client, window), before the credential is looked at:
 * - `granted` while the window's failures plus the checks in flight are under the limit;
 * - `refused` (429 with Retry-After, unchecked) once the failures reach the limit;
 * - `busy` in between: checks in flight could still fail, so the attempt waits for them (up to AUTH_GUESS_BUSY_WAIT_MS,
 *   then 429).
 * A success gives its reservation back, a failure turns it into a failure. So however many attempts arrive at once,
 * on any number of instances, no more than `maxFailures` wrong credentials are checked per client and window, and
 * a busy client with the right credential only waits. Limits: AUTH_GUESS_* (guess-limits.config.ts).
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
   * @param verify the pure check: resolves to the principal, or undefined for a wrong credential; it runs only when
   *   the reservation was granted. A thrown error counts as no attempt (the reservation is given back) and is rethrown.
   * @param limit the kind's limit; default: AUTH_GUESS_* for the kind (required for `eval-password`)
   * @returns what `verify` returned (undefined = wrong credential, now counted as a failure)
   * @throws GuessLimitExceeded (429 with Retry-After) when the client has no failures left in this window, or the
   *   checks in flight did not end within AUTH_GUESS_BUSY_WAIT_MS
   */
  async check<T>(
    kind: GuessKind,
    clientAddress: string | undefined,
    verify: () => Promise<T | undefined> | T | undefined,
    limit: GuessLimit = this.limitOf(kind),
  ): Promise<T | undefined> {
    const clientKey = clientKeyOf(clientAddress);
    const reservation = await this.reserve(kind, clientKey, limit);
    let result: T | undefined;
    try {
      result = await verify();
    } catch (error) {
      await this.settle(reservation, false);
      throw error;
    }
    await this.settle(reservation, result === undefined);
    return result;
  }

  /**
   * {@link check} in one PostgreSQL round trip instead of three, for a `verify` that is pure and in memory (a
   * constant-time comparison with a configured secret: the owner token, the registration key, a password). `verify`
   * runs first; one atomic upsert on (kind, client, window) then decides under the row's lock, as the reservation
   * would have: `granted` (its answer is used, and a wrong one is counted as a failure in the same statement),
   * `refused` (429, its answer is never used) or `busy` (checks in flight of {@link check} could still fail: wait and
   * decide again). So the number of wrong credentials whose answer anyone sees stays at most `maxFailures` per client
   * and window, and a right credential is still refused past the limit (issue 12 item 5, issue 14 item 1). Never use it
   * for a `verify` that reads the database or has side effects: their cost or timing would tell before the decision.
   * @returns what `verify` returned (undefined = wrong credential, now counted as a failure)
   * @throws GuessLimitExceeded as {@link check}
   */
  async checkPure<T>(kind: GuessKind, clientAddress: string | undefined, verify: () => T | undefined, limit: GuessLimit = this.limitOf(kind)): Promise<T | undefined> {
    const result = verify();
    await this.reserve(kind, clientKeyOf(clientAddress), limit, result === undefined);
    return result;
  }

  /**
   * Counts one attempt that is limited however it ends (`sign-in-start`: a single sign-on start, which stores a row
   * before anyone is known), in one round trip.
   * @throws GuessLimitExceeded (429 with Retry-After) once the client's attempts of this kind reached the limit
   */
  async countAttempt(kind: GuessKind, clientAddress: string | undefined): Promise<void> {
    await this.checkPure(kind, clientAddress, () => undefined);
  }

  /**
   * {@link check} in one PostgreSQL round trip instead of three, for a credential looked up in PostgreSQL (issue 14
   * item 1: an API key cost a reservation, the lookup and the settlement). The lookup and the decision are one
   * statement: `lookup.sql` (a SELECT of at most one row: the credential's principal) runs as a CTE, and one atomic
   * upsert on (kind, client, window) decides under the row's lock, as {@link checkPure} does, with "wrong" meaning
   * "the lookup found no row". The row is returned only when the check was granted, so no more than `maxFailures`
   * wrong credentials are answered per client and window, and a right one is refused past the limit.
   * `lookup.afterGrant` is an optional data-modifying statement run in the same statement, which may read the CTEs
   * `found` (the lookup's row) and `decided` (`outcome`: `granted`, `busy` or `refused`), e.g. to note the
   * credential's last use only when granted: nothing that depends on the credential happens before the decision.
   * @param lookup `sql` with placeholders `$1…$n` for `parameters`
   * @returns the lookup's row (undefined = wrong credential, now counted as a failure)
   * @throws GuessLimitExceeded as {@link check}
   */
  async checkLookup<T extends object>(
    kind: GuessKind,
    clientAddress: string | undefined,
    lookup: { sql: string; parameters: unknown[]; afterGrant?: string },
    { maxFailures, windowMs }: GuessLimit = this.limitOf(kind),
  ): Promise<T | undefined> {
    const clientKey = clientKeyOf(clientAddress);
    const at = lookup.parameters.length;
    const statement = `WITH found AS (${lookup.sql}),
      decided AS (
        INSERT INTO auth_guess_window AS w (kind, client_key, window_start, failures, in_flight, refused, last_outcome, first_at, last_at)
        SELECT $${at + 1}, $${at + 2}, $${at + 3}, CASE WHEN f.ok THEN 0 ELSE 1 END, 0, 0, 'granted', now(), now()
        FROM (SELECT EXISTS (SELECT 1 FROM found) AS ok) AS f
        ON CONFLICT (kind, client_key, window_start) DO UPDATE SET
          failures = w.failures + CASE WHEN w.failures + w.in_flight < $${at + 4} THEN EXCLUDED.failures ELSE 0 END,
          refused = w.refused + CASE WHEN w.failures >= $${at + 4} THEN 1 ELSE 0 END,
          last_outcome = CASE WHEN w.failures + w.in_flight < $${at + 4} THEN 'granted' WHEN w.failures >= $${at + 4} THEN 'refused' ELSE 'busy' END,
          last_at = now()
        RETURNING last_outcome AS outcome, refused, (xmax = 0) AS inserted
      )${lookup.afterGrant ? `, after_grant AS (${lookup.afterGrant})` : ''}
      SELECT d.outcome AS guess_outcome, d.refused AS guess_refused, d.inserted AS guess_inserted, f.*
      FROM decided AS d LEFT JOIN found AS f ON d.outcome = 'granted'`;
    let found: T | undefined;
    await this.decide(kind, clientKey, windowMs, async (windowStart) => {
      const rows: ({ guess_outcome: Outcome; guess_refused: number; guess_inserted: boolean } & Record<string, unknown>)[] = await this.dataSource.query(statement, [
        ...lookup.parameters,
        kind,
        clientKey,
        windowStart,
        maxFailures,
      ]);
      const [{ guess_outcome: outcome, guess_refused: refused, guess_inserted: inserted, ...row }] = rows;
      if (outcome === 'granted' && Object.values(row).some((value) => value !== null)) found = row as T;
      return { outcome, refused, inserted };
    });
    return found;
  }

  /**
   * Reserves one check, waiting while only checks in flight stand in the way. With `decided` (checkPure: the
   * verdict is known, true = wrong credential), a granted check is settled in the same statement: nothing is left in
   * flight and a wrong credential counts as a failure at once.
   */
  private async reserve(kind: GuessKind, clientKey: string, { maxFailures, windowMs }: GuessLimit, decided?: boolean): Promise<Reservation> {
    // In flight until settled (check), or settled at once: a failure when decided wrong, nothing when decided right.
    const inFlight = decided === undefined ? 1 : 0;
    const failure = decided === true ? 1 : 0;
    const windowStart = await this.decide(kind, clientKey, windowMs, async (start) => {
      const rows: { outcome: Outcome; refused: number; inserted: boolean }[] = await this.dataSource.query(
        `INSERT INTO auth_guess_window AS w (kind, client_key, window_start, failures, in_flight, refused, last_outcome, first_at, last_at)
         VALUES ($1, $2, $3, $6, $5, 0, 'granted', now(), now())
         ON CONFLICT (kind, client_key, window_start) DO UPDATE SET
           in_flight = w.in_flight + CASE WHEN w.failures + w.in_flight < $4 THEN $5 ELSE 0 END,
           failures = w.failures + CASE WHEN w.failures + w.in_flight < $4 THEN $6 ELSE 0 END,
           refused = w.refused + CASE WHEN w.failures >= $4 THEN 1 ELSE 0 END,
           last_outcome = CASE WHEN w.failures + w.in_flight < $4 THEN 'granted' WHEN w.failures >= $4 THEN 'refused' ELSE 'busy' END,
           last_at = now()
         RETURNING last_outcome AS outcome, refused, (xmax = 0) AS inserted`,
        [kind, clientKey, start, maxFailures, inFlight, failure],
      );
      return rows[0];
    });
    return { kind, clientKey, windowStart };
  }

  /**
   * The decision loop shared by every check: runs `attempt` for the current window until it is granted (returns the
   * window's start), refused (429), or busy for longer than AUTH_GUESS_BUSY_WAIT_MS (429 after waiting); sweeps old windows when
   * a window's first row was inserted.
   */
  private async decide(kind: GuessKind, clientKey: string, windowMs: number, attempt: (windowStart: Date) => Promise<{ outcome: Outcome; refused: number; inserted: boolean }>): Promise<Date> {
    const deadline = Date.now() + this.config.guessLimits.busyWaitMs;
    for (;;) {
      const now = Date.now();
      const windowStart = new Date(windowStartOf(now, windowMs));
      const { outcome, refused, inserted } = await attempt(windowStart);
      if (inserted) await this.sweep(now);
      if (outcome === 'granted') return windowStart;
      if (outcome === 'refused' || Date.now() >= deadline) {
        const firstInWindow = outcome === 'refused' && Number(refused) === 1;
        if (firstInWindow) {
          this.logger.warn(`Guessing limit reached: ${kind} from ${clientKey}; further attempts in this window get 429 and are counted in auth_guess_window.`);
        }
        const retryAfter = outcome === 'refused' ? retryAfterSeconds(Date.now(), windowMs) : 1;
        throw new GuessLimitExceeded(kind, clientKey, retryAfter, firstInWindow);
      }
      await new Promise((resolve) => setTimeout(resolve, BUSY_RETRY_MS + Math.random() * BUSY_RETRY_MS));
    }
  }

  /**
   * The counts of one client for one kind in the current window (for tests and operators).
   * @returns failed checks and refused attempts; zeros when nothing was counted
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

  /** Ends a reserved check: it no longer runs, and a failed one counts. */
  private async settle(reservation: Reservation, failed: boolean): Promise<void> {
    await this.dataSource.query(
      `UPDATE auth_guess_window SET in_flight = GREATEST(in_flight - 1, 0), failures = failures + $4
       WHERE kind = $1 AND client_key = $2 AND window_start = $3`,
      [reservation.kind, reservation.clientKey, reservation.windowStart, failed ? 1 : 0],
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
