import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUrl, Matches, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig, toList, typedSlice } from '../../../config/config-variable';
import type { OutboundUseSettings } from '../../../common/outbound/outbound-client';

const SSO = 'Evaluation single sign-on';
const URL_RULE = { require_tld: false, require_protocol: true, protocols: ['http', 'https'] };

/**
 * Operator single sign-on of the evaluation platform (issue 13 item 2): authorization code with PKCE against an
 * OAuth 2.0 / OpenID Connect provider, through passport-oauth2. On when EVAL_SSO_CLIENT_ID is set.
 */
export class EvaluationSsoVariables {
  @ConfigVariable({
    group: SSO,
    description: 'OpenID Connect issuer: its `/.well-known/openid-configuration` gives the authorization, token and userinfo endpoints (each EVAL_SSO_*_URL overrides one). Keycloak: `https://sso.example.com/realms/<realm>`',
    unit: 'url',
    defaultText: 'unset',
  })
  @IsOptional() @IsUrl(URL_RULE)
  EVAL_SSO_ISSUER?: string;

  @ConfigVariable({ group: SSO, description: 'authorization endpoint (without an issuer, or to override its discovery). GitHub: `https://github.com/login/oauth/authorize`', unit: 'url', defaultText: 'from the issuer' })
  @IsOptional() @IsUrl(URL_RULE)
  EVAL_SSO_AUTHORIZATION_URL?: string;

  @ConfigVariable({ group: SSO, description: 'token endpoint (code exchange; the client secret is sent in the form body). GitHub: `https://github.com/login/oauth/access_token`', unit: 'url', defaultText: 'from the issuer' })
  @IsOptional() @IsUrl(URL_RULE)
  EVAL_SSO_TOKEN_URL?: string;

  @ConfigVariable({ group: SSO, description: 'endpoint that describes the signed-in user (OIDC userinfo). GitHub: `https://api.github.com/user`', unit: 'url', defaultText: 'from the issuer' })
  @IsOptional() @IsUrl(URL_RULE)
  EVAL_SSO_USERINFO_URL?: string;

  @ConfigVariable({ group: SSO, description: 'OAuth client id registered at the provider; setting it turns single sign-on on', unit: 'text', defaultText: 'unset (single sign-on off)' })
  @IsOptional() @IsString()
  EVAL_SSO_CLIENT_ID?: string;

  @ConfigVariable({ group: SSO, description: 'OAuth client secret (confidential client)', unit: 'text', secret: true })
  @IsOptional() @IsString()
  EVAL_SSO_CLIENT_SECRET?: string;

  @ConfigVariable({ group: SSO, description: 'comma-separated scopes asked for (GitHub: `read:user,user:email`)', unit: 'list' })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  EVAL_SSO_SCOPES: string[] = ['openid', 'email', 'profile'];

  @ConfigVariable({
    group: SSO,
    description: 'where the provider sends the browser back; register it at the provider',
    unit: 'url',
    defaultText: 'http://localhost:$PORT/api/auth/sso/callback',
  })
  @IsOptional() @IsUrl(URL_RULE)
  EVAL_SSO_CALLBACK_URL?: string;

  @ConfigVariable({ group: SSO, description: 'comma-separated e-mail domains whose users may sign in (a verified `email` claim is required)', unit: 'list' })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  EVAL_SSO_ALLOWED_EMAIL_DOMAINS: string[] = [];

  @ConfigVariable({ group: SSO, description: 'comma-separated users who may sign in: e-mail addresses or login names (`preferred_username`, GitHub `login`), compared without case', unit: 'list' })
  @IsOptional() @Transform(toList) @IsString({ each: true })
  EVAL_SSO_ALLOWED_USERS: string[] = [];

  @ConfigVariable({
    group: SSO,
    description: '`claim=value`: users whose userinfo claim equals the value, or lists it (a `groups` claim), may sign in. Example: `groups=atrium-operators`',
    unit: 'text',
    defaultText: 'unset',
  })
  @IsOptional() @IsString() @Matches(/^[^=\s]+=.+$/, { message: 'EVAL_SSO_ALLOWED_CLAIM must be claim=value' })
  EVAL_SSO_ALLOWED_CLAIM?: string;

  @ConfigVariable({
    group: SSO,
    description:
      '`true` lets the calls to the provider (discovery, token exchange, userinfo) reach loopback and private networks. Default true: only the operator sets the provider, and it is often on the operator\'s own network; metadata and link-local addresses and this server\'s ports stay refused',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  EVAL_SSO_ALLOW_PRIVATE_NETWORKS: 'true' | 'false' = 'true';

  @ConfigVariable({ group: SSO, description: 'deadline of each call to the provider; past it the sign-in answers 504', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(100) @Max(120_000)
  EVAL_SSO_TIMEOUT_MS: number = 10_000;

  @ConfigVariable({ group: SSO, description: 'largest reply read from the provider', unit: 'bytes' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1024) @Max(16 * 1024 * 1024)
  EVAL_SSO_MAX_RESPONSE_BYTES: number = 1024 * 1024;

  @ConfigVariable({ group: SSO, description: 'how long a started sign-in (its state and PKCE verifier) may take to come back; it can be used once', unit: 'ms' })
  @IsOptional() @Type(() => Number) @IsInt() @Min(10_000) @Max(3_600_000)
  EVAL_SSO_STATE_TTL_MS: number = 10 * 60 * 1000;

  @ConfigVariable({
    group: SSO,
    description: '`false` turns the password sign-in (`POST /api/auth/sign-in`) off; only allowed when single sign-on is on',
    unit: 'flag',
  })
  @IsOptional() @IsIn(['true', 'false'])
  EVAL_PASSWORD_SIGN_IN: 'true' | 'false' = 'true';
}

/** A user rule of single sign-on; a user matching any configured rule is allowed (sso.rules.ts). */
export interface SsoAllowRules {
  /** Lower case, without `@`. */
  emailDomains: string[];
  /** Lower case e-mail addresses or login names. */
  users: string[];
  claim?: { name: string; value: string };
}

/** Resolved single sign-on settings (`evaluationSso`); `enabled` false leaves everything else unused. */
export interface EvaluationSsoSettings {
  enabled: boolean;
  issuer?: string;
  authorizationUrl?: string;
  tokenUrl?: string;
  userinfoUrl?: string;
  clientId: string;
  /** Secret: never logged or returned. */
  clientSecret?: string;
  scopes: string[];
  callbackUrl: string;
  allow: SsoAllowRules;
  stateTtlMs: number;
  /** Whether `POST /api/auth/sign-in` takes the password. */
  passwordSignIn: boolean;
  outbound: OutboundUseSettings;
}

/** Start-up rules across the variables (each line `NAME: problem`). */
export function checkSsoVariables(vars: EvaluationSsoVariables): string[] {
  const problems: string[] = [];
  if (!vars.EVAL_SSO_CLIENT_ID) {
    if (vars.EVAL_PASSWORD_SIGN_IN === 'false') problems.push('EVAL_PASSWORD_SIGN_IN: may be false only when single sign-on is on (EVAL_SSO_CLIENT_ID)');
    return problems;
  }
  if (!vars.EVAL_SSO_ISSUER && !(vars.EVAL_SSO_AUTHORIZATION_URL && vars.EVAL_SSO_TOKEN_URL && vars.EVAL_SSO_USERINFO_URL)) {
    problems.push('EVAL_SSO_ISSUER: set it, or all of EVAL_SSO_AUTHORIZATION_URL, EVAL_SSO_TOKEN_URL and EVAL_SSO_USERINFO_URL');
  }
  if (vars.EVAL_SSO_ALLOWED_EMAIL_DOMAINS.length === 0 && vars.EVAL_SSO_ALLOWED_USERS.length === 0 && !vars.EVAL_SSO_ALLOWED_CLAIM) {
    problems.push('EVAL_SSO_ALLOWED_USERS: single sign-on needs at least one of EVAL_SSO_ALLOWED_EMAIL_DOMAINS, EVAL_SSO_ALLOWED_USERS, EVAL_SSO_ALLOWED_CLAIM (else anyone with an account at the provider could sign in)');
  }
  return problems;
}

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** The evaluation platform's single sign-on slice (`evaluationSso`). */
export const evaluationSsoConfig = declareConfig({
  wing: 'evaluation',
  variables: EvaluationSsoVariables,
  check: checkSsoVariables,
  resolve: (vars, base) => {
    const [claimName, ...claimValue] = (vars.EVAL_SSO_ALLOWED_CLAIM ?? '').split('=');
    return {
      evaluationSso: typedSlice<EvaluationSsoSettings>({
        enabled: Boolean(vars.EVAL_SSO_CLIENT_ID),
        issuer: vars.EVAL_SSO_ISSUER ? withoutTrailingSlash(vars.EVAL_SSO_ISSUER) : undefined,
        authorizationUrl: vars.EVAL_SSO_AUTHORIZATION_URL,
        tokenUrl: vars.EVAL_SSO_TOKEN_URL,
        userinfoUrl: vars.EVAL_SSO_USERINFO_URL,
        clientId: vars.EVAL_SSO_CLIENT_ID ?? '',
        clientSecret: vars.EVAL_SSO_CLIENT_SECRET,
        scopes: vars.EVAL_SSO_SCOPES,
        callbackUrl: vars.EVAL_SSO_CALLBACK_URL ?? `http://localhost:${base.port}/api/auth/sso/callback`,
        allow: {
          emailDomains: vars.EVAL_SSO_ALLOWED_EMAIL_DOMAINS.map((domain) => domain.toLowerCase().replace(/^@/, '')),
          users: vars.EVAL_SSO_ALLOWED_USERS.map((user) => user.toLowerCase()),
          claim: vars.EVAL_SSO_ALLOWED_CLAIM ? { name: claimName, value: claimValue.join('=') } : undefined,
        },
        stateTtlMs: vars.EVAL_SSO_STATE_TTL_MS,
        passwordSignIn: vars.EVAL_PASSWORD_SIGN_IN !== 'false' || !vars.EVAL_SSO_CLIENT_ID,
        outbound: {
          use: 'evaluation SSO provider',
          switchName: 'EVAL_SSO_ALLOW_PRIVATE_NETWORKS',
          allowPrivateNetworks: vars.EVAL_SSO_ALLOW_PRIVATE_NETWORKS === 'true',
          maxResponseBytes: vars.EVAL_SSO_MAX_RESPONSE_BYTES,
          maxResponseBytesName: 'EVAL_SSO_MAX_RESPONSE_BYTES',
          defaultTimeoutMs: vars.EVAL_SSO_TIMEOUT_MS,
          maxRedirects: 0,
        },
      }),
    };
  },
});

/** The resolved slice (`evaluationSso`). */
export type EvaluationSsoConfig = ReturnType<typeof evaluationSsoConfig.resolve>;

declare module '../../../config/app-config' {
  /** Operator single sign-on of the evaluation platform: `evaluationSso`. */
  interface AppConfig extends EvaluationSsoConfig {}
}
