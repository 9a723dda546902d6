import { HttpStatus } from '@nestjs/common';

/** How a database failure answers: status, a detail safe to show, and the field it concerns when known. */
export interface DatabaseProblem {
  status: HttpStatus;
  detail: string;
  field?: string;
  /** Seconds a client should wait before retrying (503 only). */
  retryAfterSeconds?: number;
}

/** SQLSTATEs that mean the client sent a value the schema refuses (DESIGN.md, Request pipeline). */
const CLIENT_VALUE_STATES: Record<string, string> = {
  '23502': 'a required value is missing',
  '23503': 'it refers to something that does not exist',
  '23514': 'a value breaks a rule of the stored data',
  '22001': 'a value is too long',
  '22003': 'a number is out of range',
  '22007': 'a date or time is malformed',
  '22008': 'a date or time is out of range',
  '22P02': 'a value has the wrong format',
  '22P05': 'a text holds a character the database cannot store',
  '22021': 'a text holds a byte sequence that is not valid UTF-8',
  '2201B': 'a regular expression is invalid',
  '54001': 'a value is too complex to store',
};

/** Node socket errors that mean the database can't be reached right now. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Messages of pg / pg-pool / TypeORM when the connection is gone or none can be had in time, including the client-side
 * `query_timeout` ("Query read timeout") that fires when the server is frozen (issue 20 item 1).
 */
const UNAVAILABLE_MESSAGE =
  /connection terminated|timeout exceeded when trying to connect|connection (?:is )?(?:closed|ended)|cannot use a pool after calling end|client has encountered a connection error|driver not connected|Connection terminated unexpectedly|query read timeout|client was closed and is not queryable|connection timeout|the database system is (?:shutting down|starting up|in recovery mode)/i;

/**
 * Classifies an error thrown by PostgreSQL, pg or TypeORM by SQLSTATE (issue 22, item 1):
 * `23505` → 409; `23502`, `23503`, `23514`, `22xxx` value errors → 400 naming the column when PostgreSQL gives it;
 * connection failures, admin shutdown (`57P01`–`57P03`), `08xxx`, too many connections (`53300`), statement timeouts and
 * lock timeouts (`57014`, `55P03`), serialization failures (`40001`, `40P01`) → 503 with a retry hint.
 * @param error anything thrown
 * @returns the problem to answer, or undefined when `error` is not a database failure (or is a server-side bug → 500)
 */
export function classifyDatabaseError(error: unknown): DatabaseProblem | undefined {
  if (!error || typeof error !== 'object') return undefined;
  // Node's happy-eyeballs connect rejects with an AggregateError of one error per address tried.
  const parts = (error as { errors?: unknown }).errors;
  if (Array.isArray(parts) && parts.length > 0 && !(error as { code?: unknown }).code) return classifyDatabaseError(parts[0]);
  const driver = ((error as { driverError?: unknown }).driverError ?? error) as { code?: unknown; column?: unknown; constraint?: unknown; message?: unknown };
  const code = typeof driver.code === 'string' ? driver.code : undefined;
  const field = typeof driver.column === 'string' ? driver.column : undefined;
  if (code === '23505') {
    return { status: HttpStatus.CONFLICT, detail: 'This conflicts with something that already exists (a value must be unique).', field };
  }
  if (code && CLIENT_VALUE_STATES[code]) {
    return { status: HttpStatus.BAD_REQUEST, detail: `The request was refused: ${CLIENT_VALUE_STATES[code]}${field ? ` (${field})` : ''}.`, field };
  }
  const unavailable =
    (code !== undefined && (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300', '57014', '55P03', '40001', '40P01'].includes(code))) ||
    (code !== undefined && UNREACHABLE_CODES.has(code)) ||
    (typeof driver.message === 'string' && UNAVAILABLE_MESSAGE.test(driver.message));
  if (unavailable) {
    return { status: HttpStatus.SERVICE_UNAVAILABLE, detail: 'The database is unavailable or busy; try again shortly.', retryAfterSeconds: 5 };
  }
  return undefined;
}
