import { ChannelError, type ChannelReply, parseRetryAfter, statusError, type TargetChannel } from './channel';
import { computeRetryDelayMs, sendWithRetry } from './retry';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads delay-seconds and HTTP dates, in ms', () => {
    expect(parseRetryAfter('5', now)).toBe(5_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('1.5', now)).toBe(1_500);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unparseable values', () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-3', now)).toBeUndefined();
  });
});

describe('statusError', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [400, false],
    [401, false],
    [404, false],
    [302, false],
  ])('HTTP %i is retryable: %s', (status, retryable) => {
    expect(statusError(status, new Headers())).toMatchObject({ status, retryable });
  });

  it('prefers retry-after-ms over retry-after', () => {
    expect(statusError(429, new Headers({ 'retry-after': '2' })).retryAfterMs).toBe(2_000);
    expect(statusError(429, new Headers({ 'retry-after': '2', 'retry-after-ms': '250' })).retryAfterMs).toBe(250);
  });
});

describe('computeRetryDelayMs', () => {
  const options = { baseDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles per retry with equal jitter, capped at maxDelayMs', () => {
    expect([1, 2, 3, 4, 5].map((retry) => computeRetryDelayMs(retry, {}, options, () => 0))).toEqual([50, 100, 200, 400, 500]);
    expect([1, 2, 3, 4, 5].map((retry) => computeRetryDelayMs(retry, {}, options, () => 0.999999))).toEqual([100, 200, 400, 800, 1_000]);
    expect(computeRetryDelayMs(60, {}, options, () => 0.5)).toBe(750);
  });

  it('uses the server-given delay exactly, capped at maxDelayMs', () => {
    expect(computeRetryDelayMs(1, { retryAfterMs: 700 }, options, () => 0)).toBe(700);
    expect(computeRetryDelayMs(3, { retryAfterMs: 0 }, options, () => 0.9)).toBe(0);
    expect(computeRetryDelayMs(1, { retryAfterMs: 120_000 }, options, () => 0)).toBe(1_000);
  });
});

describe('sendWithRetry', () => {
  const request = { message: 'hi', history: [], sessionId: 's' };
  const reply: ChannelReply = { output: 'ok', latencyMs: 1 };

  /** A channel that fails with the given errors in order, then replies. */
  function scripted(errors: Error[]): TargetChannel & { calls: number } {
    const channel = {
      calls: 0,
      send: async () => {
        const error = errors[channel.calls++];
        if (error) throw error;
        return reply;
      },
    };
    return channel;
  }

  it('retries retryable errors, waiting the computed delays', async () => {
    const channel = scripted([
      new ChannelError('boom', { retryable: true, status: 503 }),
      new ChannelError('slow down', { retryable: true, status: 429, retryAfterMs: 300 }),
    ]);
    const waits: number[] = [];
    const result = await sendWithRetry(channel, request, {
      attempts: 3,
      baseDelayMs: 100,
      maxDelayMs: 1_000,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(result).toBe(reply);
    expect(channel.calls).toBe(3);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(waits[0]).toBeLessThanOrEqual(100);
    expect(waits[1]).toBe(300);
  });

  it('throws the last error once attempts are used up', async () => {
    const channel = scripted([new ChannelError('one', { retryable: true }), new ChannelError('two', { retryable: true }), new ChannelError('three', { retryable: true })]);
    await expect(sendWithRetry(channel, request, { attempts: 2, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} })).rejects.toThrow('two');
    expect(channel.calls).toBe(2);
  });

  it('fails at once on non-retryable and foreign errors', async () => {
    const options = { attempts: 5, baseDelayMs: 1, maxDelayMs: 1, sleep: async () => {} };
    const badRequest = scripted([new ChannelError('bad', { retryable: false, status: 400 })]);
    await expect(sendWithRetry(badRequest, request, options)).rejects.toMatchObject({ status: 400 });
    expect(badRequest.calls).toBe(1);
    const bug = scripted([new TypeError('bug')]);
    await expect(sendWithRetry(bug, request, options)).rejects.toThrow(TypeError);
    expect(bug.calls).toBe(1);
  });

  it('stops waiting when the request is cancelled', async () => {
    const controller = new AbortController();
    const channel = scripted([new ChannelError('down', { retryable: true })]);
    const pending = sendWithRetry(channel, { ...request, signal: controller.signal }, { attempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ message: 'the request was cancelled', retryable: false });
    expect(channel.calls).toBe(1);
  });

  it('refuses fewer than one attempt', async () => {
    await expect(sendWithRetry(scripted([]), request, { attempts: 0, baseDelayMs: 1, maxDelayMs: 1 })).rejects.toThrow(RangeError);
  });
});
