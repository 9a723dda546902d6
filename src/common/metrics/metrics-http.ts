import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { trace } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { PROBLEM_CONTENT_TYPE } from '../http/problem-details';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { MetricsRegistry } from './metrics.registry';
import { methodLabel, routeLabel } from './route-label';

/** Latency buckets of HTTP requests, seconds: 5 ms to 30 s (uploads and exec calls are slow by nature). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Counts every HTTP request and times it when its response finishes (issue 15 item 1):
 * `atrium_http_requests_total{method,route,status}` and `atrium_http_request_duration_seconds{method,route,status}`.
 * `route` is the matched route's template or `unmatched` (route-label.ts), never the raw path. When the request is
 * traced, its server span gets the same `http.route` and is named `<method> <route>`.
 */
export function httpMetricsMiddleware(metrics: MetricsRegistry): RequestHandler {
  const labelNames = ['method', 'route', 'status'] as const;
  const requests = metrics.counter({ name: 'atrium_http_requests_total', help: 'HTTP requests by method, route template and status code.', labelNames });
  const duration = metrics.histogram({ name: 'atrium_http_request_duration_seconds', help: 'HTTP request latency by method, route template and status code, seconds.', labelNames, buckets: HTTP_BUCKETS });
  return (request: Request, response: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    // The request's server span, when traced (issue 15 item 2): it gets the route template too.
    const span = trace.getActiveSpan();
    response.once('finish', () => {
      const labels = { method: methodLabel(request.method), route: routeLabel(request), status: String(response.statusCode) };
      if (span) {
        span.setAttribute('http.route', labels.route);
        span.updateName(`${labels.method} ${labels.route}`);
      }
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** True when `header` is `Bearer <token>`, compared in constant time. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer (.+)$/.exec(header ?? '');
  if (!match) return false;
  const given = Buffer.from(match[1]);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Answers one scrape: 200 with the exposition text; 401 problem+json (with `WWW-Authenticate: Bearer`) when `token`
 * is set and the request doesn't carry it; 405 for methods other than GET/HEAD.
 * @param token METRICS_TOKEN, or undefined: public
 */
export async function answerScrape(metrics: MetricsRegistry, token: string | undefined, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const problem = (status: number, title: string, detail: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...headers });
    response.end(JSON.stringify({ type: 'about:blank', title, status, detail, instance: '/metrics' }));
  };
  if (request.method !== 'GET' && request.method !== 'HEAD') return problem(405, 'Method Not Allowed', 'GET /metrics only.', { Allow: 'GET, HEAD' });
  if (token && !bearerMatches(request.headers.authorization, token)) {
    return problem(401, 'Unauthorized', 'This endpoint needs `Authorization: Bearer <METRICS_TOKEN>`.', { 'WWW-Authenticate': 'Bearer realm="metrics"' });
  }
  const { contentType, body } = await metrics.scrape();
  response.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/**
 * The `/metrics` route for the app's own port (Express middleware, mounted before the sites: the root segment
 * `metrics` is reserved, reserved-path-segments.ts). Not part of the OpenAPI document: it is an operator's endpoint
 * in Prometheus text format, documented in docs/metrics.md.
 */
export function metricsRoute(metrics: MetricsRegistry, token: string | undefined): RequestHandler {
  return (request, response, next) => {
    if (request.path !== '/metrics') return next();
    answerScrape(metrics, token, request, response).catch(next);
  };
}

/**
 * A server of its own for `/metrics` (METRICS_PORT ≠ PORT): it answers nothing else (404 problem+json).
 * @returns the listening server (close it at shutdown)
 */
export async function startMetricsServer(metrics: MetricsRegistry, token: string | undefined, port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if ((request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'Content-Type': PROBLEM_CONTENT_TYPE });
      response.end(JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'This port serves /metrics only.' }));
      return;
    }
    answerScrape(metrics, token, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500, { 'Content-Type': PROBLEM_CONTENT_TYPE });
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

/**
 * Serves `/metrics` on METRICS_PORT when it differs from PORT (issue 15 item 1): listens when the app boots, closes
 * at shutdown. Does nothing otherwise (the app's own port serves it, app.setup.ts), or without the app's config
 * (a module test that uses the registry alone).
 */
@Injectable()
export class MetricsPortServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(
    private readonly metrics: MetricsRegistry,
    @Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig,
  ) {}

  /** @throws the listen error (port taken: the start fails, naming it) */
  async onApplicationBootstrap(): Promise<void> {
    const settings = this.config?.metrics;
    if (!this.config || settings?.port === undefined || settings.port === this.config.port) return;
    this.server = await startMetricsServer(this.metrics, settings.token, settings.port, this.config.host);
    new Logger('Metrics').log(`/metrics served on port ${settings.port}`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
  }
}
