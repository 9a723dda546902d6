import { requestIdFor } from './request-id';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestIdFor (request-id.ts)', () => {
  it('keeps a sane id the caller sent', () => {
    expect(requestIdFor('abc-123')).toBe('abc-123');
    expect(requestIdFor('0f8fad5b-d9cb-469f-a165-70867728950e')).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(requestIdFor(['trace.1:2_3', 'other'])).toBe('trace.1:2_3');
  });

  it('makes a new UUID when none was sent', () => {
    expect(requestIdFor(undefined)).toMatch(UUID);
    expect(requestIdFor([])).toMatch(UUID);
    expect(requestIdFor(undefined)).not.toBe(requestIdFor(undefined));
  });

  it('refuses ids that could forge log lines or flood them (the attack)', () => {
    for (const hostile of ['', 'a b', 'x\nlevel=fatal', 'x\r\nSet-Cookie: y', '<script>', 'a'.repeat(129), 'ü', '{"json":1}']) {
      expect(requestIdFor(hostile)).toMatch(UUID);
    }
    expect(requestIdFor('a'.repeat(128))).toBe('a'.repeat(128));
  });
});
