import { AsyncLocalStorage } from 'node:async_hooks';
import type { NextFunction, Request, Response } from 'express';

/** What every log line written while serving a request carries. */
interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** The id of the request being served on this async path, or undefined outside a request (jobs, start-up). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** Runs `fn` (the rest of a request) in the context of request `requestId` (request-log.ts calls it first thing). */
export function runInRequestContext(requestId: string, fn: () => void): void {
  storage.run({ requestId }, fn);
}

/**
 * Express middleware (after something set `req.id`): runs the rest of the request inside its context, so
 * every log line it writes carries `requestId` (createRootLogger's mixin; issue 15 item 2).
 */
export function requestContextMiddleware(request: Request, _response: Response, next: NextFunction): void {
  const id = (request as Request & { id?: unknown }).id;
  if (typeof id !== 'string') return next();
  storage.run({ requestId: id }, next);
}
