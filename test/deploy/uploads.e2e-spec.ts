import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { newAgent, TestAgent } from '../support/deploy-factories';
import { startTestApp, TestApp } from '../support/test-app';

describe('file upload into allowed directories (deployment-gateway.md: POST /api/upload)', () => {
  let testApp: TestApp;
  let agent: TestAgent;
  /** The agent's namespace workspace, `<first DEPLOY_ALLOWED_DIRS root>/<namespace>` (issue 12, item 3). */
  let allowed: string;

  beforeAll(async () => {
    testApp = await startTestApp({ DEPLOY_MAX_UPLOAD_BYTES: String(64 * 1024) });
    agent = await newAgent(testApp.baseUrl);
    allowed = join(testApp.config.deploy.allowedDirs[0], agent.contactId);
    mkdirSync(allowed, { recursive: true });
    mkdirSync(join(testApp.dataDir, 'outside'), { recursive: true });
    symlinkSync(join(testApp.dataDir, 'outside'), join(allowed, 'escape'));
  });
  afterAll(() => testApp?.close());

  const upload = (path: string, content: Buffer) =>
    request(testApp.baseUrl).post('/api/upload').set('Authorization', `Bearer ${agent.token}`).field('path', path).attach('file', content, 'payload.bin');

  it('writes the file, creating folders, and reports bytes and sha256', async () => {
    const content = Buffer.from('configuration=1\nnon-ascii=ü\n');
    const target = join(allowed, 'app', 'conf', 'settings.env');
    const response = await upload(target, content).expect(201);
    expect(response.body).toEqual({ path: target, bytes: content.length, sha256: createHash('sha256').update(content).digest('hex') });
    expect(readFileSync(target).equals(content)).toBe(true);
    const replaced = Buffer.from('configuration=2\n');
    await upload(target, replaced).expect(201);
    expect(readFileSync(target).equals(replaced)).toBe(true);
    expect(readdirSync(join(allowed, 'app', 'conf'))).toEqual(['settings.env']);
  });

  it.each([
    ['a path outside', () => '/etc/atrium-upload-test'],
    ['a `..` escape', () => join(allowed, '..', 'escaped.txt')],
    ['a symlinked folder pointing outside', () => join(allowed, 'escape', 'x.txt')],
  ])('refuses %s with 403 and writes nothing', async (_name, path) => {
    await upload(path(), Buffer.from('x')).expect(403);
    expect(existsSync('/etc/atrium-upload-test')).toBe(false);
    expect(existsSync(join(allowed, '..', 'escaped.txt'))).toBe(false);
    expect(readdirSync(join(testApp.dataDir, 'outside'))).toEqual([]);
  });

  it('refuses a file over the limit with 413', async () => {
    await upload(join(allowed, 'big.bin'), Buffer.alloc(65 * 1024)).expect(413);
    expect(existsSync(join(allowed, 'big.bin'))).toBe(false);
    expect(readdirSync(join(testApp.dataDir, 'tmp', 'uploads'))).toEqual([]);
  });
});
