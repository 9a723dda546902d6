import type { SsoAllowRules } from './sso.config';

/** What the provider says about the signed-in user (OIDC userinfo, GitHub `/user`): claims by name. */
export type SsoClaims = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim().length > 0 ? value.trim() : undefined;
}

/** The e-mail address when the provider says it is verified (`email_verified: true`), lower case; else undefined. */
export function verifiedEmail(claims: SsoClaims): string | undefined {
  const email = text(claims.email);
  return email && (claims.email_verified === true || claims.email_verified === 'true') ? email.toLowerCase() : undefined;
}

/** Login names a provider gives: `preferred_username` (OIDC), `login` (GitHub), lower case. */
export function loginNames(claims: SsoClaims): string[] {
  return [text(claims.preferred_username), text(claims.login)].filter((name): name is string => name !== undefined).map((name) => name.toLowerCase());
}

/**
 * The name a single sign-on session records (issue 13 item 2: "the session token names the user"): the verified
 * e-mail, else the login name, else the e-mail as given, else `sub`/`id`.
 * @returns undefined when the provider names the user in no way (the sign-in is then refused)
 */
export function ssoUserName(claims: SsoClaims): string | undefined {
  const id = typeof claims.id === 'number' ? String(claims.id) : text(claims.id);
  return verifiedEmail(claims) ?? loginNames(claims)[0] ?? text(claims.email)?.toLowerCase() ?? text(claims.sub) ?? id;
}

/**
 * Whether a user may sign in (EVAL_SSO_ALLOWED_*): any one rule that matches allows.
 * - e-mail domain: the verified e-mail's domain is listed (an unverified address never counts: some providers let
 *   users type any address);
 * - user list: the verified e-mail or a login name is listed;
 * - claim: the claim equals the value, or is a list holding it (`groups`).
 * @returns null when allowed, else the reason (for the 403, naming no rule values)
 */
export function ssoRefusal(claims: SsoClaims, rules: SsoAllowRules): string | null {
  const email = verifiedEmail(claims);
  const domain = email?.slice(email.lastIndexOf('@') + 1);
  if (domain && rules.emailDomains.includes(domain)) return null;
  const names = [email, ...loginNames(claims)].filter((name): name is string => name !== undefined);
  if (names.some((name) => rules.users.includes(name))) return null;
  if (rules.claim) {
    const value = claims[rules.claim.name];
    const values = Array.isArray(value) ? value : [value];
    if (values.some((item) => (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean') && String(item) === rules.claim!.value)) return null;
  }
  return 'This account may not sign in to the evaluation platform (EVAL_SSO_ALLOWED_*); ask its operator to allow you.';
}
