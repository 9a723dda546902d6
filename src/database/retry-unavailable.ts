import { classifyDatabaseError } from '../common/http/database-problem';

/**
 * Runs `write` again while PostgreSQL is unreachable, frozen or shutting down (what `classifyDatabaseError` calls
 * 503), backing off from 250 ms to 5 s, until it succeeds, fails for another reason, `shouldStop()` says so, or
 * `deadlineMs` has passed since the first try (issue 20 item 2: work already done — a case already sent to its
 * target — is recorded once the database is back instead of being done again).
 * @param write the statement(s) to run
 * @param options.deadlineMs give up after this long (ms) and throw the last error
 * @param options.shouldStop checked before each retry (e.g. the run's lease was lost or the process is stopping)
 * @throws the first non-availability error, or the last availability error once stopped or past the deadline
 */
export async function retryWhileDatabaseUnavailable<T>(write: () => Promise<T>, options: { deadlineMs: number; shouldStop?: () => boolean }): Promise<T> {
  const started = Date.now();
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      const unavailable = classifyDatabaseError(error)?.status === 503;
      const delay = Math.min(5_000, 250 * 2 ** attempt);
      if (!unavailable || options.shouldStop?.() || Date.now() - started + delay > options.deadlineMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
