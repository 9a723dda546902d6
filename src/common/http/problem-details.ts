import { HttpException, HttpStatus } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { classifyDatabaseError } from './database-problem';

/** RFC 9457 problem details, the body of every error response (DESIGN.md, Request pipeline). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** One entry per invalid field, for validation errors (400). */
  errors?: { field: string; messages: string[] }[];
  /** The request's X-Request-Id (issue 15 item 2), set by the problem filter. */
  requestId?: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Response headers that travel with a problem (e.g. `Retry-After`); a symbol key, so never serialised into the body. */
export const PROBLEM_HEADERS = Symbol('problem-headers');

/** A problem with the headers its response must carry. */
export type ProblemWithHeaders = ProblemDetails & { [PROBLEM_HEADERS]?: Record<string, string> };

/**
 * An HTTP error carrying problem-details extension members (e.g. the blocked-command `rule` of the gateway).
 * @param status HTTP status code
 * @param detail human-readable explanation of this occurrence
 * @param extensions extra members merged into the problem body; never put secrets here
 */
export class ProblemException extends HttpException {
  constructor(
    status: HttpStatus,
    detail: string,
    readonly extensions: Record<string, unknown> = {},
    /** Response headers, e.g. `{ 'Retry-After': '30' }` on a 429 or 503. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail, status);
  }
}

/** The standard reason phrase of a status code ("Not Found"), or "Error". */
export function reasonPhrase(status: number): string {
  const name = HttpStatus[status];
  if (!name) return 'Error';
  return name
    .toLowerCase()
    .split('_')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ')
    .replace('Payload Too Large', 'Content Too Large');
}

/**
 * Converts anything thrown into a problem body. Database failures map by SQLSTATE (`classifyDatabaseError`: 409, 400
 * naming the column, or 503 with `Retry-After`). Other unknown errors become an opaque 500 with an `errorId` (no
 * message, no stack), so nothing internal leaks; the caller logs the original with the same id.
 * @param error what was thrown
 * @param instance the request path
 */
export function toProblem(error: unknown, instance: string): ProblemWithHeaders {
  if (!(error instanceof HttpException)) {
    const database = classifyDatabaseError(error);
    if (database) {
      const problem: ProblemWithHeaders = { type: 'about:blank', title: reasonPhrase(database.status), status: database.status, detail: database.detail, instance };
      if (database.field) problem.errors = [{ field: database.field, messages: [database.detail] }];
      if (database.retryAfterSeconds) problem[PROBLEM_HEADERS] = { 'Retry-After': String(database.retryAfterSeconds) };
      return problem;
    }
    return { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance, errorId: randomUUID() };
  }
  const status = error.getStatus();
  const response = error.getResponse();
  const problem: ProblemDetails = { type: 'about:blank', title: reasonPhrase(status), status, instance };
  if (typeof response === 'string') {
    problem.detail = response;
  } else if (response && typeof response === 'object') {
    const body = response as { message?: unknown; error?: unknown; errors?: ProblemDetails['errors'] };
    if (Array.isArray(body.message)) problem.detail = body.message.join('; ');
    else if (typeof body.message === 'string') problem.detail = body.message;
    if (body.errors) problem.errors = body.errors;
  }
  if (error instanceof ProblemException) {
    Object.assign(problem, error.extensions);
    if (Object.keys(error.headers).length > 0) (problem as ProblemWithHeaders)[PROBLEM_HEADERS] = error.headers;
  }
  return problem;
}
