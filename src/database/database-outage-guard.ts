import { classifyDatabaseError } from '../common/http/database-problem';

/** What {@link installDatabaseOutageGuard} logs with. */
export interface OutageGuardLogger {
  warn(fields: object, message: string): void;
  fatal(fields: object, message: string): void;
}

/**
 * Decides what an unhandled rejection means (issue 20 item 1: "the process never exits because the database went
 * away"): a database outage (anything the problem filter answers 503 for: connection refused or reset, timeouts,
 * admin shutdown) is survivable; anything else is a bug.
 * @param reason the rejection's reason
 * @returns 'outage' or 'bug'
 */
export function rejectionKind(reason: unknown): 'outage' | 'bug' {
  return classifyDatabaseError(reason)?.status === 503 ? 'outage' : 'bug';
}

/**
 * Installs the process-level `unhandledRejection` and `uncaughtException` handlers of `npm start`. A library that fires
 * a query without awaiting it (pg-boss 10 settles jobs that way; src/jobs fixes that at the source), or a pg client
 * that emits `error` with nobody listening, must not end the process when PostgreSQL stops or freezes: such a failure
 * is logged as a warning and the process goes on, its pools reconnecting by themselves. Anything else keeps Node's
 * default meaning: logged as fatal, exit status 1.
 * @param logger the root logger
 * @param exit how to end the process (tests pass a spy); default `process.exit`
 * @returns a function that removes the handlers
 */
export function installDatabaseOutageGuard(logger: OutageGuardLogger, exit: (code: number) => void = (code) => process.exit(code)): () => void {
  const handle = (what: string) => (reason: unknown) => {
    const message = reason instanceof Error ? reason.message : String(reason);
    if (rejectionKind(reason) === 'outage') {
      logger.warn({ context: 'DatabaseOutage', err: reason }, `${what} database failure while the database is unreachable (the process goes on): ${message}`);
      return;
    }
    logger.fatal({ err: reason }, `${what}: ${message}`);
    exit(1);
  };
  const onRejection = handle('unhandled rejection');
  const onException = handle('uncaught exception');
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
