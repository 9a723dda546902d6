import { getDataSourceToken } from '@nestjs/typeorm';
import { createHash, randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { DataSource } from 'typeorm';
import { OAuthClientsService } from '../../src/chat/auth/oauth-clients.service';
import { TenantsService } from '../../src/chat/tenants/tenants.service';
import { freePort } from '../support/free-port';
import { startLoadBalancer } from '../support/load-balancer';
import { browse, CookieJar, signInThroughProvider, startTestIdentityProvider, TestIdentityProvider } from '../support/peers/oidc-test-provider';
import { startTestApp, TestApp } from '../support/test-app';

const SSO_CLIENT_ID = 'atrium-operators';
const SSO_CLIENT_SECRET = 'atrium-operators-client-secret-0123456789';
const SWAGGER_CLIENT = 'atrium-swagger-ui';
const TENANT = 'acme';

/** The provider's users: alice is allowed (EVAL_SSO_ALLOWED_EMAIL_DOMAINS), mallory is not. */
const USERS = [
  { login: 'alice', claims: { email: 'alice@example.com', email_verified: true, preferred_username: 'alice' } },
  { login: 'mallory', claims: { email: 'mallory@evil.test', email_verified: true, preferred_username: 'mallory' } },
];

/** A PKCE pair (RFC 7636, S256). */
function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** One request of a browser: no automatic redirects, cookies from and into the jar. */

/** Starts an app on a known port whose public URLs (chat issuer, SSO callback) are its 127.0.0.1 address. */
async function startOperatorApp(idp: TestIdentityProvider | undefined, extra: Record<string, string> = {}): Promise<TestApp> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  return startTestApp({
    PORT: String(port),
    CHAT_PUBLIC_URL: base,
    ...(idp
      ? {
          EVAL_SSO_ISSUER: idp.issuer,
          EVAL_SSO_CLIENT_ID: SSO_CLIENT_ID,
          EVAL_SSO_CLIENT_SECRET: SSO_CLIENT_SECRET,
          EVAL_SSO_CALLBACK_URL: `${base}/api/auth/sso/callback`,
          EVAL_SSO_ALLOWED_EMAIL_DOMAINS: 'example.com',
        }
      : {}),
    ...extra,
  });
}

/**
 * Issue 13 item 2 (Swagger UI "Authorize" on the built-in authorization server, operator login by single sign-on):
 * the browser-less authorization-code flow with PKCE through the app and a real OpenID Connect provider on 127.0.0.1
 * (oidc-provider with login pages), followed by an HTTP client with a cookie jar: /oauth/auth → the interaction →
 * the provider's login → the single sign-on callback → back to /oauth/auth/{uid} → code → token → chat GET routes.
 * Attacks next to it: wrong or missing PKCE verifier, code replay, unregistered redirect URI, a refused operator,
 * scopes beyond CHAT_OAUTH_OPERATOR_SCOPES, another browser's interaction; client credentials still work; without
 * single sign-on the code flow does not exist.
 */
describe('chat authorization-code flow for operators (issue 13 item 2)', () => {
  let idp: TestIdentityProvider;
  let testApp: TestApp;
  let db: DataSource;
  let redirectUri: string;

  beforeAll(async () => {
    idp = await startTestIdentityProvider(USERS);
    testApp = await startOperatorApp(idp, { CHAT_OAUTH_OPERATOR_SCOPES: 'chat:read platform:admin', CHAT_OAUTH_OPERATOR_TENANTS: TENANT });
    await idp.register({ clientId: SSO_CLIENT_ID, clientSecret: SSO_CLIENT_SECRET, redirectUri: testApp.config.evaluationSso.callbackUrl });
    db = testApp.app.get<DataSource>(getDataSourceToken());
    redirectUri = `${testApp.baseUrl}/docs/oauth2-redirect.html`;
    await testApp.app.get(TenantsService).create({ id: TENANT, name: 'Acme' });
  });
  afterAll(async () => {
    await testApp?.close();
    await idp?.close();
  });

  const authorizeUrl = (params: Record<string, string>) => `${testApp.baseUrl}/oauth/auth?${new URLSearchParams({ client_id: SWAGGER_CLIENT, response_type: 'code', redirect_uri: redirectUri, state: 'swagger-state', ...params })}`;

  /** Goes through the provider's login and consent pages as `login` until it redirects to the SSO callback. */
  async function throughProvider(jar: CookieJar, start: string, login: string): Promise<string> {
    const callbackUrl = testApp.config.evaluationSso.callbackUrl;
    return signInThroughProvider(jar, start, login, (url) => url.startsWith(callbackUrl));
  }

  /**
   * Runs the authorization request up to the single sign-on callback (not yet opened).
   * @returns the callback URL and the interaction URL the authorization endpoint sent the browser to
   */
  async function untilCallback(jar: CookieJar, login: string, params: Record<string, string>): Promise<{ callback: string; interaction: string }> {
    const started = await browse(jar, authorizeUrl(params));
    expect(started.status).toBe(303);
    const interaction = new URL(started.headers.get('location')!, testApp.baseUrl).toString();
    expect(new URL(interaction).pathname).toMatch(/^\/oauth\/interaction\/[A-Za-z0-9_-]+$/);
    const toProvider = await browse(jar, interaction);
    expect(toProvider.status).toBe(302);
    const providerUrl = new URL(toProvider.headers.get('location')!);
    expect(`${providerUrl.origin}${providerUrl.pathname}`).toBe(`${idp.issuer}/auth`);
    expect(providerUrl.searchParams.get('code_challenge_method')).toBe('S256');
    return { callback: await throughProvider(jar, providerUrl.toString(), login), interaction };
  }

  /** Follows the redirects at the app after the callback until Swagger UI's redirect page; returns its query. */
  async function untilRedirectPage(jar: CookieJar, from: string): Promise<URLSearchParams> {
    let url = from;
    for (let step = 0; step < 6; step++) {
      if (url.startsWith(redirectUri)) return new URL(url).searchParams;
      const response = await browse(jar, url);
      expect([302, 303]).toContain(response.status);
      url = new URL(response.headers.get('location')!, url).toString();
      await response.arrayBuffer();
    }
    throw new Error('The authorization server never redirected to Swagger UI.');
  }

  /** The whole flow as `login`: the authorization code Swagger UI's redirect page would receive. */
  async function authorize(jar: CookieJar, login: string, challenge: string, scope: string): Promise<URLSearchParams> {
    const { callback } = await untilCallback(jar, login, { scope, code_challenge: challenge, code_challenge_method: 'S256' });
    return untilRedirectPage(jar, callback);
  }

  /** The token request Swagger UI makes (public client: no secret, the PKCE verifier instead). */
  const exchange = (code: string, verifier: string | undefined, overrides: Record<string, string> = {}) =>
    fetch(`${testApp.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: testApp.baseUrl },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: SWAGGER_CLIENT, ...(verifier ? { code_verifier: verifier } : {}), ...overrides }).toString(),
    });

  const records = async (models: string[]) =>
    Number((await db.query(`SELECT count(*) AS n FROM chat_oauth_record WHERE model = ANY($1)`, [models]))[0].n);

  it('publishes the authorization-code flow (PKCE S256, public client) next to client credentials', async () => {
    const metadata = (await (await fetch(`${testApp.baseUrl}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ response_types_supported: ['code'], grant_types_supported: ['client_credentials', 'authorization_code'], code_challenge_methods_supported: ['S256'] });
    const document = (await (await fetch(`${testApp.baseUrl}/docs-json`)).json()) as { components: { securitySchemes: Record<string, { flows: Record<string, unknown> }> } };
    const oauth = Object.values(document.components.securitySchemes).find((scheme) => scheme.flows);
    expect(oauth!.flows).toEqual({
      clientCredentials: { tokenUrl: '/oauth/token', scopes: expect.any(Object) },
      authorizationCode: { authorizationUrl: '/oauth/auth', tokenUrl: '/oauth/token', scopes: expect.any(Object) },
    });
    const page = await (await fetch(`${testApp.baseUrl}/docs/swagger-ui-init.js`)).text();
    expect(page).toContain('"usePkceWithAuthorizationCodeGrant": true');
    expect(page).toContain(`"clientId": "${SWAGGER_CLIENT}"`);
  });

  it('signs an operator in through single sign-on and issues a code whose token (PKCE) calls chat GET routes with 200', async () => {
    const jar = new CookieJar();
    const { verifier, challenge } = pkcePair();
    const query = await authorize(jar, 'alice', challenge, 'chat:read platform:admin');
    expect(query.get('state')).toBe('swagger-state');
    const code = query.get('code')!;
    expect(code).toBeTruthy();
    // Codes are kept as their SHA-256 only.
    expect(Number((await db.query(`SELECT count(*) AS n FROM chat_oauth_record WHERE model = 'AuthorizationCode' AND id_hash = $1`, [createHash('sha256').update(code).digest('hex')]))[0].n)).toBe(1);
    expect(Number((await db.query(`SELECT count(*) AS n FROM chat_oauth_record WHERE payload::text LIKE $1`, [`%${code}%`]))[0].n)).toBe(0);

    const response = await exchange(code, verifier);
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(testApp.baseUrl);
    const token = (await response.json()) as { access_token: string; scope: string; token_type: string; id_token?: string; refresh_token?: string };
    expect(token.token_type).toBe('Bearer');
    expect(token.id_token).toBeUndefined();
    expect(token.refresh_token).toBeUndefined();
    const claims = decodeJwt(token.access_token);
    expect(claims).toMatchObject({ sub: 'user:alice@example.com', client_id: SWAGGER_CLIENT, aud: 'atrium-chat', iss: `${testApp.baseUrl}/oauth`, tenant: TENANT });
    expect(String(claims.scope).split(' ').sort()).toEqual(['chat:read', 'platform:admin']);

    const platform = await fetch(`${testApp.baseUrl}/api/platform/tenants/${TENANT}`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(platform.status).toBe(200);
    // The tenant claim (CHAT_OAUTH_OPERATOR_TENANTS) opens acme's routes (past the auth check: 404 for a corp it lacks)
    // and no other tenant's (403).
    const corp = '00000000-0000-4000-8000-000000000000';
    const tenantRoute = await fetch(`${testApp.baseUrl}/api/${TENANT}/console/workChat/corps/${corp}`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(tenantRoute.status).toBe(404);
    const otherTenant = await fetch(`${testApp.baseUrl}/api/globex/console/workChat/corps/${corp}`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(otherTenant.status).toBe(403);
    // chat:write is not an operator scope here: writes are refused.
    const write = await fetch(`${testApp.baseUrl}/api/${TENANT}/console/workChat/corps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ corpName: 'Nope', workChatCorpId: 'wwnope' }),
    });
    expect(write.status).toBe(403);

    // Within the sign-in (CHAT_OAUTH_OPERATOR_SESSION_TTL_S), "Authorize" again needs no new single sign-on.
    const again = pkcePair();
    const direct = await browse(jar, authorizeUrl({ scope: 'chat:read', code_challenge: again.challenge, code_challenge_method: 'S256' }));
    expect(direct.status).toBe(303);
    const location = new URL(direct.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect((await exchange(location.searchParams.get('code')!, again.verifier)).status).toBe(200);
  });

  it('refuses a wrong or missing PKCE verifier with invalid_grant', async () => {
    const jar = new CookieJar();
    const first = pkcePair();
    const wrongCode = (await authorize(jar, 'alice', first.challenge, 'chat:read')).get('code')!;
    const wrong = await exchange(wrongCode, pkcePair().verifier);
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as { error: string }).error).toBe('invalid_grant');

    const second = pkcePair();
    const missingCode = (await authorize(new CookieJar(), 'alice', second.challenge, 'chat:read')).get('code')!;
    const missing = await exchange(missingCode, undefined);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses a replayed code with invalid_grant', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await authorize(new CookieJar(), 'alice', challenge, 'chat:read')).get('code')!;
    expect((await exchange(code, verifier)).status).toBe(200);
    const replay = await exchange(code, verifier);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('refuses an authorization request without PKCE, or with a redirect URI that is not registered (never redirecting there)', async () => {
    const withoutPkce = await fetch(authorizeUrl({ scope: 'chat:read' }), { redirect: 'manual' });
    expect(withoutPkce.status).toBe(303);
    const back = new URL(withoutPkce.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(redirectUri);
    expect(back.searchParams.get('error')).toBe('invalid_request');

    const plain = await fetch(authorizeUrl({ scope: 'chat:read', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }), { redirect: 'manual' });
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    for (const elsewhere of ['https://evil.test/docs/oauth2-redirect.html', `${testApp.baseUrl}/docs/oauth2-redirect.html/../../api`]) {
      const response = await fetch(authorizeUrl({ scope: 'chat:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256', redirect_uri: elsewhere }), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(((await response.json()) as { error: string }).error).toBe('invalid_redirect_uri');
    }
  });

  it('answers a refused operator with 403 problem+json and grants nothing', async () => {
    const before = await records(['Session', 'Grant', 'AuthorizationCode']);
    const jar = new CookieJar();
    const { callback } = await untilCallback(jar, 'mallory', { scope: 'chat:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' });
    const refused = await browse(jar, callback);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(refused.headers.get('location')).toBeNull();
    expect(((await refused.json()) as { detail: string }).detail).toMatch(/may not sign in/);
    expect(await records(['Session', 'Grant', 'AuthorizationCode'])).toBe(before);
  });

  it('grants no scope beyond CHAT_OAUTH_OPERATOR_SCOPES, and refuses a request for none of them', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await authorize(new CookieJar(), 'alice', challenge, 'chat:read chat:write')).get('code')!;
    const token = (await (await exchange(code, verifier)).json()) as { access_token: string; scope: string };
    expect(token.scope).toBe('chat:read');
    expect(decodeJwt(token.access_token).scope).toBe('chat:read');

    const jar = new CookieJar();
    const refused = await untilRedirectPage(jar, (await untilCallback(jar, 'alice', { scope: 'chat:write', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' })).callback);
    expect(refused.get('error')).toBe('invalid_scope');
    expect(refused.get('code')).toBeNull();
  });

  it('answers an interaction opened in another browser with 400 problem+json, starting no sign-in', async () => {
    const jar = new CookieJar();
    const started = await browse(jar, authorizeUrl({ scope: 'chat:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }));
    const interaction = new URL(started.headers.get('location')!, testApp.baseUrl).toString();
    const elsewhere = await fetch(interaction, { redirect: 'manual' });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(elsewhere.headers.get('location')).toBeNull();
  });

  it('keeps client credentials for machines', async () => {
    const client = await testApp.app.get(OAuthClientsService).create({ platformAdmin: true });
    const response = await fetch(`${testApp.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}` },
      body: 'grant_type=client_credentials',
    });
    expect(response.status).toBe(200);
    const token = (await response.json()) as { access_token: string };
    expect((await fetch(`${testApp.baseUrl}/api/platform/tenants/${TENANT}`, { headers: { authorization: `Bearer ${token.access_token}` } })).status).toBe(200);
    // A machine client cannot use the code flow.
    const code = await fetch(authorizeUrl({ client_id: client.clientId, scope: 'chat:read', code_challenge: pkcePair().challenge, code_challenge_method: 'S256' }), { redirect: 'manual' });
    expect(code.status).toBe(400);
  });
});

describe('chat authorization-code flow: authorization requests per address (AUTH_SIGN_IN_START_*)', () => {
  it('answers 429 problem+json with Retry-After past the limit, storing no interaction for a refused request', async () => {
    const idp = await startTestIdentityProvider(USERS);
    const testApp = await startOperatorApp(idp, { AUTH_SIGN_IN_START_MAX: '2' });
    try {
      const db = testApp.app.get<DataSource>(getDataSourceToken());
      const interactions = async () => Number((await db.query(`SELECT count(*) AS n FROM chat_oauth_record WHERE model = 'Interaction'`))[0].n);
      const authorize = () => {
        const { challenge } = pkcePair();
        const query = new URLSearchParams({ client_id: SWAGGER_CLIENT, response_type: 'code', redirect_uri: `${testApp.baseUrl}/docs/oauth2-redirect.html`, scope: 'chat:read', code_challenge: challenge, code_challenge_method: 'S256' });
        return fetch(`${testApp.baseUrl}/oauth/auth?${query}`, { redirect: 'manual' });
      };
      for (let start = 0; start < 2; start++) expect((await authorize()).status).toBe(303);
      expect(await interactions()).toBe(2);
      const refused = await authorize();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/Too many sign-ins started from your address/);
      expect(await interactions()).toBe(2);
    } finally {
      await testApp.close();
      await idp.close();
    }
  });
});

describe('chat authorization-code flow without single sign-on', () => {
  it('does not exist: the authorization endpoint refuses the Swagger UI client, the metadata and the document name no code flow', async () => {
    const testApp = await startOperatorApp(undefined);
    try {
      const { challenge } = pkcePair();
      const response = await fetch(
        `${testApp.baseUrl}/oauth/auth?${new URLSearchParams({ client_id: SWAGGER_CLIENT, response_type: 'code', redirect_uri: `${testApp.baseUrl}/docs/oauth2-redirect.html`, scope: 'chat:read', code_challenge: challenge, code_challenge_method: 'S256' })}`,
        { redirect: 'manual' },
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(((await response.json()) as { error: string }).error).toBe('invalid_client');
      const metadata = (await (await fetch(`${testApp.baseUrl}/.well-known/oauth-authorization-server/oauth`)).json()) as Record<string, unknown>;
      expect(metadata.response_types_supported).toEqual([]);
      expect(metadata.grant_types_supported).toEqual(['client_credentials']);
      const document = (await (await fetch(`${testApp.baseUrl}/docs-json`)).json()) as { components: { securitySchemes: Record<string, { flows?: Record<string, unknown> }> } };
      const oauth = Object.values(document.components.securitySchemes).find((scheme) => scheme.flows);
      expect(Object.keys(oauth!.flows!)).toEqual(['clientCredentials']);
      expect(await (await fetch(`${testApp.baseUrl}/docs/swagger-ui-init.js`)).text()).not.toContain('usePkceWithAuthorizationCodeGrant');
    } finally {
      await testApp.close();
    }
  });
});

describe('chat authorization-code flow across instances (issue 20: any instance continues what another began)', () => {
  it('runs the whole flow through a round-robin balancer in front of two instances on one database', async () => {
    const idp = await startTestIdentityProvider(USERS);
    const balancer = await startLoadBalancer([]);
    const env = {
      CHAT_PUBLIC_URL: balancer.url,
      EVAL_SSO_ISSUER: idp.issuer,
      EVAL_SSO_CLIENT_ID: SSO_CLIENT_ID,
      EVAL_SSO_CLIENT_SECRET: SSO_CLIENT_SECRET,
      EVAL_SSO_CALLBACK_URL: `${balancer.url}/api/auth/sso/callback`,
      EVAL_SSO_ALLOWED_EMAIL_DOMAINS: 'example.com',
    };
    const first = await startTestApp(env);
    const second = await startTestApp(env, { database: first.database });
    try {
      await idp.register({ clientId: SSO_CLIENT_ID, clientSecret: SSO_CLIENT_SECRET, redirectUri: env.EVAL_SSO_CALLBACK_URL });
      balancer.setUpstreams([first.baseUrl, second.baseUrl]);
      const redirectUri = `${balancer.url}/docs/oauth2-redirect.html`;
      const { verifier, challenge } = pkcePair();
      const jar = new CookieJar();
      let url = `${balancer.url}/oauth/auth?${new URLSearchParams({ client_id: SWAGGER_CLIENT, response_type: 'code', redirect_uri: redirectUri, scope: 'platform:admin', code_challenge: challenge, code_challenge_method: 'S256' })}`;
      // Every hop at the balancer lands on the next instance: the interaction, the SSO state, the session and the code
      // are found by whichever instance gets the request.
      url = await signInThroughProvider(jar, url, 'alice', (at) => at.startsWith(redirectUri), 20);
      const code = new URL(url).searchParams.get('code');
      expect(code).toBeTruthy();
      const exchanged = await fetch(`${balancer.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: redirectUri, client_id: SWAGGER_CLIENT, code_verifier: verifier }).toString(),
      });
      expect(exchanged.status).toBe(200);
      const token = ((await exchanged.json()) as { access_token: string }).access_token;
      for (const instance of [first, second]) {
        expect((await fetch(`${instance.baseUrl}/api/platform/tenants/none`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
      }
      expect(balancer.counts.get(first.baseUrl)).toBeGreaterThan(1);
      expect(balancer.counts.get(second.baseUrl)).toBeGreaterThan(1);
    } finally {
      await second.close();
      await first.close();
      await balancer.close();
      await idp.close();
    }
  });
});
