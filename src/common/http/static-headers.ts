import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** The header changes a middleware makes, whatever the request: headers to set (in order) and headers to remove. */
export interface StaticHeaders {
  set: [name: string, value: string | string[]][];
  remove: string[];
}

/**
 * Records what a header-only middleware (helmet with a static policy) does to a response, by running it once on a
 * stand-in that offers `setHeader` and `removeHeader` only. Replaying the record per request gives the same headers
 * for a fraction of the cost (helmet runs a dozen nested middlewares, each a closure call, per request; issue 14
 * item 1).
 * @throws Error when the middleware touches anything else, reads the request, or does not call `next()` at once
 *   without an error: its headers may then depend on the request, and it must run per request instead
 */
export function recordStaticHeaders(middleware: RequestHandler): StaticHeaders {
  const recorded: StaticHeaders = { set: [], remove: [] };
  const response = {
    setHeader(name: string, value: string | number | readonly string[]) {
      recorded.set.push([name, Array.isArray(value) ? [...(value as string[])] : String(value)]);
      return response;
    },
    removeHeader(name: string) {
      recorded.remove.push(name);
    },
  };
  const refuse = (what: string) => {
    throw new Error(`recordStaticHeaders: the middleware read the request (${what}); its headers are not static`);
  };
  const request = new Proxy({}, { get: (_target, property) => refuse(String(property)) });
  let nexted = false;
  middleware(request as Request, response as unknown as Response, ((error?: unknown) => {
    if (error) throw error instanceof Error ? error : new Error(String(error));
    nexted = true;
  }) as NextFunction);
  if (!nexted) throw new Error('recordStaticHeaders: the middleware did not call next() synchronously');
  return recorded;
}

/** Middleware replaying {@link recordStaticHeaders}'s record on every response (same headers, same order). */
export function staticHeadersMiddleware(headers: StaticHeaders): RequestHandler {
  const { set, remove } = headers;
  return (_request: Request, response: Response, next: NextFunction) => {
    for (let index = 0; index < set.length; index++) response.setHeader(set[index][0], set[index][1]);
    for (let index = 0; index < remove.length; index++) response.removeHeader(remove[index]);
    next();
  };
}
