import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSecretSealer, SECRET_KEY_FILE } from './secret-key';
import { parseSealingKey } from './secret-sealer';

describe('loadSecretSealer', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'atrium-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates the key file once with mode 0600 and reuses it', async () => {
    const warnings: string[] = [];
    const first = await loadSecretSealer({ previous: [], dataDir: join(dir, 'data'), externalDatabase: false, warn: (m) => warnings.push(m) });
    const file = join(dir, 'data', SECRET_KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const second = await loadSecretSealer({ previous: [], dataDir: join(dir, 'data'), externalDatabase: false });
    expect(second.current.id).toBe(first.current.id);
    expect(second.open(first.seal('x'))).toBe('x');
    expect(warnings).toEqual([]);
  });

  it('warns when it generates a key for an external database (scale-out needs ATRIUM_SECRET_KEY)', async () => {
    const warnings: string[] = [];
    await loadSecretSealer({ previous: [], dataDir: dir, externalDatabase: true, warn: (m) => warnings.push(m) });
    expect(warnings.join('\n')).toMatch(/ATRIUM_SECRET_KEY is not set/);
  });

  it('prefers ATRIUM_SECRET_KEY, keeps previous keys for opening, and tightens a loose key file', async () => {
    const current = randomBytes(32).toString('hex');
    const previous = randomBytes(32).toString('hex');
    const sealer = await loadSecretSealer({ current, previous: [previous], dataDir: dir, externalDatabase: true });
    expect(sealer.current.id).toBe(parseSealingKey(current).id);
    expect(sealer.keys.map((key) => key.id)).toEqual([parseSealingKey(current).id, parseSealingKey(previous).id]);
    writeFileSync(join(dir, SECRET_KEY_FILE), `${previous}\n`, { mode: 0o644 });
    const fromFile = await loadSecretSealer({ previous: [], dataDir: dir, externalDatabase: false });
    expect(fromFile.current.id).toBe(parseSealingKey(previous).id);
    expect(statSync(join(dir, SECRET_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, SECRET_KEY_FILE), 'utf8').trim()).toBe(previous);
  });

  it('refuses a key file that holds no valid key, naming the file', async () => {
    writeFileSync(join(dir, SECRET_KEY_FILE), 'not a key\n', { mode: 0o600 });
    await expect(loadSecretSealer({ previous: [], dataDir: dir, externalDatabase: false })).rejects.toThrow(SECRET_KEY_FILE);
  });
});
