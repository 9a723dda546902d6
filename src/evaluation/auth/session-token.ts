import { createHmac, timingSafeEqual } from 'node:crypto';

/** What a session token asserts. Times are ms since the epoch. */
export interface SessionClaims {
  sub: string;
  iat: number;
  exp: number;
}

/**
 * Signs a session token `<base64url(JSON claims)>.<base64url(HMAC-SHA256)>` (evaluation-platform.md, Authentication:
 * "the session token is an HMAC-signed token").
 * @param ttlMs lifetime in ms
 */
export function signSessionToken(subject: string, secret: string, ttlMs: number, now = Date.now()): { token: string; expiresAt: Date } {
  const claims: SessionClaims = { sub: subject, iat: now, exp: now + ttlMs };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', secret).update(payload).digest('base64url');
  return { token: `${payload}.${signature}`, expiresAt: new Date(claims.exp) };
}

/**
 * Verifies a session token's signature (constant time) and expiry.
 * @returns the claims, or undefined when the token is malformed, tampered with or expired
 */
export function verifySessionToken(token: string, secret: string, now = Date.now()): SessionClaims | undefined {
  const [payload, signature, extra] = token.split('.');
  if (!payload || !signature || extra !== undefined) return undefined;
  const expected = createHmac('sha256', secret).update(payload).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as SessionClaims;
    if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || claims.exp <= now) return undefined;
    return claims;
  } catch {
    return undefined;
  }
}
