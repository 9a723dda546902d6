import { getDataSourceToken } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';
import { browse, CookieJar, signInThroughProvider, startTestIdentityProvider, TestIdentityProvider } from '../support/peers/oidc-test-provider';

const CLIENT_ID = 'atrium-eval';
const CLIENT_SECRET = 'atrium-eval-client-secret-0123456789';
const SSO_TIMEOUT_MS = 1500;

/** The users of the test provider: allowed by domain, by list, by group; refused; unverified e-mail on an allowed domain. */
const USERS = [
  { login: 'alice', claims: { email: 'alice@example.com', email_verified: true, preferred_username: 'alice' } },
  { login: 'bob', claims: { email: 'bob@partner.test', email_verified: true, preferred_username: 'bob' } },
  { login: 'carol', claims: { email: 'carol@elsewhere.test', email_verified: true, groups: ['staff', 'atrium-operators'] } },
  { login: 'mallory', claims: { email: 'mallory@evil.test', email_verified: true, preferred_username: 'mallory', groups: ['staff'] } },
  { login: 'eve', claims: { email: 'eve@example.com', email_verified: false, preferred_username: 'eve' } },
];

/**
 * Operator single sign-on (issue 13 item 2, acceptance 2 and 4): the whole browser-less authorization code flow with
 * PKCE against a real OpenID Connect provider on 127.0.0.1 (oidc-provider with its login and consent pages), followed
 * and filled in by an HTTP client with a cookie jar: allowed and refused users, forged and replayed state, a provider
 * that fails (502) or does not answer (504), and who the session token names in the records it makes.
 */
describe('evaluation single sign-on (issue 13 item 2)', () => {
  let idp: TestIdentityProvider;
  let testApp: TestApp;
  let db: DataSource;
  let callbackUrl: string;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(USERS);
    testApp = await startTestApp({
      EVAL_SSO_ISSUER: idp.issuer,
      EVAL_SSO_CLIENT_ID: CLIENT_ID,
      EVAL_SSO_CLIENT_SECRET: CLIENT_SECRET,
      EVAL_SSO_ALLOWED_EMAIL_DOMAINS: 'example.com',
      EVAL_SSO_ALLOWED_USERS: 'bob',
      EVAL_SSO_ALLOWED_CLAIM: 'groups=atrium-operators',
      EVAL_SSO_TIMEOUT_MS: String(SSO_TIMEOUT_MS),
      EVAL_ADMIN_PASSWORD: 'admin-password-sso-0123',
      EVAL_PASSWORD_SIGN_IN: 'false',
      EVAL_API_KEYS: 'eval-sso-seed-key-0123456789abcdef',
    });
    callbackUrl = testApp.config.evaluationSso.callbackUrl;
    await idp.register({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: callbackUrl });
    db = testApp.app.get<DataSource>(getDataSourceToken());
  });
  afterAll(async () => {
    await testApp?.close();
    await idp?.close();
  });

  /** The app's URL for a callback URL the provider redirected to (the configured public callback is http://localhost:PORT). */
  const atApp = (url: string) => {
    const parsed = new URL(url);
    return `${testApp.baseUrl}${parsed.pathname}${parsed.search}`;
  };

  /**
   * Starts a sign-in at the app and goes through the provider's pages as `login` until the provider sends the browser
   * back to the callback.
   * @returns the callback URL the provider redirected to (at the app), and the login redirect for inspection
   */
  const signInAtProvider = async (jar: CookieJar, login: string): Promise<{ callback: string; authorize: URL }> => {
    const start = await browse(jar, `${testApp.baseUrl}/api/auth/sso/login`);
    expect(start.status).toBe(302);
    const authorize = new URL(start.headers.get('location')!);
    const url = await signInThroughProvider(jar, authorize.toString(), login, (at) => at.startsWith(callbackUrl));
    return { callback: atApp(url), authorize };
  };

  /** Whether the state of a callback URL is still stored (it must be consumed by any callback that used it). */
  const stateStored = async (callback: string) => {
    const state = new URL(callback).searchParams.get('state')!;
    return Number((await db.query(`SELECT count(*) AS n FROM eval_sso_state WHERE state_hash = $1`, [createHash('sha256').update(state).digest('hex')]))[0].n) > 0;
  };

  it('redirects to the provider with state and a PKCE S256 challenge, and binds the state to the browser', async () => {
    const jar = new CookieJar();
    const response = await browse(jar, `${testApp.baseUrl}/api/auth/sso/login`);
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(location.searchParams.get('response_type')).toBe('code');
    expect(location.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(location.searchParams.get('redirect_uri')).toBe(callbackUrl);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(location.searchParams.get('scope')).toBe('openid email profile');
    const state = location.searchParams.get('state');
    expect(state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(jar.get(testApp.baseUrl, 'atrium_sso_state')).toBe(state);
    expect(response.headers.getSetCookie().join()).toMatch(/HttpOnly; SameSite=Lax/);
  });

  it('signs in an allowed user through the whole code flow, and the session names the user in what they change (acceptance 4)', async () => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, 'alice');
    expect(await stateStored(callback)).toBe(true);
    const response = await browse(jar, callback);
    expect(response.status).toBe(200);
    const session = (await response.json()) as { token: string };
    expect(session).toEqual({ token: expect.any(String), expiresAt: expect.any(String), user: 'alice@example.com' });
    expect(await stateStored(callback)).toBe(false);

    // The session works on evaluation routes, and what it creates records the user.
    const created = await fetch(`${testApp.baseUrl}/api/auth/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made-by-alice', admin: false }),
    });
    expect(created.status).toBe(201);
    const key = (await created.json()) as { created_by: string };
    expect(key.created_by).toBe('user:alice@example.com');
    // And a change made with a key records the key's name.
    const byKey = await fetch(`${testApp.baseUrl}/api/auth/api-keys`, {
      method: 'POST',
      headers: { 'x-api-key': 'eval-sso-seed-key-0123456789abcdef', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'made-by-env-key' }),
    });
    expect(byKey.status).toBe(201);
    expect(((await byKey.json()) as { created_by: string }).created_by).toBe('api-key:env-1');
  });

  it.each([
    ['bob', 'by the explicit list', 'bob@partner.test'],
    ['carol', 'by a group claim', 'carol@elsewhere.test'],
  ])('signs in %s (allowed %s)', async (login, _how, user) => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, login);
    const response = await browse(jar, callback);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { user: string }).user).toBe(user);
  });

  it.each([
    ['mallory', 'matches no rule'],
    ['eve', 'has an allowed domain but an unverified e-mail'],
  ])('refuses %s (%s) with 403 problem+json, issuing nothing', async (login) => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, login);
    const response = await browse(jar, callback);
    expect(response.status).toBe(403);
    expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await response.json()) as { detail: string; token?: string };
    expect(problem.detail).toMatch(/may not sign in/);
    expect(problem.token).toBeUndefined();
    expect(await stateStored(callback)).toBe(false);
  });

  it('answers a replayed callback with 400 (the state is single use)', async () => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, 'alice');
    const bound = jar.get(testApp.baseUrl, 'atrium_sso_state');
    expect((await browse(jar, callback)).status).toBe(200);
    // Replayed by the same browser, with its cookie put back.
    const replay = await fetch(callback, { redirect: 'manual', headers: { cookie: `atrium_sso_state=${bound}` } });
    expect(replay.status).toBe(400);
    expect(replay.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await replay.json()) as { detail: string }).detail).toMatch(/unknown, already used or expired/);
  });

  it('answers a forged state with 400, and a state without this browser\'s cookie with 400 (login CSRF)', async () => {
    const forged = 'A'.repeat(43);
    const withCookie = await fetch(`${testApp.baseUrl}/api/auth/sso/callback?code=some-code&state=${forged}`, { headers: { cookie: `atrium_sso_state=${forged}` } });
    expect(withCookie.status).toBe(400);
    expect(((await withCookie.json()) as { detail: string }).detail).toMatch(/unknown, already used or expired/);

    // A real, unused callback link opened in another browser (no cookie): refused, and still usable by its owner.
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, 'alice');
    const elsewhere = await fetch(callback);
    expect(elsewhere.status).toBe(400);
    expect(((await elsewhere.json()) as { detail: string }).detail).toMatch(/does not belong to this browser/);
    // The same response relabelled as coming from another issuer (RFC 9207 mix-up): refused, state left for its owner.
    const mixedUp = new URL(callback);
    expect(mixedUp.searchParams.get('iss')).toBe(idp.issuer);
    mixedUp.searchParams.set('iss', 'https://evil.test');
    const fromElsewhere = await browse(jar, mixedUp.toString());
    expect(fromElsewhere.status).toBe(400);
    expect(((await fromElsewhere.json()) as { detail: string }).detail).toMatch(/another issuer/);
    expect((await browse(jar, callback)).status).toBe(200);
  });

  it('answers 502 problem+json when the provider fails the code exchange, storing nothing', async () => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, 'alice');
    idp.tokenEndpoint = 'fail-500';
    try {
      const response = await browse(jar, callback);
      expect(response.status).toBe(502);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      const problem = (await response.json()) as { detail: string; token?: string };
      expect(problem.detail).toMatch(/answered 500/);
      expect(problem.token).toBeUndefined();
    } finally {
      idp.tokenEndpoint = 'normal';
    }
    expect(await stateStored(callback)).toBe(false);
  });

  it('answers 504 problem+json when the provider does not answer in time (EVAL_SSO_TIMEOUT_MS), storing nothing', async () => {
    const jar = new CookieJar();
    const { callback } = await signInAtProvider(jar, 'alice');
    idp.tokenEndpoint = 'hang';
    try {
      const started = Date.now();
      const response = await browse(jar, callback);
      expect(response.status).toBe(504);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/did not answer .* in time/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(SSO_TIMEOUT_MS - 100);
    } finally {
      idp.tokenEndpoint = 'normal';
    }
    expect(await stateStored(callback)).toBe(false);
  });

  it('answers a sign-in the user denied at the provider with 403, and a callback with neither code nor error with 400', async () => {
    const denied = await fetch(`${testApp.baseUrl}/api/auth/sso/callback?error=access_denied&error_description=no`);
    expect(denied.status).toBe(403);
    const empty = await fetch(`${testApp.baseUrl}/api/auth/sso/callback`);
    expect(empty.status).toBe(400);
    const unknownParameter = await fetch(`${testApp.baseUrl}/api/auth/sso/callback?code=x&state=y&admin=true`);
    expect(unknownParameter.status).toBe(400);
  });

  it('turns the password sign-in off when EVAL_PASSWORD_SIGN_IN=false', async () => {
    const response = await fetch(`${testApp.baseUrl}/api/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ password: 'admin-password-sso-0123' }) });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { detail: string }).detail).toMatch(/EVAL_PASSWORD_SIGN_IN=false/);
  });
});

/**
 * Runs `test` against an app whose single sign-on uses a provider of its own (no users), with `env` added, then closes
 * both. The app's callback is registered at the provider.
 */
async function withOwnProvider(env: Record<string, string>, test: (testApp: TestApp) => Promise<void>): Promise<void> {
  const idp = await startTestIdentityProvider([]);
  const testApp = await startTestApp({ EVAL_SSO_ISSUER: idp.issuer, EVAL_SSO_CLIENT_ID: CLIENT_ID, EVAL_SSO_CLIENT_SECRET: CLIENT_SECRET, EVAL_SSO_ALLOWED_USERS: 'alice', ...env });
  try {
    await idp.register({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, redirectUri: testApp.config.evaluationSso.callbackUrl });
    await test(testApp);
  } finally {
    await testApp.close();
    await idp.close();
  }
}

describe('evaluation single sign-on: the provider\'s private-network switch', () => {
  it('refuses a provider on loopback when EVAL_SSO_ALLOW_PRIVATE_NETWORKS=false (502 problem+json naming the switch)', async () => {
    await withOwnProvider({ EVAL_SSO_ALLOW_PRIVATE_NETWORKS: 'false' }, async (testApp) => {
      const response = await fetch(`${testApp.baseUrl}/api/auth/sso/login`, { redirect: 'manual' });
      expect(response.status).toBe(502);
      expect(response.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(((await response.json()) as { detail: string }).detail).toMatch(/EVAL_SSO_ALLOW_PRIVATE_NETWORKS/);
      // Without single sign-on configured the routes answer 404 (see the main suite for the switch's default, true).
    });
  });
});

describe('evaluation single sign-on: starts per address (AUTH_SIGN_IN_START_*)', () => {
  it('answers 429 problem+json with Retry-After past the limit, and stores no state for a refused start', async () => {
    await withOwnProvider({ AUTH_SIGN_IN_START_MAX: '3' }, async (testApp) => {
      const db = testApp.app.get<DataSource>(getDataSourceToken());
      const stored = async () => Number((await db.query('SELECT count(*) AS n FROM eval_sso_state'))[0].n);
      for (let start = 0; start < 3; start++) {
        const started = await fetch(`${testApp.baseUrl}/api/auth/sso/login`, { redirect: 'manual' });
        expect([started.status, started.status === 302 ? '' : await started.text()]).toEqual([302, '']);
      }
      expect(await stored()).toBe(3);
      const refused = await fetch(`${testApp.baseUrl}/api/auth/sso/login`, { redirect: 'manual' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/Too many sign-ins started from your address/);
      expect(await stored()).toBe(3);
    });
  });
});
