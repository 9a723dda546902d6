import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { CHAT_OAUTH_MOUNT_PATH } from '../../src/chat/auth/chat-oauth.settings';
import { PROTECTED_RESOURCE_METADATA_PREFIX } from '../../src/chat/mcp/mcp-auth';
import { fixedSegmentsAfter } from '../../src/common/http/reserved-path-segments';
import { RESERVED_NAMESPACES } from '../../src/deploy/namespace';
import { issueJoinGrant, newAgent, TestAgent } from '../support/deploy-factories';
import { execSandboxEnv, execSandboxProbe } from '../support/exec-sandbox';
import { startTestApp, TEST_OWNER_TOKEN, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

const ROOT = join(__dirname, '../..');
let unique = 0;
/** A fresh name for an agent or a namespace. */
const fresh = (kind: string) => `${kind}-${++unique}-${Math.random().toString(36).slice(2, 8)}`;

/**
 * Issue 12, item 3 and acceptance 3: namespace ownership. The first registration for a contactId claims it; joining
 * needs the owner's one-time join grant; re-registering an agentId needs its current token or the owner; reserved
 * names are refused; uploads stay in the caller's own namespace workspace.
 */
describe('namespace ownership (issue 12, item 3)', () => {
  let testApp: TestApp;
  const base = () => testApp.baseUrl;
  const register = (body: Record<string, unknown>, authorization?: string) => {
    const test = request(base()).post('/api/auth/register');
    if (authorization) test.set('Authorization', authorization);
    return test.send({ registrationKey: TEST_REGISTRATION_KEY, ...body });
  };
  const owner = (test: request.Test) => test.set('Authorization', `Bearer ${TEST_OWNER_TOKEN}`);
  /** Status of a call needing only a live token (list deployments): 200 live, 401 dead. */
  const tokenStatus = async (token: string) => (await request(base()).get('/api/deployments').set('Authorization', `Bearer ${token}`)).status;
  const liveTokensOf = async (agentId: string) => {
    const page = await owner(request(base()).get('/api/admin/tokens').query({ size: 200 })).expect(200);
    return (page.body.content as { agentId: string; revokedAt: string | null; namespace: string }[]).filter((row) => row.agentId === agentId && !row.revokedAt);
  };

  beforeAll(async () => {
    // exec in its OS sandbox when it can run here, else DEPLOY_EXEC_SANDBOX=off with a notice (only the exec read probe needs it)
    testApp = await startTestApp(execSandboxEnv('namespace ownership'));
  });
  afterAll(() => testApp?.close());

  describe('claiming and joining', () => {
    it('the first registration for a contactId claims the namespace', async () => {
      const contactId = fresh('claim');
      const alice = await newAgent(base(), { contactId });
      const page = await owner(request(base()).get('/api/admin/namespaces').query({ size: 200 })).expect(200);
      expect(page.body.content).toContainEqual({ name: contactId, claimedByAgentId: alice.agentId, createdAt: expect.any(String), liveTokens: 1 });
    });

    it('refuses to join a claimed namespace with the registration key alone (409), creating no token', async () => {
      const alice = await newAgent(base());
      const intruder = fresh('intruder');
      const refused = await register({ agentId: intruder, contactId: alice.contactId }).expect(409);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 409, rule: 'namespace-claimed', detail: expect.stringContaining('join grant') });
      expect(await liveTokensOf(intruder)).toEqual([]);
      expect(await tokenStatus(alice.token)).toBe(200);
    });

    it('joins with a grant exactly once; the joiner works in the namespace and the grant shows who used it', async () => {
      const alice = await newAgent(base());
      const grant = await owner(request(base()).post(`/api/admin/namespaces/${alice.contactId}/grants`).send({ note: 'for bob' })).expect(201);
      expect(grant.body).toMatchObject({ code: expect.stringMatching(/^atj_[0-9a-f]{8}_/), prefix: expect.stringMatching(/^[0-9a-f]{8}$/), namespace: alice.contactId, state: 'open', note: 'for bob' });

      const bob = await register({ agentId: fresh('bob'), contactId: alice.contactId, joinGrant: grant.body.code }).expect(201);
      expect(bob.body.contactId).toBe(alice.contactId);
      expect(await tokenStatus(bob.body.token)).toBe(200);

      const again = await register({ agentId: fresh('carol'), contactId: alice.contactId, joinGrant: grant.body.code }).expect(403);
      expect(again.body).toMatchObject({ status: 403, rule: 'join-grant-refused' });

      const grants = await owner(request(base()).get(`/api/admin/namespaces/${alice.contactId}/grants`)).expect(200);
      expect(grants.body.content).toEqual([expect.objectContaining({ prefix: grant.body.prefix, state: 'used', usedByAgentId: bob.body.agentId })]);
      expect(JSON.stringify(grants.body)).not.toContain(grant.body.code);
    });

    it('refuses an expired, a revoked, a forged and another namespace\'s grant, and consumes none of them', async () => {
      const alice = await newAgent(base());
      const other = await newAgent(base());
      const expired = await issueJoinGrant(base(), alice.contactId, { ttlMs: 60_000 });
      const dataSource = testApp.app.get<DataSource>(getDataSourceToken());
      await dataSource.query(`UPDATE deploy_join_grant SET expires_at = now() - interval '1 second' WHERE prefix = $1`, [expired.split('_')[1]]);
      const revoked = await issueJoinGrant(base(), alice.contactId);
      await owner(request(base()).delete(`/api/admin/namespaces/${alice.contactId}/grants/${revoked.split('_')[1]}`)).expect(204);
      const forOther = await issueJoinGrant(base(), other.contactId);
      const open = await issueJoinGrant(base(), alice.contactId);
      const forged = `atj_${open.split('_')[1]}_${'A'.repeat(43)}`;

      for (const joinGrant of [expired, revoked, forOther, forged, 'not-a-grant']) {
        const refused = await register({ agentId: fresh('mallory'), contactId: alice.contactId, joinGrant }).expect(403);
        expect(refused.body.rule).toBe('join-grant-refused');
      }
      const states = await owner(request(base()).get(`/api/admin/namespaces/${alice.contactId}/grants`)).expect(200);
      expect(Object.fromEntries(states.body.content.map((row: { prefix: string; state: string }) => [row.prefix, row.state]))).toEqual({
        [expired.split('_')[1]]: 'expired',
        [revoked.split('_')[1]]: 'revoked',
        [open.split('_')[1]]: 'open',
      });
      // the forged code named the open grant's prefix: that grant still works
      await register({ agentId: fresh('dave'), contactId: alice.contactId, joinGrant: open }).expect(201);
    });

    it('refuses a grant sent with a namespace nobody has claimed, and claims nothing', async () => {
      const alice = await newAgent(base());
      const code = await issueJoinGrant(base(), alice.contactId);
      const typo = fresh('typo');
      await register({ agentId: fresh('eve'), contactId: typo, joinGrant: code }).expect(403);
      await owner(request(base()).post(`/api/admin/namespaces/${typo}/grants`).send({})).expect(404);
    });

    it('lets one of many parallel registrations use a grant, and one of many claim a name', async () => {
      const alice = await newAgent(base());
      const code = await issueJoinGrant(base(), alice.contactId);
      const joins = await Promise.all(Array.from({ length: 8 }, () => register({ agentId: fresh('racer'), contactId: alice.contactId, joinGrant: code })));
      expect(joins.map((response) => response.status).sort()).toEqual([201, 403, 403, 403, 403, 403, 403, 403]);

      const contested = fresh('contested');
      const claims = await Promise.all(Array.from({ length: 8 }, () => register({ agentId: fresh('claimer'), contactId: contested })));
      expect(claims.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
    });

    it('treats names differing only in letter case as the same namespace', async () => {
      const contactId = `Team-${fresh('case')}`;
      await newAgent(base(), { contactId });
      const refused = await register({ agentId: fresh('twin'), contactId: contactId.toLowerCase() }).expect(409);
      expect(refused.body).toMatchObject({ rule: 'namespace-case-collision', detail: expect.stringContaining(contactId) });
    });

    it('gives the joiner no more than the grant\'s permission cap, and the owner 400 for a lifetime over the maximum', async () => {
      const alice = await newAgent(base());
      const code = await issueJoinGrant(base(), alice.contactId, { permissions: ['deploy', 'list'] });
      const capped = await register({ agentId: fresh('capped'), contactId: alice.contactId, joinGrant: code }).expect(201);
      expect(capped.body.permissions).toEqual(['deploy', 'list']);
      await owner(request(base()).post(`/api/admin/namespaces/${alice.contactId}/grants`).send({ ttlMs: 365 * 24 * 3600_000 })).expect(400);
      await owner(request(base()).post(`/api/admin/namespaces/${alice.contactId}/grants`).send({ ttlMs: 10 })).expect(400);
    });

    it('keeps the grant API to the owner', async () => {
      const alice = await newAgent(base());
      await request(base()).post(`/api/admin/namespaces/${alice.contactId}/grants`).set('Authorization', `Bearer ${alice.token}`).send({}).expect(403);
      await request(base()).post(`/api/admin/namespaces/${alice.contactId}/grants`).set('Authorization', `Bearer ${TEST_REGISTRATION_KEY}`).send({}).expect(401);
      await request(base()).get('/api/admin/namespaces').expect(401);
    });
  });

  describe('re-registering an agentId', () => {
    it('rotates with the current token: the old token stops working, the new one works, in the same namespace', async () => {
      const alice = await newAgent(base(), { permissions: ['deploy', 'list'] });
      const rotated = await register({ agentId: alice.agentId }, `Bearer ${alice.token}`).expect(201);
      expect(rotated.body).toMatchObject({ agentId: alice.agentId, contactId: alice.contactId, permissions: ['deploy', 'list'] });
      expect(await tokenStatus(alice.token)).toBe(401);
      expect(await tokenStatus(rotated.body.token)).toBe(200);
      // a rotation keeps or narrows the permissions, never widens them
      await register({ agentId: alice.agentId, permissions: ['exec'] }, `Bearer ${rotated.body.token}`).expect(400);
      // the rotated-away token can't rotate again
      await register({ agentId: alice.agentId }, `Bearer ${alice.token}`).expect(401);
    });

    it('refuses to re-register someone else\'s agentId (409, 403, 401) and their token keeps working', async () => {
      const victim = await newAgent(base());
      const attacker = await newAgent(base());

      const bare = await register({ agentId: victim.agentId, contactId: fresh('hijack') }).expect(409);
      expect(bare.body).toMatchObject({ rule: 'agent-exists' });
      const sameNamespace = await register({ agentId: victim.agentId, contactId: victim.contactId }).expect(409);
      expect(sameNamespace.body).toMatchObject({ rule: 'agent-exists' });
      const otherToken = await register({ agentId: victim.agentId }, `Bearer ${attacker.token}`).expect(403);
      expect(otherToken.body).toMatchObject({ rule: 'not-this-agent' });
      await register({ agentId: victim.agentId }, 'Bearer atr_00000000_' + 'a'.repeat(43)).expect(401);
      await register({ agentId: victim.agentId }, 'Bearer wrong-owner-token-guess').expect(401);

      expect(await tokenStatus(victim.token)).toBe(200);
      expect(await liveTokensOf(victim.agentId)).toEqual([expect.objectContaining({ namespace: victim.contactId })]);
      expect(await tokenStatus(attacker.token)).toBe(200);
    });

    it('lets only the owner re-register an agent whose token was revoked', async () => {
      const agent = await newAgent(base());
      await owner(request(base()).delete(`/api/admin/tokens/${agent.tokenPrefix}`)).expect(204);
      await register({ agentId: agent.agentId, contactId: agent.contactId }).expect(409);
      await register({ agentId: agent.agentId }, `Bearer ${agent.token}`).expect(401);
      const restored = await register({ agentId: agent.agentId, contactId: agent.contactId }, `Bearer ${TEST_OWNER_TOKEN}`).expect(201);
      expect(await tokenStatus(restored.body.token)).toBe(200);
    });

    it('lets the owner re-register any agent, into any namespace, without a grant', async () => {
      const alice = await newAgent(base());
      const bob = await newAgent(base());
      const moved = await register({ agentId: bob.agentId, contactId: alice.contactId }, `Bearer ${TEST_OWNER_TOKEN}`).expect(201);
      expect(moved.body.contactId).toBe(alice.contactId);
      expect(await tokenStatus(bob.token)).toBe(401);
      expect(await tokenStatus(moved.body.token)).toBe(200);
    });

    it('serialises parallel registrations of one new agentId: one wins, the rest are told it exists', async () => {
      const agentId = fresh('twin-agent');
      const results = await Promise.all(Array.from({ length: 6 }, () => register({ agentId, contactId: fresh('ns') })));
      expect(results.map((response) => response.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
      expect(await liveTokensOf(agentId)).toHaveLength(1);
    });
  });

  describe('reserved names', () => {
    it.each(['api', 'docs', 'docs-json', 'metrics', '.well-known', 'oauth', 'health', 'API', 'Docs'])('refuses the contactId %j with 400 naming the rule', async (contactId) => {
      const refused = await register({ agentId: fresh('reserved'), contactId }).expect(400);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.errors).toEqual([{ field: 'contactId', messages: [expect.stringContaining('is a reserved name')] }]);
    });

    it('reserves every first path segment the app serves (router, OpenAPI document, announced endpoints, mounted servers)', async () => {
      const router = (testApp.app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: unknown } }[] } }).router;
      const fromRouter = router.stack.map((layer) => layer.route?.path).filter((path): path is string => typeof path === 'string');
      const document = (await request(base()).get('/docs-json').expect(200)).body as { paths: Record<string, unknown> };
      const announced = (JSON.parse(readFileSync(join(ROOT, '../shared/spec/endpoints.json'), 'utf8')) as { path: string }[]).map((row) => row.path);
      // mounted outside Nest's router: Swagger UI, the chat OAuth2 server, the MCP protected-resource metadata
      await request(base()).get('/docs').expect((response) => expect(response.status).toBeLessThan(400));
      const mounted = ['/docs', '/docs-json', CHAT_OAUTH_MOUNT_PATH, PROTECTED_RESOURCE_METADATA_PREFIX];

      const segments = fixedSegmentsAfter([...fromRouter, ...Object.keys(document.paths), ...announced, ...mounted], [[]]);
      expect(segments).toEqual(expect.arrayContaining(['api', 'docs', 'docs-json', 'oauth', '.well-known']));
      expect(segments.filter((segment) => !RESERVED_NAMESPACES.has(segment))).toEqual([]);
    });
  });

  describe('uploads stay in the caller\'s namespace workspace', () => {
    let alice: TestAgent;
    let bob: TestAgent;
    let aliceEnv: string;
    const secret = Buffer.from('DATABASE_PASSWORD=alice-canary-7f3a\n');
    const upload = (agent: TestAgent, path: string, content: Buffer) =>
      request(base()).post('/api/upload').set('Authorization', `Bearer ${agent.token}`).field('path', path).attach('file', content, 'payload.bin');

    beforeAll(async () => {
      alice = await newAgent(base());
      bob = await newAgent(base());
      const written = await upload(alice, '.env', secret).expect(201);
      aliceEnv = join(testApp.config.deploy.allowedDirs[0], alice.contactId, '.env');
      expect(written.body.path).toBe(aliceEnv);
    });

    it('writes a relative path into the caller\'s own folder', async () => {
      const own = await upload(bob, 'conf/.env', Buffer.from('BOB=1\n')).expect(201);
      expect(own.body.path).toBe(join(testApp.config.deploy.allowedDirs[0], bob.contactId, 'conf', '.env'));
      expect(readFileSync(aliceEnv).equals(secret)).toBe(true);
    });

    it('refuses B every path to A\'s .env: relative, absolute, `..` and symlinks (403), and A\'s file is untouched', async () => {
      const root = testApp.config.deploy.allowedDirs[0];
      const bobDir = join(root, bob.contactId);
      mkdirSync(bobDir, { recursive: true });
      symlinkSync(aliceEnv, join(bobDir, 'env-link'));
      symlinkSync(join(root, alice.contactId), join(bobDir, 'alice-dir'));
      const attempts = [
        `../${alice.contactId}/.env`,
        aliceEnv,
        join(bobDir, '..', alice.contactId, '.env'),
        `./conf/../../${alice.contactId}/.env`,
        'env-link',
        join(bobDir, 'env-link'),
        'alice-dir/.env',
        'alice-dir/new-file',
        join(root, 'shared.txt'),
        '/etc/atrium-namespace-test',
      ];
      for (const path of attempts) {
        const refused = await upload(bob, path, Buffer.from('OVERWRITTEN_BY_BOB=1\n'));
        expect({ path, status: refused.status }).toEqual({ path, status: 403 });
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
      expect(readFileSync(aliceEnv).equals(secret)).toBe(true);
      expect(readdirSync(join(root, alice.contactId))).toEqual(['.env']);
      expect(existsSync(join(root, 'shared.txt'))).toBe(false);
      expect(existsSync('/etc/atrium-namespace-test')).toBe(false);
    });

    const exec = (agent: TestAgent, command: string, cwd?: string) =>
      request(base()).post('/api/exec').set('Authorization', `Bearer ${agent.token}`).send(cwd ? { command, cwd } : { command });

    it('refuses B an exec working directory in A\'s workspace (403)', async () => {
      const refused = await exec(bob, 'cat .env', join(testApp.config.deploy.allowedDirs[0], alice.contactId));
      expect(refused.status).toBe(403);
      expect(JSON.stringify(refused.body)).not.toContain('alice-canary-7f3a');
    });

    const sandbox = execSandboxProbe();
    const sandboxed = sandbox.kind === 'ready' ? it : it.skip;
    sandboxed(`lets B's exec neither read nor overwrite A's .env${sandbox.kind === 'ready' ? '' : ` (skipped: exec sandbox unavailable: ${sandbox.kind === 'unavailable' ? sandbox.reason : 'disabled'})`}`, async () => {
      const probes = [`cat ../${alice.contactId}/.env`, `cat ${aliceEnv}`, 'ls -a ..', `find / -name .env -path '*${alice.contactId}*' 2>/dev/null`, `echo OVERWRITTEN > ../${alice.contactId}/.env`, `echo OVERWRITTEN > ${aliceEnv}`];
      for (const command of probes) {
        const response = await exec(bob, command).expect(200);
        expect({ command, leaked: `${response.body.stdout}${response.body.stderr}`.includes('alice-canary-7f3a') }).toEqual({ command, leaked: false });
        expect(`${response.body.stdout}`).not.toContain(alice.contactId);
      }
      expect(readFileSync(aliceEnv).equals(secret)).toBe(true);
    });

    it('refuses to write through a symlink planted at the target name, replacing nothing outside', async () => {
      const bobDir = join(testApp.config.deploy.allowedDirs[0], bob.contactId);
      writeFileSync(join(bobDir, 'plain.txt'), 'bob');
      symlinkSync(aliceEnv, join(bobDir, 'planted'));
      await upload(bob, 'planted', Buffer.from('x')).expect(403);
      expect(readFileSync(aliceEnv).equals(secret)).toBe(true);
    });
  });

  describe('atrium-deploy CLI', () => {
    /** Runs `atrium-deploy` as a real process (TypeScript compiled on load by SWC) with only the environment given. */
    const atriumDeploy = (args: string[], env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['-r', './test/chat/support/swc-register.cjs', 'src/cli/deploy/main.ts', ...args],
          { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 120_000 },
          (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
        );
      });

    it('issues a join grant as the owner, and registers a second agent with it', async () => {
      const alice = await newAgent(base());
      const configPath = join(testApp.dataDir, `cli-${fresh('config')}.json`);
      const ownerEnv = { DEPLOY_API_URL: base(), DEPLOY_OWNER_TOKEN: TEST_OWNER_TOKEN };

      const issued = await atriumDeploy(['--json', 'grant', alice.contactId, '--note', 'cli test', '--permissions', 'deploy,list'], ownerEnv);
      expect(issued).toMatchObject({ code: 0, stderr: '' });
      const grant = JSON.parse(issued.stdout);
      expect(grant).toMatchObject({ namespace: alice.contactId, state: 'open', note: 'cli test', permissions: ['deploy', 'list'], code: expect.stringMatching(/^atj_/) });

      const agentEnv = { ATRIUM_DEPLOY_CONFIG: configPath, DEPLOY_API_URL: base(), DEPLOY_REGISTRATION_KEY: TEST_REGISTRATION_KEY, DEPLOY_AGENT_ID: fresh('cli-agent') };
      expect((await atriumDeploy(['init-config'], agentEnv)).code).toBe(0);
      const withoutGrant = await atriumDeploy(['register', '--contact-id', alice.contactId], agentEnv);
      expect(withoutGrant.code).toBe(1);
      expect(withoutGrant.stderr).toContain('HTTP 409');
      const joined = await atriumDeploy(['--json', 'register', '--contact-id', alice.contactId, '--join-grant', grant.code], agentEnv);
      expect(joined.code).toBe(0);
      expect(JSON.parse(joined.stdout)).toMatchObject({ contactId: alice.contactId, permissions: ['deploy', 'list'] });
      expect(joined.stdout).not.toContain('atr_');

      // a second `register` rotates the stored token (it is sent as the proof)
      const before = JSON.parse(readFileSync(configPath, 'utf8')).token as string;
      const rotated = await atriumDeploy(['register'], agentEnv);
      expect(rotated.code).toBe(0);
      const after = JSON.parse(readFileSync(configPath, 'utf8')).token as string;
      expect(after).not.toBe(before);
      expect(await tokenStatus(before)).toBe(401);
      expect(await tokenStatus(after)).toBe(200);

      const listed = await atriumDeploy(['--json', 'grants', alice.contactId], ownerEnv);
      expect(JSON.parse(listed.stdout).content).toEqual([expect.objectContaining({ prefix: grant.prefix, state: 'used' })]);
      expect(listed.stdout).not.toContain(grant.code);

      const wrongOwner = await atriumDeploy(['grant', alice.contactId], { ...ownerEnv, DEPLOY_OWNER_TOKEN: 'not-the-owner-token' });
      expect(wrongOwner.code).toBe(1);
      expect(wrongOwner.stderr).toContain('HTTP 401');
      expect(wrongOwner.stderr).not.toContain('not-the-owner-token');
    }, 120_000);
  });
});
