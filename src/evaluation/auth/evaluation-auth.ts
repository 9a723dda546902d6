import { ForbiddenException, Inject, Injectable, OnModuleInit, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sharedSecret } from '../../common/cluster/shared-secrets';
import type { Request } from 'express';
import { AuthRequirement, CredentialStrategy } from '../../common/auth/auth.decorators';
import { bearerCredential } from '../../common/auth/auth.guard';
import { GuessLimiter } from '../../common/auth/guess-limiter';
import { randomSecret, secretsEqual } from '../../common/crypto/secrets';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { apiKeySubject } from './api-key.format';
import { ApiKeysService } from './api-keys.service';
import { signSessionToken, verifySessionToken } from './session-token';

/** OpenAPI security scheme names of the evaluation platform. */
export const EVAL_API_KEY_SCHEME = 'evaluationApiKey';
export const EVAL_SESSION_SCHEME = 'evaluationSession';
/** Either credential is accepted on every evaluation route. */
export const EVAL_SECURITY_SCHEMES = [EVAL_API_KEY_SCHEME, EVAL_SESSION_SCHEME];
/** Header that carries an evaluation API key. */
export const EVAL_API_KEY_HEADER = 'x-api-key';
/** The right to manage API keys: a session, or a key created with `admin: true` (every EVAL_API_KEYS key). */
export const EVAL_ADMIN_PERMISSION = 'admin';

/** Who called the evaluation platform. */
export interface EvaluationPrincipal {
  kind: 'api-key' | 'session';
  /** `api-key:<name>` for a key, `admin` for a session. */
  subject: string;
  /** The key's name (kind `api-key`). */
  keyName?: string;
  /** May manage API keys. */
  admin: boolean;
}

/**
 * Session tokens and sign-in (evaluation-platform.md, Authentication): the administrator password
 * (EVAL_ADMIN_PASSWORD) buys an HMAC-signed token with an expiry (EVAL_SESSION_TTL_MS). Failed sign-ins count
 * against the `eval-password` guessing limit of the client address (EVAL_SIGN_IN_MAX_FAILURES per
 * EVAL_SIGN_IN_WINDOW_MS), kept race-free in PostgreSQL by {@link GuessLimiter}: past it, 429 with Retry-After and
 * the password is not checked.
 */
@Injectable()
export class EvaluationSessions implements OnModuleInit {
  private secret: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: GuessLimiter,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.secret = config.evaluation.sessionSecret ?? '';
  }

  /**
   * Without EVAL_SESSION_SECRET, the signing secret is the one every instance shares through the database (generated
   * by the first instance, sealed with ATRIUM_SECRET_KEY; issue 20 item 5), so a token signed on one instance verifies
   * on the others and across restarts.
   */
  async onModuleInit(): Promise<void> {
    if (this.config.evaluation.sessionSecret) return;
    this.secret = (await sharedSecret(this.dataSource, 'eval-session-secret', () => randomSecret(32))).value;
  }

  /**
   * @param clientAddress the caller's address (`request.ip`)
   * @returns a session token and its expiry
   * @throws UnauthorizedException (401) sign-in disabled or wrong password
   * @throws GuessLimitExceeded (429, Retry-After) too many failures from this address in the window
   */
  async signIn(password: string, clientAddress: string | undefined): Promise<{ token: string; expiresAt: Date }> {
    const { adminPassword, signInMaxFailures, signInWindowMs, sessionTtlMs } = this.config.evaluation;
    if (!adminPassword) throw new UnauthorizedException('Sign-in is disabled: EVAL_ADMIN_PASSWORD is not set.');
    const accepted = await this.limiter.check('eval-password', clientAddress, () => this.verifyPassword(password, adminPassword), {
      maxFailures: signInMaxFailures,
      windowMs: signInWindowMs,
    });
    if (!accepted) throw new UnauthorizedException('Wrong password.');
    return signSessionToken('admin', this.secret, sessionTtlMs);
  }

  /** The pure password check (constant time): true when it matches, undefined when not. */
  verifyPassword(password: string, adminPassword: string): true | undefined {
    return secretsEqual(password, adminPassword) ? true : undefined;
  }

  /** @returns the session's subject, or undefined for a tampered, foreign or expired token */
  verify(token: string): string | undefined {
    return verifySessionToken(token, this.secret)?.sub;
  }
}

/**
 * Evaluation routes: a named API key in `X-API-Key` (looked up by its SHA-256 on every request, under the
 * `eval-api-key` guessing limit) or a session token from sign-in as `Authorization: Bearer <token>`. 401 for none,
 * unknown, revoked, tampered or expired; 403 when the route needs the admin right (`permission: 'admin'`) and the
 * key lacks it; 429 with Retry-After past the guessing limit. The principal names the key (`api-key:<name>`), and the
 * request's log lines carry it as `principal`.
 */
@Injectable()
export class EvaluationCredentialStrategy implements CredentialStrategy<EvaluationPrincipal> {
  constructor(
    private readonly sessions: EvaluationSessions,
    private readonly apiKeys: ApiKeysService,
    private readonly limiter: GuessLimiter,
  ) {}

  async authenticate(request: Request, requirement?: AuthRequirement): Promise<EvaluationPrincipal> {
    const principal = await this.identify(request);
    (request as { log?: { setBindings?: (bindings: object) => void } }).log?.setBindings?.({ principal: principal.subject });
    if (requirement?.permission === EVAL_ADMIN_PERMISSION && !principal.admin) {
      throw new ForbiddenException(`The API key "${principal.keyName}" may not manage API keys; use one created with admin: true, or a session.`);
    }
    return principal;
  }

  private async identify(request: Request): Promise<EvaluationPrincipal> {
    const apiKey = request.headers[EVAL_API_KEY_HEADER];
    if (typeof apiKey === 'string' && apiKey.length > 0) {
      const key = await this.limiter.check('eval-api-key', request.ip, () => this.apiKeys.verify(apiKey));
      if (!key) throw new UnauthorizedException('The API key is unknown or revoked.');
      return { kind: 'api-key', subject: apiKeySubject(key.name), keyName: key.name, admin: key.admin };
    }
    const token = bearerCredential(request);
    if (!token) throw new UnauthorizedException('Send an API key (X-API-Key) or a session token (Authorization: Bearer).');
    const subject = this.sessions.verify(token);
    if (!subject) throw new UnauthorizedException('The session token is invalid or expired; sign in again.');
    return { kind: 'session', subject, admin: true };
  }
}
