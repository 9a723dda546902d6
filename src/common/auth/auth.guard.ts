import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { ModuleRef, Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { AUTH_REQUIREMENT, AuthRequirement, PUBLIC_ROUTE } from './auth.decorators';

/**
 * The one global guard (DESIGN.md, Request pipeline). A route passes only when it is `@Public()` or its
 * `@Authenticated(strategy)` strategy accepts the request; a route that declares neither is refused, so a
 * forgotten declaration fails closed.
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly moduleRef: ModuleRef,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const requirement = this.reflector.getAllAndOverride<AuthRequirement>(AUTH_REQUIREMENT, targets);
    if (!requirement) throw new UnauthorizedException('This route declares no access rule.');
    const strategy = this.moduleRef.get(requirement.strategy, { strict: false });
    const request = context.switchToHttp().getRequest<Request & { principal?: unknown }>();
    request.principal = await strategy.authenticate(request, requirement);
    return true;
  }
}

/** Reads the bearer credential of `Authorization: Bearer <credential>`, or undefined. */
export function bearerCredential(request: Request): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
