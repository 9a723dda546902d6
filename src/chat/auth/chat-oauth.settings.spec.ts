import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../../config/app-config';
import { discoveryUrls, resolveChatOAuthSettings } from './chat-oauth.settings';

const base: AppConfig['chatAuth'] = {
  publicUrl: 'http://localhost:3000',
  audience: 'atrium-chat',
  tenantClaim: 'tenant',
  algorithms: ['ES256', 'RS256'],
  clockToleranceS: 30,
  tokenTtlS: 3600,
  httpTimeoutMs: 2000,
  tokenCacheMaxEntries: 0,
  tenantCacheTtlMs: 0,
  trustedProxies: [],
};

describe('chat OAuth2 settings (issue 5: built-in issuer by default, external issuer by discovery)', () => {
  let server: Server;
  let origin: string;
  /** path → [status, body] */
  const routes = new Map<string, [number, unknown]>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const [status, body] = routes.get(request.url ?? '') ?? [404, { error: 'not found' }];
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => routes.clear());

  it('without CHAT_OAUTH_ISSUER uses the built-in server under /oauth of the public URL', async () => {
    await expect(resolveChatOAuthSettings(base)).resolves.toMatchObject({
      mode: 'built-in',
      issuer: 'http://localhost:3000/oauth',
      tokenUrl: '/oauth/token',
      resourceIndicator: 'http://localhost:3000/api',
      audience: 'atrium-chat',
    });
  });

  it('lists OpenID Connect discovery first, then RFC 8414 with the issuer path after the well-known segment', () => {
    expect(discoveryUrls('https://id.example/realms/acme/')).toEqual([
      'https://id.example/realms/acme/.well-known/openid-configuration',
      'https://id.example/.well-known/oauth-authorization-server/realms/acme',
    ]);
  });

  it('reads the JWKS and token URLs from discovery, falling back to RFC 8414 metadata', async () => {
    const issuer = `${origin}/tenant-issuer`;
    routes.set('/.well-known/oauth-authorization-server/tenant-issuer', [200, { issuer, jwks_uri: `${origin}/keys`, token_endpoint: `${origin}/token` }]);
    await expect(resolveChatOAuthSettings({ ...base, issuer })).resolves.toMatchObject({ mode: 'external', issuer, jwksUrl: `${origin}/keys`, tokenUrl: `${origin}/token` });
  });

  it('skips discovery when both URLs are configured', async () => {
    const issuer = 'https://unreachable.invalid';
    await expect(resolveChatOAuthSettings({ ...base, issuer, jwksUrl: 'https://unreachable.invalid/jwks', tokenUrl: 'https://unreachable.invalid/token' })).resolves.toMatchObject({
      mode: 'external',
      jwksUrl: 'https://unreachable.invalid/jwks',
    });
  });

  it('refuses a discovery document naming another issuer, and explains an unreachable one', async () => {
    routes.set('/.well-known/openid-configuration', [200, { issuer: `${origin}/`, jwks_uri: 'x', token_endpoint: 'y' }]);
    await expect(resolveChatOAuthSettings({ ...base, issuer: origin })).rejects.toThrow(`CHAT_OAUTH_ISSUER is "${origin}" but ${origin}/.well-known/openid-configuration names the issuer "${origin}/"`);
    routes.clear();
    await expect(resolveChatOAuthSettings({ ...base, issuer: `${origin}/nothing` })).rejects.toThrow(
      /Could not read the discovery document of CHAT_OAUTH_ISSUER \(.*HTTP 404.*\)\. Make the issuer reachable, or set CHAT_OAUTH_JWKS_URL and CHAT_OAUTH_TOKEN_URL/,
    );
  });
});
