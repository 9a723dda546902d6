import { BadRequestException, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import type { CredentialCheckOptions } from '../../common/auth/auth.decorators';
import { bearerCredential } from '../../common/auth/auth.guard';
import { readPendingJsonBody } from '../../common/http/body-parsing';
import { GuessLimiter } from '../../common/auth/guess-limiter';
import { GatewaySecretsService } from '../tokens/gateway-secrets.service';
import { DeployCredentialsService } from './deploy-credentials.service';
import type { DeployAgentPrincipal, DeployOwnerPrincipal, DeployPrincipal } from './deploy-principal';

/** OpenAPI security scheme names of the gateway. */
export const DEPLOY_AGENT_SCHEME = 'deployAgentToken';
export const DEPLOY_OWNER_SCHEME = 'deployOwnerToken';

/** Passport names of the gateway's strategies (issue 13 item 1). */
export const DEPLOY_AGENT_STRATEGY = 'deploy-agent-token';
export const DEPLOY_OWNER_STRATEGY = 'deploy-owner-token';
export const REGISTRATION_KEY_STRATEGY = 'deploy-registration-key';

/**
 * Agent routes (deployment-gateway.md, Endpoints): `Authorization: Bearer <agent token>` carrying the route's
 * permission. 401 no/unknown/revoked token; 403 the owner credential or a token without the permission.
 * Passport strategy `deploy-agent-token`.
 */
@Injectable()
export class DeployAgentStrategy extends PassportStrategy(CustomStrategy, DEPLOY_AGENT_STRATEGY) {
  constructor(private readonly credentials: DeployCredentialsService) {
    super({ passOptionsToCallback: true });
  }

  async validate(request: Request, options: CredentialCheckOptions = {}): Promise<DeployAgentPrincipal> {
    const credential = bearerCredential(request);
    if (!credential) throw new UnauthorizedException('Send the agent token as "Authorization: Bearer <token>".');
    const principal = await this.credentials.identify(credential, request.ip);
    if (!principal) throw new UnauthorizedException('The token is unknown or revoked.');
    if (principal.kind !== 'agent') throw new ForbiddenException('The owner credential is accepted only on /api/admin/*.');
    const permission = options.requirement?.permission as DeployAgentPrincipal['permissions'][number] | undefined;
    if (permission && !principal.permissions.includes(permission)) {
      throw new ForbiddenException(`The token lacks the "${permission}" permission.`);
    }
    return principal;
  }
}

/**
 * Administrator routes (`/api/admin/*`): only the owner credential. 401 none/unknown; 403 an agent token.
 * Passport strategy `deploy-owner-token`.
 */
@Injectable()
export class DeployOwnerStrategy extends PassportStrategy(CustomStrategy, DEPLOY_OWNER_STRATEGY) {
  constructor(private readonly credentials: DeployCredentialsService) {
    super();
  }

  async validate(request: Request): Promise<DeployOwnerPrincipal> {
    const credential = bearerCredential(request);
    if (!credential) throw new UnauthorizedException('Send the owner token as "Authorization: Bearer <token>".');
    const principal = await this.credentials.identify(credential, request.ip);
    if (!principal) throw new UnauthorizedException('The credential is unknown or revoked.');
    if (principal.kind !== 'owner') throw new ForbiddenException('Administrator operations are limited to the owner.');
    return principal;
  }
}

/**
 * Who registers (`POST /api/auth/register`): the registration key's holder, plus the agent or owner behind an
 * optional `Authorization: Bearer …` (the proof that re-registering an existing agent needs). `presented` is
 * `'refused'` when a credential was sent but not recognised: the controller answers 401 for it after the body was
 * validated, as before the move to Passport.
 */
export interface RegistrantPrincipal {
  kind: 'registrant';
  presented?: DeployPrincipal | 'refused';
}

/**
 * Self-registration (`POST /api/auth/register`): the body's `registrationKey` must be the server's registration
 * key; the key is valid for nothing else. 400 when absent, 401 when wrong, 429 (with Retry-After) past the
 * `deploy-registration-key` guessing limit of the caller's address (issue 12 item 5; the key is then not checked).
 * Then the optional `Authorization: Bearer` proof is identified (see {@link RegistrantPrincipal}).
 * Passport strategy `deploy-registration-key`.
 */
@Injectable()
export class RegistrationKeyStrategy extends PassportStrategy(CustomStrategy, REGISTRATION_KEY_STRATEGY) {
  constructor(
    private readonly secrets: GatewaySecretsService,
    private readonly limiter: GuessLimiter,
    private readonly credentials: DeployCredentialsService,
  ) {
    super();
  }

  async validate(request: Request): Promise<RegistrantPrincipal> {
    // The credential is in the body, which the app reads only after authentication: read it here (default limit).
    await readPendingJsonBody(request);
    const key = (request.body as { registrationKey?: unknown } | undefined)?.registrationKey;
    if (typeof key !== 'string' || key.length === 0) throw new BadRequestException('registrationKey is required.');
    const principal = await this.limiter.check('deploy-registration-key', request.ip, () => this.verify(key));
    if (!principal) throw new UnauthorizedException('The registration key is not valid.');
    if (request.headers.authorization === undefined) return principal;
    const credential = bearerCredential(request);
    const presented = credential ? await this.credentials.identify(credential, request.ip) : undefined;
    return { ...principal, presented: presented ?? 'refused' };
  }

  /** The pure check: the registrant when `key` is the server's registration key (constant-time compare). */
  verify(key: string): RegistrantPrincipal | undefined {
    return this.secrets.matches('registration-key', key) ? { kind: 'registrant' } : undefined;
  }
}
