import { setTimeout as delay } from 'node:timers/promises';
import { cancelledError, ChannelError, type ChannelReply, type ChannelRequest, type TargetChannel } from './channel';

/** How sendWithRetry paces its attempts. */
export interface RetryOptions {
  /** Total sends including the first; at least 1. */
  attempts: number;
  /** Backoff before the first retry, in ms; doubles per retry. */
  baseDelayMs: number;
  /** Upper bound of any wait, in ms, including a server's Retry-After. */
  maxDelayMs: number;
  /** Waits `ms` ms; injectable for tests. Default: a timer that the request's signal cancels. */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The wait before retry number `retry` (1 = the first retry), in ms (issue: "retries with backoff honour Retry-After").
 * - With a server-given `retryAfterMs`: exactly that, capped at `maxDelayMs`.
 * - Otherwise exponential backoff with equal jitter: with `ceiling = min(maxDelayMs, baseDelayMs * 2^(retry-1))`, a
 *   value in [ceiling/2, ceiling], so retries of many cases spread out but never come back immediately.
 * Pure given `random` (a function returning [0, 1)).
 */
export function computeRetryDelayMs(
  retry: number,
  error: Pick<ChannelError, 'retryAfterMs'>,
  options: Pick<RetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number = Math.random,
): number {
  if (error.retryAfterMs !== undefined) return Math.min(error.retryAfterMs, options.maxDelayMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Sends through `channel`, retrying retryable ChannelErrors (network errors, timeouts, 408, 429, 5xx) up to
 * `options.attempts` sends in all, waiting computeRetryDelayMs between them (evaluation-platform.md, What the service
 * does: executing cases against a target; issue: "a target that errors or times out
 * marks that case errored, never the whole run failed; retries with backoff honour Retry-After").
 * Non-retryable errors (other 4xx, unusable replies, cancellation) and errors that are not ChannelErrors are thrown at
 * once; an aborted `request.signal` stops retrying.
 * @throws the last ChannelError when every attempt failed; RangeError when `attempts` < 1
 */
export async function sendWithRetry(channel: TargetChannel, request: ChannelRequest, options: RetryOptions): Promise<ChannelReply> {
  if (!(options.attempts >= 1)) throw new RangeError('attempts must be at least 1');
  const sleep = options.sleep ?? ((ms: number) => abortableSleep(ms, request.signal));
  for (let attempt = 1; ; attempt++) {
    try {
      return await channel.send(request);
    } catch (error) {
      if (!(error instanceof ChannelError) || !error.retryable || attempt >= options.attempts || request.signal?.aborted) throw error;
      await sleep(computeRetryDelayMs(attempt, error, options));
    }
  }
}

async function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch {
    throw cancelledError();
  }
}
