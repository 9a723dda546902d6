import { randomBytes } from 'node:crypto';
import { isSealed, keyIdOf, parseSealingKey, SecretSealer, SecretSealError, sealWith, unsealWith } from './secret-sealer';

const keyA = parseSealingKey(randomBytes(32).toString('hex'));
const keyB = parseSealingKey(randomBytes(32).toString('base64url'));

describe('secret sealer (issue 19, item 6)', () => {
  it('round-trips text, including empty and non-ASCII, with a fresh IV each time', () => {
    for (const plain of ['', 'sk-live-0123456789', 'mot de passe é 密码 🔑', 'v1:looks:sealed:but:is-not']) {
      const sealed = sealWith(keyA, plain);
      expect(isSealed(sealed)).toBe(true);
      expect(sealed.startsWith(`v1:${keyA.id}:`)).toBe(true);
      expect(sealed).not.toContain(plain || '\u0000');
      expect(unsealWith([keyA], sealed)).toBe(plain);
    }
    expect(sealWith(keyA, 'same')).not.toBe(sealWith(keyA, 'same'));
  });

  it('accepts 64 hex, base64url and padded base64 keys of 32 bytes; refuses anything else', () => {
    const raw = randomBytes(32);
    const ids = [raw.toString('hex'), raw.toString('base64url'), raw.toString('base64')].map((text) => parseSealingKey(text).id);
    expect(new Set(ids)).toEqual(new Set([keyIdOf(raw)]));
    for (const bad of ['', 'short', randomBytes(31).toString('hex'), randomBytes(33).toString('hex'), 'z'.repeat(64)]) {
      expect(() => parseSealingKey(bad)).toThrow(SecretSealError);
    }
  });

  it('opens values sealed under a previous key, seals under the current one, and names a missing key', () => {
    const old = sealWith(keyA, 'old secret');
    const rotated = new SecretSealer(keyB, [keyA]);
    expect(rotated.open(old)).toBe('old secret');
    expect(rotated.isCurrent(old)).toBe(false);
    expect(rotated.isCurrent(rotated.seal('x'))).toBe(true);
    expect(() => new SecretSealer(keyB).open(old)).toThrow(new RegExp(`key ${keyA.id}`));
  });

  it('refuses a tampered value and one moved to another key id (ATTACK)', () => {
    const sealed = sealWith(keyA, 'secret-value');
    const parts = sealed.split(':');
    const flipped = parts[4].startsWith('A') ? `B${parts[4].slice(1)}` : `A${parts[4].slice(1)}`;
    expect(() => unsealWith([keyA], [...parts.slice(0, 4), flipped].join(':'))).toThrow(SecretSealError);
    // Same key bytes under a forged id: the id is authenticated data, so the tag no longer matches.
    const forged = { id: 'AAAAAAAA', key: keyA.key };
    expect(() => unsealWith([forged], ['v1', 'AAAAAAAA', ...parts.slice(2)].join(':'))).toThrow(SecretSealError);
  });

  it('reads a value that is not sealed as it is (a row the start-up sweep has not sealed yet)', () => {
    expect(new SecretSealer(keyA).open('plain-legacy')).toBe('plain-legacy');
    expect(isSealed('v1:abc')).toBe(false);
  });
});
