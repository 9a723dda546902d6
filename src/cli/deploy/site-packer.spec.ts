import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as tar from 'tar';
import { packSiteDirectory } from './site-packer';

/** Lists an archive with tar.t: entry path -> entry type. */
async function listArchive(file: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  await tar.t({ file, onReadEntry: (e) => void entries.set(e.path, e.type) });
  return entries;
}

describe('packSiteDirectory (deployment-gateway.md, Client scripts: pack)', () => {
  let tmp: string;
  let site: string;
  beforeEach(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'atrium-pack-spec-'));
    site = path.join(tmp, 'site');
    const files: Record<string, string> = {
      'index.html': '<h1>hi</h1>',
      'assets/css/app.css': 'body{}',
      'my docs/Ünïcødé file ñ.txt': 'text',
      '@at-sign.txt': 'not an archive reference',
      '.git/HEAD': 'ref',
      'node_modules/lib/index.js': 'x',
      'assets/vendor/node_modules/dep.js': 'x',
      'assets/vendor/.git/config': 'x',
      'assets/vendor/keep.js': 'x',
    };
    for (const [rel, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(site, rel)), { recursive: true });
      await fs.writeFile(path.join(site, rel), content);
    }
  });
  afterEach(async () => {
    await fs.rm(tmp, { recursive: true, force: true });
  });

  it('packs relative paths, skipping .git and node_modules at any depth', async () => {
    const out = path.join(tmp, 'out', 'site.tar.gz');
    const result = await packSiteDirectory(site, out);

    const entries = await listArchive(out);
    const files = [...entries].filter(([, type]) => type === 'File').map(([p]) => p).sort();
    expect(files).toEqual(
      [
        '@at-sign.txt',
        'assets/css/app.css',
        'assets/vendor/keep.js',
        'index.html',
        'my docs/Ünïcødé file ñ.txt',
      ].sort(),
    );
    for (const p of entries.keys()) {
      expect(p).not.toMatch(/(^|\/)(\.git|node_modules)(\/|$)/);
      expect(p.startsWith('/') || p.startsWith('./')).toBe(false);
    }
    expect(result).toEqual({ file: out, bytes: (await fs.stat(out)).size, fileCount: 5 });
    // gzip magic number
    expect((await fs.readFile(out)).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('does not pack its own output when written inside the directory', async () => {
    const out = path.join(site, 'self.tar.gz');
    const result = await packSiteDirectory(site, out);
    expect([...(await listArchive(out)).keys()]).not.toContain('self.tar.gz');
    expect(result.fileCount).toBe(5);
  });

  it('rejects a missing directory', async () => {
    await expect(packSiteDirectory(path.join(tmp, 'nope'), path.join(tmp, 'x.tgz'))).rejects.toThrow(
      /not a directory/,
    );
  });
});
