import { HttpStatus } from '@nestjs/common';
import { calculateJwkThumbprint, createLocalJWKSet, createRemoteJWKSet, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTVerifyGetKey } from 'jose';
import { createServer } from 'node:net';
import { audienceAccepted, ChatTokenPolicy, ChatTokenRejected, verifyChatAccessToken } from './chat-token-verifier';

const ISSUER = 'https://issuer.example/oauth';
const AUDIENCE = 'atrium-chat';
const policy: ChatTokenPolicy = { issuer: ISSUER, audience: AUDIENCE, algorithms: ['ES256', 'RS256'], clockToleranceS: 30, tenantClaim: 'tenant' };

describe('verifyChatAccessToken (issue 5: issuer, audience, explicit algorithms, expiry, clock tolerance)', () => {
  let privateKey: CryptoKey;
  let kid: string;
  let keys: ReturnType<typeof createLocalJWKSet>;

  const now = () => Math.floor(Date.now() / 1000);
  const sign = (claims: Record<string, unknown> = {}, options: { key?: CryptoKey | Uint8Array; alg?: string; kid?: string; exp?: number | null; iss?: string; aud?: string } = {}) => {
    const jwt = new SignJWT({ scope: 'chat:read chat:write', tenant: 'acme', client_id: 'atc_1', ...claims })
      .setProtectedHeader({ alg: options.alg ?? 'ES256', kid: options.kid ?? kid, typ: 'at+jwt' })
      .setIssuer(options.iss ?? ISSUER)
      .setAudience(options.aud ?? AUDIENCE)
      .setSubject('atc_1')
      .setIssuedAt();
    if (options.exp !== null) jwt.setExpirationTime(options.exp ?? now() + 600);
    return jwt.sign(options.key ?? privateKey);
  };
  const rejectionOf = async (token: string, keySet: JWTVerifyGetKey = keys, policyUsed = policy) => {
    const error = await verifyChatAccessToken(token, keySet, policyUsed).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ChatTokenRejected);
    return error as ChatTokenRejected;
  };

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256', { extractable: true });
    privateKey = pair.privateKey;
    const publicJwk: JWK = await exportJWK(pair.publicKey);
    kid = await calculateJwkThumbprint(publicJwk);
    keys = createLocalJWKSet({ keys: [{ ...publicJwk, kid, alg: 'ES256', use: 'sig' }] });
  });

  it('accepts a good token and reads subject, client, scopes, tenants and expiry', async () => {
    const exp = now() + 600;
    const verified = await verifyChatAccessToken(await sign({ tenant: ['acme', 'globex'] }, { exp }), keys, policy);
    expect(verified).toEqual({ subject: 'atc_1', clientId: 'atc_1', scopes: ['chat:read', 'chat:write'], tenants: ['acme', 'globex'], audiences: [AUDIENCE], expiresAt: new Date(exp * 1000) });
  });

  it('tolerates clock skew within the configured tolerance, not beyond', async () => {
    await expect(verifyChatAccessToken(await sign({}, { exp: now() - 10 }), keys, policy)).resolves.toMatchObject({ subject: 'atc_1' });
    const error = await rejectionOf(await sign({}, { exp: now() - 10 }), keys, { ...policy, clockToleranceS: 0 });
    expect(error.message).toBe('The access token has expired; get a new one.');
  });

  it('refuses expired, foreign-audience, foreign-issuer and expiry-less tokens with 401 and the reason', async () => {
    const expired = await rejectionOf(await sign({}, { exp: now() - 120 }));
    expect([expired.status, expired.message]).toEqual([HttpStatus.UNAUTHORIZED, 'The access token has expired; get a new one.']);
    expect((await rejectionOf(await sign({}, { aud: 'another-api' }))).message).toBe('The access token is not meant for this API: its audience must include "atrium-chat".');
    expect((await rejectionOf(await sign({}, { iss: 'https://evil.example' }))).message).toBe(`The access token was not issued by the trusted issuer (${ISSUER}).`);
    expect((await rejectionOf(await sign({}, { exp: null }))).message).toMatch(/no expiry/);
  });

  it('accepts a route\'s extra audience (a tenant\'s MCP resource) only where the route names it (issue 22 item 5)', async () => {
    const mcp = 'https://chat.example/api/acme/mcp';
    const mcpToken = await sign({}, { aud: mcp });
    const verified = await verifyChatAccessToken(mcpToken, keys, { ...policy, extraAudiences: [mcp] });
    expect(verified.audiences).toEqual([mcp]);
    expect((await rejectionOf(mcpToken)).message).toBe('The access token is not meant for this API: its audience must include "atrium-chat".');
    expect((await rejectionOf(mcpToken, keys, { ...policy, extraAudiences: ['https://chat.example/api/globex/mcp'] })).message).toBe(
      'The access token is not meant for this API: its audience must include "atrium-chat" or "https://chat.example/api/globex/mcp".',
    );
    // A remembered MCP-resource token is not accepted where only the general audience is.
    expect(audienceAccepted(verified, [AUDIENCE])).toBe(false);
    expect(audienceAccepted(verified, [AUDIENCE, mcp])).toBe(true);
    expect(audienceAccepted({ audiences: [AUDIENCE, 'other'] }, [AUDIENCE])).toBe(true);
  });

  it('refuses alg "none" and HS256 tokens whatever their claims', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'atc_1', tenant: 'acme', scope: 'chat:write', exp: now() + 600 };
    const unsecured = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
    expect((await rejectionOf(unsecured)).message).toBe('The access token is signed with an algorithm this API does not accept (accepted: ES256, RS256).');
    const hs256 = await sign({}, { alg: 'HS256', key: new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!') });
    const error = await rejectionOf(hs256);
    expect([error.status, error.message]).toEqual([HttpStatus.UNAUTHORIZED, 'The access token is signed with an algorithm this API does not accept (accepted: ES256, RS256).']);
  });

  it('refuses tokens signed by a key the issuer does not publish, tampered tokens and garbage', async () => {
    const other = await generateKeyPair('ES256');
    expect((await rejectionOf(await sign({}, { key: other.privateKey }))).message).toBe('The access token\'s signature is not valid.');
    expect((await rejectionOf(await sign({}, { key: other.privateKey, kid: 'unknown-kid' }))).message).toBe('The access token is not signed with a key the issuer publishes.');
    const [header, , signature] = (await sign()).split('.');
    const forged = Buffer.from(JSON.stringify({ iss: ISSUER, aud: AUDIENCE, sub: 'x', tenant: 'globex', exp: now() + 600 })).toString('base64url');
    expect((await rejectionOf(`${header}.${forged}.${signature}`)).message).toBe('The access token\'s signature is not valid.');
    expect((await rejectionOf('not-a-jwt')).message).toBe('The access token is not a valid signed JWT.');
  });

  it('answers 503 when the issuer\'s JWKS cannot be fetched', async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const unreachable = createRemoteJWKSet(new URL(`http://127.0.0.1:${port}/jwks`), { timeoutDuration: 1000 });
    const error = await rejectionOf(await sign(), unreachable);
    expect([error.status, error.message]).toEqual([HttpStatus.SERVICE_UNAVAILABLE, 'The token issuer\'s signing keys cannot be fetched right now; try again shortly.']);
  });
});
