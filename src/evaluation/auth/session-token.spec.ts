import { signSessionToken, verifySessionToken } from './session-token';

describe('session tokens', () => {
  const secret = 'a-session-secret-of-at-least-32-characters';

  it('verifies its own tokens until they expire', () => {
    const { token, expiresAt } = signSessionToken('admin', secret, 60_000, 1_000_000);
    expect(expiresAt.getTime()).toBe(1_060_000);
    expect(verifySessionToken(token, secret, 1_059_999)).toMatchObject({ sub: 'admin', exp: 1_060_000 });
    expect(verifySessionToken(token, secret, 1_060_000)).toBeUndefined();
  });

  it('refuses tampered, foreign and malformed tokens', () => {
    const { token } = signSessionToken('admin', secret, 60_000);
    const [payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'admin', iat: 0, exp: Date.now() + 1e9 })).toString('base64url');
    expect(verifySessionToken(`${forged}.${signature}`, secret)).toBeUndefined();
    // One character of the signature changed, away from its end: the last character's low bits are ignored by base64
    // decoding, so a random replacement there can decode to the same signature (about 1 run in 1,000 failed).
    const flipped = signature[5] === 'A' ? 'B' : 'A';
    expect(verifySessionToken(`${payload}.${signature.slice(0, 5)}${flipped}${signature.slice(6)}`, secret)).toBeUndefined();
    expect(verifySessionToken(token, 'another-secret-of-at-least-32-characters')).toBeUndefined();
    expect(verifySessionToken('garbage', secret)).toBeUndefined();
    expect(verifySessionToken(`${token}.extra`, secret)).toBeUndefined();
  });
});
