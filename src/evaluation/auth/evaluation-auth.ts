import { ForbiddenException, Inject, Injectable, OnModuleInit, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import { DataSource } from 'typeorm';
import { sharedSecret } from '../../common/cluster/shared-secrets';
import { CredentialChain, type CredentialCheckOptions } from '../../common/auth/auth.decorators';
import { bearerCredential } from '../../common/auth/auth.guard';
import { GuessLimiter } from '../../common/auth/guess-limiter';
import { randomSecret, secretsEqual } from '../../common/crypto/secrets';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { apiKeySubject } from './api-key.format';
import { ApiKeysService, type RecognisedApiKey } from './api-keys.service';
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
/** The subject of a session signed in with the administrator password. */
export const EVAL_ADMIN_SUBJECT = 'admin';

/** Passport names of the evaluation platform's strategies (issue 13 item 1). */
export const EVAL_API_KEY_STRATEGY = 'eval-api-key';
export const EVAL_SESSION_STRATEGY = 'eval-session';
export const EVAL_PASSWORD_STRATEGY = 'eval-password';

/** Who called the evaluation platform. */
export interface EvaluationPrincipal {
  kind: 'api-key' | 'session';
  /**
   * Who acts, in records and logs: `api-key:<name>` for a key, `admin` for a password session, `user:<name>` for a
   * single sign-on session (issue 13 item 2, acceptance 4).
   */
  subject: string;
  /** The key's name (kind `api-key`). */
  keyName?: string;
  /** May manage API keys. */
  admin: boolean;
}

/** The subject of a single sign-on session: `user:<name>` (the user's e-mail or login name). */
export function ssoUserSubject(userName: string): string {
  return `user:${userName}`;
}

/**
 * Session tokens (evaluation-platform.md, Authentication): HMAC-signed, with an expiry (EVAL_SESSION_TTL_MS), naming
 * who signed in (`sub`: `admin` for the password, `user:<name>` for single sign-on). Issued after the password
 * strategy or the single sign-on strategy accepted the caller; verified by {@link EvaluationSessionStrategy}.
 */
@Injectable()
export class EvaluationSessions implements OnModuleInit {
  private secret: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
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
   * Signs a session token for a caller a strategy accepted.
   * @param subject `admin` or `user:<name>`
   * @returns the token and its expiry (EVAL_SESSION_TTL_MS from now)
   */
  issue(subject: string): { token: string; expiresAt: Date } {
    return signSessionToken(subject, this.secret, this.config.evaluation.sessionTtlMs);
  }

  /** The pure check: the session's subject, or undefined for a tampered, foreign or expired token. */
  verify(token: string): string | undefined {
    return verifySessionToken(token, this.secret)?.sub;
  }
}

/** Adds the caller to the request's log lines (`principal`). */
function logPrincipal(request: Request, principal: EvaluationPrincipal): EvaluationPrincipal {
  (request as { log?: { setBindings?: (bindings: object) => void } }).log?.setBindings?.({ principal: principal.subject });
  return principal;
}

/**
 * A named API key in `X-API-Key` (issue 19 item 6), looked up by its SHA-256 on every request under the
 * `eval-api-key` guessing limit: 401 unknown or revoked; 403 when the route needs the admin right
 * (`permission: 'admin'`) and the key lacks it; 429 with Retry-After past the guessing limit. Without the header it
 * passes to the next strategy of the chain (the session). Passport strategy `eval-api-key`.
 */
@Injectable()
export class EvaluationApiKeyStrategy extends PassportStrategy(CustomStrategy, EVAL_API_KEY_STRATEGY) {
  constructor(
    private readonly apiKeys: ApiKeysService,
    private readonly limiter: GuessLimiter,
  ) {
    super({ passOptionsToCallback: true });
  }

  async validate(request: Request, options: CredentialCheckOptions = {}): Promise<EvaluationPrincipal | null> {
    const apiKey = request.headers[EVAL_API_KEY_HEADER];
    if (typeof apiKey !== 'string' || apiKey.length === 0) return null;
    // Limit, lookup and last-use note in one round trip (GuessLimiter.checkLookup).
    const key = await this.limiter.checkLookup<RecognisedApiKey>('eval-api-key', request.ip, this.apiKeys.liveKeyLookup(apiKey));
    if (!key) throw new UnauthorizedException('The API key is unknown or revoked.');
    const principal = logPrincipal(request, { kind: 'api-key', subject: apiKeySubject(key.name), keyName: key.name, admin: key.admin });
    if (options.requirement?.permission === EVAL_ADMIN_PERMISSION && !principal.admin) {
      throw new ForbiddenException(`The API key "${principal.keyName}" may not manage API keys; use one created with admin: true, or a session.`);
    }
    return principal;
  }
}

/**
 * A session token from sign-in (password or single sign-on) as `Authorization: Bearer <token>`: 401 for none,
 * tampered, foreign or expired. A session holds the admin right. Passport strategy `eval-session`.
 */
@Injectable()
export class EvaluationSessionStrategy extends PassportStrategy(CustomStrategy, EVAL_SESSION_STRATEGY) {
  constructor(private readonly sessions: EvaluationSessions) {
    super();
  }

  validate(request: Request): EvaluationPrincipal {
    const token = bearerCredential(request);
    if (!token) throw new UnauthorizedException('Send an API key (X-API-Key) or a session token (Authorization: Bearer).');
    const subject = this.sessions.verify(token);
    if (!subject) throw new UnauthorizedException('The session token is invalid or expired; sign in again.');
    return logPrincipal(request, { kind: 'session', subject, admin: true });
  }
}

/**
 * The administrator password of `POST /api/auth/sign-in` (EVAL_ADMIN_PASSWORD), in the validated body's `password`.
 * Failed sign-ins count against the `eval-password` guessing limit of the client address
 * (EVAL_SIGN_IN_MAX_FAILURES per EVAL_SIGN_IN_WINDOW_MS), kept race-free in PostgreSQL by {@link GuessLimiter}: past
 * it, 429 with Retry-After and the password is not checked. 401 wrong password, sign-in disabled (no password set),
 * or turned off (EVAL_PASSWORD_SIGN_IN=false with single sign-on on). Passport strategy `eval-password`, run by the
 * sign-in controller after the body was validated.
 */
@Injectable()
export class EvaluationPasswordStrategy extends PassportStrategy(CustomStrategy, EVAL_PASSWORD_STRATEGY) {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly limiter: GuessLimiter,
  ) {
    super();
  }

  async validate(request: Request): Promise<{ subject: string }> {
    const { adminPassword, signInMaxFailures, signInWindowMs } = this.config.evaluation;
    if (!this.config.evaluationSso.passwordSignIn) {
      throw new UnauthorizedException('Password sign-in is turned off (EVAL_PASSWORD_SIGN_IN=false); sign in with single sign-on at /api/auth/sso/login.');
    }
    if (!adminPassword) throw new UnauthorizedException('Sign-in is disabled: EVAL_ADMIN_PASSWORD is not set.');
    const password = (request.body as { password?: unknown } | undefined)?.password;
    const accepted = await this.limiter.check('eval-password', request.ip, () => (typeof password === 'string' ? this.verifyPassword(password, adminPassword) : undefined), {
      maxFailures: signInMaxFailures,
      windowMs: signInWindowMs,
    });
    if (!accepted) throw new UnauthorizedException('Wrong password.');
    return { subject: EVAL_ADMIN_SUBJECT };
  }

  /** The pure password check (constant time): true when it matches, undefined when not. */
  verifyPassword(password: string, adminPassword: string): true | undefined {
    return secretsEqual(password, adminPassword) ? true : undefined;
  }
}

/**
 * Evaluation routes: a named API key in `X-API-Key`, else a session token as `Authorization: Bearer` (Passport's
 * strategy chain: `eval-api-key`, then `eval-session`). Named as before the move to Passport, so the reviewed access
 * rules (`x-atrium-auth`) read the same.
 */
export const EvaluationCredentialStrategy = new CredentialChain('EvaluationCredentialStrategy', [EvaluationApiKeyStrategy, EvaluationSessionStrategy]);
