import { Readable } from 'node:stream';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createS3Client, S3BlobStorage, S3Bucket, s3Status } from '../../src/common/storage/s3.storage';
import { BlobNotFoundError, BlobTooLargeError, InvalidStorageKeyError } from '../../src/common/storage/storage.port';
import { startLocalS3, type LocalS3 } from '../support/s3-server';

/** The S3 adapter against a real S3 REST server (s3rver on 127.0.0.1): the blob port's contract, and what site serving relies on. */
describe('S3 storage adapter (issue 20 item 4)', () => {
  let s3: LocalS3;
  let bucket: S3Bucket;
  let blobs: S3BlobStorage;
  let temp: string;

  beforeAll(async () => {
    s3 = await startLocalS3();
    bucket = new S3Bucket(
      createS3Client({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true }),
      s3.bucket,
    );
    temp = await mkdtemp(join(tmpdir(), 'atrium-s3-spec-'));
    blobs = new S3BlobStorage(bucket, join(temp, 'tmp'));
  });
  afterAll(async () => {
    bucket.client.destroy();
    await s3.stop();
    await rm(temp, { recursive: true, force: true });
  });

  it('stores, reads, stats and deletes a blob, with its size and SHA-256', async () => {
    const content = Buffer.from('hello S3 '.repeat(1000));
    const stored = await blobs.put(Readable.from([content]), { namespace: 'evaluation-files' });
    expect(stored.size).toBe(content.length);
    expect(stored.sha256).toBe(require('node:crypto').createHash('sha256').update(content).digest('hex'));
    const opened = await blobs.open(stored.key);
    const chunks: Buffer[] = [];
    for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content)).toBe(true);
    expect(opened.size).toBe(content.length);
    expect(await blobs.stat(stored.key)).toEqual({ size: content.length });
    expect(await blobs.delete(stored.key)).toBe(true);
    expect(await blobs.delete(stored.key)).toBe(false);
    expect(await blobs.stat(stored.key)).toBeUndefined();
    await expect(blobs.open(stored.key)).rejects.toBeInstanceOf(BlobNotFoundError);
  });

  it('refuses a blob over maxBytes and stores nothing (attack: an endless upload)', async () => {
    const before = await bucket.list('blobs/');
    const endless = Readable.from((function* () {
      for (let i = 0; i < 100; i++) yield Buffer.alloc(64 * 1024, 1);
    })());
    await expect(blobs.put(endless, { namespace: 'evaluation-files', maxBytes: 100_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await bucket.list('blobs/')).toEqual(before);
  });

  it('refuses keys it did not make (attack: a path outside blobs/)', async () => {
    await expect(blobs.open('../sites/x/y/index.html')).rejects.toBeInstanceOf(InvalidStorageKeyError);
    await expect(blobs.delete('evaluation-files/../../x')).rejects.toBeInstanceOf(InvalidStorageKeyError);
  });

  it('uploads a folder under a prefix, answers ranges (206/416) and conditionals (304), and deletes the prefix', async () => {
    const folder = join(temp, 'site');
    await mkdir(join(folder, 'assets'), { recursive: true });
    await writeFile(join(folder, 'index.html'), '<h1>hi</h1>');
    await writeFile(join(folder, 'assets', 'app.js'), 'x'.repeat(1000));
    expect(await bucket.uploadFolder(folder, 'sites/ns/d1/')).toBe(2);
    expect(await bucket.folders('sites/ns/')).toEqual(['d1']);
    const part = await bucket.get('sites/ns/d1/assets/app.js', { range: 'bytes=0-9' });
    expect(part.status).toBe(206);
    expect(part.contentRange).toBe('bytes 0-9/1000');
    part.body.destroy();
    const whole = await bucket.get('sites/ns/d1/assets/app.js');
    whole.body.destroy();
    const statusOf = (reading: Promise<unknown>) => reading.then(() => 'no error', (error: unknown) => s3Status(error));
    expect(await statusOf(bucket.get('sites/ns/d1/assets/app.js', { ifNoneMatch: whole.etag }))).toBe(304);
    expect(await statusOf(bucket.get('sites/ns/d1/assets/app.js', { ifModifiedSince: new Date(Date.now() + 3_600_000) }))).toBe(304);
    expect(await statusOf(bucket.get('sites/ns/d1/assets/app.js', { range: 'bytes=5000-6000' }))).toBe(416);
    expect(await statusOf(bucket.get('sites/ns/d1/nope'))).toBe(404);
    expect(await bucket.deletePrefix('sites/ns/d1/')).toBe(2);
    expect(await bucket.list('sites/')).toEqual([]);
    await expect(bucket.deletePrefix('sites/ns')).rejects.toThrow(/not a folder/);
  });
});
