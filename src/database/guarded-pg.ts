import * as pg from 'pg';

/** What a pg client looks like to the guard (the socket is not in pg's typings). */
interface GuardedClient {
  query: (...args: any[]) => any;
  connection?: { stream?: { destroy(): void } };
}

/**
 * Makes a client that hit its `query_timeout` ("Query read timeout": the server did not answer at all, e.g. frozen)
 * drop its socket, as pg itself does in pipeline mode (issue 20 item 1). Otherwise the next statement on that client —
 * TypeORM's ROLLBACK after the failed one, or the next request's query once the client is back in the pool — queues
 * behind the unanswered one and waits a whole timeout more. With the socket gone they fail at once, and the pool
 * drops the client.
 * @param client a pg client (a pool's, on its `connect` event)
 */
export function dropOnReadTimeout(client: pg.ClientBase): void {
  const guarded = client as unknown as GuardedClient;
  const query = guarded.query.bind(client);
  const drop = (error: unknown) => {
    if (error instanceof Error && error.message === 'Query read timeout') guarded.connection?.stream?.destroy();
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

/** A pg Pool whose clients drop their socket after a query read timeout (see {@link dropOnReadTimeout}). */
export class GuardedPool extends pg.Pool {
  constructor(config?: pg.PoolConfig) {
    super(config);
    this.on('connect', dropOnReadTimeout);
  }
}

/**
 * The `pg` module as TypeORM's `driver` option, with {@link GuardedPool} as its Pool; everything else is pg's own.
 */
export function guardedPgDriver(): typeof pg {
  const base = ((pg as unknown as { default?: typeof pg }).default ?? pg) as typeof pg;
  return Object.assign(Object.create(base) as typeof pg, { Pool: GuardedPool });
}
