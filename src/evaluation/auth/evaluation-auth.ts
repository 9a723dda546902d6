import { HttpStatus, Inject, Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Request } from 'express';
import { DataSource, MoreThan } from 'typeorm';
import { CredentialStrategy } from '../../common/auth/auth.decorators';
import { bearerCredential } from '../../common/auth/auth.guard';
import { randomSecret, secretsEqual } from '../../common/crypto/secrets';
import { ProblemException } from '../../common/http/problem-details';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { SignInFailureEntity } from './sign-in-failure.entity';
import { signSessionToken, verifySessionToken } from './session-token';

/** OpenAPI security scheme names of the evaluation platform. */
export const EVAL_API_KEY_SCHEME = 'evaluationApiKey';
export const EVAL_SESSION_SCHEME = 'evaluationSession';
/** Either credential is accepted on every evaluation route. */
export const EVAL_SECURITY_SCHEMES = [EVAL_API_KEY_SCHEME, EVAL_SESSION_SCHEME];
/** Header that carries an evaluation API key. */
export const EVAL_API_KEY_HEADER = 'x-api-key';

/** Who called the evaluation platform. */
export interface EvaluationPrincipal {
  kind: 'api-key' | 'session';
  subject: string;
}

/**
 * Session tokens and sign-in (evaluation-platform.md, Authentication): the administrator password
 * (EVAL_ADMIN_PASSWORD) buys an HMAC-signed token with an expiry (EVAL_SESSION_TTL_MS). Failed sign-ins are
 * counted per client address in PostgreSQL (shared by all instances); past EVAL_SIGN_IN_MAX_FAILURES within
 * EVAL_SIGN_IN_WINDOW_MS the address gets 429 until the window passes.
 */
@Injectable()
export class EvaluationSessions {
  private readonly logger = new Logger(EvaluationSessions.name);
  private readonly secret: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {
    this.secret = config.evaluation.sessionSecret ?? randomSecret(32);
    if (!config.evaluation.sessionSecret && config.evaluation.adminPassword) {
      this.logger.warn('EVAL_SESSION_SECRET is not set: session tokens end at restart and work on this instance only.');
    }
  }

  /**
   * @returns a session token and its expiry
   * @throws UnauthorizedException (401) sign-in disabled or wrong password
   * @throws ProblemException (429) too many failures from this address
   */
  async signIn(password: string, clientAddress: string): Promise<{ token: string; expiresAt: Date }> {
    const { adminPassword, signInMaxFailures, signInWindowMs, sessionTtlMs } = this.config.evaluation;
    const failures = this.dataSource.getRepository(SignInFailureEntity);
    const windowStart = new Date(Date.now() - signInWindowMs);
    const recent = await failures.countBy({ clientAddress, failedAt: MoreThan(windowStart) });
    if (recent >= signInMaxFailures) {
      throw new ProblemException(HttpStatus.TOO_MANY_REQUESTS, 'Too many failed sign-ins from this address; try again later.');
    }
    if (!adminPassword || !secretsEqual(password, adminPassword)) {
      await failures.insert({ clientAddress, failedAt: new Date() });
      await failures.createQueryBuilder().delete().where('failed_at < :windowStart', { windowStart }).execute();
      throw new UnauthorizedException(adminPassword ? 'Wrong password.' : 'Sign-in is disabled: EVAL_ADMIN_PASSWORD is not set.');
    }
    return signSessionToken('admin', this.secret, sessionTtlMs);
  }

  /** @returns the session's subject, or undefined for a tampered, foreign or expired token */
  verify(token: string): string | undefined {
    return verifySessionToken(token, this.secret)?.sub;
  }
}

/**
 * Evaluation routes: an API key in `X-API-Key` (compared in constant time with each of EVAL_API_KEYS) or a
 * session token from sign-in as `Authorization: Bearer <token>`. 401 for none, unknown, tampered or expired.
 */
@Injectable()
export class EvaluationCredentialStrategy implements CredentialStrategy<EvaluationPrincipal> {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly sessions: EvaluationSessions,
  ) {}

  async authenticate(request: Request): Promise<EvaluationPrincipal> {
    const apiKey = request.headers[EVAL_API_KEY_HEADER];
    if (typeof apiKey === 'string' && apiKey.length > 0) {
      // Every key is compared, so the time taken does not tell which one nearly matched.
      const matched = this.config.evaluation.apiKeys.map((key) => secretsEqual(apiKey, key)).some(Boolean);
      if (!matched) throw new UnauthorizedException('The API key is not valid.');
      return { kind: 'api-key', subject: 'api-key' };
    }
    const token = bearerCredential(request);
    if (!token) throw new UnauthorizedException('Send an API key (X-API-Key) or a session token (Authorization: Bearer).');
    const subject = this.sessions.verify(token);
    if (!subject) throw new UnauthorizedException('The session token is invalid or expired; sign in again.');
    return { kind: 'session', subject };
  }
}
