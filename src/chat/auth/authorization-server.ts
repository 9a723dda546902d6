import { BadRequestException, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { JSONWebKeySet } from 'jose';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { OidcClient, OidcContext, OidcToken, Provider as OidcProvider } from 'oidc-provider';
import type { DataSource } from 'typeorm';
import { secretsEqual, sha256Hex } from '../../common/crypto/secrets';
import type { GuessLimiter } from '../../common/auth/guess-limiter';
import { PROBLEM_CONTENT_TYPE, ProblemException, reasonPhrase } from '../../common/http/problem-details';
import type { OperatorSignInRegistry } from '../../common/ports/operator-sign-in';
import { CHAT_SCOPE_DESCRIPTIONS } from './chat-scopes';
import type { ChatOAuthSettings } from './chat-oauth.settings';
import type { OAuthClientsService } from './oauth-clients.service';
import { OAuthRecordAdapter } from './oauth-record.adapter';
import type { ChatOperatorOAuthConfig } from './operator-oauth.config';
import {
  INTERACTION_PATH,
  isOperatorAccount,
  OPERATOR_LOGIN_PURPOSE,
  operatorGrantScopes,
  operatorTenantClaim,
  SWAGGER_UI_CLIENT_ID,
  swaggerClientMetadata,
} from './operator-authorization';
import { BUILT_IN_SIGNING_ALG, loadOrCreateSigningKey } from './signing-key';
import { authorizationServerMetadata, compileTrustedProxies, grantScopes, isTrustedProxy, resolveTokenResource, TokenRequestRefused } from './token-request-rules';

/** A Node request handler (what oidc-provider's `callback()` returns), mountable with `app.use(path, handler)`. */
export type OAuthRequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** Request headers through which a proxy tells the client's host, scheme and address: believed only from trusted proxies. */
const FORWARDED_HEADERS = ['forwarded', 'x-forwarded-host', 'x-forwarded-proto', 'x-forwarded-for', 'x-forwarded-port', 'x-forwarded-prefix'];

/**
 * Serves a metadata document (GET/HEAD, public, CORS-open like oidc-provider's own discovery); anything else gets 405.
 */
function serveMetadata(document: Record<string, unknown>, request: IncomingMessage, response: ServerResponse): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: 'invalid_request', error_description: 'use GET' }));
    return;
  }
  const body = JSON.stringify(document);
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'content-length': Buffer.byteLength(body) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** Where the built-in server keeps its signing key, under DATA_DIR. */
export function signingKeyFile(dataDir: string): string {
  return join(dataDir, 'chat-oauth', 'signing-key.jwk.json');
}

/**
 * oidc-provider's client lookup: the built-in Swagger UI client while operator single sign-on is configured (issue 13
 * item 2), else rows of `chat_oauth_client` (OAuthClientsService). Clients are never written through oidc-provider.
 */
class ClientAdapter {
  constructor(
    private readonly clients: OAuthClientsService,
    /** Whether the operator flow is on now (the Swagger UI client exists only then). */
    private readonly operatorFlowOn: () => boolean,
    private readonly publicUrl: string,
  ) {}

  async find(id: string): Promise<unknown> {
    if (id === SWAGGER_UI_CLIENT_ID) return this.operatorFlowOn() ? swaggerClientMetadata(this.publicUrl) : undefined;
    return this.clients.oidcMetadata(id);
  }
  async upsert(): Promise<void> {
    throw new Error('The built-in authorization server registers no clients (use `atrium-chat client create`).');
  }
  async findByUid(): Promise<undefined> {
    return undefined;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async consume(): Promise<void> {}
  async destroy(): Promise<void> {}
  async revokeByGrantId(): Promise<void> {}
}

/** What the operator authorization-code flow needs besides the settings (issue 13 item 2). */
export interface OperatorFlowDependencies {
  /** Where oidc-provider keeps sessions, interactions, codes and grants (`chat_oauth_record`). */
  dataSource: DataSource;
  /** Signs oidc-provider's cookies; shared by every instance (`core_shared_secret`), never per process. */
  cookieKey: string;
  /** The operator single sign-on, through its port; the flow is on while its starter is configured. */
  signInPort: OperatorSignInRegistry;
  /** CHAT_OAUTH_OPERATOR_*: scopes and tenants an operator may get, session lifetime. */
  operator: ChatOperatorOAuthConfig;
  /** Counts authorization requests per client address (AUTH_SIGN_IN_START_*): each stores an interaction row. */
  limiter: Pick<GuessLimiter, 'countAttempt'>;
}

/** Writes a problem+json answer from the Node-level handler (outside Nest's exception filter). */
function sendProblem(response: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const body = JSON.stringify({ type: 'about:blank', title: reasonPhrase(status), status, detail });
  response.writeHead(status, { ...headers, 'content-type': PROBLEM_CONTENT_TYPE, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The HTTP status and text of an error thrown while answering an interaction. */
function interactionFailure(error: unknown): { status: number; detail: string; headers?: Record<string, string> } | undefined {
  if (error instanceof HttpException) {
    const body = error.getResponse();
    const detail = typeof body === 'object' && body && typeof (body as { message?: unknown }).message === 'string' ? (body as { message: string }).message : error.message;
    return { status: error.getStatus(), detail, headers: error instanceof ProblemException ? error.headers : undefined };
  }
  // oidc-provider's own errors (SessionNotFound: no or another browser's interaction cookie) carry an OAuth status.
  const oauth = error as { status?: unknown; error_description?: unknown; error?: unknown };
  if (typeof oauth?.status === 'number' && oauth.status >= 400 && oauth.status < 500) {
    return { status: oauth.status, detail: `${String(oauth.error_description ?? oauth.error ?? 'refused')}; start again with "Authorize".` };
  }
  return undefined;
}

/**
 * The built-in OAuth2 authorization server (issue 5), active when CHAT_OAUTH_ISSUER is unset: oidc-provider 8 with
 * the client-credentials grant only, mounted at `/oauth` (discovery at `/oauth/.well-known/openid-configuration` and,
 * RFC 8414, at `/.well-known/oauth-authorization-server/oauth`; JWKS at `/oauth/jwks`, tokens at `/oauth/token`,
 * client authentication `client_secret_basic` or `client_secret_post`; issue 22 item 5).
 *
 * - Clients are rows of `chat_oauth_client`, looked up through the adapter; their secret is stored as a SHA-256
 *   hash and checked through `Client.prototype.compareClientSecret` (oidc-provider's hook for hashed secrets).
 * - Access tokens are JWTs (RFC 9068, `typ: at+jwt`) signed ES256 with the key under `$DATA_DIR/chat-oauth/`, valid
 *   for CHAT_OAUTH_TOKEN_TTL_S, for one RFC 8707 resource: the chat API (`${CHAT_PUBLIC_URL}/api`, assumed when the
 *   client sends none; `aud` = CHAT_OAUTH_AUDIENCE) or the client's tenant's MCP endpoint
 *   (`${CHAT_PUBLIC_URL}/api/{tenant}/mcp`, as its RFC 9728 document names it; `aud` = that URL). Anything else,
 *   another tenant's MCP endpoint included, is `invalid_target` (token-request-rules.ts).
 * - `extraTokenClaims` adds the client's tenant under CHAT_OAUTH_TENANT_CLAIM; a request without `scope` gets the
 *   client's scopes (RFC 6749 §3.3 default); a scope the server doesn't know, the client doesn't hold or the resource
 *   can't carry is `invalid_scope` — never silently dropped, never broadened.
 * - Every published URL comes from the issuer (CHAT_PUBLIC_URL); forwarded headers reach the provider only from
 *   CHAT_OAUTH_TRUSTED_PROXIES, so no client can poison a cached discovery document.
 * - The app verifies these tokens exactly like an external issuer's (chat-token-verifier.ts), against this JWKS.
 *
 * Operators (issue 13 item 2), while operator single sign-on is configured (EVAL_SSO_CLIENT_ID, seen through the
 * operator sign-in port): the authorization-code grant with PKCE S256 for one built-in public client, Swagger UI
 * (`atrium-swagger-ui`, redirect URI `${CHAT_PUBLIC_URL}/docs/oauth2-redirect.html`, operator-authorization.ts).
 * - `/oauth/auth` → login prompt → `/oauth/interaction/{uid}` (bound to the browser by oidc-provider's interaction
 *   cookie) → the operator single sign-on, whose stored state carries the interaction → provider → the single sign-on
 *   callback (`/api/auth/sso/callback`, EVAL_SSO_ALLOWED_* applied: a refused user gets 403 and nothing is granted)
 *   → the interaction's result is the operator (`user:<e-mail or login>`) → 303 to `/oauth/auth/{uid}` → code.
 * - Consent is not asked (first-party client): `loadExistingGrant` grants the asked scopes within
 *   CHAT_OAUTH_OPERATOR_SCOPES and records the others as refused; none grantable → `invalid_scope`.
 * - Tokens: `sub` = the operator, `client_id` = atrium-swagger-ui, the tenant claim from CHAT_OAUTH_OPERATOR_TENANTS
 *   (none by default: platform routes only), lifetime CHAT_OAUTH_TOKEN_TTL_S; a sign-in lasts
 *   CHAT_OAUTH_OPERATOR_SESSION_TTL_S; codes live 60 s and are single use (a replay revokes the grant).
 * - Sessions, interactions, codes and grants are rows of `chat_oauth_record` (oauth-record.adapter.ts), cookies are
 *   signed with a key every instance shares, so any instance continues what another began (issue 20).
 * Without single sign-on the Swagger UI client does not exist and the authorization endpoint refuses every request.
 */
export class ChatAuthorizationServer {
  private constructor(
    /** Mount this at CHAT_OAUTH_MOUNT_PATH; undefined with an external issuer. */
    readonly handler: OAuthRequestHandler | undefined,
    /** The JWKS this server publishes (empty with an external issuer). */
    readonly publicJwks: JSONWebKeySet,
    /** Serves the RFC 8414 metadata; mount it at {@link metadataPath}. Undefined with an external issuer. */
    readonly metadataHandler?: OAuthRequestHandler,
    /** RFC 8414 §3.1 well-known path of the issuer (`/.well-known/oauth-authorization-server/oauth`). */
    readonly metadataPath?: string,
  ) {}

  /** The stand-in used with an external issuer: nothing to mount, no keys. */
  static disabled(): ChatAuthorizationServer {
    return new ChatAuthorizationServer(undefined, { keys: [] });
  }

  /**
   * Loads (or creates) the signing key and builds the provider.
   * @param settings resolved settings in `built-in` mode
   * @param dataDir DATA_DIR (absolute)
   * @param clients the client table
   * @param operatorFlow storage, cookie key, single sign-on port and operator settings of the authorization-code flow
   */
  static async start(settings: ChatOAuthSettings, dataDir: string, clients: OAuthClientsService, operatorFlow: OperatorFlowDependencies): Promise<ChatAuthorizationServer> {
    const logger = new Logger('ChatAuthorizationServer');
    const key = await loadOrCreateSigningKey(signingKeyFile(dataDir));
    if (key.created) logger.log(`generated the OAuth2 signing key ${key.privateJwk.kid} in ${signingKeyFile(dataDir)}`);
    const { default: Provider, errors } = await import('oidc-provider');
    const scopes = Object.keys(CHAT_SCOPE_DESCRIPTIONS);
    const publicOrigin = new URL(settings.issuer).origin;
    const trustedProxies = compileTrustedProxies(settings.trustedProxies);
    const resourceContext = { publicUrl: settings.publicUrl, audience: settings.audience };
    const clientScopes = (client: OidcClient | undefined) => (typeof client?.scope === 'string' ? client.scope.split(' ').filter(Boolean) : []);
    const refused = (error: unknown) => {
      if (!(error instanceof TokenRequestRefused)) return error;
      return error.error === 'invalid_scope' ? new errors.InvalidScope(error.message, error.scope ?? '') : new errors.InvalidTarget(error.message);
    };
    const { signInPort, operator } = operatorFlow;
    const operatorFlowOn = () => signInPort.enabledStarter() !== undefined;
    const issuerPath = new URL(settings.issuer).pathname.replace(/\/+$/, '');
    const clientAdapter = new ClientAdapter(clients, operatorFlowOn, settings.publicUrl);
    const cookieOptions = { httpOnly: true, sameSite: 'lax', signed: true };
    const provider: OidcProvider = new Provider(settings.issuer, {
      adapter: (model: string) => (model === 'Client' ? clientAdapter : new OAuthRecordAdapter(operatorFlow.dataSource, model)),
      jwks: { keys: [key.privateJwk] },
      // Session and interaction cookies (operator flow): signed with the key every instance shares.
      cookies: {
        keys: [operatorFlow.cookieKey],
        names: { session: 'atrium_oauth_session', interaction: 'atrium_oauth_interaction', resume: 'atrium_oauth_resume' },
        long: cookieOptions,
        short: cookieOptions,
      },
      scopes,
      // Only the Swagger UI client registers a response type, and it exists only while single sign-on is configured.
      responseTypes: ['code'],
      pkce: { required: () => true, methods: ['S256'] },
      // oidc-provider accepts either of the two for a client registered with one of them (token_auth.js); `none` is
      // Swagger UI's (a public client, PKCE instead of a secret).
      clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
      clientDefaults: {
        grant_types: ['client_credentials'],
        response_types: [],
        id_token_signed_response_alg: BUILT_IN_SIGNING_ALG,
        token_endpoint_auth_method: 'client_secret_basic',
      },
      extraClientMetadata: { properties: ['tenant_id'] },
      // Swagger UI calls the token endpoint from the same origin (browsers send Origin on POST); others are refused.
      clientBasedCORS: (ctx: OidcContext, origin: string) => origin === ctx.origin || origin === publicOrigin,
      // Operators exist while signed in (single sign-on vouched for them); no other account is known.
      findAccount: async (_ctx: OidcContext, accountId: string) => (isOperatorAccount(accountId) ? { accountId, claims: async () => ({ sub: accountId }) } : undefined),
      interactions: { url: async (_ctx: OidcContext, interaction: { uid: string }) => `${issuerPath}/interaction/${interaction.uid}` },
      // First-party client: the grant is made here, within CHAT_OAUTH_OPERATOR_SCOPES, so no consent is ever asked.
      loadExistingGrant: async (ctx: OidcContext) => {
        const { client, session } = ctx.oidc;
        if (client?.clientId !== SWAGGER_UI_CLIENT_ID || !isOperatorAccount(session?.accountId)) return undefined;
        const { granted, refused } = operatorGrantScopes(ctx.oidc.requestParamScopes ?? [], operator.scopes);
        if (granted.length === 0) {
          throw new errors.InvalidScope(`none of the requested scopes may be granted to an operator (CHAT_OAUTH_OPERATOR_SCOPES: ${operator.scopes.join(' ')})`, refused.join(' '));
        }
        const grant = new provider.Grant({ clientId: client.clientId, accountId: session!.accountId });
        for (const indicator of Object.keys(ctx.oidc.resourceServers ?? {})) {
          grant.addResourceScope(indicator, granted.join(' '));
          if (refused.length > 0) grant.rejectResourceScope(indicator, refused.join(' '));
        }
        // The chat scopes are also the provider's `scopes` (client credentials validate against them), so oidc-provider
        // asks for them as OpenID scopes too: the grant says so, or a consent prompt would follow.
        grant.addOIDCScope(granted.join(' '));
        if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
        await grant.save();
        return grant;
      },
      ttl: {
        ClientCredentials: () => settings.tokenTtlS,
        AccessToken: () => settings.tokenTtlS,
        AuthorizationCode: () => 60,
        Interaction: () => 600,
        Session: () => operator.sessionTtlS,
        Grant: () => operator.sessionTtlS,
      },
      features: {
        clientCredentials: { enabled: true },
        devInteractions: { enabled: false },
        rpInitiatedLogout: { enabled: false },
        pushedAuthorizationRequests: { enabled: false },
        userinfo: { enabled: false },
        introspection: { enabled: false },
        revocation: { enabled: false },
        registration: { enabled: false },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => settings.resourceIndicator,
          useGrantedResource: () => true,
          // Runs before the grant's own scope handling, which would drop unknown scopes silently: refuse them here.
          getResourceServerInfo: (ctx: OidcContext, indicator: string, client: OidcClient) => {
            let resource;
            try {
              resource = resolveTokenResource(indicator, resourceContext, typeof client?.tenant_id === 'string' ? client.tenant_id : undefined);
              grantScopes(ctx.oidc.params?.scope as string | undefined, clientScopes(client), resource);
            } catch (error) {
              throw refused(error);
            }
            return {
              scope: resource.scopes.join(' '),
              audience: resource.audience,
              accessTokenTTL: settings.tokenTtlS,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: BUILT_IN_SIGNING_ALG } },
            };
          },
        },
      },
      extraTokenClaims: async (ctx: OidcContext, token: OidcToken) => {
        if (token.kind === 'AccessToken' && isOperatorAccount(token.accountId)) {
          const tenants = operatorTenantClaim(operator.tenants);
          return tenants === undefined ? undefined : { [settings.tenantClaim]: tenants };
        }
        const tenant = ctx.oidc.client?.tenant_id;
        return token.kind === 'ClientCredentials' && typeof tenant === 'string' ? { [settings.tenantClaim]: tenant } : undefined;
      },
      formats: {
        customizers: {
          // RFC 6749 §3.3: a request without `scope` gets the client's registered scopes (those its resource carries).
          // Only then: a request that named scopes was checked in getResourceServerInfo and gets exactly those.
          jwt: async (ctx: OidcContext, token: OidcToken, jwt: { payload: Record<string, unknown> }) => {
            if (token.kind !== 'ClientCredentials' || token.scope || ctx.oidc.params?.scope) return;
            const resourceScopes = typeof token.resourceServer?.scope === 'string' ? token.resourceServer.scope.split(' ') : [];
            token.scope = grantScopes(undefined, clientScopes(ctx.oidc.client), { audience: '', scopes: resourceScopes }).join(' ');
            jwt.payload.scope = token.scope;
          },
        },
      },
      renderError: async (ctx: { type: string; body: unknown }, out: Record<string, unknown>) => {
        ctx.type = 'json';
        ctx.body = out;
      },
    });
    provider.Client.prototype.compareClientSecret = function compareHashedSecret(this: OidcClient, actual: string) {
      return typeof actual === 'string' && typeof this.clientSecret === 'string' && secretsEqual(sha256Hex(actual), this.clientSecret);
    };
    // Koa believes X-Forwarded-* only when told to; the handler below drops them unless a trusted proxy sent them.
    provider.proxy = trustedProxies.length > 0;
    provider.on('server_error', (_ctx: unknown, error: Error) => logger.error(`token endpoint failed: ${error.message}`));
    provider.on('grant.error', (_ctx: unknown, error: Error) => logger.debug(`token request refused: ${error.message}`));
    provider.on('authorization.error', (_ctx: unknown, error: Error) => logger.debug(`authorization request refused: ${error.message}`));
    // The single sign-on callback hands the operator back here: the interaction's result, then on to resume it.
    signInPort.registerContinuation(OPERATOR_LOGIN_PURPOSE, async (signedIn, uid) => {
      const interaction = await provider.Interaction.find(uid);
      if (!interaction || interaction.prompt?.name !== 'login') throw new BadRequestException('The authorization request this sign-in was for has expired or is finished; start again with "Authorize".');
      interaction.result = { login: { accountId: signedIn.subject } };
      await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
      logger.log(`operator ${signedIn.subject} signed in for the authorization-code flow`);
      return interaction.returnTo;
    });
    const providerHandler = provider.callback();
    const metadataNow = () => authorizationServerMetadata(settings.issuer, operatorFlowOn());
    const handler: OAuthRequestHandler = (request, response) => {
      if (!isTrustedProxy(request.socket.remoteAddress, trustedProxies)) for (const name of FORWARDED_HEADERS) delete request.headers[name];
      const path = request.url?.split('?')[0];
      // Our own discovery document: oidc-provider's lists what it could serve (openid, userinfo, …).
      if (path === '/.well-known/openid-configuration') return serveMetadata(metadataNow(), request, response);
      const interaction = INTERACTION_PATH.exec(request.url ?? '');
      if (interaction) return void startOperatorLogin(provider, signInPort, interaction[1], request as Request, response as Response);
      // An authorization request stores an interaction before anyone signs in: counted per address while the flow is on.
      if (path === '/auth' && operatorFlowOn()) return void countThen(operatorFlow.limiter, request as Request, response, () => providerHandler(request, response));
      providerHandler(request, response);
    };
    const metadataHandler: OAuthRequestHandler = (request, response) => serveMetadata(metadataNow(), request, response);
    const metadataPath = `/.well-known/oauth-authorization-server${new URL(settings.issuer).pathname.replace(/\/+$/, '')}`;
    return new ChatAuthorizationServer(handler, { keys: [key.publicJwk] }, metadataHandler, metadataPath);
  }
}

/** Counts one sign-in start of the request's address, then runs `next`; 429 problem+json (Retry-After) past the limit. */
function countThen(limiter: Pick<GuessLimiter, 'countAttempt'>, request: Request, response: ServerResponse, next: () => void): void {
  limiter.countAttempt('sign-in-start', request.ip).then(next, (error: unknown) => {
    const failure = interactionFailure(error);
    if (failure) return sendProblem(response, failure.status, failure.detail, failure.headers);
    new Logger('ChatAuthorizationServer').error(`authorization request not counted: ${(error as Error)?.message ?? String(error)}`);
    sendProblem(response, 503, 'The authorization request could not be started; try again.');
  });
}

/**
 * `GET /oauth/interaction/{uid}`: the login prompt of an authorization request, answered with a redirect (302) to the
 * operator single sign-on, whose state carries the interaction. Only the browser that made the request gets here
 * (oidc-provider's interaction cookie must name this uid). 400 problem+json for an unknown, expired or another
 * browser's interaction; 404 when single sign-on is off; 502/504 when the provider's discovery fails.
 */
async function startOperatorLogin(provider: OidcProvider, signInPort: OperatorSignInRegistry, uid: string, request: Request, response: Response): Promise<void> {
  try {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.setHeader('allow', 'GET, HEAD');
      return sendProblem(response, 405, 'Use GET.');
    }
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) throw new BadRequestException('This interaction belongs to another authorization request of this browser; start again with "Authorize".');
    if (details.prompt.name !== 'login') throw new BadRequestException(`The authorization request asks for "${details.prompt.name}", which this server does not prompt for.`);
    const starter = signInPort.enabledStarter();
    if (!starter) return sendProblem(response, 404, 'Operator single sign-on is not configured (EVAL_SSO_CLIENT_ID).');
    await starter.start(request, response, { purpose: OPERATOR_LOGIN_PURPOSE, reference: uid });
  } catch (error) {
    const failure = interactionFailure(error);
    if (failure) return sendProblem(response, failure.status, failure.detail, failure.headers);
    new Logger('ChatAuthorizationServer').error(`operator login failed: ${(error as Error)?.message ?? String(error)}`);
    sendProblem(response, 500, 'The sign-in could not be started.');
  }
}
