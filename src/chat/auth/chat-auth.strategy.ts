import { ForbiddenException, HttpException, HttpStatus, Inject, Injectable, Logger, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import { createLocalJWKSet, createRemoteJWKSet, customFetch, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import type { AuthRequirement, CredentialCheckOptions } from '../../common/auth/auth.decorators';
import { bearerCredential } from '../../common/auth/auth.guard';
import { ProblemException } from '../../common/http/problem-details';
import { TenantsService } from '../tenants/tenants.service';
import { ChatAuthorizationServer } from './authorization-server';
import { PLATFORM_ADMIN_SCOPE, scopeForMethod } from './chat-scopes';
import { CHAT_OAUTH_SETTINGS, ChatOAuthSettings } from './chat-oauth.settings';
import type { ChatPrincipal } from './chat-principal';
import { acceptedAudiences, audienceAccepted, ChatTokenRejected, verifyChatAccessToken, VerifiedChatToken, wrongAudienceMessage } from './chat-token-verifier';

/** How a chat route finds its tenant (the `permission` of its {@link AuthRequirement}). */
export const CHAT_ACCESS = {
  /** `/api/{tenant}/...` and `/api/v1/{tenant}/...`: the path names the tenant; the token must name it too. */
  tenantFromPath: 'tenant-from-path',
  /** `/api/v1/workChat/...`, `/api/console/chat/...`: the token's one tenant. */
  tenantFromToken: 'tenant-from-token',
  /** `/api/platform/*`: the platform administrator (scope platform:admin), no tenant. */
  platformAdmin: PLATFORM_ADMIN_SCOPE,
} as const;

/** Passport name of the chat wing's bearer JWT strategy (issue 13 item 1). */
export const CHAT_OAUTH2_STRATEGY = 'chat-oauth2-jwt';

/** Path parameter that carries the tenant on tenant routes. */
export const TENANT_PATH_PARAM = 'tenant';

/**
 * Chat routes (issue 5, Tenancy and OAuth2; DESIGN.md, Request pipeline): `Authorization: Bearer <JWT>` verified
 * against the issuer's JWKS (built-in or external, one path: chat-token-verifier.ts), then:
 * - scope: `chat:read` for GET/HEAD, `chat:write` for other methods, `platform:admin` on platform routes → 403;
 * - tenant from path: the token's tenant claim must include `{tenant}` (403), the tenant must exist (404) and be
 *   active (403);
 * - tenant from token: the claim must name exactly one tenant (403 with the reason), which must exist and be active
 *   (403).
 * 401 for a missing, malformed, expired, foreign-issuer, wrong-audience or badly signed token (with
 * `WWW-Authenticate: Bearer`, RFC 6750); a 403 for a missing scope carries `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="…"` (RFC 6750 §3.1, issue 22 item 5) so a client can ask for it; 503 when an
 * external issuer's keys cannot be fetched. Tokens must carry CHAT_OAUTH_AUDIENCE; a route may accept other
 * audiences too (the MCP endpoint: its own RFC 8707 resource).
 * A verified token is remembered until it expires (at most CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES, least recently used
 * dropped first), so its signature is checked once per process; the tenant's status comes from TenantsService.lookup
 * (cached for CHAT_AUTH_TENANT_CACHE_TTL_MS).
 *
 * Passport strategy `chat-oauth2-jwt`: a passport-custom strategy verifying with `jose`, not passport-jwt with
 * jwks-rsa, because one jose path serves both the built-in server's in-process JWKS and an external issuer's JWKS
 * fetched through the guarded outbound client (jose's customFetch; jwks-rsa brings its own HTTP client), and because
 * each jose error code maps to the precise 401/503 reason and RFC 6750 challenge this API answers with, which
 * passport-jwt folds into one generic failure.
 */
@Injectable()
export class ChatCredentialStrategy extends PassportStrategy(CustomStrategy, CHAT_OAUTH2_STRATEGY) {
  private readonly logger = new Logger(ChatCredentialStrategy.name);
  private readonly keys: JWTVerifyGetKey;
  /** Tokens already verified, by their text (CHAT_AUTH_TOKEN_CACHE_MAX_ENTRIES; undefined when 0). */
  private readonly verifiedTokens?: LRUCache<string, VerifiedChatToken>;

  constructor(
    @Inject(CHAT_OAUTH_SETTINGS) private readonly settings: ChatOAuthSettings,
    authorizationServer: ChatAuthorizationServer,
    private readonly tenants: TenantsService,
    @Inject(APP_CONFIG) config: AppConfig,
    outboundHttp: OutboundHttp,
  ) {
    super({ passOptionsToCallback: true });
    const maxTokens = config.chatAuth.tokenCacheMaxEntries;
    if (maxTokens > 0) this.verifiedTokens = new LRUCache({ max: maxTokens });
    this.keys =
      settings.mode === 'external'
        ? createRemoteJWKSet(new URL(settings.jwksUrl!), {
            timeoutDuration: settings.httpTimeoutMs,
            cooldownDuration: 30_000,
            // The JWKS is fetched through the OAuth issuer's outbound client (issue 19 item 1).
            [customFetch]: outboundHttp.client(config.chatOutbound.oauth).fetch({ timeoutMs: settings.httpTimeoutMs }),
          })
        : createLocalJWKSet(authorizationServer.publicJwks);
  }

  /** Passport's verify step: the route's requirement comes in the authenticate options the global guard passes. */
  async validate(request: Request, options: CredentialCheckOptions = {}): Promise<ChatPrincipal> {
    const requirement = options.requirement ?? { strategy: ChatCredentialStrategy, permission: CHAT_ACCESS.tenantFromPath };
    const scope = scopeForMethod(request.method);
    return this.authenticateWithScope(request, requirement, scope, `${request.method} operations need the ${scope} scope, which the token lacks.`);
  }

  /**
   * {@link validate} with the scope a tenant route needs decided by the caller instead of by the HTTP method (the
   * MCP endpoint: every message is a POST, its door needs `chat:read`), the 403 for a token without it worded by
   * the caller, and audiences the route accepts besides CHAT_OAUTH_AUDIENCE (`extraAudiences`).
   */
  async authenticateWithScope(request: Request, requirement: AuthRequirement, scope: string, missingScopeMessage: string, extraAudiences: readonly string[] = []): Promise<ChatPrincipal> {
    const token = await this.verify(request, extraAudiences);
    const principal: ChatPrincipal = { kind: 'chat-token', subject: token.subject, clientId: token.clientId, scopes: token.scopes, tenants: token.tenants };
    if (requirement.permission === CHAT_ACCESS.platformAdmin) {
      if (!token.scopes.includes(PLATFORM_ADMIN_SCOPE)) throw insufficientScope(request, PLATFORM_ADMIN_SCOPE, `This operation needs the ${PLATFORM_ADMIN_SCOPE} scope, which the token lacks.`);
      return principal;
    }
    if (!token.scopes.includes(scope)) throw insufficientScope(request, scope, missingScopeMessage);
    principal.tenantId =
      requirement.permission === CHAT_ACCESS.tenantFromToken ? await this.tenantFromToken(token) : await this.tenantFromPath(request, token);
    return principal;
  }

  private async verify(request: Request, extraAudiences: readonly string[]): Promise<VerifiedChatToken> {
    const policy = { ...this.settings, extraAudiences };
    const challenge = (error?: string) =>
      request.res?.setHeader('WWW-Authenticate', `Bearer realm="atrium-chat"${error ? `, error="${error}"` : ''}`);
    const credential = bearerCredential(request);
    if (!credential) {
      challenge();
      throw new UnauthorizedException('Send an OAuth2 access token as "Authorization: Bearer <token>".');
    }
    // A JWT cannot change, so a verified one stays valid until it expires: its signature is checked once.
    const remembered = this.verifiedTokens?.get(credential);
    if (remembered) {
      if (remembered.expiresAt.getTime() + this.settings.clockToleranceS * 1000 > Date.now()) {
        // It may have been verified for a route accepting other audiences (an MCP-resource token at the MCP endpoint).
        if (audienceAccepted(remembered, acceptedAudiences(policy))) return remembered;
        challenge('invalid_token');
        throw new UnauthorizedException(wrongAudienceMessage(policy));
      }
      this.verifiedTokens!.delete(credential);
    }
    try {
      const verified = await verifyChatAccessToken(credential, this.keys, policy);
      this.verifiedTokens?.set(credential, verified);
      return verified;
    } catch (error) {
      if (!(error instanceof ChatTokenRejected)) throw error;
      if (error.status === HttpStatus.SERVICE_UNAVAILABLE) {
        this.logger.warn(`cannot verify a token against the JWKS of ${this.settings.issuer}: ${(error.reason as Error | undefined)?.message ?? 'unknown error'}`);
        throw new ProblemException(HttpStatus.SERVICE_UNAVAILABLE, error.message);
      }
      challenge('invalid_token');
      throw new UnauthorizedException(error.message);
    }
  }

  /** The header of a 403 for a missing scope (RFC 6750 §3.1); the MCP door appends its resource_metadata. */
  static insufficientScopeChallenge(scope: string): string {
    return `Bearer realm="atrium-chat", error="insufficient_scope", scope="${scope}"`;
  }

  private async tenantFromPath(request: Request, token: VerifiedChatToken): Promise<string> {
    const tenantId = request.params?.[TENANT_PATH_PARAM];
    if (typeof tenantId !== 'string' || tenantId.length === 0) {
      throw new HttpException('This route declares a tenant path but has no {tenant} segment.', HttpStatus.INTERNAL_SERVER_ERROR);
    }
    if (!token.tenants.includes(tenantId)) {
      throw new ForbiddenException(`The access token is not valid for tenant "${tenantId}"${token.tenants.length ? ` (it is for: ${token.tenants.join(', ')})` : ''}.`);
    }
    const tenant = await this.tenants.lookup(tenantId);
    if (!tenant) throw new NotFoundException(`No tenant "${tenantId}".`);
    if (tenant.status !== 'active') throw new ForbiddenException(`Tenant "${tenantId}" is disabled.`);
    return tenantId;
  }

  private async tenantFromToken(token: VerifiedChatToken): Promise<string> {
    const claim = this.settings.tenantClaim;
    if (token.tenants.length === 0) throw new ForbiddenException(`The access token names no tenant (claim "${claim}"); this route takes the tenant from the token.`);
    if (token.tenants.length > 1) {
      throw new ForbiddenException(`The access token names several tenants (${token.tenants.join(', ')}); this route needs a token for exactly one tenant.`);
    }
    const [tenantId] = token.tenants;
    const tenant = await this.tenants.lookup(tenantId);
    if (!tenant) throw new ForbiddenException(`The access token's tenant "${tenantId}" does not exist.`);
    if (tenant.status !== 'active') throw new ForbiddenException(`Tenant "${tenantId}" is disabled.`);
    return tenantId;
  }
}

/** A 403 for a token without `scope`, with its `WWW-Authenticate` challenge set on the response. */
function insufficientScope(request: Request, scope: string, message: string): ForbiddenException {
  request.res?.setHeader('WWW-Authenticate', ChatCredentialStrategy.insufficientScopeChallenge(scope));
  return new ForbiddenException(message);
}
