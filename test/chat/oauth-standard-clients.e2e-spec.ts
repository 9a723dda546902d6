import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import request from 'supertest';
import { startTestApp, type TestApp } from '../support/test-app';
import { newClient, newTenant } from './support/chat-test-app';

type Json = Record<string, any>;
const run = promisify(execFile);
const CLIENTS_SCRIPT = join(__dirname, 'support', 'standard-oauth-clients.mjs');

/** Runs openid-client or oauth4webapi, unmodified, in a Node process of their own (both are ESM-only). */
async function standardClient(input: Json): Promise<Json> {
  const { stdout } = await run(process.execPath, [CLIENTS_SCRIPT, JSON.stringify(input)], { timeout: 30_000 });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

/**
 * An app at its default CHAT_PUBLIC_URL (`http://localhost:$PORT`, the port it listens on), so the clients follow
 * the published URLs as they are.
 */
function startPublicApp(env: Record<string, string> = {}): Promise<TestApp> {
  return startTestApp(env);
}

/**
 * Issue 22 item 5 and acceptance 1: the built-in authorization server with independent, unmodified OAuth 2.0
 * clients — openid-client 6 and oauth4webapi 3 discover it in OpenID (`/oauth/.well-known/openid-configuration`) and
 * RFC 8414 (`/.well-known/oauth-authorization-server/oauth`) modes and get client-credentials tokens with
 * client_secret_basic and client_secret_post; jose verifies those tokens against the published JWKS. Attacks beside
 * them: an unknown scope is invalid_scope (never broadened), a forged X-Forwarded-Host changes no published URL and
 * opens no CORS door, an MCP-resource token is refused on the other chat routes, another tenant's MCP resource is
 * invalid_target.
 */
describe('built-in authorization server with standard OAuth 2.0 clients', () => {
  let testApp: TestApp;
  let issuer: string;
  let writer: { clientId: string; clientSecret: string };
  let reader: { clientId: string; clientSecret: string };
  const http = () => request(testApp.baseUrl);
  const corps = '/api/acme/console/workChat/corps';

  beforeAll(async () => {
    testApp = await startPublicApp();
    issuer = `${testApp.config.chatAuth.publicUrl}/oauth`;
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    writer = await newClient(testApp, { tenantId: 'acme' });
    reader = await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] });
  });
  afterAll(() => testApp?.close());

  const expectedMetadata = () => ({
    issuer,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: ['chat:read', 'chat:write', 'platform:admin'],
    response_types_supported: [],
  });

  for (const library of ['openid-client', 'oauth4webapi']) {
    for (const algorithm of ['oidc', 'oauth2']) {
      it(`${library} discovers the server in ${algorithm} mode and reads only what is served`, async () => {
        const { metadata, error } = await standardClient({ library, action: 'discover', algorithm, issuer });
        expect(error).toBeUndefined();
        expect(metadata).toMatchObject(expectedMetadata());
        expect(metadata.scopes_supported).not.toContain('openid');
        for (const unserved of ['userinfo_endpoint', 'end_session_endpoint', 'introspection_endpoint', 'revocation_endpoint', 'registration_endpoint', 'claims_supported', 'id_token_signing_alg_values_supported']) {
          expect({ [unserved]: metadata[unserved] }).toEqual({ [unserved]: undefined });
        }
      });
    }

    for (const auth of ['basic', 'post']) {
      it(`${library} gets a client-credentials token with client_secret_${auth} (RFC 8414 discovery) that the API accepts`, async () => {
        const { tokens, error } = await standardClient({ library, action: 'token', algorithm: 'oauth2', auth, issuer, ...writer, scope: 'chat:read' });
        expect(error).toBeUndefined();
        expect(tokens).toMatchObject({ token_type: expect.stringMatching(/^bearer$/i), scope: 'chat:read', expires_in: 3600 });
        expect(decodeJwt(tokens.access_token)).toMatchObject({ iss: issuer, aud: 'atrium-chat', tenant: 'acme', scope: 'chat:read', client_id: writer.clientId });
        await http().get(corps).auth(tokens.access_token, { type: 'bearer' }).expect(200);
        // Exactly what was asked for: chat:read does not write.
        await http().post(corps).auth(tokens.access_token, { type: 'bearer' }).send({ corpName: 'x', workChatCorpId: 'wwx' }).expect(403);
      });
    }

    it(`${library} is refused invalid_scope for an unknown scope and for one the client lacks, never a broader token`, async () => {
      for (const [client, scope] of [[writer, 'chat:admin'], [writer, 'chat:read chat:admin'], [reader, 'chat:write'], [writer, 'openid']] as const) {
        const { tokens, error } = await standardClient({ library, action: 'token', algorithm: 'oidc', auth: 'post', issuer, ...client, scope });
        expect({ scope, tokens, error: error?.error, status: error?.status }).toEqual({ scope, tokens: undefined, error: 'invalid_scope', status: 400 });
      }
    });
  }

  it('the authorization endpoint the metadata names (for the MCP SDK\'s schema) grants nothing: every request is an RFC 6749 error', async () => {
    for (const query of ['', `?client_id=${writer.clientId}&response_type=code&scope=chat:read`, `?client_id=${writer.clientId}&response_type=token`]) {
      const response = await http().get(`/oauth/auth${query}`).redirects(0);
      expect({ query, status: response.status, error: response.body.error }).toEqual({ query, status: 400, error: expect.stringMatching(/^(invalid_request|unsupported_response_type|invalid_client|invalid_redirect_uri)$/) });
      expect(response.headers.location).toBeUndefined();
    }
  });

  it('jose verifies the issued token against the JWKS named by the metadata (issuer, audience, ES256)', async () => {
    const { tokens, metadata } = await standardClient({ library: 'oauth4webapi', action: 'token', algorithm: 'oauth2', auth: 'basic', issuer, ...writer });
    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, { issuer, audience: 'atrium-chat', algorithms: ['ES256'], typ: 'at+jwt' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    // No scope asked: the client's registered scopes (RFC 6749 §3.3), no more.
    expect(payload).toMatchObject({ tenant: 'acme', scope: 'chat:read chat:write', sub: writer.clientId });
    // A token signed by anyone else fails the same check.
    const forged = `${tokens.access_token.slice(0, tokens.access_token.lastIndexOf('.'))}.${Buffer.alloc(64, 1).toString('base64url')}`;
    await expect(jwtVerify(forged, jwks, { issuer, audience: 'atrium-chat' })).rejects.toMatchObject({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });
  });

  it('never broadens over raw HTTP either: scope=chat:admin is 400 invalid_scope, not all of the client\'s scopes', async () => {
    const refused = await http().post('/oauth/token').auth(writer.clientId, writer.clientSecret).type('form').send({ grant_type: 'client_credentials', scope: 'chat:admin' }).expect(400);
    expect(refused.body).toMatchObject({ error: 'invalid_scope', error_description: expect.stringContaining('chat:admin') });
    expect(refused.body.access_token).toBeUndefined();
  });

  it('issues tokens for a tenant\'s MCP endpoint as its RFC 9728 document names it, usable there and only there', async () => {
    const prm = (await http().get('/.well-known/oauth-protected-resource/api/acme/mcp').expect(200)).body;
    expect(prm.authorization_servers).toEqual([issuer]);
    const { tokens, error } = await standardClient({ library: 'openid-client', action: 'token', algorithm: 'oauth2', auth: 'basic', issuer, ...writer, resource: prm.resource });
    expect(error).toBeUndefined();
    expect(decodeJwt(tokens.access_token)).toMatchObject({ aud: prm.resource, tenant: 'acme', scope: 'chat:read chat:write' });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const mcp = () => http().post('/api/acme/mcp').set('Accept', 'application/json, text/event-stream');
    await mcp().auth(tokens.access_token, { type: 'bearer' }).send(initialize).expect(200);
    // Attack: the MCP-resource token on the rest of the chat API (after it was accepted, so also from the cache).
    for (const attempt of [http().get(corps), http().post(corps).send({ corpName: 'x', workChatCorpId: 'wwx' }), http().get('/api/platform/tenants')]) {
      const response = await attempt.auth(tokens.access_token, { type: 'bearer' }).expect(401);
      expect(response.body.detail).toBe('The access token is not meant for this API: its audience must include "atrium-chat".');
    }
    // Another tenant's MCP endpoint: not this client's resource, and its endpoint refuses the token's audience.
    const foreign = await http().post('/oauth/token').auth(writer.clientId, writer.clientSecret).type('form').send({ grant_type: 'client_credentials', resource: `${testApp.config.chatAuth.publicUrl}/api/globex/mcp` }).expect(400);
    expect(foreign.body).toMatchObject({ error: 'invalid_target' });
    const elsewhere = await http().post('/api/globex/mcp').set('Accept', 'application/json, text/event-stream').auth(tokens.access_token, { type: 'bearer' }).send(initialize).expect(401);
    expect(elsewhere.body.detail).toMatch(/audience must include "atrium-chat" or ".*\/api\/globex\/mcp"/);
    // The API root, as before.
    const root = await http().post('/oauth/token').auth(writer.clientId, writer.clientSecret).type('form').send({ grant_type: 'client_credentials', resource: `${testApp.config.chatAuth.publicUrl}/api` }).expect(200);
    expect(decodeJwt(root.body.access_token).aud).toBe('atrium-chat');
  });

  it('a 403 for a missing scope carries the insufficient_scope challenge naming the scope', async () => {
    const token = (await http().post('/oauth/token').auth(reader.clientId, reader.clientSecret).type('form').send({ grant_type: 'client_credentials' }).expect(200)).body.access_token;
    const refused = await http().post(corps).auth(token, { type: 'bearer' }).send({ corpName: 'x', workChatCorpId: 'wwx' }).expect(403);
    expect(refused.headers['www-authenticate']).toBe('Bearer realm="atrium-chat", error="insufficient_scope", scope="chat:write"');
    const admin = await http().get('/api/platform/tenants').auth(token, { type: 'bearer' }).expect(403);
    expect(admin.headers['www-authenticate']).toBe('Bearer realm="atrium-chat", error="insufficient_scope", scope="platform:admin"');
    // A 403 for another tenant is no scope problem: no challenge to step up.
    expect((await http().get('/api/globex/console/workChat/corps').auth(token, { type: 'bearer' }).expect(403)).headers['www-authenticate']).toBeUndefined();
  });

  it('attack: X-Forwarded-Host/Proto from a client change no published URL and open no CORS door', async () => {
    const forged = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https', Forwarded: 'host=evil.example;proto=https' };
    for (const path of ['/oauth/.well-known/openid-configuration', '/.well-known/oauth-authorization-server/oauth']) {
      const document = (await http().get(path).set(forged).expect(200)).body;
      expect(document).toMatchObject(expectedMetadata());
      expect(JSON.stringify(document)).not.toContain('evil.example');
    }
    const form = { grant_type: 'client_credentials', scope: 'chat:read' };
    const cors = await http().post('/oauth/token').set(forged).set('Origin', 'https://evil.example').auth(writer.clientId, writer.clientSecret).type('form').send(form).expect(400);
    expect(cors.body.error_description).toContain('origin https://evil.example not allowed');
    await http().post('/oauth/token').set('Origin', testApp.config.chatAuth.publicUrl).auth(writer.clientId, writer.clientSecret).type('form').send(form).expect(200);
  });
});

describe('built-in authorization server behind a trusted proxy (CHAT_OAUTH_TRUSTED_PROXIES)', () => {
  let testApp: TestApp;
  const http = (app: TestApp) => request(app.baseUrl);

  beforeAll(async () => {
    testApp = await startPublicApp({ CHAT_OAUTH_TRUSTED_PROXIES: 'loopback' });
    await newTenant(testApp, 'acme');
  });
  afterAll(() => testApp?.close());

  it('believes the proxy\'s forwarded host for the browser\'s origin, while published URLs stay CHAT_PUBLIC_URL\'s', async () => {
    const client = await newClient(testApp, { tenantId: 'acme' });
    const forwarded = { 'X-Forwarded-Host': 'chat.example', 'X-Forwarded-Proto': 'https' };
    // The tests' requests come from 127.0.0.1, the trusted proxy here: its headers decide the request's own origin.
    await http(testApp).post('/oauth/token').set(forwarded).set('Origin', 'https://chat.example').auth(client.clientId, client.clientSecret).type('form').send({ grant_type: 'client_credentials' }).expect(200);
    const document = (await http(testApp).get('/.well-known/oauth-authorization-server/oauth').set(forwarded).expect(200)).body;
    expect(document.token_endpoint).toBe(`${testApp.config.chatAuth.publicUrl}/oauth/token`);
  });
});
