import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata, Type } from '@nestjs/common';
import { ApiExtension, ApiForbiddenResponse, ApiSecurity, ApiUnauthorizedResponse } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Strategy } from 'passport';

/**
 * A Passport strategy class of Atrium: `class X extends PassportStrategy(CustomStrategy, 'name')` (issue 13 item 1),
 * provided by its wing's module. Its `validate(request, options)` returns the caller or throws the HTTP exception the
 * route answers with (401, 403, 429 …); `options.requirement` is the route's {@link AuthRequirement}.
 */
export type CredentialStrategyClass = Type<Strategy>;

/**
 * Several Passport strategies tried in order for one route (Passport's strategy chain): a strategy whose credential
 * is absent passes (`validate` returns null) to the next; the first to accept or to refuse decides. `name` is what
 * the OpenAPI `x-atrium-auth` extension and the access-rule snapshot show.
 */
export class CredentialChain {
  constructor(
    readonly name: string,
    readonly strategies: readonly CredentialStrategyClass[],
  ) {}
}

/** The credential a route declares: one strategy class, or a chain of them. */
export type RouteCredential = CredentialStrategyClass | CredentialChain;

/** The strategy classes of a route credential, in the order Passport tries them. */
export function strategiesOf(credential: RouteCredential): readonly CredentialStrategyClass[] {
  return credential instanceof CredentialChain ? credential.strategies : [credential];
}

/** What a route demands, as declared with {@link Authenticated}. */
export interface AuthRequirement {
  strategy: RouteCredential;
  /** The permission or right the credential must carry, if any. */
  permission?: string;
  /** OpenAPI security scheme name(s), any one of which is accepted; none when the credential is not a standard scheme (a key in the body). */
  securityScheme?: string | string[];
}

/** The Passport authenticate options a strategy's `validate(request, options)` receives from the global guard. */
export interface CredentialCheckOptions {
  requirement?: AuthRequirement;
}

export const AUTH_REQUIREMENT = 'atrium:auth-requirement';
export const PUBLIC_ROUTE = 'atrium:public';

/**
 * Declares who may call a route or every route of a controller: the Passport strategy (or chain) that checks the
 * credential and the permission it needs. Also writes the OpenAPI security entry, 401/403 responses and an
 * `x-atrium-auth` extension, so the document shows each route's rule (DESIGN.md, Examples: secure by default).
 */
export function Authenticated(strategy: RouteCredential, options: { permission?: string; securityScheme?: string | string[] } = {}) {
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
