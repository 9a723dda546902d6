import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { MulterError } from 'multer';
import { PROBLEM_CONTENT_TYPE, PROBLEM_HEADERS, ProblemDetails, ProblemWithHeaders, toProblem } from './problem-details';

const MULTER_STATUS: Record<string, number> = {
  LIMIT_FILE_SIZE: 413,
  LIMIT_FIELD_VALUE: 413,
  LIMIT_PART_COUNT: 413,
  LIMIT_FILE_COUNT: 400,
  LIMIT_FIELD_KEY: 400,
  LIMIT_FIELD_COUNT: 400,
  LIMIT_UNEXPECTED_FILE: 400,
};

/**
 * Maps errors the frameworks throw outside Nest's HttpException family to problems: multer limits (413/400),
 * body-parser errors (malformed JSON 400, body too large 413).
 * @returns a problem, or undefined when the error is not one of those
 */
export function frameworkErrorToProblem(error: unknown, instance: string): ProblemDetails | undefined {
  if (error instanceof MulterError) {
    const status = MULTER_STATUS[error.code] ?? 400;
    return toProblem(new HttpException(error.message, status), instance);
  }
  const status = (error as { status?: unknown; type?: unknown })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500 && typeof (error as { type?: unknown }).type === 'string') {
    return toProblem(new HttpException((error as Error).message, status), instance);
  }
  return undefined;
}

/**
 * The one global exception filter: every error leaves as `application/problem+json` (RFC 9457) with no stack
 * trace. 5xx errors are logged with their stack; 4xx are not (they are the caller's).
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(error: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    writeProblem(http.getResponse<Response>(), problemFor(http.getRequest<Request>(), error, this.logger));
  }
}

/**
 * The problem that `error` becomes for `request`; 5xx errors are logged with their stack (the body never has it).
 */
export function problemFor(request: Request, error: unknown, logger: Logger): ProblemDetails {
  const instance = request.originalUrl?.split('?')[0] ?? request.url;
  const problem = frameworkErrorToProblem(error, instance) ?? toProblem(error, instance);
  // The request's X-Request-Id (app.setup.ts), so a caller's report finds its log lines (issue 15 item 2).
  const requestId = (request as Request & { id?: unknown }).id;
  if (typeof requestId === 'string') problem.requestId = requestId;
  if (problem.status >= 500 && problem.status !== 503) {
    const id = typeof problem.errorId === 'string' ? ` (errorId ${problem.errorId})` : '';
    logger.error(`${request.method} ${instance} failed${id}`, (error as Error)?.stack ?? String(error));
  } else if (problem.status === 503) {
    logger.warn(`${request.method} ${instance} answered 503: ${(error as Error)?.message ?? String(error)}`);
  }
  return problem;
}

/**
 * Sends `problem` as `application/problem+json`. When a response already started (a streamed body), the connection
 * is destroyed instead: ending it would make a truncated body look complete (issue 23 item 3).
 */
export function writeProblem(response: Response, problem: ProblemWithHeaders): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  for (const [name, value] of Object.entries(problem[PROBLEM_HEADERS] ?? {})) response.setHeader(name, value);
  response.status(problem.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problem));
}
