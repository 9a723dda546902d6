import { randomHexId, randomSecret, secretsEqual, sha256Hex } from './secrets';

describe('secrets', () => {
  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
  it('compares secrets of any length without throwing', () => {
    expect(secretsEqual('key-1', 'key-1')).toBe(true);
    expect(secretsEqual('key-1', 'key-2')).toBe(false);
    expect(secretsEqual('', 'a-much-longer-secret')).toBe(false);
  });
  it('makes random values of the requested size', () => {
    expect(randomSecret(32)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(randomHexId(8)).toMatch(/^[0-9a-f]{8}$/);
    expect(randomSecret()).not.toBe(randomSecret());
  });
});
