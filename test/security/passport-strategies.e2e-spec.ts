import { type Type } from '@nestjs/common';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import passport, { Strategy } from 'passport';
import { type AuthRequirement, strategiesOf } from '../../src/common/auth/auth.decorators';
import { collectRouteFacts } from '../../src/common/openapi/route-facts';
import { startTestApp, TestApp } from '../support/test-app';

const SRC = join(__dirname, '../../src');

/**
 * Calls that check a credential (issue 13 acceptance 1: "no credential check outside a Passport strategy"). Each may
 * appear only in a file that defines a Passport strategy (`extends PassportStrategy(`), or in the file that defines
 * the pure check itself.
 */
const CREDENTIAL_CHECKS: { pattern: RegExp; definedIn: string[] }[] = [
  { pattern: /\bcredentials\.identify\(/, definedIn: [] },
  { pattern: /\.verifyOwner\(/, definedIn: ['deploy/auth/deploy-credentials.service.ts'] },
  { pattern: /\bsecrets\.matches\(/, definedIn: ['deploy/auth/deploy-credentials.service.ts'] },
  { pattern: /\bapiKeys\.verify\(/, definedIn: [] },
  { pattern: /\bsessions\.verify\(/, definedIn: [] },
  { pattern: /\bverifySessionToken\(/, definedIn: ['evaluation/auth/session-token.ts', 'evaluation/auth/evaluation-auth.ts'] },
  { pattern: /\bverifyPassword\(/, definedIn: [] },
  { pattern: /\bverifyChatAccessToken\(/, definedIn: ['chat/auth/chat-token-verifier.ts'] },
  { pattern: /\bauthenticateWithScope\(/, definedIn: [] },
  // DeployCredentialsService is the gateway's pure token check (agent token by prefix, owner token under its limit),
  // shared by the agent, owner and registration-key strategies.
  { pattern: /\blimiter\.check\(/, definedIn: ['deploy/auth/deploy-credentials.service.ts'] },
  // Reading a credential from a request: the bearer header (audit.service reads only the public prefix of a refused
  // token for its record, after the strategy refused it), the API key header.
  { pattern: /\bbearerCredential\(/, definedIn: ['common/auth/auth.guard.ts', 'deploy/audit/audit.service.ts'] },
  { pattern: /headers\[EVAL_API_KEY_HEADER\]|headers\['x-api-key'\]/, definedIn: [] },
];

/** Public routes that take a credential in their handler, through a Passport strategy run there (after validation). */
const PUBLIC_ROUTES_WITH_A_STRATEGY: Record<string, string> = {
  'POST /api/auth/sign-in': 'eval-password',
  'GET /api/auth/sso/login': 'eval-sso',
  'GET /api/auth/sso/callback': 'eval-sso',
};

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('Passport strategies (issue 13 item 1, acceptance 1)', () => {
  let testApp: TestApp;
  const routes: { route: string; requirement?: AuthRequirement; isPublic: boolean }[] = [];

  beforeAll(async () => {
    testApp = await startTestApp();
    for (const { method, path, requirement, isPublic } of collectRouteFacts(testApp.app)) {
      routes.push({ route: `${method.toUpperCase()} ${path}`, requirement, isPublic });
    }
  });
  afterAll(() => testApp?.close());

  /** The Passport name under which the app's instance of `type` is registered. */
  const passportName = (type: Type<unknown>): string => {
    const instance = testApp.app.get(type, { strict: false });
    expect(instance).toBeInstanceOf(Strategy);
    const registry = (passport as unknown as { _strategies: Record<string, unknown> })._strategies;
    const names = Object.entries(registry)
      .filter(([, registered]) => registered instanceof type)
      .map(([name]) => name);
    expect(names).toHaveLength(1);
    return names[0];
  };

  it('lists every strategy and the routes that use it (a change here is a permission change)', () => {
    expect(routes.length).toBeGreaterThan(134);
    const byStrategy: Record<string, string[]> = {};
    for (const { route, requirement, isPublic } of routes) {
      const names = isPublic ? [PUBLIC_ROUTES_WITH_A_STRATEGY[route] ?? 'public (no credential)'] : strategiesOf(requirement!.strategy).map(passportName);
      const key = names.join(' → ');
      (byStrategy[key] ??= []).push(`${route}${requirement?.permission ? ` [${requirement.permission}]` : ''}`);
    }
    for (const list of Object.values(byStrategy)) list.sort();
    expect(Object.keys(byStrategy).sort()).toEqual(
      [
        'chat-mcp-bearer',
        'chat-oauth2-jwt',
        'deploy-agent-token',
        'deploy-owner-token',
        'deploy-registration-key',
        'eval-api-key → eval-session',
        'eval-password',
        'eval-sso',
        'public (no credential)',
      ].sort(),
    );
    expect(Object.fromEntries(Object.entries(byStrategy).sort(([a], [b]) => a.localeCompare(b)))).toMatchSnapshot();
  });

  it('leaves no route without a rule: each is public or names Passport strategies of this app', () => {
    for (const { route, requirement, isPublic } of routes) {
      expect({ route, declared: isPublic || requirement !== undefined }).toEqual({ route, declared: true });
      if (requirement) for (const type of strategiesOf(requirement.strategy)) expect(typeof passportName(type)).toBe('string');
    }
  });

  it('checks no credential outside a Passport strategy (source scan)', () => {
    const offences: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      const name = relative(SRC, file);
      const isStrategy = /extends PassportStrategy\(/.test(text);
      for (const { pattern, definedIn } of CREDENTIAL_CHECKS) {
        if (pattern.test(text) && !isStrategy && !definedIn.includes(name)) offences.push(`${name}: ${pattern.source}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('the source scan can fail: a controller checking a key itself is caught', () => {
    const controller = `@Controller() class X { constructor(private apiKeys: ApiKeysService) {} @Get() async y(@Req() r) { return this.apiKeys.verify(r.headers['x-api-key']); } }`;
    const isStrategy = /extends PassportStrategy\(/.test(controller);
    expect(isStrategy).toBe(false);
    expect(CREDENTIAL_CHECKS.filter(({ pattern }) => pattern.test(controller)).length).toBeGreaterThan(0);
  });
});
