import { readFileSync, statSync } from 'node:fs';
import { decodeJwt, decodeProtectedHeader, importJWK, SignJWT, type JWK } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import request from 'supertest';
import { signingKeyFile } from '../../src/chat/auth/authorization-server';
import type { TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant, startChatTestApp } from './support/chat-test-app';

/**
 * Issue 5, acceptance 2 for the chat routes built so far (corps, platform, and a tenant-from-token route): tenant A's
 * token gets 403 on tenant B's paths and 404 on B's ids through paths without a tenant; a token without chat:write
 * gets 403 on writes; expired, wrong-audience, wrong-issuer, `alg: none` and HS256 tokens get 401; platform routes
 * need platform:admin. Run against the built-in authorization server (tokens over HTTP from /oauth/token) and against
 * oauth2-mock-server as an external issuer (discovery and JWKS over HTTP).
 */

const A = 'acme';
const B = 'globex';
const corpsPath = (tenant: string) => `/api/${tenant}/console/workChat/corps`;
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Mints tokens for one issuer set-up; `claims` override the defaults of a good token. */
interface TokenMinter {
  issuer: string;
  /** The token URL the OpenAPI document must show. */
  tokenUrl: string;
  /** A good token for `tenant` (string, array, or null = no tenant claim) with `scope`. */
  token(tenant: string | string[] | null, scope: string, extra?: { claims?: Record<string, unknown>; expiresIn?: number }): Promise<string>;
  /** A token signed with the issuer's real key, claims fully under control (for the bad-token cases). */
  signed(claims: Record<string, unknown>): Promise<string>;
}

/** The checks every issuer set-up must pass. */
function describeTenantIsolation(name: string, setUp: () => Promise<{ testApp: TestApp; minter: TokenMinter; admin: string; teardown(): Promise<void> }>) {
  describe(name, () => {
    let testApp: TestApp;
    let minter: TokenMinter;
    let adminToken: string;
    let teardown: () => Promise<void>;
    let tokenA: string;
    let tokenB: string;
    let corpOfA: string;
    let corpOfB: string;
    const http = () => request(testApp.baseUrl);
    const now = () => Math.floor(Date.now() / 1000);

    beforeAll(async () => {
      ({ testApp, minter, admin: adminToken, teardown } = await setUp());
      tokenA = await minter.token(A, 'chat:read chat:write');
      tokenB = await minter.token(B, 'chat:read chat:write');
      corpOfA = (await http().post(corpsPath(A)).auth(tokenA, { type: 'bearer' }).send({ corpName: 'Acme Retail', workChatCorpId: 'wwacme' }).expect(200)).body.id;
      corpOfB = (await http().post(corpsPath(B)).auth(tokenB, { type: 'bearer' }).send({ corpName: 'Globex', workChatCorpId: 'wwglobex' }).expect(200)).body.id;
    });
    afterAll(async () => {
      await testApp?.close();
      await teardown?.();
    });

    it('401 without a token, with a Bearer challenge', async () => {
      const response = await http().get(corpsPath(A)).expect(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="atrium-chat"');
      expect(response.body.detail).toBe('Send an OAuth2 access token as "Authorization: Bearer <token>".');
    });

    it('serves the tenant its own data', async () => {
      const page = await http().get(corpsPath(A)).auth(tokenA, { type: 'bearer' }).expect(200);
      expect(page.body).toMatchObject({ page: 0, size: 20, totalElements: 1, totalPages: 1 });
      expect(page.body.content.map((corp: { id: string }) => corp.id)).toEqual([corpOfA]);
    });

    it('403 for tenant A\'s token on every tenant B path, reads and writes alike', async () => {
      const attempts = [
        http().get(corpsPath(B)),
        http().post(corpsPath(B)).send({ corpName: 'Intruder', workChatCorpId: 'wwintruder' }),
        http().get(`${corpsPath(B)}/${corpOfB}`),
        http().put(`${corpsPath(B)}/${corpOfB}`).send({ remark: 'hijacked' }),
        http().delete(`${corpsPath(B)}/${corpOfB}`),
      ];
      for (const attempt of attempts) {
        const response = await attempt.auth(tokenA, { type: 'bearer' });
        expect([response.status, response.body.detail]).toEqual([403, `The access token is not valid for tenant "${B}" (it is for: ${A}).`]);
      }
      const intact = await http().get(`${corpsPath(B)}/${corpOfB}`).auth(tokenB, { type: 'bearer' }).expect(200);
      expect(intact.body).toMatchObject({ id: corpOfB, remark: null, corpName: 'Globex' });
    });

    it('404 for tenant B\'s ids through a path without a tenant; the token\'s own tenant is served', async () => {
      await http().get(`/api/v1/test-probe/corps/${corpOfA}`).auth(tokenA, { type: 'bearer' }).expect(200);
      const read = await http().get(`/api/v1/test-probe/corps/${corpOfB}`).auth(tokenA, { type: 'bearer' }).expect(404);
      expect(read.body.detail).toBe(`No corp ${corpOfB} in this tenant.`);
      await http().put(`/api/v1/test-probe/corps/${corpOfB}`).auth(tokenA, { type: 'bearer' }).send({ remark: 'hijacked' }).expect(404);
      const intact = await http().get(`/api/v1/test-probe/corps/${corpOfB}`).auth(tokenB, { type: 'bearer' }).expect(200);
      expect(intact.body.remark).toBeNull();
    });

    it('a path without a tenant needs exactly one tenant in the token', async () => {
      const both = await minter.signed({ tenant: [A, B], scope: 'chat:read chat:write' });
      const several = await http().get(`/api/v1/test-probe/corps/${corpOfA}`).auth(both, { type: 'bearer' }).expect(403);
      expect(several.body.detail).toBe(`The access token names several tenants (${A}, ${B}); this route needs a token for exactly one tenant.`);
      // The same token is fine where the path names the tenant.
      await http().get(corpsPath(B)).auth(both, { type: 'bearer' }).expect(200);
      const none = await minter.signed({ scope: 'chat:read chat:write' });
      expect((await http().get(`/api/v1/test-probe/corps/${corpOfA}`).auth(none, { type: 'bearer' }).expect(403)).body.detail).toBe(
        'The access token names no tenant (claim "tenant"); this route takes the tenant from the token.',
      );
      expect((await http().get(corpsPath(A)).auth(none, { type: 'bearer' }).expect(403)).body.detail).toBe(`The access token is not valid for tenant "${A}".`);
    });

    it('403 on writes for a token without chat:write, reads still served; 403 on reads without chat:read', async () => {
      const reader = await minter.token(A, 'chat:read');
      await http().get(corpsPath(A)).auth(reader, { type: 'bearer' }).expect(200);
      const writes = [
        http().post(corpsPath(A)).send({ corpName: 'Nope', workChatCorpId: 'wwnope' }),
        http().put(`${corpsPath(A)}/${corpOfA}`).send({ remark: 'x' }),
        http().delete(`${corpsPath(A)}/${corpOfA}`),
        http().put(`/api/v1/test-probe/corps/${corpOfA}`).send({ remark: 'x' }),
      ];
      for (const attempt of writes) {
        const response = await attempt.auth(reader, { type: 'bearer' });
        expect(response.status).toBe(403);
        expect(response.body.detail).toMatch(/^(POST|PUT|DELETE) operations need the chat:write scope, which the token lacks\.$/);
      }
      const writer = await minter.token(A, 'chat:write');
      expect((await http().get(corpsPath(A)).auth(writer, { type: 'bearer' }).expect(403)).body.detail).toBe('GET operations need the chat:read scope, which the token lacks.');
    });

    it('401 for expired, wrong-audience, wrong-issuer, alg "none" and HS256 tokens', async () => {
      const good = { tenant: A, scope: 'chat:read chat:write' };
      const cases: [string, string, string][] = [
        ['expired', await minter.signed({ ...good, exp: now() - 3600, iat: now() - 7200 }), 'The access token has expired; get a new one.'],
        ['wrong audience', await minter.signed({ ...good, aud: 'another-api' }), 'The access token is not meant for this API: its audience must include "atrium-chat".'],
        ['wrong issuer', await minter.signed({ ...good, iss: 'https://evil.example' }), `The access token was not issued by the trusted issuer (${minter.issuer}).`],
        [
          'alg none',
          `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...good, iss: minter.issuer, aud: 'atrium-chat', sub: 'x', exp: now() + 600 })}.`,
          'The access token is signed with an algorithm this API does not accept (accepted: RS256, ES256, PS256, EdDSA).',
        ],
        [
          'HS256',
          await new SignJWT({ ...good, iss: minter.issuer, aud: 'atrium-chat', sub: 'x' })
            .setProtectedHeader({ alg: 'HS256' })
            .setExpirationTime('10m')
            .sign(new TextEncoder().encode('a-shared-secret-of-thirty-two-bytes!')),
          'The access token is signed with an algorithm this API does not accept (accepted: RS256, ES256, PS256, EdDSA).',
        ],
      ];
      for (const [label, token, detail] of cases) {
        for (const attempt of [http().get(corpsPath(A)), http().post(corpsPath(A)).send({ corpName: `Bad ${label}`, workChatCorpId: 'wwbad' }), http().get('/api/platform/tenants')]) {
          const response = await attempt.auth(token, { type: 'bearer' });
          expect({ label, status: response.status, detail: response.body.detail }).toEqual({ label, status: 401, detail });
          expect(response.headers['www-authenticate']).toBe('Bearer realm="atrium-chat", error="invalid_token"');
        }
      }
      const listed = await http().get(corpsPath(A)).auth(tokenA, { type: 'bearer' }).expect(200);
      expect(listed.body.content.map((corp: { corpName: string }) => corp.corpName)).toEqual(['Acme Retail']);
    });

    it('platform routes need platform:admin; tenant tokens get 403', async () => {
      const refused = await http().get('/api/platform/tenants').auth(tokenA, { type: 'bearer' }).expect(403);
      expect(refused.body.detail).toBe('This operation needs the platform:admin scope, which the token lacks.');
      await http().post('/api/platform/tenants').auth(tokenA, { type: 'bearer' }).send({ id: 'sneaky', name: 'Sneaky' }).expect(403);
      await http().get('/api/platform/tenants').expect(401);
      const listed = await http().get('/api/platform/tenants?sort=id,asc').auth(adminToken, { type: 'bearer' }).expect(200);
      expect(listed.body.content.map((tenant: { id: string }) => tenant.id)).toEqual([A, B]);
      // A platform-admin token names no tenant: chat routes refuse it.
      await http().get(corpsPath(A)).auth(adminToken, { type: 'bearer' }).expect(403);
    });

    it('unknown tenants answer 404, disabled ones 403 until enabled again', async () => {
      const ghost = await minter.token('initech', 'chat:read');
      expect((await http().get(corpsPath('initech')).auth(ghost, { type: 'bearer' }).expect(404)).body.detail).toBe('No tenant "initech".');
      await http().patch(`/api/platform/tenants/${B}`).auth(adminToken, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
      expect((await http().get(corpsPath(B)).auth(tokenB, { type: 'bearer' }).expect(403)).body.detail).toBe(`Tenant "${B}" is disabled.`);
      await http().patch(`/api/platform/tenants/${B}`).auth(adminToken, { type: 'bearer' }).send({ status: 'active' }).expect(200);
      await http().get(corpsPath(B)).auth(tokenB, { type: 'bearer' }).expect(200);
    });

    it('declares the oauth2 scheme with the client-credentials flow, and the scope of each chat operation', async () => {
      const document = (await http().get('/docs-json').expect(200)).body;
      expect(document.components.securitySchemes.oauth2).toMatchObject({
        type: 'oauth2',
        flows: { clientCredentials: { tokenUrl: minter.tokenUrl, scopes: { 'chat:read': expect.any(String), 'chat:write': expect.any(String), 'platform:admin': expect.any(String) } } },
      });
      const corps = document.paths['/api/{tenant}/console/workChat/corps'];
      expect(corps.get.security).toEqual([{ oauth2: ['chat:read'] }]);
      expect(corps.post.security).toEqual([{ oauth2: ['chat:write'] }]);
      expect(document.paths['/api/platform/tenants'].get.security).toEqual([{ oauth2: ['platform:admin'] }]);
      // Swagger UI forgets the token it got through "Authorize" at reload unless the operator sets
      // DOCS_PERSIST_AUTHORIZATION=true (issue 12: a token in localStorage is what a hostile page would read).
      const init = await http().get('/docs/swagger-ui-init.js').expect(200);
      expect(init.text).toMatch(/"persistAuthorization": ?false/);
    });
  });
}

describeTenantIsolation('built-in authorization server (CHAT_OAUTH_ISSUER unset)', async () => {
  const testApp = await startChatTestApp();
  await newTenant(testApp, A);
  await newTenant(testApp, B);
  const clients = {
    [A]: { 'chat:read chat:write': await newClient(testApp, { tenantId: A }), 'chat:read': await newClient(testApp, { tenantId: A, scopes: ['chat:read'] }), 'chat:write': await newClient(testApp, { tenantId: A, scopes: ['chat:write'] }) },
    [B]: { 'chat:read chat:write': await newClient(testApp, { tenantId: B }) },
  } as Record<string, Record<string, { clientId: string; clientSecret: string }>>;
  const admin = (await builtInToken(testApp.baseUrl, await newClient(testApp, { platformAdmin: true }))).access_token;
  const key = JSON.parse(readFileSync(signingKeyFile(testApp.dataDir), 'utf8')) as JWK;
  const privateKey = await importJWK(key, 'ES256');
  const issuer = testApp.config.chatAuth.publicUrl + '/oauth';
  const minter: TokenMinter = {
    issuer,
    tokenUrl: '/oauth/token',
    async token(tenant, scope) {
      if (typeof tenant === 'string' && clients[tenant]?.[scope]) return (await builtInToken(testApp.baseUrl, clients[tenant][scope], scope)).access_token;
      // A tenant with no row (so no client can exist): the built-in key signs what the server would have issued.
      return this.signed({ tenant, scope });
    },
    signed: (claims) =>
      new SignJWT({ iss: issuer, aud: 'atrium-chat', sub: 'test', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + 600, ...claims })
        .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
        .sign(privateKey),
  };
  return { testApp, minter, admin, teardown: async () => undefined };
});

describeTenantIsolation('oauth2-mock-server as the external issuer', async () => {
  const issuerServer = new OAuth2Server();
  await issuerServer.issuer.keys.generate('RS256');
  await issuerServer.start(0, '127.0.0.1');
  const issuer = issuerServer.issuer.url!;
  const testApp = await startChatTestApp({ CHAT_OAUTH_ISSUER: issuer });
  await newTenant(testApp, A);
  await newTenant(testApp, B);
  const signed = (claims: Record<string, unknown>, expiresIn = 600) =>
    issuerServer.issuer.buildToken({
      expiresIn,
      scopesOrTransform: (_header, payload) => {
        payload.aud = 'atrium-chat';
        payload.sub = 'service-account';
        for (const [name, value] of Object.entries(claims)) {
          if (value === undefined) delete payload[name];
          else payload[name] = value;
        }
      },
    });
  const minter: TokenMinter = {
    issuer,
    tokenUrl: `${issuer}/token`,
    token: (tenant, scope) => signed(tenant === null ? { scope } : { tenant, scope }),
    signed: (claims) => signed(claims),
  };
  return { testApp, minter, admin: await signed({ scope: 'platform:admin' }), teardown: () => issuerServer.stop() };
});

describe('remembered tokens and tenants (CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES, CHAT_AUTH_TENANT_CACHE_TTL_MS)', () => {
  let testApp: TestApp;
  let key: JWK;
  const http = () => request(testApp.baseUrl);
  const mint = async (claims: Record<string, unknown>, lifetimeS: number) =>
    new SignJWT({ iss: `${testApp.config.chatAuth.publicUrl}/oauth`, aud: 'atrium-chat', sub: 'test', iat: Math.floor(Date.now() / 1000), exp: Math.floor(Date.now() / 1000) + lifetimeS, ...claims })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt' })
      .sign(await importJWK(key, 'ES256'));

  beforeAll(async () => {
    testApp = await startChatTestApp({ CHAT_OAUTH_CLOCK_TOLERANCE_S: '0' });
    await newTenant(testApp, A);
    key = JSON.parse(readFileSync(signingKeyFile(testApp.dataDir), 'utf8')) as JWK;
  });

  afterAll(async () => {
    await testApp?.close();
  });

  it('refuses a remembered token once it expires', async () => {
    const token = await mint({ tenant: A, scope: 'chat:read chat:write' }, 2);
    await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(200);
    await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    const refused = await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(401);
    expect(refused.body.detail).toBe('The access token has expired; get a new one.');
  });

  it('applies a tenant disabled through the API at once, although its status is reused between requests', async () => {
    const token = await mint({ tenant: A, scope: 'chat:read chat:write' }, 600);
    const admin = await mint({ scope: 'platform:admin' }, 600);
    await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(200);
    await http().patch(`/api/platform/tenants/${A}`).auth(admin, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
    expect((await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(403)).body.detail).toBe(`Tenant "${A}" is disabled.`);
    await http().patch(`/api/platform/tenants/${A}`).auth(admin, { type: 'bearer' }).send({ status: 'active' }).expect(200);
    await http().get(`/api/${A}/console/workChat/corps`).auth(token, { type: 'bearer' }).expect(200);
  });
});

describe('built-in authorization server: client-credentials grant', () => {
  let testApp: TestApp;
  let client: { clientId: string; clientSecret: string };
  let reader: { clientId: string; clientSecret: string };
  const http = () => request(testApp.baseUrl);

  beforeAll(async () => {
    testApp = await startChatTestApp({ CHAT_OAUTH_TOKEN_TTL_S: '900' });
    await newTenant(testApp, A);
    await newTenant(testApp, B);
    client = await newClient(testApp, { tenantId: A });
    reader = await newClient(testApp, { tenantId: A, scopes: ['chat:read'] });
  });
  afterAll(() => testApp?.close());

  it('publishes discovery and a JWKS with the one ES256 key kept 0600 under DATA_DIR', async () => {
    const discovery = (await http().get('/oauth/.well-known/openid-configuration').expect(200)).body;
    // Every URL from CHAT_PUBLIC_URL (issue 22 item 5), not from the Host the request came in on.
    expect(discovery).toMatchObject({
      issuer: `${testApp.config.chatAuth.publicUrl}/oauth`,
      token_endpoint: `${testApp.config.chatAuth.publicUrl}/oauth/token`,
      jwks_uri: `${testApp.config.chatAuth.publicUrl}/oauth/jwks`,
      grant_types_supported: ['client_credentials'],
      scopes_supported: ['chat:read', 'chat:write', 'platform:admin'],
    });
    const jwks = (await http().get('/oauth/jwks').expect(200)).body;
    const key = JSON.parse(readFileSync(signingKeyFile(testApp.dataDir), 'utf8')) as JWK;
    expect(jwks.keys).toEqual([{ kty: 'EC', crv: 'P-256', x: key.x, y: key.y, kid: key.kid, alg: 'ES256', use: 'sig' }]);
    expect(statSync(signingKeyFile(testApp.dataDir)).mode & 0o777).toBe(0o600);
  });

  it('issues an ES256 JWT for the chat audience with the client\'s tenant and the scopes asked for', async () => {
    const issued = await builtInToken(testApp.baseUrl, client, 'chat:read');
    expect(issued).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'chat:read' });
    expect(decodeProtectedHeader(issued.access_token)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    const claims = decodeJwt(issued.access_token);
    expect(claims).toMatchObject({ iss: `${testApp.config.chatAuth.publicUrl}/oauth`, aud: 'atrium-chat', tenant: A, scope: 'chat:read', client_id: client.clientId, sub: client.clientId });
    expect(claims.exp! - claims.iat!).toBe(900);
    await http().get(corpsPath(A)).auth(issued.access_token, { type: 'bearer' }).expect(200);
    await http().post(corpsPath(A)).auth(issued.access_token, { type: 'bearer' }).send({ corpName: 'x', workChatCorpId: 'wwx' }).expect(403);
  });

  it('gives all of the client\'s scopes when none is asked for, and refuses scopes the client lacks', async () => {
    expect((await builtInToken(testApp.baseUrl, client)).scope).toBe('chat:read chat:write');
    const refused = await http().post('/oauth/token').auth(reader.clientId, reader.clientSecret).type('form').send({ grant_type: 'client_credentials', scope: 'chat:write' }).expect(400);
    expect(refused.body).toMatchObject({ error: 'invalid_scope' });
    const admin = await http().post('/oauth/token').auth(client.clientId, client.clientSecret).type('form').send({ grant_type: 'client_credentials', scope: 'platform:admin' }).expect(400);
    expect(admin.body).toMatchObject({ error: 'invalid_scope' });
  });

  it('refuses a wrong secret, an unknown client, other grants and foreign resources', async () => {
    const token = (auth: [string, string], form: Record<string, string>) => http().post('/oauth/token').auth(...auth).type('form').send(form);
    expect((await token([client.clientId, 'wrong-secret'], { grant_type: 'client_credentials' }).expect(401)).body).toMatchObject({ error: 'invalid_client' });
    expect((await token(['atc_000000000000000000000000', client.clientSecret], { grant_type: 'client_credentials' }).expect(401)).body).toMatchObject({ error: 'invalid_client' });
    expect((await token([client.clientId, client.clientSecret], { grant_type: 'password', username: 'u', password: 'p' }).expect(400)).body.error).toMatch(/unsupported_grant_type|invalid_request/);
    expect((await token([client.clientId, client.clientSecret], { grant_type: 'client_credentials', resource: 'https://elsewhere.example/api' }).expect(400)).body).toMatchObject({ error: 'invalid_target' });
    // client_secret_post (issue 22 item 5) holds a form-posted secret to the same check as Basic.
    await http().post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: 'wrong-secret' }).expect(401);
    await http().post('/oauth/token').type('form').send({ grant_type: 'client_credentials', client_id: client.clientId }).expect(401);
  });

  it('answers Swagger UI\'s same-origin token request and refuses other origins', async () => {
    const form = { grant_type: 'client_credentials', scope: 'chat:read' };
    await http().post('/oauth/token').set('Origin', testApp.baseUrl).auth(client.clientId, client.clientSecret).type('form').send(form).expect(200);
    const foreign = await http().post('/oauth/token').set('Origin', 'https://evil.example').auth(client.clientId, client.clientSecret).type('form').send(form).expect(400);
    expect(foreign.body.error_description).toContain('origin https://evil.example not allowed');
  });

  it('issues nothing to revoked clients or clients of a disabled tenant; tokens of a disabled tenant stop working', async () => {
    const admin = (await builtInToken(testApp.baseUrl, await newClient(testApp, { platformAdmin: true }))).access_token;
    const created = await http().post('/api/platform/clients').auth(admin, { type: 'bearer' }).send({ tenantId: B, name: 'CRM sync' }).expect(201);
    expect(created.body).toMatchObject({ tenantId: B, name: 'CRM sync', scopes: ['chat:read', 'chat:write'], revokedAt: null, clientSecret: expect.any(String) });
    const clientOfB = { clientId: created.body.clientId, clientSecret: created.body.clientSecret };
    const tokenOfB = (await builtInToken(testApp.baseUrl, clientOfB)).access_token;
    const listed = await http().get(`/api/platform/clients?tenantId=${B}`).auth(admin, { type: 'bearer' }).expect(200);
    expect(listed.body.content).toEqual([expect.objectContaining({ clientId: clientOfB.clientId })]);
    expect(JSON.stringify(listed.body)).not.toContain(clientOfB.clientSecret);

    await http().patch(`/api/platform/tenants/${B}`).auth(admin, { type: 'bearer' }).send({ status: 'disabled' }).expect(200);
    await http().post('/oauth/token').auth(clientOfB.clientId, clientOfB.clientSecret).type('form').send({ grant_type: 'client_credentials' }).expect(401);
    await http().get(corpsPath(B)).auth(tokenOfB, { type: 'bearer' }).expect(403);
    await http().patch(`/api/platform/tenants/${B}`).auth(admin, { type: 'bearer' }).send({ status: 'active' }).expect(200);
    await builtInToken(testApp.baseUrl, clientOfB);

    await http().delete(`/api/platform/clients/${clientOfB.clientId}`).auth(admin, { type: 'bearer' }).expect(204);
    await http().delete(`/api/platform/clients/${clientOfB.clientId}`).auth(admin, { type: 'bearer' }).expect(204);
    await http().delete('/api/platform/clients/atc_unknown').auth(admin, { type: 'bearer' }).expect(404);
    expect((await http().post('/oauth/token').auth(clientOfB.clientId, clientOfB.clientSecret).type('form').send({ grant_type: 'client_credentials' }).expect(401)).body).toMatchObject({ error: 'invalid_client' });
  });
});

describe('external issuer: a token from its token endpoint over HTTP, scopes in an scp array', () => {
  let issuerServer: OAuth2Server;
  let testApp: TestApp;

  beforeAll(async () => {
    issuerServer = new OAuth2Server();
    await issuerServer.issuer.keys.generate('ES256');
    await issuerServer.start(0, '127.0.0.1');
    issuerServer.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      token.payload.aud = ['atrium-chat', 'another-api'];
      token.payload.org = A;
      token.payload.scp = ['chat:read'];
    });
    testApp = await startChatTestApp({ CHAT_OAUTH_ISSUER: issuerServer.issuer.url!, CHAT_OAUTH_TENANT_CLAIM: 'org' });
    await newTenant(testApp, A);
  });
  afterAll(async () => {
    await testApp?.close();
    await issuerServer?.stop();
  });

  it('accepts it for the tenant in the configured claim and holds it to its scopes', async () => {
    const issued = await request(issuerServer.issuer.url!).post('/token').auth('some-client', 'some-secret').type('form').send({ grant_type: 'client_credentials' }).expect(200);
    const token = issued.body.access_token as string;
    expect(decodeProtectedHeader(token).alg).toBe('ES256');
    await request(testApp.baseUrl).get(corpsPath(A)).auth(token, { type: 'bearer' }).expect(200);
    const write = await request(testApp.baseUrl).post(corpsPath(A)).auth(token, { type: 'bearer' }).send({ corpName: 'x', workChatCorpId: 'wwx' }).expect(403);
    expect(write.body.detail).toBe('POST operations need the chat:write scope, which the token lacks.');
    // The built-in server is off with an external issuer.
    await request(testApp.baseUrl).get('/oauth/.well-known/openid-configuration').expect(404);
  });
});
