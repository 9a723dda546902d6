import { HttpException, HttpStatus } from '@nestjs/common';

/** RFC 9457 problem details, the body of every error response (DESIGN.md, Request pipeline). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail?: string;
  instance?: string;
  /** One entry per invalid field, for validation errors (400). */
  errors?: { field: string; messages: string[] }[];
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

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
 * Converts anything thrown into a problem body. Unknown errors become an opaque 500 (no message, no stack), so
 * nothing internal leaks; the caller logs the original.
 * @param error what was thrown
 * @param instance the request path
 */
export function toProblem(error: unknown, instance: string): ProblemDetails {
  if (!(error instanceof HttpException)) {
    return { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'An unexpected error occurred.', instance };
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
  if (error instanceof ProblemException) Object.assign(problem, error.extensions);
  return problem;
}
