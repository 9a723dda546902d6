import { outboundCause } from '../../common/outbound/outbound-client';
import { type ChatPlatformFailureKind, SYSTEM_BUSY_ERRCODE } from './platform-errcodes';

/**
 * When the HTTP adapter tries a platform call again, and how long it waits (issue 5: "retries with backoff on 5xx").
 * Pure rules, no I/O.
 */

/** Retry pacing of platform calls (from CHAT_PLATFORM_HTTP_* configuration). */
export interface PlatformRetryOptions {
  /** Retries after the first attempt, 0 = never retry. */
  retries: number;
  /** Wait before the first retry, in ms; doubles per retry. */
  baseDelayMs: number;
  /** Upper bound of any wait, in ms. */
  maxDelayMs: number;
}

/**
 * The wait before retry number `retry` (1 = first retry), in ms: exponential backoff with equal jitter — with
 * `ceiling = min(maxDelayMs, baseDelayMs * 2^(retry-1))`, a value in [ceiling/2, ceiling], so concurrent callers
 * spread out but never come back at once. Pure given `random` (returns [0, 1)).
 */
export function backoffDelayMs(retry: number, options: Pick<PlatformRetryOptions, 'baseDelayMs' | 'maxDelayMs'>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (Math.max(1, retry) - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A failed attempt, as far as the retry rule needs to know. */
export interface AttemptFailure {
  kind: ChatPlatformFailureKind;
  httpStatus?: number;
  errcode?: number;
  /** For `network`: the connection was never established, so the request did not reach the platform. */
  beforeSending?: boolean;
}

/**
 * Whether a failed attempt may be repeated.
 * - Anything that proves the platform did not act is retried for every operation: HTTP 5xx other than 504, errcode
 *   -1 (system busy), a connection that could not be opened.
 * - Anything where the platform may have acted (timeout, connection lost after sending, 504 from a gateway) is
 *   retried only for idempotent operations (reads, updates, deletes, tag marks), never for creates and sends, which
 *   would otherwise make a second contact way or deliver a message twice.
 * - Other errcodes, other HTTP statuses and unreadable replies are never retried here (45009 rate limits are left to
 *   the caller's job schedule).
 */
export function isRetryableAttempt(failure: AttemptFailure, idempotent: boolean): boolean {
  switch (failure.kind) {
    case 'errcode':
      return failure.errcode === SYSTEM_BUSY_ERRCODE;
    case 'http_status': {
      const status = failure.httpStatus ?? 0;
      if (status < 500) return false;
      return status !== 504 || idempotent;
    }
    case 'network':
      return failure.beforeSending === true || idempotent;
    case 'timeout':
      return idempotent;
    case 'invalid_response':
      return false;
  }
}

/** Error codes of a connection that never opened (DNS, refused, unreachable, connect timeout). */
const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Classifies what `fetch` threw: a timeout (our AbortSignal.timeout fired), or a network error, noting whether the
 * connection never opened. Reads `error.cause.code` (undici puts the socket error there).
 * @returns kind, whether the request certainly did not reach the platform, and a short reason without URLs
 */
export function classifyFetchError(error: unknown): { kind: 'timeout' | 'network' | 'invalid_response'; beforeSending: boolean; reason: string } {
  // The guarded outbound client (src/common/outbound): its deadline, a refused address, a reply over the cap.
  const outbound = outboundCause(error);
  if (outbound) {
    if (outbound.code === 'timeout') return { kind: 'timeout', beforeSending: false, reason: 'timed out' };
    if (outbound.code === 'dns_error' || outbound.code === 'blocked_address' || outbound.code === 'invalid_url') return { kind: 'network', beforeSending: true, reason: outbound.detail };
    if (outbound.code === 'response_too_large') return { kind: 'invalid_response', beforeSending: false, reason: outbound.detail };
    const code = outbound.systemCode;
    return { kind: 'network', beforeSending: code !== undefined && CONNECT_ERROR_CODES.has(code), reason: code ?? outbound.detail };
  }
  const name = (error as { name?: unknown })?.name;
  if (name === 'TimeoutError') return { kind: 'timeout', beforeSending: false, reason: 'timed out' };
  const cause = (error as { cause?: { code?: unknown; name?: unknown } })?.cause;
  if (cause?.name === 'TimeoutError') return { kind: 'timeout', beforeSending: false, reason: 'timed out' };
  const code = typeof cause?.code === 'string' ? cause.code : typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  return { kind: 'network', beforeSending: code !== undefined && CONNECT_ERROR_CODES.has(code), reason: code ?? 'connection failed' };
}
