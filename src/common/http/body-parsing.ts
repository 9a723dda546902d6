import { BadRequestException, PayloadTooLargeException, SetMetadata, UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import getRawBody from 'raw-body';
import { isJsonBodyRequest, parseContentType, parseJsonBody } from './body-json';

/*
 * JSON request bodies are read lazily, after authentication (issue 19, item 4: "on routes that need a credential,
 * unauthenticated requests are refused before their body is read"; "every route has its own JSON body limit").
 *
 * Design. Nest runs middleware → guards → interceptors → pipes. Express's JSON parser was a middleware, so it read and
 * parsed up to 16 MiB before the global AuthGuard ran. Now:
 * 1. {@link jsonBodyGate} (middleware) reads nothing. For a JSON request with a body it records the request as pending
 *    and sets `Connection: close` on the response provisionally: if anything answers before the body is read (the
 *    guard's 401/403, a 404), Node closes the socket instead of draining the unread body.
 * 2. The guards run; a refused request ends there, its body unread.
 * 3. {@link readRouteJsonBody}, the global AuthGuard's last step (after every guard), reads the body with the route's limit
 *    (`@JsonBodyLimit`, else HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES), checks the nesting depth on the text
 *    (HTTP_JSON_MAX_DEPTH), parses it into `request.body` and drops the provisional `Connection: close`. The
 *    ValidationPipe then sees the body as before.
 * A credential strategy that reads its credential from the body (the deploy registration key) calls
 * {@link readPendingJsonBody} itself, with the default limit. Non-JSON bodies (multipart uploads, platform XML
 * callbacks) are left to their own readers and limits, as before.
 */

/** Metadata key of {@link JsonBodyLimit}. */
export const JSON_BODY_LIMIT = 'atrium:json-body-limit';

/** A route's JSON body limit: bytes, or `'document'` for HTTP_JSON_BODY_LIMIT_BYTES (routes that take big documents). */
export type JsonBodyLimitValue = number | 'document';

/**
 * Sets the largest JSON body of a route (or every route of a controller): `'document'` for routes whose spec needs big
 * documents (HTTP_JSON_BODY_LIMIT_BYTES), or a byte count. Routes without it take HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES.
 * A larger body answers 413 problem+json.
 */
export const JsonBodyLimit = (limit: JsonBodyLimitValue) => SetMetadata(JSON_BODY_LIMIT, limit);

/** The limits of JSON bodies (AppConfig: jsonBodyLimitBytes and httpBodies). */
export interface JsonBodyLimits {
  /** Limit of routes without `@JsonBodyLimit`, bytes. */
  defaultBytes: number;
  /** Limit of `@JsonBodyLimit('document')` routes, bytes. */
  documentBytes: number;
  /** Deepest nesting of arrays and objects. */
  maxDepth: number;
}

/** Requests whose JSON body is announced but not read yet, with the limits to read it with. */
const pending = new WeakMap<Request, { limits: JsonBodyLimits; read?: Promise<void> }>();

/**
 * The pre-routing middleware of JSON bodies (step 1 above). Its function is named `jsonParser` on purpose: Nest mounts
 * Express's own JSON parser at start-up only when no middleware of that name is mounted (ExpressAdapter
 * `registerParserMiddleware`), so this gate is the only JSON reader whatever options the app was created with.
 */
export function jsonBodyGate(limits: JsonBodyLimits) {
  return function jsonParser(request: Request, response: Response, next: NextFunction): void {
    if (isJsonBodyRequest(request.headers)) {
      pending.set(request, { limits });
      response.setHeader('Connection', 'close');
    }
    next();
  };
}

/**
 * Reads, checks and parses a pending JSON body into `request.body` (step 3 above); a no-op for a request without one,
 * and done once per request (later calls wait for the same read).
 * @param limitBytes the route's limit; default: the gate's default limit
 * @throws PayloadTooLargeException (413) over the limit (by Content-Length before reading, or while reading; the
 *   connection is then closed); UnsupportedMediaTypeException (415) a charset other than UTF-8; BadRequestException
 *   (400) not JSON, not an object or array, nested deeper than HTTP_JSON_MAX_DEPTH, or the client aborted
 */
export function readPendingJsonBody(request: Request, limitBytes?: number): Promise<void> {
  const state = pending.get(request);
  if (!state) return Promise.resolve();
  state.read ??= readJson(request, limitBytes ?? state.limits.defaultBytes, state.limits.maxDepth);
  return state.read;
}

async function readJson(request: Request, limitBytes: number, maxDepth: number): Promise<void> {
  const { charset } = parseContentType(request.headers['content-type']);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new UnsupportedMediaTypeException(`Unsupported charset "${charset}": send JSON as UTF-8.`);
  }
  let text: string;
  try {
    // raw-body refuses a Content-Length over the limit before reading, and counts bytes while reading.
    text = await getRawBody(request, { limit: limitBytes, length: request.headers['content-length'] ?? null, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') {
      throw new PayloadTooLargeException(`The JSON body is larger than ${limitBytes} bytes, the limit of this route.`);
    }
    throw new BadRequestException('The request body could not be read.');
  }
  // The body has been read whole: the connection may be kept alive again.
  request.res?.removeHeader('Connection');
  const parsed = parseJsonBody(text, maxDepth);
  if ('problem' in parsed) throw new BadRequestException(parsed.problem);
  request.body = parsed.value;
  // What Express's parsers set: readers of other content types (platform callbacks) see the body as consumed.
  (request as Request & { _body?: boolean })._body = true;
}

/**
 * Step 3 above, for every route: reads a pending JSON body with the route's `@JsonBodyLimit` (`'document'`:
 * HTTP_JSON_BODY_LIMIT_BYTES; none: HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES, the gate's limits). The global AuthGuard calls
 * it as its last step (it is the one guard, so this runs after every guard, as a global interceptor did): a global
 * interceptor put every request of every route through Nest's rxjs chain, most of them with no body to read (issue 14
 * item 1: ~4 % of a hot list's app CPU).
 * @param limit the route's `@JsonBodyLimit`, if any
 * @returns undefined when the request has no pending body (nothing to wait for)
 * @throws what {@link readPendingJsonBody} throws (413, 415, 400)
 */
export function readRouteJsonBody(request: Request, limit: JsonBodyLimitValue | undefined): Promise<void> | undefined {
  const state = pending.get(request);
  if (!state) return undefined;
  const { limits } = state;
  return readPendingJsonBody(request, limit === 'document' ? Math.max(limits.documentBytes, limits.defaultBytes) : (limit ?? limits.defaultBytes));
}
