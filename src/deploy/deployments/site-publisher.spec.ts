import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import * as tar from 'tar';
import {
  ArchiveRejectedError,
  buildSiteDirectoryName,
  discardUnpackedSite,
  publishSiteArchive,
  promoteStagedSite,
  removePublishedSite,
  stagedAs,
  unpackSiteStream,
  type ArchiveLimits,
} from './site-publisher';

const MB = 1024 * 1024;
const LIMITS: ArchiveLimits = { maxEntries: 10_000, maxUnpackedBytes: 10 * MB };

// ---------------------------------------------------------------------------------------------------------------
// Raw tar writing, for hostile archives node-tar refuses to create.

interface RawEntry {
  name: string;
  /** ustar typeflag: '0' file, '1' hardlink, '2' symlink, '3' char dev, '4' block dev, '5' dir, '6' FIFO, 'x' pax. */
  type?: string;
  body?: Buffer;
  /** Size written in the header when it should differ from the body's length. */
  declaredSize?: number;
  linkpath?: string;
  mode?: number;
}

/** One 512-byte ustar header with a valid checksum. */
function ustarHeader(entry: RawEntry): Buffer {
  const header = Buffer.alloc(512);
  const octal = (value: number, offset: number, length: number) =>
    header.write(`${value.toString(8).padStart(length - 1, '0')}\0`, offset, length, 'ascii');
  header.write(entry.name, 0, 100, 'utf8');
  octal(entry.mode ?? 0o644, 100, 8);
  octal(0, 108, 8);
  octal(0, 116, 8);
  octal(entry.declaredSize ?? entry.body?.length ?? 0, 124, 12);
  octal(1_700_000_000, 136, 12);
  header.write(entry.type ?? '0', 156, 1, 'ascii');
  if (entry.linkpath) header.write(entry.linkpath, 157, 100, 'utf8');
  header.write('ustar\0', 257, 'ascii');
  header.write('00', 263, 'ascii');
  header.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  const sum = header.reduce((total, byte) => total + byte, 0);
  header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return header;
}

/** Header + body padded to 512 bytes, for each entry, then (by default) the two end-of-archive blocks. */
function rawTar(entries: RawEntry[], { endBlocks = true } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(ustarHeader(entry));
    if (entry.body?.length) {
      parts.push(entry.body, Buffer.alloc((512 - (entry.body.length % 512)) % 512));
    }
  }
  if (endBlocks) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A pax extended header ('x') overriding the next entry's path. */
function paxPath(path: string): RawEntry {
  const record = (length: number) => `${length} path=${path}\n`;
  let length = record(0).length;
  while (record(length).length !== length) length = record(length).length;
  return { name: 'PaxHeader', type: 'x', body: Buffer.from(record(length)) };
}

/** Streams `chunks` through gzip into `path` (for archives too large to hold in memory comfortably). */
async function writeGzipStream(path: string, chunks: () => Iterable<Buffer>): Promise<void> {
  await pipeline(Readable.from(chunks()), createGzip({ level: 1 }), fs.createWriteStream(path));
}

// ---------------------------------------------------------------------------------------------------------------
// Fixture directory: <tmp>/sites is sitesRoot, <tmp>/archives holds the archives, <tmp>/src the site sources.

let tmp: string;
let sitesRoot: string;
let archives: string;

beforeEach(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'site-publisher-'));
  sitesRoot = join(tmp, 'sites');
  archives = join(tmp, 'archives');
  await fs.promises.mkdir(sitesRoot);
  await fs.promises.mkdir(archives);
});

afterEach(async () => {
  jest.restoreAllMocks();
  await rm(tmp, { recursive: true, force: true });
});

/** Relative paths of everything under `dir` (directories end with `/`), sorted. */
async function tree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)) + (entry.isDirectory() ? '/' : ''))
    .sort();
}

async function writeArchive(name: string, tarBytes: Buffer): Promise<string> {
  const path = join(archives, name);
  await writeFile(path, gzipSync(tarBytes));
  return path;
}

function publish(archivePath: string, limits: ArchiveLimits = LIMITS, directoryName = 'a1b2c3d4-site-20250101000000') {
  return publishSiteArchive({ archivePath, sitesRoot, namespace: 'contact-42', directoryName, limits });
}

/** The archive is refused and nothing is left: at most an empty `.staging`, nothing outside sitesRoot. */
async function expectRejectedCleanly(archivePath: string, limits: ArchiveLimits = LIMITS): Promise<ArchiveRejectedError> {
  const outsideBefore = (await tree(tmp)).filter((path) => !path.startsWith('sites/'));
  const error = await publish(archivePath, limits).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArchiveRejectedError);
  expect((await tree(sitesRoot)).filter((path) => path !== '.staging/')).toEqual([]);
  expect((await tree(tmp)).filter((path) => !path.startsWith('sites/'))).toEqual(outsideBefore);
  expect(fs.existsSync('/etc/evil')).toBe(false);
  return error as ArchiveRejectedError;
}

const INDEX = Buffer.from('<!doctype html><title>ok</title>');

// ---------------------------------------------------------------------------------------------------------------

describe('publishSiteArchive: accepted archives', () => {
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(40_000)]);
  const longName = `${'deep/'.repeat(12)}${'n'.repeat(60)}.txt`; // > 100 bytes: node-tar writes a pax header
  const files: Record<string, Buffer> = {
    'index.html': INDEX,
    'css/site.css': Buffer.from('body { margin: 0 }\n'),
    'js/app.js': Buffer.from('document.title = "hi";\n'),
    'assets/img/logo.png': png,
    'assets/video/big.bin': randomBytes(3 * MB), // above the in-memory threshold: streamed to disk
    'docs/über café.txt': Buffer.from('Grüße aus Köln — ünïcödé\n'),
    'empty.txt': Buffer.alloc(0),
    [longName]: Buffer.from('long'),
  };
  const totalBytes = Object.values(files).reduce((sum, body) => sum + body.length, 0);

  async function writeSources(root: string): Promise<void> {
    for (const [path, body] of Object.entries(files)) {
      await fs.promises.mkdir(join(root, path, '..'), { recursive: true });
      await writeFile(join(root, path), body, { mode: 0o600 });
    }
  }

  async function expectSameFiles(siteDir: string): Promise<void> {
    for (const [path, body] of Object.entries(files)) {
      expect((await readFile(join(siteDir, path))).equals(body)).toBe(true);
    }
    const onDisk = (await tree(siteDir)).filter((path) => !path.endsWith('/'));
    expect(onDisk).toEqual(Object.keys(files).sort());
  }

  it('publishes a `./`-prefixed archive byte for byte, with counts, modes and no staging left over', async () => {
    const src = join(tmp, 'src');
    await writeSources(src);
    const archivePath = join(archives, 'site.tgz');
    await tar.c({ gzip: true, file: archivePath, cwd: src, portable: true }, ['.']);
    const listed: string[] = [];
    await tar.t({ file: archivePath, onReadEntry: (entry) => listed.push(entry.path) });
    expect(listed.every((path) => path.startsWith('./'))).toBe(true);

    const site = await publish(archivePath);

    const target = join(sitesRoot, 'contact-42', 'a1b2c3d4-site-20250101000000');
    expect(site).toEqual({ path: target, fileCount: Object.keys(files).length, bytes: totalBytes });
    await expectSameFiles(target);
    expect((await stat(join(target, 'docs/über café.txt'))).mode & 0o7777).toBe(0o644);
    expect((await stat(join(target, 'assets/video/big.bin'))).mode & 0o7777).toBe(0o644);
    expect((await stat(join(target, 'assets/img'))).mode & 0o7777).toBe(0o755);
    expect((await stat(target)).mode & 0o7777).toBe(0o755);
    expect(await readdir(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('keeps a single top-level folder as it is', async () => {
    await writeSources(join(tmp, 'src', 'dist'));
    const archivePath = join(archives, 'dist.tgz');
    await tar.c({ gzip: true, file: archivePath, cwd: join(tmp, 'src') }, ['dist']);

    const site = await publish(archivePath);

    expect(await readdir(site.path)).toEqual(['dist']);
    await expectSameFiles(join(site.path, 'dist'));
  });

  it('ignores archive modes: no setuid, no world-writable, always 0644 / 0755', async () => {
    const archivePath = await writeArchive(
      'modes.tgz',
      rawTar([
        { name: 'bin/', type: '5', mode: 0o7777 },
        { name: 'bin/run', body: Buffer.from('#!/bin/sh\n'), mode: 0o4777 },
        { name: 'index.html', body: INDEX, mode: 0o000 },
      ]),
    );

    const site = await publish(archivePath);

    expect((await stat(join(site.path, 'bin/run'))).mode & 0o7777).toBe(0o644);
    expect((await stat(join(site.path, 'index.html'))).mode & 0o7777).toBe(0o644);
    expect((await stat(join(site.path, 'bin'))).mode & 0o7777).toBe(0o755);
    expect(site).toMatchObject({ fileCount: 2, bytes: 10 + INDEX.length });
  });

  it('still publishes 0644 / 0755 under a strict umask', async () => {
    const archivePath = await writeArchive(
      'umask.tgz',
      rawTar([{ name: 'a/', type: '5' }, { name: 'a/b/index.html', body: INDEX }]),
    );
    const previous = process.umask(0o077);
    try {
      const site = await publish(archivePath);

      expect((await stat(site.path)).mode & 0o7777).toBe(0o755);
      expect((await stat(join(site.path, 'a/b'))).mode & 0o7777).toBe(0o755);
      expect((await stat(join(site.path, 'a/b/index.html'))).mode & 0o7777).toBe(0o644);
    } finally {
      process.umask(previous);
    }
  });

  it('creates the namespace directory but never overwrites an existing site', async () => {
    const archivePath = await writeArchive('ok.tgz', rawTar([{ name: 'index.html', body: INDEX }]));
    await publish(archivePath);

    const error = await publish(archivePath).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ArchiveRejectedError);
    expect(error).toMatchObject({ code: 'EEXIST' });
    expect(await tree(sitesRoot)).toEqual([
      '.staging/',
      'contact-42/',
      'contact-42/a1b2c3d4-site-20250101000000/',
      'contact-42/a1b2c3d4-site-20250101000000/index.html',
    ]);
  });
});

describe('publishSiteArchive: rejected archives leave nothing behind', () => {
  const ok: RawEntry = { name: 'index.html', body: INDEX };

  it.each<[string, RawEntry[]]>([
    ['a parent-directory path', [ok, { name: '../evil.txt', body: Buffer.from('x') }]],
    ['an absolute path', [ok, { name: '/etc/evil', body: Buffer.from('x') }]],
    ['a `..` in the middle', [ok, { name: 'a/../../evil', body: Buffer.from('x') }]],
    ['a backslash `..`', [ok, { name: 'a\\..\\..\\evil.txt', body: Buffer.from('x') }]],
    ['a Windows drive path', [ok, { name: 'C:\\evil.txt', body: Buffer.from('x') }]],
    ['a pax header smuggling `..`', [ok, paxPath('../evil.txt'), { name: 'innocent.txt', body: Buffer.from('x') }]],
    ['a name longer than 255 bytes', [ok, paxPath(`d/${'n'.repeat(300)}`), { name: 'x', body: Buffer.from('x') }]],
    ['a symlink', [ok, { name: 'link', type: '2', linkpath: '/etc/passwd' }]],
    ['a relative symlink', [ok, { name: 'link', type: '2', linkpath: 'index.html' }]],
    ['a hardlink', [ok, { name: 'hard', type: '1', linkpath: 'index.html' }]],
    ['a FIFO', [ok, { name: 'pipe', type: '6' }]],
    ['a character device', [ok, { name: 'null', type: '3' }]],
    ['a block device', [ok, { name: 'disk', type: '4' }]],
    ['a contiguous file', [ok, { name: 'contig', type: '7', body: Buffer.from('x') }]],
    ['an unknown entry type', [ok, { name: 'sparse', type: 'S', body: Buffer.from('x') }]],
    ['a file that is also a directory', [ok, { name: 'a', body: Buffer.from('x') }, { name: 'a/b', body: Buffer.from('y') }]],
    ['a duplicate file', [ok, { name: './index.html', body: Buffer.from('again') }]],
    ['a file named `.`', [ok, { name: '.', type: '0', body: Buffer.from('x') }]],
  ])('refuses %s', async (_label, entries) => {
    const archivePath = await writeArchive('hostile.tgz', rawTar(entries));
    await expectRejectedCleanly(archivePath);
  });

  it('refuses more entries than maxEntries (10,001 tiny files, limit 10,000)', async () => {
    const entries = Array.from({ length: 10_001 }, (_, i) => ({ name: `f/${i}.txt`, body: Buffer.from('x') }));
    const archivePath = await writeArchive('many.tgz', rawTar(entries));

    const error = await expectRejectedCleanly(archivePath, { maxEntries: 10_000, maxUnpackedBytes: 10 * MB });

    expect(error.message).toMatch(/more than 10000 entries/);
  });

  it('accepts exactly maxEntries entries', async () => {
    const entries = Array.from({ length: 100 }, (_, i) => ({ name: `f/${i}.txt`, body: Buffer.from('x') }));
    const archivePath = await writeArchive('hundred.tgz', rawTar(entries));

    await expect(publish(archivePath, { maxEntries: 100, maxUnpackedBytes: MB })).resolves.toMatchObject({
      fileCount: 100,
      bytes: 100,
    });
  });

  it('refuses a file declaring 1 GB before writing any of it', async () => {
    const archivePath = await writeArchive(
      'huge.tgz',
      rawTar([ok, { name: 'huge.bin', declaredSize: 1024 * MB, body: Buffer.alloc(4096) }], { endBlocks: false }),
    );

    const error = await expectRejectedCleanly(archivePath);

    expect(error.message).toMatch(/more than 10485760 bytes/);
  });

  it('stops a 200 MB-of-zeros bomb early, without opening the bomb file', async () => {
    const archivePath = join(archives, 'zeros.tgz');
    const zeros = Buffer.alloc(MB);
    await writeGzipStream(archivePath, function* () {
      yield rawTar([ok, { name: 'small.bin', body: randomBytes(2 * MB) }], { endBlocks: false });
      yield ustarHeader({ name: 'zeros.bin', declaredSize: 200 * MB });
      for (let i = 0; i < 200; i += 1) yield zeros;
      yield Buffer.alloc(1024);
    });
    expect((await stat(archivePath)).size).toBeLessThan(3 * MB); // the bomb: ~200 KB of gzip for 200 MB
    const opened: string[] = [];
    const realOpen = fs.open;
    jest.spyOn(fs, 'open').mockImplementation(((path: fs.PathLike, ...rest: unknown[]) => {
      opened.push(String(path));
      return (realOpen as (...args: unknown[]) => void)(path, ...rest);
    }) as typeof fs.open);
    const createWriteStream = jest.spyOn(fs, 'createWriteStream');
    const openSync = jest.spyOn(fs, 'openSync');

    const started = Date.now();
    const error = await expectRejectedCleanly(archivePath);

    expect(Date.now() - started).toBeLessThan(5_000);
    expect(error.message).toMatch(/more than 10485760 bytes/);
    expect(opened.some((path) => path.endsWith('small.bin'))).toBe(true); // the spy does see the writes
    expect(opened.some((path) => path.endsWith('zeros.bin'))).toBe(false);
    expect(createWriteStream.mock.calls.some(([path]) => String(path).endsWith('zeros.bin'))).toBe(false);
    expect(openSync.mock.calls.some(([path]) => String(path).endsWith('zeros.bin'))).toBe(false);
  });

  it('stops counting bytes the moment the sum of many files passes the limit', async () => {
    const entries = Array.from({ length: 12 }, (_, i) => ({ name: `part-${i}.bin`, body: randomBytes(MB) }));
    const archivePath = await writeArchive('sum.tgz', rawTar(entries));

    const error = await expectRejectedCleanly(archivePath);

    expect(error.message).toMatch(/more than 10485760 bytes/);
  });

  it('stops inflating 200 MB of zeros hidden after the end-of-archive blocks', async () => {
    const archivePath = join(archives, 'trailer.tgz');
    const zeros = Buffer.alloc(MB);
    await writeGzipStream(archivePath, function* () {
      yield rawTar([ok]);
      for (let i = 0; i < 200; i += 1) yield zeros;
    });

    const error = await expectRejectedCleanly(archivePath);

    expect(error.message).toMatch(/more than 10485760 bytes/);
  });

  it('refuses an oversized pax metadata entry (200 MB of zeros node-tar would silently skip)', async () => {
    const archivePath = join(archives, 'pax-bomb.tgz');
    const zeros = Buffer.alloc(MB);
    await writeGzipStream(archivePath, function* () {
      yield rawTar([ok], { endBlocks: false });
      yield ustarHeader({ name: 'PaxHeader', type: 'x', declaredSize: 200 * MB });
      for (let i = 0; i < 200; i += 1) yield zeros;
      yield rawTar([{ name: 'after.txt', body: Buffer.from('x') }]);
    });

    await expectRejectedCleanly(archivePath);
  });

  it('refuses a truncated archive, closing the file it was streaming', async () => {
    const src = join(tmp, 'src');
    await fs.promises.mkdir(src);
    await writeFile(join(src, 'index.html'), INDEX);
    await writeFile(join(src, 'data.bin'), randomBytes(4 * MB)); // large enough to be streamed, not buffered
    const full = join(archives, 'full.tgz');
    await tar.c({ gzip: true, file: full, cwd: src }, ['.']);
    const bytes = await readFile(full);
    const truncated = join(archives, 'truncated.tgz');
    await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));

    await expectRejectedCleanly(truncated);
  });

  it('refuses a tar whose body ends early inside a complete gzip stream', async () => {
    const whole = rawTar([ok, { name: 'data.bin', body: randomBytes(100_000) }], { endBlocks: false });
    const archivePath = await writeArchive('short.tgz', whole.subarray(0, 60_000));

    await expectRejectedCleanly(archivePath);
  });

  it('refuses a gzip stream with a corrupted body', async () => {
    const bytes = gzipSync(rawTar([ok, { name: 'data.bin', body: randomBytes(100_000) }]));
    for (let i = 1_000; i < 1_064; i += 1) bytes[i] ^= 0xff;
    const archivePath = join(archives, 'corrupt.tgz');
    await writeFile(archivePath, bytes);

    await expectRejectedCleanly(archivePath);
  });

  it.each<[string, () => Buffer]>([
    ['plain text', () => Buffer.from('this is not an archive at all\n'.repeat(100))],
    ['an uncompressed tar', () => rawTar([{ name: 'index.html', body: INDEX }])],
    ['a zip file', () => Buffer.concat([Buffer.from('PK\x03\x04'), randomBytes(1_000)])],
    ['an empty file', () => Buffer.alloc(0)],
    ['gzip of random bytes', () => gzipSync(randomBytes(10_000))],
    ['gzip of a gzip', () => gzipSync(gzipSync(rawTar([{ name: 'index.html', body: INDEX }])))],
  ])('refuses %s', async (_label, bytes) => {
    const archivePath = join(archives, 'not.tgz');
    await writeFile(archivePath, bytes());
    await expectRejectedCleanly(archivePath);
  });

  it('refuses an empty archive and one holding only directories', async () => {
    await expectRejectedCleanly(await writeArchive('empty.tgz', rawTar([])));
    await expectRejectedCleanly(
      await writeArchive('dirs.tgz', rawTar([{ name: './', type: '5' }, { name: 'a/', type: '5' }])),
    );
  });
});

describe('publishSiteArchive: site paths', () => {
  it.each([
    ['..', 'site'],
    ['a/b', 'site'],
    ['.staging', 'site'],
    ['', 'site'],
    ['contact-42', '..'],
    ['contact-42', '../other'],
    ['contact-42', ''],
    ['contact-42', '/etc'],
  ])('refuses namespace %j / directory %j before touching the disk', async (namespace, directoryName) => {
    const archivePath = await writeArchive('ok.tgz', rawTar([{ name: 'index.html', body: INDEX }]));

    const error = await publishSiteArchive({ archivePath, sitesRoot, namespace, directoryName, limits: LIMITS }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(ArchiveRejectedError);
    expect(await tree(sitesRoot)).toEqual([]);
  });
});

describe('removePublishedSite', () => {
  it('removes a published site and leaves its neighbours', async () => {
    const archivePath = await writeArchive('ok.tgz', rawTar([{ name: 'a/index.html', body: INDEX }]));
    await publish(archivePath, LIMITS, 'one');
    await publish(archivePath, LIMITS, 'two');

    await removePublishedSite({ sitesRoot, namespace: 'contact-42', directoryName: 'one' });

    expect(await readdir(join(sitesRoot, 'contact-42'))).toEqual(['two']);
    expect(await readdir(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('treats an already removed site as done', async () => {
    await expect(
      removePublishedSite({ sitesRoot, namespace: 'contact-42', directoryName: 'gone' }),
    ).resolves.toBeUndefined();
  });

  it.each([
    ['..', 'sites'],
    ['contact-42', '..'],
    ['contact-42', '../contact-43'],
    ['contact-42', 'a/../../..'],
    ['.', 'contact-42'],
    ['.staging', 'x'],
  ])('refuses namespace %j / directory %j', async (namespace, directoryName) => {
    await fs.promises.mkdir(join(sitesRoot, 'contact-43'), { recursive: true });
    await fs.promises.mkdir(join(sitesRoot, 'contact-42'), { recursive: true });

    await expect(removePublishedSite({ sitesRoot, namespace, directoryName })).rejects.toThrow(/outside/);

    expect(await tree(sitesRoot)).toEqual(['contact-42/', 'contact-43/']);
    expect(fs.existsSync(sitesRoot)).toBe(true);
  });
});

describe('buildSiteDirectoryName', () => {
  const now = new Date('2025-03-04T05:06:07.890Z');

  it('builds <random_id>-<project_name>-<timestamp> with a UTC timestamp', () => {
    expect(buildSiteDirectoryName('My Site', now, '0a1b2c3d')).toBe('0a1b2c3d-my-site-20250304050607');
    expect(buildSiteDirectoryName('x', new Date('2025-12-31T23:59:59+02:00'), 'zzzzzzzz')).toBe(
      'zzzzzzzz-x-20251231215959',
    );
  });

  it.each([
    ['Über Café!', 'uber-cafe'],
    ['  --Hello__World--  ', 'hello-world'],
    ['../../etc/passwd', 'etc-passwd'],
    ['日本語', 'site'],
    ['', 'site'],
    ['a'.repeat(60), 'a'.repeat(48)],
    [`${'a'.repeat(47)} b`, 'a'.repeat(47)],
  ])('slugs %j to %j', (projectName, slug) => {
    expect(buildSiteDirectoryName(projectName, now, '0a1b2c3d')).toBe(`0a1b2c3d-${slug}-20250304050607`);
  });

  it('draws a fresh 8-character hex id from crypto by default', () => {
    const names = new Set(Array.from({ length: 50 }, () => buildSiteDirectoryName('site', now)));
    expect(names.size).toBe(50);
    for (const name of names) expect(name).toMatch(/^[0-9a-f]{8}-site-20250304050607$/);
  });

  it('refuses a malformed id or an invalid date', () => {
    expect(() => buildSiteDirectoryName('site', now, 'ABCDEFGH')).toThrow(RangeError);
    expect(() => buildSiteDirectoryName('site', now, '../x')).toThrow(RangeError);
    expect(() => buildSiteDirectoryName('site', new Date('nope'))).toThrow(RangeError);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The archive read as a stream while it arrives (issue 14 item 2).

describe('unpackSiteStream (the archive part of a request, unpacked as it arrives)', () => {
  jest.setTimeout(30_000);
  /** A readable fed by hand, like the archive part of a request: chunks arrive when the test says so. */
  function arriving(): { source: PassThrough; send(bytes: Buffer, chunkBytes?: number): void } {
    const source = new PassThrough();
    return {
      source,
      send(bytes, chunkBytes = 4096) {
        for (let offset = 0; offset < bytes.length; offset += chunkBytes) source.write(bytes.subarray(offset, offset + chunkBytes));
      },
    };
  }

  it('unpacks small chunks into staging, then is named and published in one rename', async () => {
    const archive = gzipSync(rawTar([{ name: 'index.html', body: Buffer.from('<h1>hi</h1>') }, { name: 'a/b.css', body: randomBytes(3000) }]));
    const { source, send } = arriving();
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
    send(archive, 100);
    source.end();
    const unpacked = await unpacking;
    expect(unpacked).toMatchObject({ fileCount: 2, bytes: 3011 });
    expect(relative(sitesRoot, unpacked.staging)).toMatch(/^\.staging\/[0-9a-f]{24}$/);
    const staged = await stagedAs(unpacked, 'contact-42', 'a1b2c3d4-site-20250101000000');
    const site = await promoteStagedSite(staged);
    expect(await readFile(join(site.path, 'index.html'), 'utf8')).toBe('<h1>hi</h1>');
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('refuses a hostile entry as soon as it arrives, removes staging and leaves the source paused for the caller', async () => {
    const evil = rawTar([{ name: 'ok.txt', body: Buffer.from('ok') }, { name: '../evil', body: Buffer.from('x') }], { endBlocks: false });
    const { source, send } = arriving();
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
    send(gzipSync(evil));
    // No end: the refusal does not wait for the rest of the upload.
    await expect(unpacking).rejects.toThrow(ArchiveRejectedError);
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
    expect(source.isPaused()).toBe(true);
    source.destroy();
  });

  it('fails with the abort reason when cut (the upload passed its size limit) and leaves nothing', async () => {
    const { source, send } = arriving();
    const cut = new AbortController();
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS, signal: cut.signal });
    send(gzipSync(rawTar([{ name: 'big.bin', body: randomBytes(2 * MB) }], { endBlocks: false })).subarray(0, MB));
    await new Promise((resolveSoon) => setTimeout(resolveSoon, 50));
    const reason = new Error('over the archive limit');
    cut.abort(reason);
    await expect(unpacking).rejects.toBe(reason);
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('fails when the client goes away mid-archive (the source errors or closes early) and leaves nothing', async () => {
    for (const goAway of [(source: PassThrough) => source.destroy(new Error('Request aborted')), (source: PassThrough) => source.destroy()]) {
      const { source, send } = arriving();
      const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
      send(gzipSync(rawTar([{ name: 'big.bin', body: randomBytes(2 * MB) }])).subarray(0, MB));
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 50));
      goAway(source);
      const error = await unpacking.then(
        () => undefined,
        (caught: Error) => caught,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ArchiveRejectedError);
      expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
    }
  });

  it('fails, leaving nothing, when the client went away before unpacking began (while the staging folder was made)', async () => {
    for (const goAway of [(source: PassThrough) => source.destroy(new Error('Request aborted')), (source: PassThrough) => source.destroy()]) {
      const { source, send } = arriving();
      source.on('error', () => undefined); // the request's own listener, as in the app
      send(gzipSync(rawTar([{ name: 'big.bin', body: randomBytes(2 * MB) }])).subarray(0, MB));
      goAway(source);
      await new Promise((resolveSoon) => setImmediate(resolveSoon)); // its 'close' is emitted before unpacking listens
      const error = await unpackSiteStream({ source, sitesRoot, limits: LIMITS }).then(
        () => undefined,
        (caught: Error) => caught,
      );
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(ArchiveRejectedError);
      expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
    }
  });

  it('takes in an error the source emits while the staging folder is made, with no listener of the caller', async () => {
    const { source, send } = arriving();
    send(gzipSync(rawTar([{ name: 'big.bin', body: randomBytes(2 * MB) }])).subarray(0, MB));
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
    source.destroy(new Error('Request aborted')); // its 'error' is emitted before unpacking listens
    await expect(unpacking).rejects.toThrow('Request aborted');
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('refuses bytes after the gzip member, as it did when the archive was staged on disk', async () => {
    const { source, send } = arriving();
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
    send(Buffer.concat([gzipSync(rawTar([{ name: 'index.html', body: Buffer.from('x') }])), Buffer.alloc(2048, 7)]));
    source.end();
    await expect(unpacking).rejects.toThrow(ArchiveRejectedError);
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
  });

  it('writes every byte of many small files arriving in small chunks, across many batches and reused buffers', async () => {
    // Over 1 MiB of small files, twice: batches fill, are written and their buffers come back for the next ones
    // (and the next unpack); the upload's chunks are joined before inflating. Any stale or shared buffer shows as content.
    for (let round = 0; round < 2; round += 1) {
      const files = Array.from({ length: 400 }, (_, index) => ({ name: `d${index % 7}/f${index}.bin`, body: randomBytes(500 + ((index * 977) % 9000)) }));
      const { source, send } = arriving();
      const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
      send(gzipSync(rawTar(files), { level: 0 }), 16 * 1024 + 7);
      source.end();
      const unpacked = await unpacking;
      expect(unpacked.fileCount).toBe(files.length);
      for (const file of files) expect((await readFile(join(unpacked.staging, file.name))).equals(file.body)).toBe(true);
      await discardUnpackedSite(unpacked);
    }
  });

  it('refuses a clashing target when named, keeping the unpacked staging for the caller to discard', async () => {
    await fs.promises.mkdir(join(sitesRoot, 'contact-42', 'a1b2c3d4-site-20250101000000'), { recursive: true });
    const { source, send } = arriving();
    const unpacking = unpackSiteStream({ source, sitesRoot, limits: LIMITS });
    send(gzipSync(rawTar([{ name: 'index.html', body: Buffer.from('x') }])));
    source.end();
    const unpacked = await unpacking;
    await expect(stagedAs(unpacked, 'contact-42', 'a1b2c3d4-site-20250101000000')).rejects.toMatchObject({ code: 'EEXIST' });
    await expect(stagedAs(unpacked, 'contact-42', '../escape')).rejects.toThrow(/outside/);
    await discardUnpackedSite(unpacked);
    expect(await tree(join(sitesRoot, '.staging'))).toEqual([]);
  });
});
