import { classifyDatabaseError } from '../common/http/database-problem';

/** What pg-boss's `db.executeSql` returns. */
export interface SqlResult {
  rows: any[];
}

/** Options of {@link settlingSql}. */
export interface SettlingSqlOptions {
  /** True for pg-boss's statements that record a job's end (complete, fail), which pg-boss 10 does not await. */
  isSettle(text: string): boolean;
  /** Milliseconds a settle statement is retried while the database is unreachable; then given up (logged). */
  retryMs: number;
  /** Milliseconds between tries. Default 1000. */
  delayMs?: number;
  /** True once the pool is closing: nothing more is sent (pg-boss's own pool answers nothing then too). */
  closed(): boolean;
  /** Receives one line per settle statement given up. */
  warn(message: string): void;
}

/** No answer: pg-boss reads it as "no job affected" (an empty `rows` would make it read `rows[0].count` and throw). */
const NOTHING = undefined as unknown as SqlResult;

/**
 * Wraps the SQL executor given to pg-boss so that the statements pg-boss fires without awaiting never reject
 * (issue 20 item 1: "unhandled rejection at `Manager.fail`", which ended the process when the database stopped while
 * a job was running or finishing). Settle statements (complete/fail) are retried every `delayMs` while the database is
 * unreachable, for up to `retryMs`; then, or for any other error, they resolve with no answer and the job stays `active` until
 * its expiry or its sweeper hands it back. Other statements (fetch, send, maintenance) reject as before: pg-boss awaits
 * them and reports them as `error` events.
 * @param execute the real executor (a pg pool's query)
 * @returns pg-boss's `executeSql`
 */
export function settlingSql(execute: (text: string, values?: unknown[]) => Promise<SqlResult>, options: SettlingSqlOptions): (text: string, values?: unknown[]) => Promise<SqlResult> {
  const delayMs = options.delayMs ?? 1000;
  return async (text, values) => {
    if (options.closed()) return NOTHING;
    if (!options.isSettle(text)) return execute(text, values);
    const giveUpAt = Date.now() + options.retryMs;
    for (;;) {
      try {
        return await execute(text, values);
      } catch (error) {
        const unavailable = classifyDatabaseError(error)?.status === 503;
        if (!unavailable || Date.now() + delayMs > giveUpAt || options.closed()) {
          options.warn(`could not record a job's end (${error instanceof Error ? error.message : String(error)}); it stays active until its expiry or sweeper hands it back`);
          return NOTHING;
        }
        await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
        if (options.closed()) return NOTHING;
      }
    }
  };
}
