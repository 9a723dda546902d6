import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { DeployApiClient } from '../../src/cli/deploy/deploy-api.client';
import { deploySiteDirectory } from '../../src/cli/deploy/deploy-site';
import { startTestApp, TEST_REGISTRATION_KEY, TestApp } from '../support/test-app';

/** A tiny valid PNG (1×1, red) with real binary bytes, including NUL and high bytes. */
function png(): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (data: Buffer) => {
    let c = 0xffffffff;
    for (const byte of data) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const ihdr = Buffer.from([0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((entry) => statSync(join(dir, entry)).isFile())
    .map((entry) => relative(dir, join(dir, entry)));
}

describe('publishing a real site with the client (deployment-gateway.md: POST /api/deploy, GET /api/deployments, DELETE /api/deploy/{id})', () => {
  let testApp: TestApp;
  let siteDir: string;
  let configFile: string;

  beforeAll(async () => {
    testApp = await startTestApp();
    siteDir = mkdtempSync(join(tmpdir(), 'site-src-'));
    const files: Record<string, Buffer | string> = {
      'index.html': '<!doctype html><html><head><link rel="stylesheet" href="css/site.css"></head><body><img src="img/logo.png"><script src="js/app.js"></script></body></html>',
      'css/site.css': 'body { font-family: sans-serif; color: #222; }\n',
      'js/app.js': 'document.body.dataset.ready = "yes";\n',
      'img/logo.png': png(),
      'docs/nested/deeper/page.html': '<p>deep</p>',
      'docs/über café menu.txt': 'Crème brûlée — 5 €\n',
      'data/report 2026.json': JSON.stringify({ ok: true, items: [1, 2, 3] }),
    };
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(siteDir, path, '..'), { recursive: true });
      writeFileSync(join(siteDir, path), content);
    }
    mkdirSync(join(siteDir, '.git'));
    writeFileSync(join(siteDir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    mkdirSync(join(siteDir, 'node_modules', 'left-pad'), { recursive: true });
    writeFileSync(join(siteDir, 'node_modules', 'left-pad', 'index.js'), 'module.exports = 1;');
    configFile = join(siteDir, '..', `client-${Date.now()}.json`);
  });
  afterAll(async () => {
    rmSync(siteDir, { recursive: true, force: true });
    rmSync(configFile, { force: true });
    await testApp?.close();
  });

  it('packs, deploys, serves every file byte-identical, lists, deletes, then answers 404', async () => {
    const saved: unknown[] = [];
    const client = new DeployApiClient(
      { apiUrl: testApp.baseUrl, registrationKey: TEST_REGISTRATION_KEY, token: null, agentId: 'site-e2e' },
      { saveConfig: async (config) => void saved.push(config) },
    );
    const { deployment, pack } = await deploySiteDirectory(client, siteDir, { projectName: 'My Landing Page', contactId: 'c-site-e2e' });

    const expected = listFiles(siteDir).filter((path) => !path.startsWith('.git/') && !path.startsWith('node_modules/'));
    expect(pack.fileCount).toBe(expected.length);
    expect(saved).toHaveLength(1); // registration ran automatically and the token was saved
    expect(deployment.directoryName).toMatch(/^[0-9a-z]{8}-my-landing-page-\d{14}$/);
    expect(deployment.url).toBe(`${testApp.baseUrl}/c-site-e2e/${deployment.directoryName}/`);
    expect(deployment.fileCount).toBe(expected.length);
    expect(deployment.elapsedSeconds).toBeGreaterThanOrEqual(0);

    for (const path of expected) {
      const url = deployment.url + path.split('/').map(encodeURIComponent).join('/');
      const response = await fetch(url);
      expect({ path, status: response.status }).toEqual({ path, status: 200 });
      expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(join(siteDir, path)))).toBe(true);
    }
    const index = await fetch(deployment.url);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toMatch(/^text\/html/);
    expect(index.headers.get('etag')).toBeTruthy();
    expect((await fetch(deployment.url + 'css/site.css')).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(deployment.url + 'img/logo.png')).headers.get('content-type')).toBe('image/png');
    expect((await fetch(deployment.url + '.git/HEAD')).status).toBe(404);
    expect((await fetch(deployment.url + 'node_modules/left-pad/index.js')).status).toBe(404);
    expect((await fetch(`${testApp.baseUrl}/c-site-e2e/`)).status).toBe(404); // no directory listing
    expect((await fetch(`${deployment.url}..%2f..%2f..%2fetc%2fpasswd`)).status).toBe(404);

    const page = await client.listDeployments();
    expect(page.content.map((item) => item.id)).toEqual([deployment.id]);
    expect(page.content[0]).toMatchObject({ directoryName: deployment.directoryName, url: deployment.url, contactId: 'c-site-e2e' });

    await client.deleteDeployment(deployment.id);
    expect((await fetch(deployment.url)).status).toBe(404);
    expect((await fetch(deployment.url + 'css/site.css')).status).toBe(404);
    expect((await client.listDeployments()).content).toEqual([]);
    expect(readdirSync(join(testApp.config.deploy.sitesDir, 'c-site-e2e'))).toEqual([]);
  });
});
