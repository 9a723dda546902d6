// Runs an independent OAuth 2.0 client library, unmodified, against Atrium's built-in authorization server, for
// test/chat/oauth-standard-clients.e2e-spec.ts (issue 22 acceptance 1). openid-client 6 and oauth4webapi 3 are
// ESM-only, so the test runs them here, in a plain Node process, instead of through Jest's module system.
//
// Usage: node standard-oauth-clients.mjs '<json>' where json is
//   { library: 'openid-client' | 'oauth4webapi', action: 'discover' | 'token', algorithm: 'oidc' | 'oauth2',
//     issuer, clientId?, clientSecret?, auth?: 'basic' | 'post', scope?, resource? }
// Prints one JSON line: { metadata } (discover), { tokens, metadata } (token) or { error: { name, code, error, status, message, cause } }.
// The servers are plain http on 127.0.0.1, so each library's own switch for insecure requests is set.
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';

const input = JSON.parse(process.argv[2]);
const issuer = new URL(input.issuer);
const parameters = new URLSearchParams();
if (input.scope !== undefined) parameters.set('scope', input.scope);
if (input.resource !== undefined) parameters.set('resource', input.resource);

async function withOpenIdClient() {
  const auth = input.auth === 'basic' ? client.ClientSecretBasic(input.clientSecret) : client.ClientSecretPost(input.clientSecret);
  const config = await client.discovery(issuer, input.clientId ?? 'discovery-only', undefined, auth, { algorithm: input.algorithm, execute: [client.allowInsecureRequests] });
  const metadata = config.serverMetadata();
  if (input.action === 'discover') return { metadata };
  const tokens = await client.clientCredentialsGrant(config, parameters);
  return { metadata, tokens: { ...tokens } };
}

async function withOauth4webapi() {
  const options = { algorithm: input.algorithm, [oauth.allowInsecureRequests]: true };
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, options));
  if (input.action === 'discover') return { metadata: as };
  const oauthClient = { client_id: input.clientId };
  const auth = input.auth === 'basic' ? oauth.ClientSecretBasic(input.clientSecret) : oauth.ClientSecretPost(input.clientSecret);
  const response = await oauth.clientCredentialsGrantRequest(as, oauthClient, auth, parameters, { [oauth.allowInsecureRequests]: true });
  const tokens = await oauth.processClientCredentialsResponse(as, oauthClient, response);
  return { metadata: as, tokens };
}

try {
  const result = input.library === 'openid-client' ? await withOpenIdClient() : await withOauth4webapi();
  process.stdout.write(JSON.stringify(result) + '\n');
} catch (error) {
  const { name, code, error: oauthError, status, message, cause } = error ?? {};
  process.stdout.write(JSON.stringify({ error: { name, code, error: oauthError, status, message, cause: cause?.message ?? cause?.code } }) + '\n');
}
