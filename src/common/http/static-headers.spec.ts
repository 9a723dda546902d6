import helmet from 'helmet';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { recordStaticHeaders, staticHeadersMiddleware } from './static-headers';

/** A response stand-in that keeps its headers as Node does (names case-insensitive). */
function fakeResponse(initial: Record<string, string> = {}) {
  const headers = new Map(Object.entries(initial).map(([name, value]) => [name.toLowerCase(), value as unknown]));
  return {
    headers,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
}

const run = (middleware: RequestHandler, response: ReturnType<typeof fakeResponse>) => {
  let nexted = false;
  middleware({ headers: {}, method: 'GET', url: '/api/x' } as Request, response as unknown as Response, (() => (nexted = true)) as NextFunction);
  return nexted;
};

describe('static headers (static-headers.ts)', () => {
  it("replays exactly the headers helmet sets and removes, for the app's policy", () => {
    const policy = helmet({ contentSecurityPolicy: { directives: { 'script-src': ["'self'", "'unsafe-inline'"], 'img-src': ["'self'", 'data:', 'https:'] } } });
    const direct = fakeResponse({ 'X-Powered-By': 'Express' });
    const replayed = fakeResponse({ 'X-Powered-By': 'Express' });
    expect(run(policy, direct)).toBe(true);
    expect(run(staticHeadersMiddleware(recordStaticHeaders(policy)), replayed)).toBe(true);
    expect([...replayed.headers]).toEqual([...direct.headers]);
    expect(replayed.headers.has('x-powered-by')).toBe(false);
    expect(replayed.headers.get('content-security-policy')).toContain("script-src 'self' 'unsafe-inline'");
    expect(replayed.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('refuses a middleware whose headers depend on the request, or that does not go on at once', () => {
    const readsRequest: RequestHandler = (request, response, next) => {
      response.setHeader('X-Path', request.path);
      next();
    };
    expect(() => recordStaticHeaders(readsRequest)).toThrow(/read the request/);
    const later: RequestHandler = (_request, _response, next) => void setImmediate(next);
    expect(() => recordStaticHeaders(later)).toThrow(/did not call next/);
    const fails: RequestHandler = (_request, _response, next) => next(new Error('bad directive'));
    expect(() => recordStaticHeaders(fails)).toThrow(/bad directive/);
  });
});
