/**
 * Pure rule of the message delivery job (issue 6, "Messages": status `pending` → `sent` | `failed`): what to do
 * after the platform refused or could not be reached.
 */

/** Attempts of one delivery in total (the first one and the job's retries). */
export const DELIVERY_MAX_ATTEMPTS = 3;

/**
 * Decides after a failed attempt: `retry` (throw, so the job runs again later) only for retryable failures
 * (platform busy, rate limit, 5xx, network, timeout) while attempts remain; `fail` (mark the message failed with
 * the reason) otherwise.
 * @param failure.retryable whether the same call may succeed later (ChatPlatformError.retryable; false for others)
 * @param attempt the attempt that just failed, 1-based
 * @param maxAttempts total attempts allowed
 */
export function deliveryOutcome(failure: { retryable: boolean }, attempt: number, maxAttempts = DELIVERY_MAX_ATTEMPTS): 'retry' | 'fail' {
  return failure.retryable && attempt < maxAttempts ? 'retry' : 'fail';
}
