import { LRUCache } from 'lru-cache';
import { ATRIUM_PG_TYPES } from './timestamptz-parser';
import { createHash } from 'node:crypto';
import * as pg from 'pg';

/** What a pg client looks like to the guard (the socket is not in pg's typings). */
interface GuardedClient {
  query: (...args: any[]) => any;
  end(): Promise<void>;
  connection?: { stream?: { destroy(): void } };
}

/**
 * Makes a client whose session is over leave the pool instead of serving the next statement:
 * - a query that hit its `query_timeout` ("Query read timeout": the server did not answer at all, e.g. frozen) drops
 *   the socket, as pg itself does in pipeline mode (issue 20 item 1). Otherwise the next statement on that client —
 *   TypeORM's ROLLBACK after the failed one, or the next request's query once the client is back in the pool — queues
 *   behind the unanswered one and waits a whole timeout more. With the socket gone they fail at once;
 * - a query refused with a FATAL error (the server ended the session: `pg_terminate_backend`, shutdown, idle timeout)
 *   ends the client at once. The error arrives before the server closes the socket, so the client still looked
 *   usable when its caller released it, and the next statement to take it from the pool failed with "Connection
 *   terminated unexpectedly".
 * Either way the pool drops the client when it is released.
 * @param client a pg client (a pool's, on its `connect` event)
 */
export function dropDeadSessions(client: pg.ClientBase): void {
  const guarded = client as unknown as GuardedClient;
  const query = guarded.query.bind(client);
  const drop = (error: unknown) => {
    if (error instanceof Error && error.message === 'Query read timeout') guarded.connection?.stream?.destroy();
    else if ((error as { severity?: unknown } | undefined)?.severity === 'FATAL') void guarded.end();
  };
  guarded.query = (...args: any[]) => {
    const last: unknown = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (error: unknown, ...rest: unknown[]) => {
        drop(error);
        (last as (...values: unknown[]) => void)(error, ...rest);
      };
      return query(...args);
    }
    const result: unknown = query(...args);
    if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(undefined, drop);
    return result;
  };
}

/**
 * Statement texts run as named prepared statements (issue 14 acceptance 1): PostgreSQL parses and plans such a text
 * once per connection instead of on every request. Planning a hot list's page statement cost 0.19 ms of server CPU
 * against 0.08 ms for executing it (pgbench, 100k contacts). Bounded: the most recently registered
 * {@link PREPARED_STATEMENTS_MAX} texts; a text that fell out runs unnamed again.
 */
export const PREPARED_STATEMENTS_MAX = 1_000;
const preparedNames = new LRUCache<string, string>({ max: PREPARED_STATEMENTS_MAX });

/**
 * Registers `text` to run as a named prepared statement on every pooled connection of a pool made with
 * `preparedStatements: true` (see {@link GuardedPool}). Only for statements whose plan does not depend on their values
 * much (a list page of a fixed shape, whose filters and order an index serves): after five executions PostgreSQL may
 * keep one generic plan for every value.
 * @param text the statement's SQL with `$n` placeholders, exactly as it will be run
 */
export function prepareOnFirstUse(text: string): void {
  if (!preparedNames.has(text)) preparedNames.set(text, `atrium_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`);
}

/** The name {@link prepareOnFirstUse} gave `text`, if any. */
export function preparedNameOf(text: string): string | undefined {
  return preparedNames.get(text);
}

/** The error of a named statement whose result columns changed since it was prepared (a table changed under it). */
const STALE_PREPARED = 'cached plan must not change result type';

/**
 * Runs the texts registered by {@link prepareOnFirstUse} as named statements on this client. A prepared statement
 * whose table changed its result columns under it (another instance migrated) fails with "cached plan must not
 * change result type" on this connection for good: it is run again unnamed at once, and unnamed on this connection
 * from then on (inside a transaction the failure stands: the transaction is already aborted).
 * @param client a pg client (a pool's, on its `connect` event)
 */
export function runPreparedByName(client: pg.ClientBase): void {
  const guarded = client as unknown as GuardedClient;
  const query = guarded.query.bind(client);
  const stale = new Set<string>();
  guarded.query = (...args: any[]) => {
    const [text, values] = args as [unknown, unknown];
    const name = typeof text === 'string' && args.length === 2 && Array.isArray(values) ? preparedNames.get(text) : undefined;
    if (name === undefined || stale.has(name)) return query(...args);
    return (query({ name, text, values }) as Promise<unknown>).catch((error: unknown) => {
      // Outside a transaction ('I': idle) only; in one, the failure aborted it and stands.
      if (!(error instanceof Error && error.message === STALE_PREPARED) || client.getTransactionStatus?.() !== 'I') throw error;
      stale.add(name);
      return query(text, values);
    });
  };
}

/** pg Pool options plus `preparedStatements`: run the texts of {@link prepareOnFirstUse} as named statements. */
export interface GuardedPoolConfig extends pg.PoolConfig {
  preparedStatements?: boolean;
}

/**
 * A pg Pool whose clients leave it once their session is over (a query read timeout, a FATAL error: {@link dropDeadSessions}), parse
 * timestamps with {@link ATRIUM_PG_TYPES} and, with `preparedStatements`, run registered texts as named prepared
 * statements ({@link runPreparedByName}).
 */
export class GuardedPool extends pg.Pool {
  constructor(config?: GuardedPoolConfig) {
    // Timestamps are parsed by a fast path of pg's own parser (timestamptz-parser.ts) unless the caller brings its own types.
    super({ ...config, types: config?.types ?? (ATRIUM_PG_TYPES as unknown as pg.CustomTypesConfig) });
    this.on('connect', (client) => {
      dropDeadSessions(client);
      if (config?.preparedStatements) runPreparedByName(client);
    });
  }
}

/**
 * The `pg` module as TypeORM's `driver` option, with {@link GuardedPool} as its Pool; everything else is pg's own.
 */
export function guardedPgDriver(): typeof pg {
  const base = ((pg as unknown as { default?: typeof pg }).default ?? pg) as typeof pg;
  return Object.assign(Object.create(base) as typeof pg, { Pool: GuardedPool });
}
