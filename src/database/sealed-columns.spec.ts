import { randomBytes } from 'node:crypto';
import { installSecretSealer, isSealed, parseSealingKey, SecretSealer } from '../common/crypto/secret-sealer';
import { SEALED_JSON, SEALED_TEXT } from './sealed-columns';

describe('sealed column transformers (issue 19, item 6)', () => {
  const sealer = new SecretSealer(parseSealingKey(randomBytes(32).toString('hex')));
  beforeAll(() => installSecretSealer(sealer));

  it('seals text on write and opens it on read; null and undefined pass through', () => {
    const stored = SEALED_TEXT.to('corp-secret-123');
    expect(isSealed(stored)).toBe(true);
    expect(SEALED_TEXT.from(stored)).toBe('corp-secret-123');
    expect(SEALED_TEXT.to(null)).toBeNull();
    expect(SEALED_TEXT.to(undefined)).toBeUndefined();
    expect(SEALED_TEXT.from(null)).toBeNull();
    expect(SEALED_TEXT.from('legacy-plain')).toBe('legacy-plain');
  });

  it('seals a JSON value as one sealed string and reads a not-yet-sealed object as it is', () => {
    const secrets = { headers: { Authorization: 'Bearer abc' }, api_key: 'sk-1' };
    const stored = SEALED_JSON.to(secrets);
    expect(typeof stored).toBe('string');
    expect(JSON.stringify(stored)).not.toContain('sk-1');
    expect(SEALED_JSON.from(stored)).toEqual(secrets);
    expect(SEALED_JSON.from({ api_key: 'plain' })).toEqual({ api_key: 'plain' });
    expect(SEALED_JSON.from(SEALED_JSON.to({}))).toEqual({});
  });
});
