import { DigitalStaffSandboxError, type DigitalStaffSandboxErrorCode } from '../../../common/ports/digital-staff-target';
import { ChannelError, type ChannelRequest } from './channel';
import { createDigitalStaffChannel, digitalStaffChannelError, type SandboxExchange, validateDigitalStaffChannelConfig } from './digital-staff-channel';
import { sendWithRetry } from './retry';

const STAFF_ID = '0b6c2a49-2f7e-4f5e-9d4c-1a2b3c4d5e6f';
const config = { tenantId: 'acme', digitalStaffId: STAFF_ID };
const request: ChannelRequest = { message: 'Do you open on Sunday?', history: [{ role: 'user', content: 'ignored' }], sessionId: 'run-1:case-a:0' };

type ExchangeInput = Parameters<SandboxExchange['exchange']>[0];

/** A sandbox stand-in that records its inputs and answers with `answer` (unit test of the channel's own rules). */
function fakeSandbox(answer: (input: ExchangeInput) => Promise<Awaited<ReturnType<SandboxExchange['exchange']>>>): SandboxExchange & { calls: ExchangeInput[] } {
  const calls: ExchangeInput[] = [];
  return {
    calls,
    exchange: (input) => {
      calls.push(input);
      return answer(input);
    },
  };
}

async function failure(promise: Promise<unknown>): Promise<ChannelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ChannelError) return error;
    throw error;
  }
  throw new Error('expected a ChannelError');
}

describe('digitalStaffChannelError', () => {
  it.each<[DigitalStaffSandboxErrorCode, boolean]>([
    ['timeout', true],
    ['failed', true],
    ['intervened', false],
    ['skipped', false],
    ['tenant_not_found', false],
    ['digital_staff_not_found', false],
    ['digital_staff_disabled', false],
    ['no_staff_user', false],
    ['contact_conflict', false],
  ])('maps %s to retryable=%s', (code, retryable) => {
    const error = digitalStaffChannelError(new DigitalStaffSandboxError(code, `reason of ${code}`), 5_000);
    expect(error).toBeInstanceOf(ChannelError);
    expect(error.retryable).toBe(retryable);
    if (code === 'timeout') expect(error.message).toBe('no reply within 5000 ms');
    else expect(error.message).toContain(`reason of ${code}`);
  });

  it('names the code of a refusal that is not retried', () => {
    expect(digitalStaffChannelError(new DigitalStaffSandboxError('intervened', 'the digital staff did not reply: intervened (keyword "refund")'), 1).message).toBe(
      'digital staff target (intervened): the digital staff did not reply: intervened (keyword "refund")',
    );
  });

  it('maps a cancelled exchange to the non-retryable cancellation', () => {
    expect(digitalStaffChannelError(new DigitalStaffSandboxError('cancelled', 'x'), 1)).toMatchObject({ message: 'the request was cancelled', retryable: false });
  });

  it('keeps a ChannelError as it is', () => {
    const original = new ChannelError('no reply within 10 ms', { retryable: true });
    expect(digitalStaffChannelError(original, 10)).toBe(original);
  });

  it('does not retry an unexpected error and keeps only a short single-line excerpt', () => {
    const error = digitalStaffChannelError(new Error(`boom\n${'x'.repeat(1000)}`), 10);
    expect(error.retryable).toBe(false);
    expect(error.message.startsWith('digital staff exchange failed: boom x')).toBe(true);
    expect(error.message.length).toBeLessThan(400);
    expect(digitalStaffChannelError('odd', 10).message).toBe('digital staff exchange failed: odd');
  });
});

describe('digital_staff channel', () => {
  it('sends the message with the session id as the sandbox key, ignores the history, returns the reply', async () => {
    const sandbox = fakeSandbox(async () => ({ reply: 'Yes, 10:00–18:00.', outcome: { status: 'replied', messageId: 'm-1', text: 'Yes, 10:00–18:00.' }, latencyMs: 42.4 }));
    const reply = await createDigitalStaffChannel({ ...config, timeoutMs: 7_000 }, sandbox, 120_000).send(request);
    expect(reply).toEqual({ output: 'Yes, 10:00–18:00.', latencyMs: 42, raw: { outcome: { status: 'replied', messageId: 'm-1', text: 'Yes, 10:00–18:00.' } } });
    expect(sandbox.calls).toEqual([{ tenantId: 'acme', digitalStaffId: STAFF_ID, sessionKey: 'run-1:case-a:0', message: 'Do you open on Sunday?', timeoutMs: 7_000, signal: expect.any(AbortSignal) }]);
  });

  it('uses the default timeout when the config gives none', async () => {
    const sandbox = fakeSandbox(async () => ({ reply: 'ok', outcome: { status: 'replied', messageId: 'm', text: 'ok' }, latencyMs: 1 }));
    await createDigitalStaffChannel(config, sandbox, 90_000).send(request);
    expect(sandbox.calls[0].timeoutMs).toBe(90_000);
  });

  it('retries a failed reply job, not an intervention', async () => {
    let calls = 0;
    const flaky = fakeSandbox(async () => {
      calls++;
      if (calls === 1) throw new DigitalStaffSandboxError('failed', 'the digital staff did not reply: failed (model unavailable)');
      return { reply: 'second time lucky', outcome: { status: 'replied', messageId: 'm', text: 'second time lucky' }, latencyMs: 3 };
    });
    const options = { attempts: 3, baseDelayMs: 1, maxDelayMs: 1 };
    expect((await sendWithRetry(createDigitalStaffChannel(config, flaky, 1_000), request, options)).output).toBe('second time lucky');
    expect(flaky.calls).toHaveLength(2);

    const intervened = fakeSandbox(async () => {
      throw new DigitalStaffSandboxError('intervened', 'the digital staff did not reply: intervened (rule "human please")');
    });
    const error = await failure(sendWithRetry(createDigitalStaffChannel(config, intervened, 1_000), request, options));
    expect(error).toMatchObject({ retryable: false });
    expect(intervened.calls).toHaveLength(1);
  });

  it('times out an exchange that never ends, as a retryable error, and aborts its signal', async () => {
    const seen: AbortSignal[] = [];
    const hanging = fakeSandbox((input) => {
      seen.push(input.signal!);
      return new Promise((_resolve, reject) => input.signal!.addEventListener('abort', () => reject(new DigitalStaffSandboxError('cancelled', 'aborted'))));
    });
    const error = await failure(createDigitalStaffChannel({ ...config, timeoutMs: 50 }, hanging, 1_000).send(request));
    expect(error).toMatchObject({ message: 'no reply within 50 ms', retryable: true });
    expect(seen[0].aborted).toBe(true);
  });

  it('stops when the caller cancels', async () => {
    const controller = new AbortController();
    const hanging = fakeSandbox((input) => new Promise((_resolve, reject) => input.signal!.addEventListener('abort', () => reject(new Error('aborted')))));
    setTimeout(() => controller.abort(), 20);
    const error = await failure(createDigitalStaffChannel(config, hanging, 5_000).send({ ...request, signal: controller.signal }));
    expect(error).toMatchObject({ message: 'the request was cancelled', retryable: false });
  });
});

describe('validateDigitalStaffChannelConfig', () => {
  it('accepts a usable config', () => {
    expect(validateDigitalStaffChannelConfig(config)).toEqual([]);
    expect(validateDigitalStaffChannelConfig({ ...config, timeoutMs: 600_000 })).toEqual([]);
  });

  it('lists every problem', () => {
    expect(validateDigitalStaffChannelConfig(null)).toEqual(['digital_staff channel config must be an object']);
    expect(validateDigitalStaffChannelConfig({ tenantId: '', digitalStaffId: 'staff-1', timeoutMs: 600_001 })).toEqual([
      'tenantId must be a chat tenant slug',
      'digitalStaffId must be a UUID',
      'timeoutMs must be an integer between 1 and 600000',
    ]);
  });

  it('makes createDigitalStaffChannel throw on an invalid config', () => {
    expect(() => createDigitalStaffChannel({ tenantId: 'acme', digitalStaffId: 'nope' }, fakeSandbox(async () => ({ reply: '', outcome: { status: 'out_of_hours', messageId: null, text: null }, latencyMs: 0 })), 1)).toThrow(
      'invalid digital_staff channel config: digitalStaffId must be a UUID',
    );
  });
});
