import { Controller, Get, HttpException, HttpStatus, NotFoundException, Query, Req, Res } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiForbiddenResponse, ApiGatewayTimeoutResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags, ApiTooManyRequestsResponse } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import type { Request, Response } from 'express';
import { Public } from '../../../common/auth/auth.decorators';
import { ANSWERED, authenticateWith } from '../../../common/auth/auth.guard';
import { ProblemException } from '../../../common/http/problem-details';
import { OperatorSignInRegistry } from '../../../common/ports/operator-sign-in';
import { EvaluationSessions } from '../evaluation-auth';
import { SessionDto } from '../sign-in.controller';
import { ssoHandoff } from './sso-state.store';
import { EvaluationSsoStrategy, providerFailure, type SsoUser } from './sso.strategy';

/** Query of `GET /api/auth/sso/callback`: what an OAuth 2.0 / OpenID Connect provider sends back (RFC 6749 §4.1.2, RFC 9207 `iss`, and the extras Keycloak and Google add). */
export class SsoCallbackQueryDto {
  @ApiPropertyOptional({ description: 'The authorization code.' }) @IsOptional() @IsString() @MaxLength(4096) code?: string;
  @ApiPropertyOptional({ description: 'The state sent at login (single use, bound to the browser by a cookie).' }) @IsOptional() @IsString() @MaxLength(512) state?: string;
  @ApiPropertyOptional({ description: 'The provider\'s error code, instead of a code.' }) @IsOptional() @IsString() @MaxLength(256) error?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) error_description?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) error_uri?: string;
  @ApiPropertyOptional({ description: 'The issuer (RFC 9207).' }) @IsOptional() @IsString() @MaxLength(2048) iss?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(512) session_state?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(2048) scope?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) authuser?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(256) hd?: string;
  @ApiPropertyOptional() @IsOptional() @IsString() @MaxLength(64) prompt?: string;
}

/** A session token from single sign-on: the password sign-in's, plus who it names. */
export class SsoSessionDto extends SessionDto {
  @ApiProperty({ description: 'The signed-in user (verified e-mail, else login name); evaluation records name the caller `user:<this>`.', example: 'alice@example.com' })
  user: string;
}

/**
 * Operator single sign-on of the evaluation platform (issue 13 item 2; paths not in the spec): authorization code with
 * PKCE through passport-oauth2 (`eval-sso`). Both routes are public: the provider is the credential.
 */
@ApiTags('evaluation')
@Controller('api/auth/sso')
export class SsoController {
  constructor(
    private readonly sso: EvaluationSsoStrategy,
    private readonly sessions: EvaluationSessions,
    private readonly signInPort: OperatorSignInRegistry,
  ) {}

  @Get('login')
  @Public()
  @ApiOperation({
    summary: 'Start single sign-on',
    description:
      'Redirects (302) to the identity provider (EVAL_SSO_*) with `state` and a PKCE S256 `code_challenge`, and sets a short-lived HttpOnly cookie that binds the sign-in to this browser. 404 when single sign-on is not configured; 502/504 when the provider\'s discovery document cannot be read; 429 past AUTH_SIGN_IN_START_MAX starts from one address in AUTH_SIGN_IN_START_WINDOW_MS (each start stores a row before anyone is known).',
  })
  @ApiResponse({ status: 302, description: 'To the provider\'s authorization endpoint (`Location`).' })
  @ApiNotFoundResponse({ description: 'Single sign-on is not configured (problem+json).' })
  @ApiTooManyRequestsResponse({ description: 'Too many sign-ins started from this address; `Retry-After` gives the seconds to wait (problem+json).' })
  @ApiBadGatewayResponse({ description: 'The provider\'s discovery failed (problem+json).' })
  @ApiGatewayTimeoutResponse({ description: 'The provider did not answer in time (problem+json).' })
  async login(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.ready();
    const outcome = await authenticateWith([this.sso], request, response);
    if (outcome !== ANSWERED) throw new ProblemException(HttpStatus.BAD_GATEWAY, 'The sign-in could not be started.');
  }

  @Get('callback')
  @Public()
  @ApiOperation({
    summary: 'Finish single sign-on',
    description:
      'Checks `state` (single use, same browser), exchanges the code with the PKCE verifier, reads the user from the userinfo endpoint and, when EVAL_SSO_ALLOWED_* allows them, returns the same session token as the password sign-in, naming the user. ' +
      '400 forged, replayed or expired state, another issuer\'s response (RFC 9207 `iss`), or a code the provider refused; 403 a user who may not sign in, or a sign-in refused at the provider (nothing stored); 502 the provider failed; 504 it did not answer in time (EVAL_SSO_TIMEOUT_MS). ' +
      'A sign-in started by the chat authorization server (Swagger UI\'s "Authorize", issue 13) is handed back to it instead: 303 to `/oauth/auth/{uid}`, where the authorization request resumes with the user signed in.',
  })
  @ApiOkResponse({ type: SsoSessionDto })
  @ApiResponse({ status: 303, description: 'A sign-in another wing started (the chat authorization server\'s operator login): back to it (`Location`).' })
  @ApiBadRequestResponse({ description: 'Forged, replayed or expired state; bad query; refused code (problem+json).' })
  @ApiForbiddenResponse({ description: 'The user is not allowed (EVAL_SSO_ALLOWED_*), or refused at the provider (problem+json).' })
  @ApiNotFoundResponse({ description: 'Single sign-on is not configured (problem+json).' })
  @ApiBadGatewayResponse({ description: 'The provider failed (problem+json).' })
  @ApiGatewayTimeoutResponse({ description: 'The provider did not answer in time (problem+json).' })
  async callback(@Query() query: SsoCallbackQueryDto, @Req() request: Request, @Res() response: Response): Promise<void> {
    await this.ready();
    if (!query.code && !query.error) throw new ProblemException(HttpStatus.BAD_REQUEST, 'The sign-in response has neither a code nor an error; start at /api/auth/sso/login.');
    // RFC 9207: a response naming another issuer was meant for another provider's flow (mix-up); refuse it unread.
    if (query.iss !== undefined && this.sso.issuer !== undefined && query.iss.replace(/\/+$/, '') !== this.sso.issuer) {
      throw new ProblemException(HttpStatus.BAD_REQUEST, 'The sign-in response names another issuer (iss) than EVAL_SSO_ISSUER.');
    }
    let user: SsoUser;
    try {
      user = (await authenticateWith([this.sso], request, response)) as SsoUser;
    } catch (error) {
      throw callbackFailure(error);
    }
    const handoff = ssoHandoff(request);
    if (handoff) {
      const continuation = this.signInPort.continuation(handoff.purpose);
      if (!continuation) throw new ProblemException(HttpStatus.BAD_REQUEST, 'The sign-in was started for something this server no longer serves; start again.');
      const location = await continuation({ subject: user.subject, userName: user.userName }, handoff.reference);
      // No body: the redirect is the whole answer. The browser may be a popup whose opener waits for it (Swagger UI's
      // "Authorize"): a `same-origin` opener policy on this hop would cut that link, so this redirect sends none.
      response.status(HttpStatus.SEE_OTHER).setHeader('location', location).setHeader('cross-origin-opener-policy', 'unsafe-none').end();
      return;
    }
    const session = this.sessions.issue(user.subject);
    const body: SsoSessionDto = { token: session.token, expiresAt: session.expiresAt.toISOString(), user: user.userName };
    response.status(HttpStatus.OK).json(body);
  }

  private async ready(): Promise<void> {
    if (!this.sso.enabled) throw new NotFoundException('Single sign-on is not configured (EVAL_SSO_CLIENT_ID).');
    await this.sso.ensureEndpoints();
  }
}

/**
 * The answer to a failed callback: the strategy's own HTTP errors as they are (400 state, 403 not allowed);
 * passport-oauth2's errors by what they mean: a sign-in denied at the provider (its `fail`, a 401 here) → 403; the
 * provider refusing the code (`invalid_grant`) → 400; any other provider error, failure or timeout → 502/504.
 */
function callbackFailure(error: unknown): HttpException {
  const name = (error as { name?: unknown })?.name;
  if (name === 'TokenError' && (error as { code?: unknown }).code === 'invalid_grant') {
    return new ProblemException(HttpStatus.BAD_REQUEST, 'The identity provider refused the authorization code (invalid_grant: used, expired or not issued to this client); start again at /api/auth/sso/login.');
  }
  if (name === 'AuthorizationError' || name === 'TokenError') {
    return new ProblemException(HttpStatus.BAD_GATEWAY, `The identity provider answered with an error (${String((error as { code?: unknown }).code ?? 'unknown')}).`);
  }
  if (error instanceof HttpException) {
    if (error.getStatus() === HttpStatus.UNAUTHORIZED) return new ProblemException(HttpStatus.FORBIDDEN, 'The sign-in was refused at the identity provider.');
    return error;
  }
  return providerFailure(error, 'code exchange');
}
