import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger as Pino, LevelWithSilent } from 'pino';
import { requestIdFor } from '../http/request-id';
import { runInRequestContext } from './request-context';

/** What a request's log lines carry as `req` (no headers: credentials never reach a log). */
export interface LoggedRequest {
  id: string;
  method: string;
  /** The path, without the query string (queries may carry secrets such as OAuth codes). */
  url: string;
  remoteAddress?: string;
}

/** Options of {@link requestLogMiddleware}. */
export interface RequestLogOptions {
  /** Requests that write no completion line (probes, scrapes); they still get an id and a context. */
  ignore?: (request: Request) => boolean;
}

/**
 * The completion line's level (issue 15 item 4): `error` for a 5xx (or a failed response), `warn` for a 4xx, else
 * `info`. Pure.
 */
export function requestLogLevel(statusCode: number, failed = false): 'error' | 'warn' | 'info' {
  return failed || statusCode >= 500 ? 'error' : statusCode >= 400 ? 'warn' : 'info';
}

/** The `req` object of a request's log lines. Pure. */
export function loggedRequest(request: { method: string; url?: string; originalUrl?: string; socket?: { remoteAddress?: string } }, id: string): LoggedRequest {
  const url = request.originalUrl ?? request.url ?? '';
  const query = url.indexOf('?');
  return { id, method: request.method, url: query === -1 ? url : url.slice(0, query), remoteAddress: request.socket?.remoteAddress };
}

const LOG_STATE = Symbol('atrium.requestLog');

interface RequestLogState {
  root: Pino;
  bindings: LoggedRequest;
  child?: Pino;
}

type LoggingRequest = Request & { id?: string; [LOG_STATE]?: RequestLogState };

/**
 * Makes `request.log` a child logger bound to the request (`req: { id, method, url, remoteAddress }`), created on
 * first read only: most requests never log anything themselves, and building a child logger (bindings serialised,
 * secrets censored) on every request cost more than the rest of the logging. A strategy may add bindings
 * (`request.log.setBindings({ principal })`); they then appear on the request's completion line too. Installed once
 * on the app's request prototype (`express.request` of the app).
 */
export function installLazyRequestLogger(requestPrototype: object): void {
  if (Object.prototype.hasOwnProperty.call(requestPrototype, 'log')) return;
  Object.defineProperty(requestPrototype, 'log', {
    configurable: true,
    get(this: LoggingRequest): Pino | undefined {
      const state = this[LOG_STATE];
      if (!state) return undefined;
      state.child ??= state.root.child({ req: state.bindings });
      return state.child;
    },
  });
}

/**
 * The first middleware of every request (issue 15 items 2 and 4; issue 14 item 1), doing what pino-http did at a
 * fraction of its cost:
 * - the request id: the caller's `X-Request-Id` when sane, else a UUID (request-id.ts), set as `request.id` and
 *   echoed in the `X-Request-Id` response header;
 * - the rest of the request runs in its context (request-context.ts), so every line it logs carries `requestId`;
 * - `request.log`: a child logger made on first use ({@link installLazyRequestLogger});
 * - one completion line when the response finishes or the connection closes first, at {@link requestLogLevel},
 *   shaped as pino-http wrote it (`req`, `res: { statusCode }`, `responseTime` in ms, `request completed`, or
 *   `err` and `request errored` for a 5xx). Nothing is built when that level is off (LOG_LEVEL above it).
 */
export function requestLogMiddleware(logger: Pino, options: RequestLogOptions = {}): RequestHandler {
  const ignore = options.ignore;
  return (request: LoggingRequest, response: Response, next: NextFunction) => {
    const id = requestIdFor(request.headers['x-request-id']);
    request.id = id;
    response.setHeader('X-Request-Id', id);
    const started = Date.now();
    const state: RequestLogState = { root: logger, bindings: loggedRequest(request, id) };
    request[LOG_STATE] = state;
    if (!ignore?.(request)) {
      const complete = () => {
        response.removeListener('close', complete);
        response.removeListener('finish', complete);
        const level = requestLogLevel(response.statusCode);
        if (!logger.isLevelEnabled(level as LevelWithSilent)) return;
        const log = state.child ?? logger;
        const fields: Record<string, unknown> = state.child ? {} : { req: state.bindings };
        fields.res = { statusCode: response.statusCode };
        fields.responseTime = Date.now() - started;
        if (response.statusCode >= 500) {
          fields.err = new Error(`failed with status code ${response.statusCode}`);
          log[level](fields, 'request errored');
        } else {
          log[level](fields, 'request completed');
        }
      };
      response.on('finish', complete);
      response.on('close', complete);
    }
    runInRequestContext(id, next);
  };
}
