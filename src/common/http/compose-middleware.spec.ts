import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { composeMiddleware } from './compose-middleware';

const step = (name: string, calls: string[], outcome: 'next' | 'answer' | 'error' = 'next'): RequestHandler =>
  (_request, _response, next) => {
    calls.push(name);
    if (outcome === 'next') next();
    else if (outcome === 'error') next(new Error(`${name} failed`));
  };

describe('composeMiddleware (compose-middleware.ts)', () => {
  const run = (middleware: RequestHandler) => {
    const outcome: { next?: unknown[] } = {};
    middleware({} as Request, {} as Response, ((...args: unknown[]) => (outcome.next = args)) as NextFunction);
    return outcome.next;
  };

  it('runs the handlers in order, then goes on', () => {
    const calls: string[] = [];
    expect(run(composeMiddleware(step('a', calls), step('b', calls), step('c', calls)))).toEqual([]);
    expect(calls).toEqual(['a', 'b', 'c']);
  });

  it('stops at a handler that answers, and passes an error on without running the rest', () => {
    const answered: string[] = [];
    expect(run(composeMiddleware(step('a', answered), step('b', answered, 'answer'), step('c', answered)))).toBeUndefined();
    expect(answered).toEqual(['a', 'b']);
    const failed: string[] = [];
    const next = run(composeMiddleware(step('a', failed, 'error'), step('b', failed)));
    expect((next?.[0] as Error).message).toBe('a failed');
    expect(failed).toEqual(['a']);
  });
});
