import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { deployArchive, newAgent, TestAgent } from '../support/deploy-factories';
import { rawTar, rawTarGz } from '../support/raw-tar';
import { startTestApp, TestApp } from '../support/test-app';

/** Every file and folder under `dir`, relative; the (empty) staging folder itself does not count, its content does. */
function tree(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((entry) => entry !== '.staging').sort() : [];
}

describe('hostile archives are refused and leave nothing behind (deployment-gateway.md: POST /api/deploy)', () => {
  let testApp: TestApp;
  let agent: TestAgent;
  const evilName = `atrium-evil-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    testApp = await startTestApp({ DEPLOY_MAX_ENTRIES: '50', DEPLOY_MAX_UNPACKED_BYTES: String(1024 * 1024), DEPLOY_MAX_ARCHIVE_BYTES: String(256 * 1024) });
    agent = await newAgent(testApp.baseUrl);
  });
  afterAll(() => testApp?.close());

  const many = Array.from({ length: 51 }, (_, index) => ({ name: `f${index}.txt`, content: 'x' }));
  const cases: [string, () => Buffer, number][] = [
    ['a `..` path', () => rawTarGz([{ name: 'index.html', content: 'ok' }, { name: `../${evilName}`, content: 'evil' }]), 400],
    ['a nested `..` path', () => rawTarGz([{ name: `a/../../${evilName}`, content: 'evil' }]), 400],
    ['an absolute path', () => rawTarGz([{ name: `/tmp/${evilName}`, content: 'evil' }]), 400],
    ['a symlink', () => rawTarGz([{ name: 'index.html', content: 'ok' }, { name: 'passwd', type: '2', linkName: '/etc/passwd' }]), 400],
    ['a hardlink', () => rawTarGz([{ name: 'index.html', content: 'ok' }, { name: 'hard', type: '1', linkName: '/etc/passwd' }]), 400],
    ['a character device', () => rawTarGz([{ name: 'null', type: '3' }]), 400],
    ['a FIFO', () => rawTarGz([{ name: 'pipe', type: '6' }]), 400],
    ['too many entries', () => rawTarGz(many), 400],
    ['too many unpacked bytes (zip bomb)', () => rawTarGz([{ name: 'zeros.bin', content: Buffer.alloc(3 * 1024 * 1024) }]), 400],
    ['a header that lies about the size', () => rawTarGz([{ name: 'big.bin', content: 'x', declaredSize: 50 * 1024 * 1024 }]), 400],
    ['a truncated archive', () => rawTarGz([{ name: 'a.txt', content: randomBytes(8192) }]).subarray(0, 2000), 400],
    ['not gzip at all', () => rawTar([{ name: 'a.txt', content: 'plain tar' }]), 400],
    ['an empty archive', () => gzipSync(Buffer.alloc(1024)), 400],
    ['an archive over the size limit', () => Buffer.concat([gzipSync(Buffer.alloc(10)), Buffer.alloc(300 * 1024, 7)]), 413],
  ];

  it.each(cases)('refuses %s', async (_name, build, status) => {
    const before = tree(testApp.config.deploy.sitesDir);
    const response = await deployArchive(testApp.baseUrl, agent.token, build(), { projectName: 'evil', contactId: agent.contactId });
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(tree(testApp.config.deploy.sitesDir)).toEqual(before);
    expect(existsSync(join(testApp.config.deploy.sitesDir, '..', evilName))).toBe(false);
    expect(existsSync(join(tmpdir(), evilName))).toBe(false);
    expect(existsSync(join('/tmp', evilName))).toBe(false);
    expect(tree(join(testApp.dataDir, 'tmp', 'uploads'))).toEqual([]);
  });

  it('records nothing and audits the refusal', async () => {
    const list = await request(testApp.baseUrl).get('/api/deployments').set('Authorization', `Bearer ${agent.token}`).expect(200);
    expect(list.body.totalElements).toBe(0);
    const audit = await request(testApp.baseUrl).get('/api/admin/audit').set('Authorization', `Bearer ${testApp.config.deploy.ownerToken}`).query({ size: 200 }).expect(200);
    const refusals = audit.body.content.filter((row: { action: string; outcome: string }) => row.action === 'deploy' && row.outcome === 'refused');
    expect(refusals).toHaveLength(cases.length);
  });
});
