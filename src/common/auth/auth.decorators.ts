import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, Type } from '@nestjs/common';
import { ApiExtension, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';

/**
 * Checks a request's credential for routes declared with {@link Authenticated}. A wing provides one per kind of
 * credential (agent token, owner token, OAuth2 JWT, API key).
 */
export interface CredentialStrategy<P = unknown> {
  /**
   * @returns the caller (stored as `request.principal`)
   * @throws UnauthorizedException (401) no or bad credential; ForbiddenException (403) credential without the right
   */
  authenticate(request: Request, requirement: AuthRequirement): Promise<P>;
}

/** What a route demands, as declared with {@link Authenticated}. */
export interface AuthRequirement {
  strategy: Type<CredentialStrategy>;
  /** The permission or right the credential must carry, if any. */
  permission?: string;
  /** OpenAPI security scheme name(s), any one of which is accepted; none when the credential is not a standard scheme (a key in the body). */
  securityScheme?: string | string[];
}

export const AUTH_REQUIREMENT = 'atrium:auth-requirement';
export const PUBLIC_ROUTE = 'atrium:public';

/**
 * Declares who may call a route or every route of a controller: the strategy that checks the credential and the
 * permission it needs. Also writes the OpenAPI security entry, 401/403 responses and an `x-atrium-auth` extension,
 * so the document shows each route's rule (DESIGN.md, Examples: secure by default).
 */
export function Authenticated(strategy: Type<CredentialStrategy>, options: { permission?: string; securityScheme?: string | string[] } = {}) {
  const requirement: AuthRequirement = { strategy, ...options };
  const schemes = options.securityScheme === undefined ? [] : [options.securityScheme].flat();
  return applyDecorators(
    SetMetadata(AUTH_REQUIREMENT, requirement),
    ...schemes.map((scheme) => ApiSecurity(scheme)),
    ApiExtension('x-atrium-auth', { credential: strategy.name, permission: options.permission ?? null }),
    ApiUnauthorizedResponse({ description: 'No credential, or an unknown or revoked one (problem+json).' }),
    ApiForbiddenResponse({ description: 'The credential lacks the right for this operation (problem+json).' }),
  );
}

/** Marks a route as callable without any credential: the only way out of the global guard. */
export function Public() {
  return applyDecorators(SetMetadata(PUBLIC_ROUTE, true), ApiExtension('x-atrium-auth', { credential: 'none', permission: null }));
}

/** Injects the principal that the route's strategy returned. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  return context.switchToHttp().getRequest<Request & { principal?: unknown }>().principal;
});
