import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A user the test identity provider knows: its login name and the claims its userinfo endpoint gives. */
export interface TestIdpUser {
  login: string;
  claims: Record<string, unknown>;
}

/** How the provider's token endpoint behaves (set by the test between exchanges). */
export type TokenEndpointMode = 'normal' | 'fail-500' | 'hang';

/** A running identity provider on 127.0.0.1. */
export interface TestIdentityProvider {
  /** http://127.0.0.1:<port> (also the issuer). */
  issuer: string;
  /** Token endpoint behaviour: `fail-500` answers 500, `hang` never answers (until close). */
  tokenEndpoint: TokenEndpointMode;
  /** Registers the one client (once the app's callback URL is known) and starts serving OIDC. */
  register(client: { clientId: string; clientSecret: string; redirectUri: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * A real OpenID Connect provider for single sign-on tests (issue 13 note: `oauth2-mock-server` has no login page):
 * a second oidc-provider 8 instance with its development interaction pages (a login form taking any password, then
 * a consent form), authorization code with PKCE, and a userinfo endpoint serving `users`' claims. The HTTP server
 * listens first (the issuer URL goes into the app's configuration); the provider itself is built by `register`.
 */
export async function startTestIdentityProvider(users: TestIdpUser[]): Promise<TestIdentityProvider> {
  let handler: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const hanging = new Set<ServerResponse>();
  const idp: Partial<TestIdentityProvider> & { tokenEndpoint: TokenEndpointMode } = { tokenEndpoint: 'normal' };
  const server: Server = createServer((request, response) => {
    if (request.method === 'POST' && request.url?.startsWith('/token')) {
      if (idp.tokenEndpoint === 'fail-500') {
        response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal Server Error</h1>');
        return;
      }
      if (idp.tokenEndpoint === 'hang') {
        hanging.add(response);
        return;
      }
    }
    if (!handler) {
      response.writeHead(503).end();
      return;
    }
    handler(request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  idp.issuer = issuer;
  idp.register = async ({ clientId, clientSecret, redirectUri }) => {
    const { default: Provider } = await import('oidc-provider');
    const provider = new Provider(issuer, {
      clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: [redirectUri], token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code'], response_types: ['code'] }],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username', 'name', 'groups'] },
      cookies: { keys: ['test-idp-cookie-key-0123456789'] },
      features: { devInteractions: { enabled: true } },
      pkce: { required: () => true },
      findAccount: (_context: unknown, id: string) => {
        const user = users.find((candidate) => candidate.login === id);
        return { accountId: id, claims: () => ({ sub: id, ...(user?.claims ?? {}) }) };
      },
    });
    handler = provider.callback();
  };
  idp.close = async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return idp as TestIdentityProvider;
}

/** A cookie jar for one browser, per origin (the test's HTTP client keeps the provider's and the app's cookies). */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  /** Stores the `Set-Cookie` headers of a response from `url` (an empty value or Max-Age=0 removes the cookie). */
  take(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const jar = this.cookies.get(origin) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair.trim().split('=');
      const removed = value.join('') === '' || attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (removed) jar.delete(name);
      else jar.set(name, value.join('='));
    }
    this.cookies.set(origin, jar);
  }

  /** The `Cookie` header for `url`. */
  header(url: string): string {
    return [...(this.cookies.get(new URL(url).origin) ?? new Map()).entries()].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** One cookie's value for `url`'s origin. */
  get(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).origin)?.get(name);
  }
}

/** One request of the test's browser: no automatic redirects, cookies from and into `jar`. */
export async function browse(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const cookie = jar.header(url);
  const response = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
  jar.take(url, response);
  return response;
}

/**
 * Follows redirects from `start` as the test's browser, filling the test provider's login form as `login` (any
 * password) and its consent form, until a URL that `arrived` accepts; at most `maxSteps` hops.
 * @returns that URL (not requested)
 * @throws Error when it was not reached within `maxSteps`; a failed expectation on an unexpected page
 */
export async function signInThroughProvider(jar: CookieJar, start: string, login: string, arrived: (url: string) => boolean, maxSteps = 12): Promise<string> {
  let url = start;
  for (let step = 0; step < maxSteps; step++) {
    if (arrived(url)) return url;
    const response = await browse(jar, url);
    if ([302, 303].includes(response.status)) {
      url = new URL(response.headers.get('location')!, url).toString();
      await response.arrayBuffer();
      continue;
    }
    expect(response.status).toBe(200);
    const page = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    const prompt = /name="prompt" value="([^"]+)"/.exec(page)?.[1];
    expect(action).toBeDefined();
    const form = new URLSearchParams(prompt === 'login' ? { prompt, login, password: 'any-password' } : { prompt: prompt ?? 'consent' });
    const submitted = await browse(jar, new URL(action!, url).toString(), { method: 'POST', body: form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect([302, 303]).toContain(submitted.status);
    url = new URL(submitted.headers.get('location')!, url).toString();
  }
  if (arrived(url)) return url;
  throw new Error(`The browser did not arrive within ${maxSteps} steps from ${start} (last: ${url}).`);
}
