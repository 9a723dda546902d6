import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import type { NextFunction, Request, Response } from 'express';
import { createRootLogger } from './logger';
import { currentRequestId } from './request-context';
import { installLazyRequestLogger, loggedRequest, requestLogLevel, requestLogMiddleware } from './request-log';

/** A logger writing JSON lines into `lines`. */
function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = createRootLogger(level, new Writable({ write: (chunk, _encoding, next) => { lines.push(JSON.parse(String(chunk))); next(); } }));
  return { lines, logger };
}

/** A request on the app's request prototype, and a response that can finish. */
function exchange(prototype: object, url: string, headers: Record<string, string> = {}) {
  const request = Object.assign(Object.create(prototype), { method: 'GET', url, originalUrl: url, headers, socket: { remoteAddress: '10.0.0.7' } }) as Request & { id?: string };
  const response = Object.assign(new EventEmitter(), { statusCode: 200, headers: {} as Record<string, unknown>, setHeader(name: string, value: unknown) { this.headers[name.toLowerCase()] = value; } });
  return { request, response };
}

describe('request log (request-log.ts)', () => {
  it('levels: 5xx error, 4xx warn, else info', () => {
    expect([requestLogLevel(200), requestLogLevel(304), requestLogLevel(404), requestLogLevel(503), requestLogLevel(200, true)]).toEqual(['info', 'info', 'warn', 'error', 'error']);
  });

  it('logs the path without its query (queries may carry secrets)', () => {
    expect(loggedRequest({ method: 'GET', originalUrl: '/oauth/callback?code=secret', socket: { remoteAddress: '::1' } }, 'r1')).toEqual({ id: 'r1', method: 'GET', url: '/oauth/callback', remoteAddress: '::1' });
  });

  it('gives an id, runs the request in its context and writes one completion line shaped as before', () => {
    const { lines, logger } = capture();
    const prototype = {};
    installLazyRequestLogger(prototype);
    const { request, response } = exchange(prototype, '/api/runs?token=abc', { 'x-request-id': 'caller.1' });
    let seenId: string | undefined;
    requestLogMiddleware(logger)(request, response as unknown as Response, (() => (seenId = currentRequestId())) as NextFunction);
    expect(request.id).toBe('caller.1');
    expect(response.headers['x-request-id']).toBe('caller.1');
    expect(seenId).toBe('caller.1');
    response.statusCode = 404;
    response.emit('finish');
    response.emit('close');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, msg: 'request completed', req: { id: 'caller.1', method: 'GET', url: '/api/runs', remoteAddress: '10.0.0.7' }, res: { statusCode: 404 } });
    expect(typeof lines[0].responseTime).toBe('number');
    expect(JSON.stringify(lines[0])).not.toContain('abc');
  });

  it("puts bindings a strategy added through request.log on the request's lines, and errors on 5xx", () => {
    const { lines, logger } = capture();
    const prototype = {};
    installLazyRequestLogger(prototype);
    const { request, response } = exchange(prototype, '/api/runs');
    requestLogMiddleware(logger)(request, response as unknown as Response, (() => undefined) as NextFunction);
    (request as unknown as { log: { setBindings(bindings: object): void } }).log.setBindings({ principal: 'api-key:ci' });
    response.statusCode = 500;
    response.emit('finish');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 50, msg: 'request errored', principal: 'api-key:ci', req: { url: '/api/runs' }, res: { statusCode: 500 }, err: { message: 'failed with status code 500' } });
  });

  it('replaces a hostile X-Request-Id (the attack: a forged log line), and skips ignored paths and disabled levels', () => {
    const { lines, logger } = capture('warn');
    const prototype = {};
    installLazyRequestLogger(prototype);
    const hostile = exchange(prototype, '/api/runs', { 'x-request-id': 'x\nlevel=fatal' });
    requestLogMiddleware(logger, { ignore: (request) => request.url === '/api/health' })(hostile.request, hostile.response as unknown as Response, (() => undefined) as NextFunction);
    expect(hostile.request.id).toMatch(/^[0-9a-f-]{36}$/);
    hostile.response.emit('finish'); // 200 at level warn: nothing
    const probe = exchange(prototype, '/api/health');
    requestLogMiddleware(logger, { ignore: (request) => request.url === '/api/health' })(probe.request, probe.response as unknown as Response, (() => undefined) as NextFunction);
    probe.response.statusCode = 503;
    probe.response.emit('finish');
    expect(lines).toEqual([]);
  });
});
