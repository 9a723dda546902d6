import { grantedScopes, parseScopeList, scopeForMethod, tokenTenants } from './chat-scopes';

describe('chat scopes and claims (issue 5: chat:read for GET, chat:write otherwise; configurable tenant claim)', () => {
  it('maps HTTP methods to the scope they need', () => {
    expect(['GET', 'get', 'HEAD', 'OPTIONS'].map(scopeForMethod)).toEqual(['chat:read', 'chat:read', 'chat:read', 'chat:read']);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(scopeForMethod)).toEqual(['chat:write', 'chat:write', 'chat:write', 'chat:write']);
  });

  it('reads scopes from a space-delimited scope claim and from scp as a string or an array', () => {
    expect(grantedScopes({ scope: 'chat:read  chat:write' })).toEqual(['chat:read', 'chat:write']);
    expect(grantedScopes({ scp: ['chat:read', 42, 'platform:admin'] })).toEqual(['chat:read', 'platform:admin']);
    expect(grantedScopes({ scope: 'chat:read', scp: 'chat:write' })).toEqual(['chat:read', 'chat:write']);
    expect(grantedScopes({ scope: { read: true } })).toEqual([]);
    expect(grantedScopes({})).toEqual([]);
  });

  it('reads tenants from the configured claim as a string or an array of strings', () => {
    expect(tokenTenants({ tenant: 'acme' }, 'tenant')).toEqual(['acme']);
    expect(tokenTenants({ 'https://atrium/tenants': ['acme', 'globex', 'acme', 7, ''] }, 'https://atrium/tenants')).toEqual(['acme', 'globex']);
    expect(tokenTenants({ tenant: 'acme' }, 'org')).toEqual([]);
    expect(tokenTenants({ tenant: '' }, 'tenant')).toEqual([]);
    expect(tokenTenants({ tenant: { id: 'acme' } }, 'tenant')).toEqual([]);
  });

  it('parses an operator scope list and refuses unknown or empty ones', () => {
    expect(parseScopeList('chat:read,chat:write chat:read', ['chat:read', 'chat:write'])).toEqual(['chat:read', 'chat:write']);
    expect(() => parseScopeList('chat:read,platform:admin', ['chat:read', 'chat:write'])).toThrow('Unknown scope(s): platform:admin');
    expect(() => parseScopeList(' , ', ['chat:read'])).toThrow('Name at least one scope');
  });
});
