import { Transform, Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { ConfigVariable, declareConfig } from '../../config/config-variable';
import { TENANT_SLUG_PATTERN } from '../tenants/tenant-slug';
import { CHAT_READ_SCOPE, CHAT_SCOPE_DESCRIPTIONS, CHAT_WRITE_SCOPE, PLATFORM_ADMIN_SCOPE } from './chat-scopes';

/** The group of chat.config.ts's auth settings: these sit beside them in docs/configuration.md. */
const AUTH = 'Chat auth';

/** Splits `a b,c` (spaces and/or commas) into `['a','b','c']`. */
const toWords = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value);

/**
 * What an operator signed in through single sign-on gets from the built-in authorization server (issue 13 item 2:
 * Swagger UI's "Authorize" with the authorization-code flow; on only when the built-in server runs and EVAL_SSO_CLIENT_ID
 * is set). Machines keep the client-credentials grant and their clients' own scopes and tenant.
 */
export class ChatOperatorOAuthVariables {
  @ConfigVariable({
    group: AUTH,
    description:
      'built-in server with single sign-on: the scopes an operator signed in through Swagger UI\'s "Authorize" (authorization-code flow) may get; a scope asked for beyond these is not granted (spaces or commas)',
    unit: 'list',
  })
  @IsOptional() @Transform(toWords) @IsIn(Object.keys(CHAT_SCOPE_DESCRIPTIONS), { each: true, message: `each of CHAT_OAUTH_OPERATOR_SCOPES must be one of ${Object.keys(CHAT_SCOPE_DESCRIPTIONS).join(', ')}` })
  CHAT_OAUTH_OPERATOR_SCOPES: string[] = [CHAT_READ_SCOPE, CHAT_WRITE_SCOPE, PLATFORM_ADMIN_SCOPE];

  @ConfigVariable({
    group: AUTH,
    description:
      'built-in server with single sign-on: tenant ids an operator\'s token names in CHAT_OAUTH_TENANT_CLAIM (comma-separated); empty: none, so the token reaches the platform routes (`/api/platform/*`, with platform:admin) and no tenant\'s routes',
    unit: 'list',
    defaultText: 'none',
  })
  @IsOptional() @Transform(toWords) @IsString({ each: true }) @Matches(TENANT_SLUG_PATTERN, { each: true, message: 'each of CHAT_OAUTH_OPERATOR_TENANTS must be a tenant id (lowercase letters, digits, hyphens)' })
  CHAT_OAUTH_OPERATOR_TENANTS: string[] = [];

  @ConfigVariable({
    group: AUTH,
    description:
      'built-in server with single sign-on: how long an operator\'s sign-in at the authorization server lasts; within it "Authorize" gives a new token without a new single sign-on. Shorter means an operator removed from EVAL_SSO_ALLOWED_* loses access sooner',
    unit: 's',
  })
  @IsOptional() @Type(() => Number) @IsInt() @Min(60) @Max(86_400)
  CHAT_OAUTH_OPERATOR_SESSION_TTL_S: number = 3600;
}

/** Resolved operator settings (`chatOperatorOAuth`): scopes and tenants an operator token may carry; session lifetime in seconds. */
export interface ChatOperatorOAuthConfig {
  scopes: string[];
  tenants: string[];
  sessionTtlS: number;
}

/** The slice `chatOperatorOAuth`. */
export const chatOperatorOAuthConfig = declareConfig({
  wing: 'chat',
  variables: ChatOperatorOAuthVariables,
  check: (vars) => (vars.CHAT_OAUTH_OPERATOR_SCOPES.length === 0 ? ['CHAT_OAUTH_OPERATOR_SCOPES: name at least one scope'] : []),
  resolve: (vars) => ({
    chatOperatorOAuth: {
      scopes: [...new Set(vars.CHAT_OAUTH_OPERATOR_SCOPES)],
      tenants: [...new Set(vars.CHAT_OAUTH_OPERATOR_TENANTS)],
      sessionTtlS: vars.CHAT_OAUTH_OPERATOR_SESSION_TTL_S,
    } satisfies ChatOperatorOAuthConfig as ChatOperatorOAuthConfig,
  }),
});

declare module '../../config/app-config' {
  /** The chat wing's `chatOperatorOAuth` slice. */
  interface AppConfig {
    chatOperatorOAuth: ChatOperatorOAuthConfig;
  }
}
