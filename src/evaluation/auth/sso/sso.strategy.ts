import { ForbiddenException, HttpStatus, Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { InjectDataSource } from '@nestjs/typeorm';
import { Strategy as OAuth2Strategy } from 'passport-oauth2';
import type { Request, Response } from 'express';
import { DataSource } from 'typeorm';
import { ANSWERED, authenticateWith } from '../../../common/auth/auth.guard';
import { GuessLimiter } from '../../../common/auth/guess-limiter';
import { OperatorSignInRegistry, type OperatorSignInHandoff, type OperatorSignInStarter } from '../../../common/ports/operator-sign-in';
import { ProblemException } from '../../../common/http/problem-details';
import { OutboundHttp } from '../../../common/outbound/outbound.service';
import type { OutboundClient } from '../../../common/outbound/outbound-client';
import { OutboundRequestError } from '../../../common/outbound/guarded-http';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { ssoUserSubject } from '../evaluation-auth';
import type { EvaluationSsoSettings } from './sso.config';
import { type SsoClaims, ssoRefusal, ssoUserName } from './sso.rules';
import { SsoStateStore } from './sso-state.store';

/** Passport name of the operator single sign-on strategy (issue 13 item 2). */
export const EVAL_SSO_STRATEGY = 'eval-sso';

/** Who single sign-on let in: the session subject (`user:<name>`) and the name. */
export interface SsoUser {
  subject: string;
  userName: string;
}

/** The provider's endpoints in use (configured, or from OpenID Connect discovery). */
interface SsoEndpoints {
  authorizationUrl: string;
  tokenUrl: string;
  userinfoUrl: string;
}

/** The `oauth` library's OAuth2 client inside passport-oauth2, as far as this strategy touches it. */
interface OAuth2Client {
  _authorizeUrl: string;
  _accessTokenUrl: string;
  _request(method: string, url: string, headers: Record<string, string> | null, body: string | null, accessToken: string | null, callback: (error: unknown, data?: string, response?: { statusCode: number }) => void): void;
}

/**
 * A failure to talk to the identity provider, as the callback answers it: 504 when the provider did not answer in
 * time (EVAL_SSO_TIMEOUT_MS; the chat platform adapter's convention), else 502. Never names secrets or codes.
 */
export function providerFailure(error: unknown, step: string): ProblemException {
  const outbound = outboundError(error);
  if (outbound?.code === 'timeout') return new ProblemException(HttpStatus.GATEWAY_TIMEOUT, `The identity provider did not answer the ${step} in time (EVAL_SSO_TIMEOUT_MS).`);
  const status = (error as { oauthError?: { statusCode?: unknown } })?.oauthError?.statusCode ?? (error as { statusCode?: unknown })?.statusCode;
  if (typeof status === 'number') return new ProblemException(HttpStatus.BAD_GATEWAY, `The identity provider answered ${status} to the ${step}.`);
  if (outbound) return new ProblemException(HttpStatus.BAD_GATEWAY, `The identity provider could not be reached for the ${step}: ${outbound.detail}`);
  return new ProblemException(HttpStatus.BAD_GATEWAY, `The identity provider's answer to the ${step} could not be used.`);
}

function outboundError(error: unknown): OutboundRequestError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    if (current instanceof OutboundRequestError) return current;
    current = (current as { oauthError?: unknown; cause?: unknown }).oauthError ?? (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Operator single sign-on (issue 13 item 2): passport-oauth2's authorization code flow with PKCE (S256) against the
 * EVAL_SSO_* provider. Passport strategy `eval-sso`, run by the single sign-on controller.
 * - Every call to the provider (discovery, code exchange, userinfo) goes through the guarded outbound client of its
 *   own use (EVAL_SSO_ALLOW_PRIVATE_NETWORKS, EVAL_SSO_TIMEOUT_MS, EVAL_SSO_MAX_RESPONSE_BYTES): the `oauth` client's
 *   one transport (`_request`) is replaced by it, which is what `setAgent` would give and more (address policy with
 *   pinned DNS, byte cap, deadline).
 * - state and the PKCE verifier: {@link SsoStateStore} (PostgreSQL, single use, bound to the browser by a cookie).
 * - `validate` reads the user's claims from the userinfo endpoint and refuses anyone EVAL_SSO_ALLOWED_* does not allow
 *   (403); the accepted user becomes `user:<e-mail or login>`.
 * - It is the operator sign-in port's starter (src/common/ports/operator-sign-in.ts): another wing (the chat wing's
 *   authorization server) starts a sign-in with a handoff, which the callback honours once the user is allowed.
 */
@Injectable()
export class EvaluationSsoStrategy extends PassportStrategy(OAuth2Strategy, EVAL_SSO_STRATEGY) implements OperatorSignInStarter {
  private readonly logger = new Logger('EvaluationSso');
  private readonly settings: EvaluationSsoSettings;
  private readonly client: OutboundClient;
  private endpoints?: Promise<SsoEndpoints>;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectDataSource() dataSource: DataSource,
    outboundHttp: OutboundHttp,
    signInPort: OperatorSignInRegistry,
    limiter: GuessLimiter,
  ) {
    const settings = config.evaluationSso;
    super({
      // Placeholders until discovery (ensureEndpoints) when only an issuer is configured, or while SSO is off.
      authorizationURL: settings.authorizationUrl ?? 'https://sso.invalid/authorize',
      tokenURL: settings.tokenUrl ?? 'https://sso.invalid/token',
      clientID: settings.clientId || 'sso-off',
      clientSecret: settings.clientSecret ?? '',
      callbackURL: settings.callbackUrl,
      scope: settings.scopes,
      pkce: true,
      state: true,
      store: new SsoStateStore(dataSource, settings.stateTtlMs, settings.callbackUrl.startsWith('https:'), limiter) as never,
    });
    this.settings = settings;
    this.client = outboundHttp.client(settings.outbound);
    const oauth2 = this.oauth2();
    oauth2._request = (method, url, headers, body, accessToken, callback) => this.send(method, url, headers ?? {}, body, accessToken, callback);
    signInPort.registerStarter(this);
  }

  /**
   * The operator sign-in port's start (another wing's sign-in): a redirect (302) to the provider whose stored state
   * carries `handoff`, honoured by `GET /api/auth/sso/callback`.
   * @throws NotFoundException when single sign-on is off; ProblemException 502/504 when discovery fails
   */
  async start(request: Request, response: Response, handoff: OperatorSignInHandoff): Promise<void> {
    if (!this.enabled) throw new NotFoundException('Single sign-on is not configured (EVAL_SSO_CLIENT_ID).');
    await this.ensureEndpoints();
    const outcome = await authenticateWith([this], request, response, { state: handoff });
    if (outcome !== ANSWERED) throw new ProblemException(HttpStatus.BAD_GATEWAY, 'The sign-in could not be started.');
  }

  /** EVAL_SSO_ISSUER without a trailing slash, when configured (the `iss` a callback must carry, RFC 9207). */
  get issuer(): string | undefined {
    return this.settings.issuer;
  }

  /** Whether single sign-on is configured (EVAL_SSO_CLIENT_ID). */
  get enabled(): boolean {
    return this.settings.enabled;
  }

  /**
   * Makes sure the provider's endpoints are known: the configured ones, the rest from the issuer's OpenID Connect
   * discovery document (fetched once per process; a failed fetch is retried by the next sign-in).
   * @throws ProblemException 502/504 when discovery fails
   */
  async ensureEndpoints(): Promise<void> {
    this.endpoints ??= this.discover().catch((error: unknown) => {
      this.endpoints = undefined;
      throw error;
    });
    const endpoints = await this.endpoints;
    const oauth2 = this.oauth2();
    oauth2._authorizeUrl = endpoints.authorizationUrl;
    oauth2._accessTokenUrl = endpoints.tokenUrl;
  }

  /** Passport's verify step: the user from userinfo, allowed or refused (403, nothing stored). */
  validate(_accessToken: string, _refreshToken: string, claims: SsoClaims): SsoUser {
    const refusal = ssoRefusal(claims, this.settings.allow);
    const userName = ssoUserName(claims);
    if (refusal || !userName) {
      this.logger.warn(`single sign-on refused ${userName ?? 'an unnamed user'}: not allowed by EVAL_SSO_ALLOWED_*`);
      throw new ForbiddenException(refusal ?? 'The identity provider did not name the user; this account may not sign in.');
    }
    return { subject: ssoUserSubject(userName), userName };
  }

  /** passport-oauth2's profile step: the userinfo claims, fetched through the guarded client with the access token. */
  override userProfile(accessToken: string, done: (error?: unknown, profile?: unknown) => void): void {
    this.fetchUserinfo(accessToken).then((claims) => done(null, claims), (error: unknown) => done(error));
  }

  private async fetchUserinfo(accessToken: string): Promise<SsoClaims> {
    const { userinfoUrl } = await this.endpoints!;
    const reply = await this.client.request({
      url: userinfoUrl,
      method: 'GET',
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'atrium-sso' },
    }).catch((error: unknown) => {
      throw providerFailure(error, 'userinfo request');
    });
    if (reply.status !== 200) throw providerFailure({ statusCode: reply.status }, 'userinfo request');
    try {
      const claims = JSON.parse(reply.body.toString('utf8')) as unknown;
      if (claims && typeof claims === 'object' && !Array.isArray(claims)) return claims as SsoClaims;
    } catch {
      // Answered below.
    }
    throw providerFailure(undefined, 'userinfo request');
  }

  private async discover(): Promise<SsoEndpoints> {
    const { issuer, authorizationUrl, tokenUrl, userinfoUrl } = this.settings;
    if (authorizationUrl && tokenUrl && userinfoUrl) return { authorizationUrl, tokenUrl, userinfoUrl };
    const reply = await this.client.request({ url: `${issuer}/.well-known/openid-configuration`, method: 'GET', headers: { accept: 'application/json' } }).catch((error: unknown) => {
      throw providerFailure(error, 'discovery request');
    });
    if (reply.status !== 200) throw providerFailure({ statusCode: reply.status }, 'discovery request');
    let document: Record<string, unknown>;
    try {
      document = JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw providerFailure(undefined, 'discovery request');
    }
    const pick = (configured: string | undefined, key: string): string => {
      const value = configured ?? document[key];
      if (typeof value !== 'string' || !/^https?:\/\//.test(value)) throw new ProblemException(HttpStatus.BAD_GATEWAY, `The identity provider's discovery document has no ${key}.`);
      return value;
    };
    if (document.issuer !== issuer) throw new ProblemException(HttpStatus.BAD_GATEWAY, `The discovery document names another issuer than EVAL_SSO_ISSUER.`);
    return { authorizationUrl: pick(authorizationUrl, 'authorization_endpoint'), tokenUrl: pick(tokenUrl, 'token_endpoint'), userinfoUrl: pick(userinfoUrl, 'userinfo_endpoint') };
  }

  /** The `oauth` client's transport, through the guarded client (the code exchange). */
  private send(method: string, url: string, headers: Record<string, string>, body: string | null, accessToken: string | null, callback: (error: unknown, data?: string, response?: { statusCode: number }) => void): void {
    const target = new URL(url);
    if (accessToken && !headers.Authorization) target.searchParams.set('access_token', accessToken);
    this.client
      .request({ url: target.toString(), method, headers: { accept: 'application/json', 'user-agent': 'atrium-sso', ...headers }, body: body ?? undefined })
      .then(
        (reply) => {
          const data = reply.body.toString('utf8');
          if (reply.status >= 200 && reply.status <= 299) callback(null, data, { statusCode: reply.status });
          else callback({ statusCode: reply.status, data });
        },
        (error: unknown) => callback(error),
      );
  }

  private oauth2(): OAuth2Client {
    return (this as unknown as { _oauth2: OAuth2Client })._oauth2;
  }
}
