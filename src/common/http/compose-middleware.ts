import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * One Express middleware that runs `handlers` in order, each calling the next through its `next()` (an error, or a
 * handler that answers without calling it, ends the run as it would in Express). Mounted as one layer instead of
 * several: Express's router walks, matches and re-parses the URL for every layer of every request (issue 14 item 1).
 */
export function composeMiddleware(...handlers: RequestHandler[]): RequestHandler {
  return handlers.reduceRight<RequestHandler>(
    (rest, handler) => (request: Request, response: Response, next: NextFunction) =>
      handler(request, response, (error?: unknown) => (error ? next(error) : rest(request, response, next))),
    (_request: Request, _response: Response, next: NextFunction) => next(),
  );
}
