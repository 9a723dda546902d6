import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request, Response } from 'express';
import passport, { type Strategy } from 'passport';
import { JSON_BODY_LIMIT, type JsonBodyLimitValue, readRouteJsonBody } from '../http/body-parsing';
import { AUTH_REQUIREMENT, AuthRequirement, CredentialCheckOptions, CredentialStrategyClass, PUBLIC_ROUTE, strategiesOf } from './auth.decorators';

/**
 * The one global guard (DESIGN.md, Request pipeline). A route passes only when it is `@Public()` or the Passport
 * strategy (or chain) of its `@Authenticated(…)` accepts the request; a route that declares neither is refused, so a
 * forgotten declaration fails closed.
 *
 * Why not `AuthGuard('name')` from @nestjs/passport: that guard looks strategies up by name in Passport's one
 * process-wide registry, where the last app constructed wins; tests and `node:cluster` run several apps in one
 * process. This guard takes the strategy instances of its own app (ModuleRef) and hands them to `passport.authenticate`
 * itself, so a request is always checked by its own app's strategies, configuration and database.
 *
 * Its last step, once the request may pass, reads a pending JSON body with the route's limit (body-parsing.ts: bodies
 * are read only after authentication); a refused request's body is never read.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  private readonly instances = new Map<CredentialStrategyClass, Strategy>();

  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) {
      await this.readBody(context, targets);
      return true;
    }
    const requirement = this.reflector.getAllAndOverride<AuthRequirement>(AUTH_REQUIREMENT, targets);
    if (!requirement) throw new UnauthorizedException('This route declares no access rule.');
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { principal?: unknown }>();
    const strategies = strategiesOf(requirement.strategy).map((type) => this.instance(type));
    const outcome = await authenticateWith(strategies, request, http.getResponse<Response>(), { requirement });
    if (outcome === ANSWERED) return false;
    request.principal = outcome;
    await this.readBody(context, targets);
    return true;
  }

  /** Reads the request's pending JSON body, if any, with the route's `@JsonBodyLimit` (see body-parsing.ts). */
  private async readBody(context: ExecutionContext, targets: Parameters<Reflector['getAllAndOverride']>[1]): Promise<void> {
    if (context.getType() !== 'http') return;
    const request = context.switchToHttp().getRequest<Request>();
    await readRouteJsonBody(request, this.reflector.getAllAndOverride<JsonBodyLimitValue | undefined>(JSON_BODY_LIMIT, targets));
  }

  private instance(type: CredentialStrategyClass): Strategy {
    const known = this.instances.get(type);
    if (known) return known;
    const strategy = this.moduleRef.get(type, { strict: false });
    this.instances.set(type, strategy);
    return strategy;
  }
}

/** {@link authenticateWith}'s result when the strategy answered the request itself (an OAuth2 redirect). */
export const ANSWERED: unique symbol = Symbol('answered by the strategy');

/**
 * Runs Passport strategies on a request (`passport.authenticate` with a callback, no session): the first strategy
 * to accept or to refuse decides; strategies whose credential is absent pass to the next.
 * Each request gets its own object over the shared strategy instance (`Object.create`, as Passport does for
 * strategies looked up by name), so concurrent requests never share Passport's per-request success/fail functions.
 * @param options passed to each strategy's `authenticate` (custom strategies see them as `validate`'s 2nd argument)
 * @returns the principal; {@link ANSWERED} when the strategy answered itself (a redirect to the identity provider)
 * @throws what the strategy's `validate` threw (its 401/403/429 …); UnauthorizedException (401) when every strategy
 *   passed without a credential
 */
export function authenticateWith(
  strategies: readonly Strategy[],
  request: Request,
  response: Response,
  options: CredentialCheckOptions & Record<string, unknown> = {},
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      response.off?.('finish', onFinish);
      action();
    };
    const onFinish = () => settle(() => resolve(ANSWERED));
    response.once?.('finish', onFinish);
    const layers = strategies.map((strategy) => Object.create(strategy) as Strategy);
    // Passport accepts strategy instances wherever it accepts names, in a chain too (@types/passport omits the array form).
    const middleware = passport.authenticate((layers.length === 1 ? layers[0] : layers) as Strategy, { session: false, ...options }, (error: unknown, user: unknown, info: unknown) => {
      if (error) return settle(() => reject(error));
      if (!user) return settle(() => reject(new UnauthorizedException(failureMessage(info) ?? 'No credential was sent.')));
      settle(() => resolve(user));
    });
    middleware(request, response, (error?: unknown) => settle(() => reject(error ?? new Error('Passport passed the request on without a decision.'))));
  });
}

function failureMessage(info: unknown): string | undefined {
  const first = Array.isArray(info) ? info[0] : info;
  if (typeof first === 'string') return first;
  const message = (first as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

/** Reads the bearer credential of `Authorization: Bearer <credential>`, or undefined (parsing only; strategies check it). */
export function bearerCredential(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
