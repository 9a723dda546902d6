import { deliveryOutcome } from './message-delivery.rules';

describe('deliveryOutcome', () => {
  it('retries retryable failures while attempts remain', () => {
    expect(deliveryOutcome({ retryable: true }, 1, 3)).toBe('retry');
    expect(deliveryOutcome({ retryable: true }, 2, 3)).toBe('retry');
  });

  it('fails on the last attempt and on failures that are not retryable', () => {
    expect(deliveryOutcome({ retryable: true }, 3, 3)).toBe('fail');
    expect(deliveryOutcome({ retryable: false }, 1, 3)).toBe('fail');
  });
});
