import { API_KEY_NAME_PATTERN, apiKeyHash, apiKeySubject, ENV_KEY_NAME_PATTERN, envKeyName, generateApiKey } from './api-key.format';

describe('named evaluation API keys: format', () => {
  it('generates distinct 256-bit keys with a recognisable prefix', () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(a).toMatch(/^atrk_[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b);
  });

  it('stores only the SHA-256 hex of a key', () => {
    expect(apiKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(apiKeyHash('abc')).not.toContain('abc');
  });

  it('names env keys env-1… and refuses odd names', () => {
    expect(envKeyName(0)).toBe('env-1');
    expect(ENV_KEY_NAME_PATTERN.test(envKeyName(11))).toBe(true);
    for (const good of ['ci', 'nightly-runner', 'a.b_c-1', 'x'.repeat(64)]) expect(API_KEY_NAME_PATTERN.test(good)).toBe(true);
    for (const bad of ['', 'CI', '-x', 'a b', 'x'.repeat(65), 'a/b', '../x']) expect(API_KEY_NAME_PATTERN.test(bad)).toBe(false);
    expect(apiKeySubject('ci')).toBe('api-key:ci');
  });
});
