import type { SsoAllowRules } from './sso.config';
import { ssoRefusal, ssoUserName, verifiedEmail } from './sso.rules';

const rules = (overrides: Partial<SsoAllowRules> = {}): SsoAllowRules => ({ emailDomains: [], users: [], ...overrides });

describe('single sign-on user rules', () => {
  it('names the user by verified e-mail, then login name, then sub', () => {
    expect(ssoUserName({ sub: 's1', email: 'Alice@Example.com', email_verified: true, preferred_username: 'alice' })).toBe('alice@example.com');
    expect(ssoUserName({ sub: 's1', email: 'alice@example.com', email_verified: false, preferred_username: 'Alice' })).toBe('alice');
    expect(ssoUserName({ id: 42, login: 'octocat', email: null })).toBe('octocat');
    expect(ssoUserName({ sub: 's1' })).toBe('s1');
    expect(ssoUserName({})).toBeUndefined();
  });

  it('counts an e-mail only when the provider says it is verified', () => {
    expect(verifiedEmail({ email: 'a@example.com' })).toBeUndefined();
    expect(verifiedEmail({ email: 'a@example.com', email_verified: 'true' })).toBe('a@example.com');
  });

  it('allows by verified e-mail domain only', () => {
    const byDomain = rules({ emailDomains: ['example.com'] });
    expect(ssoRefusal({ email: 'a@example.com', email_verified: true }, byDomain)).toBeNull();
    expect(ssoRefusal({ email: 'a@example.com' }, byDomain)).toMatch(/may not sign in/);
    expect(ssoRefusal({ email: 'a@example.com.evil.test', email_verified: true }, byDomain)).toMatch(/may not sign in/);
    expect(ssoRefusal({ email: 'a@sub.example.com', email_verified: true }, byDomain)).toMatch(/may not sign in/);
  });

  it('allows listed users by verified e-mail or login name, without case', () => {
    const listed = rules({ users: ['bob@example.org', 'octocat'] });
    expect(ssoRefusal({ email: 'Bob@Example.org', email_verified: true }, listed)).toBeNull();
    expect(ssoRefusal({ login: 'OctoCat' }, listed)).toBeNull();
    expect(ssoRefusal({ email: 'bob@example.org', email_verified: false }, listed)).toMatch(/may not sign in/);
    expect(ssoRefusal({ preferred_username: 'mallory' }, listed)).toMatch(/may not sign in/);
  });

  it('allows by a claim value or a list holding it', () => {
    const byGroup = rules({ claim: { name: 'groups', value: 'atrium-operators' } });
    expect(ssoRefusal({ groups: ['staff', 'atrium-operators'] }, byGroup)).toBeNull();
    expect(ssoRefusal({ groups: 'atrium-operators' }, byGroup)).toBeNull();
    expect(ssoRefusal({ groups: ['atrium-operators-not'] }, byGroup)).toMatch(/may not sign in/);
    expect(ssoRefusal({ groups: [{ name: 'atrium-operators' }] }, byGroup)).toMatch(/may not sign in/);
    expect(ssoRefusal({}, byGroup)).toMatch(/may not sign in/);
  });
});
