import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The failure count of one credential kind, client and fixed window (issue 12 item 5). It is also the aggregate audit
 * of refused guesses: one row per window per kind and client, however many were refused. Written only through
 * {@link import('./guess-limiter').GuessLimiter}'s single-statement upserts.
 */
@Entity({ name: 'auth_guess_window' })
@Index('ix_auth_guess_window_start', ['windowStart'])
export class GuessWindowEntity {
  /** e.g. `deploy-registration-key`, `eval-api-key` (GuessKind). */
  @PrimaryColumn({ type: 'varchar', length: 32 })
  kind: string;

  /** The client key: an IPv4 address or an IPv6 /64 (clientKeyOf). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  clientKey: string;

  @PrimaryColumn({ type: 'timestamptz' })
  windowStart: Date;

  /** Checks that failed in this window. */
  @Column({ type: 'integer' })
  failures: number;

  /** Checks running now; while failures + inFlight reach the limit, new attempts wait for them. */
  @Column({ type: 'integer' })
  inFlight: number;

  /** Attempts answered 429 without being checked. */
  @Column({ type: 'integer' })
  refused: number;

  /** What the last attempt got: `granted`, `busy` (wait) or `refused` (read back by the statement that set it). */
  @Column({ type: 'varchar', length: 8 })
  lastOutcome: string;

  @Column({ type: 'timestamptz' })
  firstAt: Date;

  @Column({ type: 'timestamptz' })
  lastAt: Date;
}
