import { plainToInstance } from 'class-transformer';
import { checkSsoVariables, EvaluationSsoVariables } from './sso.config';

const vars = (values: Record<string, unknown>) => Object.assign(new EvaluationSsoVariables(), plainToInstance(EvaluationSsoVariables, values));

describe('single sign-on configuration rules', () => {
  it('is off without a client id, and then refuses EVAL_PASSWORD_SIGN_IN=false', () => {
    expect(checkSsoVariables(vars({}))).toEqual([]);
    expect(checkSsoVariables(vars({ EVAL_PASSWORD_SIGN_IN: 'false' }))).toEqual([expect.stringMatching(/^EVAL_PASSWORD_SIGN_IN: may be false only when single sign-on is on/)]);
  });

  it('needs an issuer or all three endpoints, and at least one allow rule (fails closed)', () => {
    expect(checkSsoVariables(vars({ EVAL_SSO_CLIENT_ID: 'c' }))).toEqual([expect.stringMatching(/^EVAL_SSO_ISSUER:/), expect.stringMatching(/^EVAL_SSO_ALLOWED_USERS:/)]);
    expect(checkSsoVariables(vars({ EVAL_SSO_CLIENT_ID: 'c', EVAL_SSO_ISSUER: 'https://sso.example.com/realms/ops', EVAL_SSO_ALLOWED_USERS: ['a'] }))).toEqual([]);
    expect(
      checkSsoVariables(
        vars({ EVAL_SSO_CLIENT_ID: 'c', EVAL_SSO_AUTHORIZATION_URL: 'https://github.com/login/oauth/authorize', EVAL_SSO_TOKEN_URL: 'https://github.com/login/oauth/access_token', EVAL_SSO_ALLOWED_CLAIM: 'login=octocat' }),
      ),
    ).toEqual([expect.stringMatching(/^EVAL_SSO_ISSUER: set it, or all of/)]);
  });
});
