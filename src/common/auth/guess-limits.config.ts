import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';

const GROUP = 'Guessing limits';
const DAY_MS = 86_400_000;

/**
 * The credentials whose failures are counted (issue 12 item 5). The evaluation sign-in password keeps its own
 * variables (EVAL_SIGN_IN_MAX_FAILURES, EVAL_SIGN_IN_WINDOW_MS in evaluation.config.ts) and passes them as the limit.
 * `sign-in-start` is not a credential: every single sign-on start counts, since each stores a short-lived row before
 * anyone is known (issue 13: the SSO state, the authorization server's interaction).
 */
export const GUESS_KINDS = ['deploy-registration-key', 'deploy-owner-token', 'eval-password', 'eval-api-key', 'sign-in-start'] as const;
export type GuessKind = (typeof GUESS_KINDS)[number];

/** Most failures and window of one credential kind. */
export interface GuessLimit {
  /** Checked failures allowed per client and window; the next attempt gets 429 without being checked. */
  maxFailures: number;
  /** Window length, ms; windows are aligned to the epoch. */
  windowMs: number;
}

/**
 * Environment variables of the guessing limits: one default for every kind, and an override per kind. Test suites
 * that send wrong credentials from 127.0.0.1 use their own database, and may shorten the window.
 */
export class GuessLimitVariables {
  @ConfigVariable({ group: GROUP, description: 'failed credential checks allowed per client address (IPv6: per /64) and window, for every kind without its own value; the next attempt gets 429 with Retry-After, unchecked', unit: 'count' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000)
  AUTH_GUESS_MAX_FAILURES: number = 10;

  @ConfigVariable({ group: GROUP, description: 'length of the fixed counting window, for every kind without its own value', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(DAY_MS)
  AUTH_GUESS_WINDOW_MS: number = 15 * 60_000;

  @ConfigVariable({ group: GROUP, description: 'failures allowed for the deploy registration key (POST /api/auth/register)', unit: 'count', defaultText: '$AUTH_GUESS_MAX_FAILURES' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000)
  AUTH_GUESS_REGISTRATION_KEY_MAX_FAILURES?: number;

  @ConfigVariable({ group: GROUP, description: 'window for the deploy registration key', unit: 'ms', defaultText: '$AUTH_GUESS_WINDOW_MS' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(DAY_MS)
  AUTH_GUESS_REGISTRATION_KEY_WINDOW_MS?: number;

  @ConfigVariable({ group: GROUP, description: 'failures allowed for the deploy owner token (a bearer credential without an agent-token prefix, on any gateway route)', unit: 'count', defaultText: '$AUTH_GUESS_MAX_FAILURES' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000)
  AUTH_GUESS_OWNER_TOKEN_MAX_FAILURES?: number;

  @ConfigVariable({ group: GROUP, description: 'window for the deploy owner token', unit: 'ms', defaultText: '$AUTH_GUESS_WINDOW_MS' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(DAY_MS)
  AUTH_GUESS_OWNER_TOKEN_WINDOW_MS?: number;

  @ConfigVariable({ group: GROUP, description: 'failures allowed for evaluation API keys (X-API-Key)', unit: 'count', defaultText: '$AUTH_GUESS_MAX_FAILURES' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000)
  AUTH_GUESS_EVAL_API_KEY_MAX_FAILURES?: number;

  @ConfigVariable({ group: GROUP, description: 'window for evaluation API keys', unit: 'ms', defaultText: '$AUTH_GUESS_WINDOW_MS' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(DAY_MS)
  AUTH_GUESS_EVAL_API_KEY_WINDOW_MS?: number;

  @ConfigVariable({
    group: GROUP,
    description:
      'how long an attempt waits while only checks still in flight (slow password or registration-key checks of the same client) stand between it and the limit, before it gets 429 with Retry-After: 1; raise it where many parallel sign-ins share one address (a CI runner behind NAT)',
    unit: 'ms',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(120_000)
  AUTH_GUESS_BUSY_WAIT_MS: number = 5_000;

  @ConfigVariable({
    group: GROUP,
    description:
      'single sign-on logins started per client address (IPv6: per /64) and window, counted however they end: GET /api/auth/sso/login, and the built-in authorization server\'s /oauth/auth and operator login while single sign-on is on (each stores a short-lived row); the next start gets 429 with Retry-After',
    unit: 'count',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1_000_000)
  AUTH_SIGN_IN_START_MAX: number = 60;

  @ConfigVariable({ group: GROUP, description: 'window of AUTH_SIGN_IN_START_MAX', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1000) @Max(DAY_MS)
  AUTH_SIGN_IN_START_WINDOW_MS: number = 15 * 60_000;

  @ConfigVariable({ group: GROUP, description: 'how long a window\'s counts (the aggregate audit of refused guesses) are kept after it ends', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  AUTH_GUESS_RETENTION_MS: number = 30 * DAY_MS;
}

/** The guessing limits' slice of AppConfig: `guessLimits.limits[kind]`, `guessLimits.retentionMs` and `guessLimits.busyWaitMs` (ms). */
export const guessLimitsConfig = declareConfig({
  wing: 'core',
  variables: GuessLimitVariables,
  resolve: (vars) => {
    const limit = (max: number | undefined, windowMs: number | undefined): GuessLimit => ({
      maxFailures: max ?? vars.AUTH_GUESS_MAX_FAILURES,
      windowMs: windowMs ?? vars.AUTH_GUESS_WINDOW_MS,
    });
    const limits: Record<Exclude<GuessKind, 'eval-password'>, GuessLimit> = {
      'deploy-registration-key': limit(vars.AUTH_GUESS_REGISTRATION_KEY_MAX_FAILURES, vars.AUTH_GUESS_REGISTRATION_KEY_WINDOW_MS),
      'deploy-owner-token': limit(vars.AUTH_GUESS_OWNER_TOKEN_MAX_FAILURES, vars.AUTH_GUESS_OWNER_TOKEN_WINDOW_MS),
      'eval-api-key': limit(vars.AUTH_GUESS_EVAL_API_KEY_MAX_FAILURES, vars.AUTH_GUESS_EVAL_API_KEY_WINDOW_MS),
      'sign-in-start': { maxFailures: vars.AUTH_SIGN_IN_START_MAX, windowMs: vars.AUTH_SIGN_IN_START_WINDOW_MS },
    };
    return { guessLimits: { limits, retentionMs: vars.AUTH_GUESS_RETENTION_MS, busyWaitMs: vars.AUTH_GUESS_BUSY_WAIT_MS } };
  },
});

declare module '../../config/app-config' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppConfig extends ReturnType<typeof guessLimitsConfig.resolve> {}
}
