import { authorizationServerMetadata, compileTrustedProxies, grantScopes, isTrustedProxy, mcpOriginAllowed, resolveTokenResource, TokenRequestRefused } from './token-request-rules';

const context = { publicUrl: 'https://chat.example', audience: 'atrium-chat' };
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TokenRequestRefused);
    const { error: code, message, scope } = error as TokenRequestRefused;
    return { code, message, scope };
  }
  throw new Error('expected a refusal');
};

describe('resolveTokenResource (RFC 8707 resource indicators, issue 22 item 5)', () => {
  it('the API root gets the general audience and every chat scope', () => {
    expect(resolveTokenResource('https://chat.example/api', context, 'acme')).toEqual({ audience: 'atrium-chat', scopes: ['chat:read', 'chat:write', 'platform:admin'] });
    expect(resolveTokenResource('https://chat.example/api', context, undefined).audience).toBe('atrium-chat');
  });

  it('a tenant\'s MCP endpoint, exactly as its RFC 9728 document names it, is its own audience with the MCP scopes', () => {
    expect(resolveTokenResource('https://chat.example/api/acme/mcp', context, 'acme')).toEqual({ audience: 'https://chat.example/api/acme/mcp', scopes: ['chat:read', 'chat:write'] });
  });

  it('refuses another tenant\'s MCP endpoint, a platform client\'s, and any other indicator with invalid_target', () => {
    expect(refusal(() => resolveTokenResource('https://chat.example/api/globex/mcp', context, 'acme'))).toMatchObject({ code: 'invalid_target', message: expect.stringContaining('tenant "globex"') });
    expect(refusal(() => resolveTokenResource('https://chat.example/api/acme/mcp', context, undefined))).toMatchObject({ code: 'invalid_target', message: expect.stringContaining('has no tenant') });
    for (const other of [
      'https://elsewhere.example/api',
      'https://chat.example/api/',
      'https://chat.example/api/acme/mcp/',
      'https://chat.example/api/Acme/mcp',
      'https://chat.example/api/acme/x/mcp',
      'https://chat.example/api/acme/console',
      'http://chat.example/api/acme/mcp',
      'https://chat.example.evil/api/acme/mcp',
    ]) {
      expect(refusal(() => resolveTokenResource(other, context, 'acme')).code).toBe('invalid_target');
    }
  });
});

describe('grantScopes (RFC 6749 §3.3: defaults, invalid_scope, never broaden)', () => {
  const api = { audience: 'atrium-chat', scopes: ['chat:read', 'chat:write', 'platform:admin'] };
  const mcp = { audience: 'https://chat.example/api/acme/mcp', scopes: ['chat:read', 'chat:write'] };

  it('without scope (absent or blank) grants the client\'s registered scopes that the resource carries', () => {
    expect(grantScopes(undefined, ['chat:read', 'chat:write'], api)).toEqual(['chat:read', 'chat:write']);
    expect(grantScopes('  ', ['chat:read'], mcp)).toEqual(['chat:read']);
    expect(refusal(() => grantScopes(undefined, ['platform:admin'], mcp)).code).toBe('invalid_scope');
  });

  it('grants exactly the scopes asked for, each once', () => {
    expect(grantScopes('chat:read', ['chat:read', 'chat:write'], api)).toEqual(['chat:read']);
    expect(grantScopes('chat:write chat:read chat:write', ['chat:read', 'chat:write'], mcp)).toEqual(['chat:write', 'chat:read']);
  });

  it('refuses unknown scopes, scopes the client lacks and scopes the resource cannot carry, naming the scope', () => {
    expect(refusal(() => grantScopes('chat:admin', ['chat:read', 'chat:write'], api))).toEqual({ code: 'invalid_scope', scope: 'chat:admin', message: expect.stringContaining('unknown scope "chat:admin"') });
    expect(refusal(() => grantScopes('chat:read chat:admin', ['chat:read'], api)).scope).toBe('chat:admin');
    expect(refusal(() => grantScopes('openid', ['chat:read'], api)).scope).toBe('openid');
    expect(refusal(() => grantScopes('chat:write', ['chat:read'], api))).toMatchObject({ scope: 'chat:write', message: expect.stringContaining('not allowed for this client') });
    expect(refusal(() => grantScopes('platform:admin', ['platform:admin', 'chat:read'], mcp))).toMatchObject({ scope: 'platform:admin', message: expect.stringContaining('requested resource') });
  });
});

describe('authorizationServerMetadata (RFC 8414 / OIDC discovery: only what is served)', () => {
  it('names the issuer\'s endpoints, client credentials, basic and post, the chat scopes, and no response type', () => {
    const metadata = authorizationServerMetadata('https://chat.example/oauth');
    expect(metadata).toEqual({
      issuer: 'https://chat.example/oauth',
      authorization_endpoint: 'https://chat.example/oauth/auth',
      token_endpoint: 'https://chat.example/oauth/token',
      jwks_uri: 'https://chat.example/oauth/jwks',
      scopes_supported: ['chat:read', 'chat:write', 'platform:admin'],
      response_types_supported: [],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
    expect(metadata.scopes_supported).not.toContain('openid');
  });

  it('adds the authorization-code grant with PKCE S256 and public clients only with the operator flow (issue 13)', () => {
    const metadata = authorizationServerMetadata('https://chat.example/oauth', true);
    expect(metadata).toMatchObject({
      response_types_supported: ['code'],
      grant_types_supported: ['client_credentials', 'authorization_code'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(authorizationServerMetadata('https://chat.example/oauth', false)).not.toHaveProperty('code_challenge_methods_supported');
  });
});

describe('trusted proxies (CHAT_OAUTH_TRUSTED_PROXIES)', () => {
  it('trusts nobody by default', () => {
    expect(isTrustedProxy('127.0.0.1', compileTrustedProxies([]))).toBe(false);
  });

  it('trusts listed addresses and ranges, IPv4-mapped IPv6 as IPv4, and loopback by name', () => {
    const trusted = compileTrustedProxies(['10.0.0.0/8', '192.168.1.7', 'fd00::/8']);
    expect(isTrustedProxy('10.1.2.3', trusted)).toBe(true);
    expect(isTrustedProxy('::ffff:10.1.2.3', trusted)).toBe(true);
    expect(isTrustedProxy('192.168.1.7', trusted)).toBe(true);
    expect(isTrustedProxy('192.168.1.8', trusted)).toBe(false);
    expect(isTrustedProxy('fd12::1', trusted)).toBe(true);
    expect(isTrustedProxy('127.0.0.1', trusted)).toBe(false);
    expect(isTrustedProxy(undefined, trusted)).toBe(false);
    expect(isTrustedProxy('not-an-ip', trusted)).toBe(false);
    const loopback = compileTrustedProxies(['loopback']);
    expect([isTrustedProxy('127.0.0.1', loopback), isTrustedProxy('::1', loopback), isTrustedProxy('::ffff:127.0.0.1', loopback), isTrustedProxy('10.0.0.1', loopback)]).toEqual([true, true, true, false]);
  });

  it('names entries that are neither an address nor a range', () => {
    expect(() => compileTrustedProxies(['10.0.0.0/8', 'proxy.internal', '10.0.0.0/99'])).toThrow('not an IP address, CIDR range or "loopback": proxy.internal, 10.0.0.0/99');
  });
});

describe('mcpOriginAllowed (MCP transport: Origin validated, none sent is a non-browser client)', () => {
  const allowed = ['https://app.example', 'http://localhost:6274'];
  it('serves requests without Origin and from listed origins (normalised)', () => {
    expect(mcpOriginAllowed(undefined, [])).toBe(true);
    expect(mcpOriginAllowed('https://app.example', allowed)).toBe(true);
    expect(mcpOriginAllowed('https://APP.example:443', allowed)).toBe(true);
    expect(mcpOriginAllowed('http://localhost:6274', allowed)).toBe(true);
  });
  it('refuses other origins, look-alikes, "null" and garbage', () => {
    for (const origin of ['https://evil.example', 'http://app.example', 'https://app.example.evil', 'http://localhost:6275', 'null', 'not a url', '']) {
      expect({ origin, allowed: mcpOriginAllowed(origin, allowed) }).toEqual({ origin, allowed: false });
    }
    expect(mcpOriginAllowed('https://app.example', [])).toBe(false);
  });
});
