import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { LocalDirectoryStorage, STALE_TEMP_AGE_MS } from './local-directory.storage';
import { InvalidStorageKeyError } from './storage-key';
import { BlobNotFoundError, BlobTooLargeError } from './storage.port';

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

describe('LocalDirectoryStorage (file storage port, local adapter)', () => {
  let root: string;
  let storage: LocalDirectoryStorage;

  beforeEach(async () => {
    root = join(mkdtempSync(join(tmpdir(), 'atrium-storage-')), 'root');
    storage = new LocalDirectoryStorage(root);
    await storage.init();
  });
  afterEach(() => rmSync(join(root, '..'), { recursive: true, force: true }));

  it('stores a stream under a generated sharded key, reads it back, and deletes it', async () => {
    const content = Buffer.from('hello storage ✓');
    const blob = await storage.put(Readable.from([content.subarray(0, 5), content.subarray(5)]), { namespace: 'evaluation-files' });
    expect(blob).toEqual({ key: expect.stringMatching(/^evaluation-files\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/), size: content.length, sha256: createHash('sha256').update(content).digest('hex') });
    expect(readFileSync(join(root, blob.key)).equals(content)).toBe(true);
    expect(filesUnder(root)).toEqual([blob.key]);

    const opened = await storage.open(blob.key);
    expect(opened.size).toBe(content.length);
    expect(await text(opened.stream)).toBe(content.toString());
    expect(await storage.stat(blob.key)).toEqual({ size: content.length });

    expect(await storage.delete(blob.key)).toBe(true);
    expect(await storage.delete(blob.key)).toBe(false);
    expect(await storage.stat(blob.key)).toBeUndefined();
    await expect(storage.open(blob.key)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('gives two writes of the same content two keys', async () => {
    const a = await storage.put(Readable.from([Buffer.from('same')]), { namespace: 'ns' });
    const b = await storage.put(Readable.from([Buffer.from('same')]), { namespace: 'ns' });
    expect(a.key).not.toBe(b.key);
    expect(a.sha256).toBe(b.sha256);
  });

  it('refuses content over maxBytes and leaves nothing behind', async () => {
    await expect(storage.put(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { namespace: 'ns', maxBytes: 1000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(filesUnder(root)).toEqual([]);
    const exact = await storage.put(Readable.from([Buffer.alloc(1000)]), { namespace: 'ns', maxBytes: 1000 });
    expect(exact.size).toBe(1000);
  });

  it('removes the temp file when the source fails mid-stream', async () => {
    async function* failing() {
      yield Buffer.from('partial');
      throw new Error('client went away');
    }
    await expect(storage.put(Readable.from(failing()), { namespace: 'ns' })).rejects.toThrow('client went away');
    expect(filesUnder(root)).toEqual([]);
  });

  it('refuses keys it did not generate, before touching the disk', async () => {
    writeFileSync(join(root, '..', 'outside.txt'), 'secret');
    for (const key of ['../outside.txt', 'ns/../../outside.txt', '/etc/passwd', 'ns/aa/bb/report.pdf']) {
      await expect(storage.open(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.stat(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
      await expect(storage.delete(key)).rejects.toBeInstanceOf(InvalidStorageKeyError);
    }
    expect(existsSync(join(root, '..', 'outside.txt'))).toBe(true);
    await expect(storage.put(Readable.from([Buffer.from('x')]), { namespace: '../up' })).rejects.toBeInstanceOf(InvalidStorageKeyError);
  });

  it('removes stale temp files at start-up and keeps recent ones', async () => {
    const stale = join(root, '.tmp', 'old.part');
    const recent = join(root, '.tmp', 'new.part');
    writeFileSync(stale, 'x');
    writeFileSync(recent, 'y');
    const old = (Date.now() - STALE_TEMP_AGE_MS - 60_000) / 1000;
    utimesSync(stale, old, old);
    await storage.init();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });
});
