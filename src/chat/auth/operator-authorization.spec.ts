import { loadConfig } from '../../app.config';
import { isOperatorAccount, operatorGrantScopes, operatorTenantClaim, swaggerClientMetadata } from './operator-authorization';

describe('operator authorization-code rules (issue 13 item 2)', () => {
  it('grants the asked scopes within CHAT_OAUTH_OPERATOR_SCOPES and refuses the rest, unknown ones included', () => {
    expect(operatorGrantScopes(['chat:read', 'chat:write', 'platform:admin'], ['chat:read', 'platform:admin'])).toEqual({ granted: ['chat:read', 'platform:admin'], refused: ['chat:write'] });
    expect(operatorGrantScopes(['openid', 'chat:read', 'chat:read'], ['chat:read'])).toEqual({ granted: ['chat:read'], refused: ['openid'] });
    expect(operatorGrantScopes(['chat:write'], ['chat:read'])).toEqual({ granted: [], refused: ['chat:write'] });
    expect(operatorGrantScopes([], ['chat:read'])).toEqual({ granted: [], refused: [] });
  });

  it('puts one tenant as a string, several as an array, none as no claim', () => {
    expect(operatorTenantClaim([])).toBeUndefined();
    expect(operatorTenantClaim(['acme'])).toBe('acme');
    expect(operatorTenantClaim(['acme', 'globex'])).toEqual(['acme', 'globex']);
  });

  it('knows operators only as user:<name> accounts', () => {
    expect(isOperatorAccount('user:alice@example.com')).toBe(true);
    expect(isOperatorAccount('user:')).toBe(false);
    expect(isOperatorAccount('admin')).toBe(false);
    expect(isOperatorAccount('user:a b')).toBe(false);
    expect(isOperatorAccount(undefined)).toBe(false);
  });

  it('registers Swagger UI as a public code-flow client with one redirect URI on CHAT_PUBLIC_URL', () => {
    expect(swaggerClientMetadata('https://atrium.example.com')).toMatchObject({
      client_id: 'atrium-swagger-ui',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: ['https://atrium.example.com/docs/oauth2-redirect.html'],
    });
  });

  it('reads CHAT_OAUTH_OPERATOR_* (spaces or commas) and refuses unknown scopes and bad tenant ids', () => {
    const base = { DATA_DIR: '/tmp/atrium-operator-spec', DEPLOY_REGISTRATION_KEY: 'k'.repeat(32) };
    expect(loadConfig(base).chatOperatorOAuth).toEqual({ scopes: ['chat:read', 'chat:write', 'platform:admin'], tenants: [], sessionTtlS: 3600 });
    expect(loadConfig({ ...base, CHAT_OAUTH_OPERATOR_SCOPES: 'chat:read, platform:admin', CHAT_OAUTH_OPERATOR_TENANTS: 'acme,globex', CHAT_OAUTH_OPERATOR_SESSION_TTL_S: '600' }).chatOperatorOAuth).toEqual({
      scopes: ['chat:read', 'platform:admin'],
      tenants: ['acme', 'globex'],
      sessionTtlS: 600,
    });
    expect(() => loadConfig({ ...base, CHAT_OAUTH_OPERATOR_SCOPES: 'chat:read chat:admin' })).toThrow(/CHAT_OAUTH_OPERATOR_SCOPES/);
    expect(() => loadConfig({ ...base, CHAT_OAUTH_OPERATOR_TENANTS: 'Acme!' })).toThrow(/CHAT_OAUTH_OPERATOR_TENANTS/);
    expect(() => loadConfig({ ...base, CHAT_OAUTH_OPERATOR_SESSION_TTL_S: '5' })).toThrow(/CHAT_OAUTH_OPERATOR_SESSION_TTL_S/);
  });
});
