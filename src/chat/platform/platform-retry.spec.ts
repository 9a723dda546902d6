import { backoffDelayMs, classifyFetchError, isRetryableAttempt } from './platform-retry';

describe('backoffDelayMs', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles the ceiling per retry and stays within [ceiling/2, ceiling]', () => {
    expect(backoffDelayMs(1, options, () => 0)).toBe(50);
    expect(backoffDelayMs(1, options, () => 0.999999)).toBe(100);
    expect(backoffDelayMs(2, options, () => 0)).toBe(100);
    expect(backoffDelayMs(3, options, () => 0.5)).toBe(300);
  });

  it('never exceeds the maximum', () => {
    expect(backoffDelayMs(20, options, () => 0.999999)).toBe(1_000);
    expect(backoffDelayMs(20, options, () => 0)).toBe(500);
  });

  it('treats a retry number below 1 as the first retry and a zero base as no wait', () => {
    expect(backoffDelayMs(0, options, () => 0)).toBe(50);
    expect(backoffDelayMs(3, { baseDelayMs: 0, maxDelayMs: 1_000 }, () => 0.7)).toBe(0);
  });
});

describe('isRetryableAttempt', () => {
  it('retries what proves the platform did not act, for every operation', () => {
    for (const idempotent of [true, false]) {
      expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 500 }, idempotent)).toBe(true);
      expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 503 }, idempotent)).toBe(true);
      expect(isRetryableAttempt({ kind: 'errcode', errcode: -1 }, idempotent)).toBe(true);
      expect(isRetryableAttempt({ kind: 'network', beforeSending: true }, idempotent)).toBe(true);
    }
  });

  it('retries an outcome that is unknown only for idempotent operations', () => {
    expect(isRetryableAttempt({ kind: 'timeout' }, true)).toBe(true);
    expect(isRetryableAttempt({ kind: 'timeout' }, false)).toBe(false);
    expect(isRetryableAttempt({ kind: 'network', beforeSending: false }, true)).toBe(true);
    expect(isRetryableAttempt({ kind: 'network', beforeSending: false }, false)).toBe(false);
    expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 504 }, true)).toBe(true);
    expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 504 }, false)).toBe(false);
  });

  it('never retries refusals and unreadable replies', () => {
    expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 404 }, true)).toBe(false);
    expect(isRetryableAttempt({ kind: 'http_status', httpStatus: 429 }, true)).toBe(false);
    expect(isRetryableAttempt({ kind: 'errcode', errcode: 40001 }, true)).toBe(false);
    expect(isRetryableAttempt({ kind: 'errcode', errcode: 45009 }, true)).toBe(false);
    expect(isRetryableAttempt({ kind: 'errcode', errcode: 0 }, true)).toBe(false);
    expect(isRetryableAttempt({ kind: 'invalid_response' }, true)).toBe(false);
  });
});

describe('classifyFetchError', () => {
  it('recognises our timeout signal', () => {
    expect(classifyFetchError(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))).toEqual({ kind: 'timeout', beforeSending: false, reason: 'timed out' });
  });

  it('tells a connection that never opened from one lost after sending', () => {
    const refused = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
    expect(classifyFetchError(refused)).toEqual({ kind: 'network', beforeSending: true, reason: 'ECONNREFUSED' });
    const reset = Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    expect(classifyFetchError(reset)).toEqual({ kind: 'network', beforeSending: false, reason: 'UND_ERR_SOCKET' });
    expect(classifyFetchError(new TypeError('fetch failed'))).toEqual({ kind: 'network', beforeSending: false, reason: 'connection failed' });
  });
});
