import { HttpStatus } from '@nestjs/common';
import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import { grantedScopes, tokenTenants } from './chat-scopes';

/** What an access token must satisfy (issue 5: issuer, audience, allowed algorithms explicit, expiry, clock tolerance). */
export interface ChatTokenPolicy {
  /** Exact `iss`. */
  issuer: string;
  /** Must be in `aud` (or one of {@link extraAudiences}). */
  audience: string;
  /**
   * Other audiences this route accepts besides {@link audience}: a tenant's MCP endpoint accepts tokens issued for
   * its own RFC 8707 resource (`${CHAT_PUBLIC_URL}/api/{tenant}/mcp`, issue 22 item 5).
   */
  extraAudiences?: readonly string[];
  /** Accepted JWS `alg` values (asymmetric only; `none` and HS* never). */
  algorithms: string[];
  /** Leeway for `exp` and `nbf`, seconds. */
  clockToleranceS: number;
  /** Claim holding the tenant id(s). */
  tenantClaim: string;
}

/** The facts of a verified access token that authorization needs. */
export interface VerifiedChatToken {
  /** `sub`, else `client_id`. */
  subject: string;
  /** `client_id` (RFC 9068), else `azp`; undefined when the issuer sends neither. */
  clientId?: string;
  scopes: string[];
  tenants: string[];
  /** Every `aud` value (a token verified for one route may be presented to another: see {@link audienceAccepted}). */
  audiences: string[];
  expiresAt: Date;
}

/** The audiences a policy accepts: its audience, then its extra ones. */
export function acceptedAudiences(policy: Pick<ChatTokenPolicy, 'audience' | 'extraAudiences'>): string[] {
  return [policy.audience, ...(policy.extraAudiences ?? [])];
}

/**
 * Whether a verified token's `aud` names one of the audiences a route accepts. Used for tokens remembered from an
 * earlier request, which may have been verified for a route that accepts other audiences (an MCP-resource token
 * stays refused on the other chat routes).
 */
export function audienceAccepted(token: Pick<VerifiedChatToken, 'audiences'>, accepted: readonly string[]): boolean {
  return token.audiences.some((audience) => accepted.includes(audience));
}

/** The 401 message for a token whose audience is not accepted. */
export function wrongAudienceMessage(policy: Pick<ChatTokenPolicy, 'audience' | 'extraAudiences'>): string {
  const extra = policy.extraAudiences ?? [];
  return `The access token is not meant for this API: its audience must include "${policy.audience}"${extra.length ? ` or ${extra.map((value) => `"${value}"`).join(', ')}` : ''}.`;
}

/**
 * Why a token was refused: 401 for a bad credential; 503 when the issuer's signing keys cannot be fetched (the
 * credential may well be good — retrying later can succeed).
 */
export class ChatTokenRejected extends Error {
  constructor(
    readonly status: HttpStatus.UNAUTHORIZED | HttpStatus.SERVICE_UNAVAILABLE,
    message: string,
    /** What jose (or fetch) threw, for the server's log; never shown to the caller. */
    readonly reason?: unknown,
  ) {
    super(message);
  }
}

/** jose error codes that mean the keys could not be obtained rather than that the token is bad. */
const KEY_SOURCE_FAILURES = new Set(['ERR_JWKS_TIMEOUT', 'ERR_JWKS_INVALID']);

/**
 * Verifies a chat access token: a JWS signed with one of `policy.algorithms` by a key from `keys` (the issuer's
 * JWKS), with `iss`, `aud` and `exp` required and checked. This one path serves the built-in authorization server
 * (its JWKS, in process) and an external issuer (its JWKS over HTTP), so both are held to the same rules.
 * @param token the compact JWT from `Authorization: Bearer`
 * @param keys key resolver from jose's createRemoteJWKSet/createLocalJWKSet
 * @throws ChatTokenRejected with a reason a person can act on (never echoing the token)
 */
export async function verifyChatAccessToken(token: string, keys: JWTVerifyGetKey, policy: ChatTokenPolicy): Promise<VerifiedChatToken> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: policy.issuer,
      audience: acceptedAudiences(policy),
      algorithms: policy.algorithms,
      clockTolerance: policy.clockToleranceS,
      requiredClaims: ['exp'],
    }));
  } catch (error) {
    throw rejection(error, policy);
  }
  const subject = stringClaim(payload.sub) ?? stringClaim(payload.client_id) ?? 'unknown';
  return {
    subject,
    clientId: stringClaim(payload.client_id) ?? stringClaim(payload.azp),
    scopes: grantedScopes(payload),
    tenants: tokenTenants(payload, policy.tenantClaim),
    audiences: typeof payload.aud === 'string' ? [payload.aud] : Array.isArray(payload.aud) ? payload.aud.filter((value): value is string => typeof value === 'string') : [],
    expiresAt: new Date(Number(payload.exp) * 1000),
  };
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** Turns a jose error into the reason given to the caller. */
function rejection(error: unknown, policy: ChatTokenPolicy): ChatTokenRejected {
  const code = (error as { code?: unknown })?.code;
  const unauthorized = (message: string) => new ChatTokenRejected(HttpStatus.UNAUTHORIZED, message);
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return unauthorized('The access token has expired; get a new one.');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED': {
      const claim = (error as { claim?: string }).claim;
      if (claim === 'iss') return unauthorized(`The access token was not issued by the trusted issuer (${policy.issuer}).`);
      if (claim === 'aud') return unauthorized(wrongAudienceMessage(policy));
      if (claim === 'exp') return unauthorized('The access token has no expiry (exp); this API accepts only tokens that expire.');
      if (claim === 'nbf') return unauthorized('The access token is not valid yet (nbf).');
      return unauthorized(`The access token's "${claim}" claim is invalid.`);
    }
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return unauthorized(`The access token is signed with an algorithm this API does not accept (accepted: ${policy.algorithms.join(', ')}).`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return unauthorized('The access token\'s signature is not valid.');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return unauthorized('The access token is not signed with a key the issuer publishes.');
    case 'ERR_JOSE_NOT_SUPPORTED':
      return unauthorized('The access token uses an unsupported algorithm or key type.');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return unauthorized('The access token is not a valid signed JWT.');
    default:
      if (typeof code === 'string' && !KEY_SOURCE_FAILURES.has(code)) return unauthorized('The access token could not be verified.');
      return new ChatTokenRejected(HttpStatus.SERVICE_UNAVAILABLE, 'The token issuer\'s signing keys cannot be fetched right now; try again shortly.', error);
  }
}
