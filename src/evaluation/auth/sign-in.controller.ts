import { Body, Controller, HttpCode, Post, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags, ApiTooManyRequestsResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/auth.decorators';
import { authenticateWith } from '../../common/auth/auth.guard';
import { EvaluationPasswordStrategy, EvaluationSessions } from './evaluation-auth';

/** Body of `POST /api/auth/sign-in`. */
export class SignInDto {
  @ApiProperty({ description: 'The administrator password (EVAL_ADMIN_PASSWORD).', writeOnly: true })
  @IsString() @IsNotEmpty() @MaxLength(256)
  password: string;
}

/** A session token for the evaluation platform. */
export class SessionDto {
  @ApiProperty({ description: 'Session token; send as `Authorization: Bearer <token>` to evaluation routes.' })
  token: string;
  @ApiProperty({ description: 'When the token stops working (ISO 8601, UTC).' })
  expiresAt: string;
}

/**
 * Sign-in of the evaluation platform (evaluation-platform.md, Authentication; path not shown in the spec). The route
 * is public (the password is the credential); the password is checked by the `eval-password` Passport strategy once
 * the body was validated.
 */
@ApiTags('evaluation')
@Controller('api/auth')
export class SignInController {
  constructor(
    private readonly sessions: EvaluationSessions,
    private readonly password: EvaluationPasswordStrategy,
  ) {}

  @Post('sign-in')
  @HttpCode(200)
  @Public()
  @ApiOperation({
    summary: 'Sign in with the administrator password',
    description: 'Returns an HMAC-signed session token valid for EVAL_SESSION_TTL_MS. 401 wrong password or sign-in disabled; 429 with Retry-After after EVAL_SIGN_IN_MAX_FAILURES failures from one address (IPv6: one /64) within the EVAL_SIGN_IN_WINDOW_MS window; the password is then not checked, even a right one.',
  })
  @ApiOkResponse({ type: SessionDto })
  @ApiUnauthorizedResponse({ description: 'Wrong password, or EVAL_ADMIN_PASSWORD not set.' })
  @ApiTooManyRequestsResponse({ description: 'Too many failed sign-ins from this address; `Retry-After` gives the seconds to wait (problem+json).' })
  async signIn(@Body() _body: SignInDto, @Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<SessionDto> {
    const { subject } = (await authenticateWith([this.password], request, response)) as { subject: string };
    const session = this.sessions.issue(subject);
    return { token: session.token, expiresAt: session.expiresAt.toISOString() };
  }
}
