import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/**
 * The run lease (issue 19 acceptance 5; issue 20 item 2 extends it to every job kind): while an instance executes a
 * run, `eval_run.lease_owner` names that execution and `eval_run.lease_until` says until when it holds the run. The
 * executor claims the lease before it sends any case, renews it every EVAL_RUN_HEARTBEAT_MS and releases it when it
 * stops; RunLeaseSweeper hands a `running` run whose lease ran out to the queue again. Every write of the executor
 * is fenced on its owner value, so of two jobs for one run only the one holding the lease works.
 */

/** This process, as lease owners name it: `<host>:<pid>:<random>` (the random part tells restarts with one pid apart). */
export const RUN_LEASE_INSTANCE = `${hostname().slice(0, 60)}:${process.pid}:${randomBytes(4).toString('hex')}`;

/** A lease owner value for one execution of one run on this instance (≤ 90 characters). */
export function newRunLeaseOwner(): string {
  return `${RUN_LEASE_INSTANCE}#${randomBytes(6).toString('hex')}`;
}

/**
 * Takes the run for one execution: a `queued` or `running` run whose lease is free (no owner) or ran out. Marks it
 * `running` (keeping the first start time). $1 run id, $2 owner, $3 lease ms. Returns the row when claimed.
 */
export const CLAIM_RUN_SQL = `
  UPDATE eval_run SET status = 'running', started_at = COALESCE(started_at, now()), lease_owner = $2,
         lease_until = now() + $3::int * interval '1 millisecond'
   WHERE id = $1 AND status IN ('queued', 'running') AND (lease_owner IS NULL OR lease_until IS NULL OR lease_until < now())
  RETURNING id`;

/** Renews the lease while the execution holds it. $1 run id, $2 owner, $3 lease ms. No row: the lease is lost. */
export const RENEW_RUN_LEASE_SQL = `
  UPDATE eval_run SET lease_until = now() + $3::int * interval '1 millisecond'
   WHERE id = $1 AND lease_owner = $2 AND status = 'running'
  RETURNING id`;

/**
 * Gives the lease up (the execution stopped: finished, cancelled, interrupted by shutdown). The owner is cleared so
 * the queue's retry can claim at once; `lease_until` stays one lease ahead on a still-running run, so the sweeper
 * takes it over only if that retry never comes. $1 run id, $2 owner, $3 lease ms.
 */
export const RELEASE_RUN_LEASE_SQL = `
  UPDATE eval_run SET lease_owner = NULL,
         lease_until = CASE WHEN status = 'running' THEN now() + $3::int * interval '1 millisecond' END
   WHERE id = $1 AND lease_owner = $2`;

/**
 * The sweep's take-over: `running` runs whose lease ran out (or that never had one: runs left `running` before the
 * lease existed), locked so two sweeps never take the same run; the owner is cleared and the lease set one lease
 * ahead (the re-queued job claims it at once; the sweep takes it again only if that job is lost too). A missing lease
 * counts as `-infinity`, so one range of ix_eval_run_running_lease_due (migration 1795600780000) holds exactly the due
 * runs, however many run. $1 lease ms, $2 most runs per pass.
 */
export const TAKE_OVER_EXPIRED_RUNS_SQL = `
  UPDATE eval_run SET lease_owner = NULL, lease_until = now() + $1::int * interval '1 millisecond'
   WHERE id IN (
     SELECT id FROM eval_run
      WHERE status = 'running' AND COALESCE(lease_until, '-infinity'::timestamptz) < now()
      ORDER BY COALESCE(lease_until, '-infinity'::timestamptz) LIMIT $2
      FOR UPDATE SKIP LOCKED)
  RETURNING id`;

/** The key of the transaction-scoped advisory lock that lets one instance sweep at a time. */
export const RUN_SWEEP_LOCK_SQL = `SELECT pg_try_advisory_xact_lock(hashtext('atrium:eval-run-sweep')) AS locked`;

/** The rows of an `UPDATE … RETURNING` (TypeORM's Postgres driver answers it with `[rows, rowCount]`). */
export function returnedRows<T>(raw: unknown): T[] {
  if (Array.isArray(raw) && raw.length === 2 && Array.isArray(raw[0]) && typeof raw[1] === 'number') return raw[0] as T[];
  return (Array.isArray(raw) ? raw : []) as T[];
}
