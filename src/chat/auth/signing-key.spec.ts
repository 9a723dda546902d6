import { mkdtempSync, rmSync, statSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateSigningKey } from './signing-key';

describe('built-in authorization server signing key (issue 5: key kept under ./.data/, generated on first start)', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'atrium-signing-key-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('generates an ES256 key on first start, 0600 in a 0700 folder, and loads the same key later', async () => {
    const file = join(dir, 'chat-oauth', 'signing-key.jwk.json');
    const first = await loadOrCreateSigningKey(file);
    expect(first.created).toBe(true);
    expect(first.privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig', kid: expect.any(String), d: expect.any(String) });
    expect(first.publicJwk).toEqual({ kty: 'EC', crv: 'P-256', x: first.privateJwk.x, y: first.privateJwk.y, kid: first.privateJwk.kid, alg: 'ES256', use: 'sig' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'chat-oauth')).mode & 0o777).toBe(0o700);

    const again = await loadOrCreateSigningKey(file);
    expect(again.created).toBe(false);
    expect(again.privateJwk).toEqual(first.privateJwk);
  });

  it('narrows a key file readable by others to 0600', async () => {
    const file = join(dir, 'key.json');
    await loadOrCreateSigningKey(file);
    chmodSync(file, 0o644);
    await loadOrCreateSigningKey(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a file that holds no usable key, naming the file and what to do', async () => {
    const file = join(dir, 'key.json');
    writeFileSync(file, 'not json');
    await expect(loadOrCreateSigningKey(file)).rejects.toThrow(`${file} is not a JSON Web Key; move it away`);
    writeFileSync(file, JSON.stringify({ kty: 'RSA', n: 'x', e: 'AQAB' }));
    await expect(loadOrCreateSigningKey(file)).rejects.toThrow('does not hold an ES256 (P-256) private key');
    expect(readFileSync(file, 'utf8')).toContain('RSA');
  });
});
