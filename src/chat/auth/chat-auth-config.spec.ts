import { loadConfig } from '../../app.config';
import { ConfigurationError } from '../../config/app-config';

describe('chat OAuth2 configuration (CHAT_OAUTH_*, validated at start-up)', () => {
  it('defaults to the built-in server with the chat audience, tenant claim and asymmetric algorithms', () => {
    expect(loadConfig({ PORT: '4000' }).chatAuth).toEqual({
      publicUrl: 'http://localhost:4000',
      issuer: undefined,
      audience: 'atrium-chat',
      jwksUrl: undefined,
      tokenUrl: undefined,
      tenantClaim: 'tenant',
      algorithms: ['RS256', 'ES256', 'PS256', 'EdDSA'],
      clockToleranceS: 30,
      tokenTtlS: 3600,
      httpTimeoutMs: 5000,
      tokenCacheMaxEntries: 1000,
      tenantCacheTtlMs: 5000,
      trustedProxies: [],
    });
  });

  it('takes trusted proxies as IP addresses, CIDR ranges or loopback, and names any other entry', () => {
    expect(loadConfig({ CHAT_OAUTH_TRUSTED_PROXIES: '10.0.0.0/8, ::1,loopback' }).chatAuth.trustedProxies).toEqual(['10.0.0.0/8', '::1', 'loopback']);
    expect(() => loadConfig({ CHAT_OAUTH_TRUSTED_PROXIES: '10.0.0.0/8,proxy.internal' })).toThrow('CHAT_OAUTH_TRUSTED_PROXIES: not an IP address, CIDR range or "loopback": proxy.internal');
  });

  it('takes MCP browser origins as scheme://host[:port] only', () => {
    expect(loadConfig({ CHAT_MCP_ALLOWED_ORIGINS: 'https://app.example,http://localhost:6274' }).chatMcp.allowedOrigins).toEqual(['https://app.example', 'http://localhost:6274']);
    expect(() => loadConfig({ CHAT_MCP_ALLOWED_ORIGINS: 'https://app.example/path' })).toThrow(/CHAT_MCP_ALLOWED_ORIGINS: each of CHAT_MCP_ALLOWED_ORIGINS must be an origin/);
  });

  it('reads an external issuer set-up', () => {
    const config = loadConfig({
      CHAT_PUBLIC_URL: 'https://chat.example.com/',
      CHAT_OAUTH_ISSUER: 'https://id.example.com/realms/acme',
      CHAT_OAUTH_AUDIENCE: 'https://chat.example.com/api',
      CHAT_OAUTH_ALGORITHMS: 'RS256, PS256,RS256',
      CHAT_OAUTH_TENANT_CLAIM: 'https://atrium.example/tenants',
      CHAT_OAUTH_CLOCK_TOLERANCE_S: '0',
    }).chatAuth;
    expect(config).toMatchObject({ publicUrl: 'https://chat.example.com', algorithms: ['RS256', 'PS256'], tenantClaim: 'https://atrium.example/tenants', clockToleranceS: 0 });
  });

  it('never accepts none or HS* algorithms, and needs ES256 while the built-in server signs', () => {
    expect(() => loadConfig({ CHAT_OAUTH_ALGORITHMS: 'RS256,HS256' })).toThrow(/CHAT_OAUTH_ALGORITHMS: each of CHAT_OAUTH_ALGORITHMS must be one of RS256/);
    expect(() => loadConfig({ CHAT_OAUTH_ISSUER: 'https://id.example.com', CHAT_OAUTH_ALGORITHMS: 'none' })).toThrow(ConfigurationError);
    expect(() => loadConfig({ CHAT_OAUTH_ALGORITHMS: 'RS256' })).toThrow('CHAT_OAUTH_ALGORITHMS: must include ES256, which the built-in authorization server signs with');
    expect(() => loadConfig({ CHAT_OAUTH_ALGORITHMS: ',' })).toThrow('CHAT_OAUTH_ALGORITHMS: name at least one algorithm');
  });

  it('refuses JWKS or token URLs without an external issuer, and out-of-range durations', () => {
    expect(() => loadConfig({ CHAT_OAUTH_JWKS_URL: 'https://id.example.com/jwks' })).toThrow('CHAT_OAUTH_JWKS_URL, CHAT_OAUTH_TOKEN_URL: only apply with an external issuer');
    expect(() => loadConfig({ CHAT_OAUTH_TOKEN_TTL_S: '10' })).toThrow(/CHAT_OAUTH_TOKEN_TTL_S/);
    expect(() => loadConfig({ CHAT_OAUTH_CLOCK_TOLERANCE_S: '3600' })).toThrow(/CHAT_OAUTH_CLOCK_TOLERANCE_S/);
    expect(() => loadConfig({ CHAT_OAUTH_ISSUER: 'not a url' })).toThrow(/CHAT_OAUTH_ISSUER/);
  });
});
