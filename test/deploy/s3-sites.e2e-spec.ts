import { PutObjectCommand } from '@aws-sdk/client-s3';
import request from 'supertest';
import { createS3Client, S3Bucket } from '../../src/common/storage/s3.storage';
import { SiteReconciler } from '../../src/deploy/deployments/site-reconciler';
import { deployArchive, newAgent } from '../support/deploy-factories';
import { rawTarGz } from '../support/raw-tar';
import { startLocalS3, type LocalS3 } from '../support/s3-server';
import { startTestApp, type TestApp } from '../support/test-app';

/** Headers a site answer must carry the same way from disk and from S3. */
const COMPARED_HEADERS = ['content-type', 'content-length', 'accept-ranges', 'cache-control', 'content-security-policy', 'x-content-type-options', 'referrer-policy'];

const binary = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256));
const files: Record<string, Buffer> = {
  'index.html': Buffer.from('<!doctype html><h1>Hello from S3</h1>'),
  'assets/app.js': Buffer.from('console.log("héllo");'),
  'assets/data.bin': binary,
  'docs/index.html': Buffer.from('<p>docs</p>'),
};
const archive = rawTarGz(Object.entries(files).map(([name, content]) => ({ name, content })));

/** Sites served from an S3-compatible store (issue 20 item 4), side by side with the same site served from disk. */
describe('sites on S3 (STORAGE_DRIVER=s3)', () => {
  let s3: LocalS3;
  let onS3: TestApp;
  let onDisk: TestApp;
  let bucket: S3Bucket;
  let s3Url: string;
  let diskUrl: string;
  let s3Site: { id: string; token: string; prefix: string };

  beforeAll(async () => {
    s3 = await startLocalS3();
    [onS3, onDisk] = await Promise.all([startTestApp({ ...s3.env, DEPLOY_LEFTOVER_GRACE_MS: '1500' }), startTestApp()]);
    bucket = new S3Bucket(createS3Client({ endpoint: s3.endpoint, bucket: s3.bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true }), s3.bucket);
    const deployTo = async (app: TestApp) => {
      const agent = await newAgent(app.baseUrl);
      const response = await deployArchive(app.baseUrl, agent.token, archive, { projectName: 'same-site', contactId: agent.contactId }).expect(201);
      return { id: response.body.id as string, token: agent.token, path: new URL(response.body.url as string).pathname, prefix: `sites/${agent.contactId}/${response.body.directoryName}/` };
    };
    const [a, b] = await Promise.all([deployTo(onS3), deployTo(onDisk)]);
    s3Url = a.path;
    diskUrl = b.path;
    s3Site = a;
  });
  afterAll(async () => {
    await Promise.all([onS3?.close(), onDisk?.close()]);
    bucket?.client.destroy();
    await s3?.stop();
  });

  it('keeps the files in the bucket under the deploy\'s own prefix, and nothing in DEPLOY_SITES_DIR', async () => {
    expect((await bucket.list(s3Site.prefix)).sort()).toEqual(Object.keys(files).map((name) => s3Site.prefix + name).sort());
    const { readdirSync } = await import('node:fs');
    const local = readdirSync(onS3.config.deploy.sitesDir).filter((name) => name !== '.staging');
    expect(local).toEqual([]);
  });

  it('serves every file byte-identical, with the same headers as from disk', async () => {
    for (const [name, content] of Object.entries(files)) {
      const [fromS3, fromDisk] = await Promise.all([
        request(onS3.baseUrl).get(s3Url + name).responseType('blob').expect(200),
        request(onDisk.baseUrl).get(diskUrl + name).responseType('blob').expect(200),
      ]);
      expect(Buffer.compare(fromS3.body as Buffer, content)).toBe(0);
      expect(Buffer.compare(fromDisk.body as Buffer, content)).toBe(0);
      for (const header of COMPARED_HEADERS) expect([name, header, fromS3.headers[header]]).toEqual([name, header, fromDisk.headers[header]]);
      expect(fromS3.headers.etag).toBeTruthy();
      expect(fromS3.headers['last-modified']).toBeTruthy();
      expect(fromS3.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('answers a folder with its index.html and redirects a folder without its slash, as from disk', async () => {
    const [root, docs] = await Promise.all([request(onS3.baseUrl).get(s3Url).expect(200), request(onS3.baseUrl).get(`${s3Url}docs/`).expect(200)]);
    expect(root.text).toBe(files['index.html'].toString());
    expect(docs.text).toBe(files['docs/index.html'].toString());
    const [fromS3, fromDisk] = await Promise.all([request(onS3.baseUrl).get(`${s3Url}docs`).redirects(0), request(onDisk.baseUrl).get(`${diskUrl}docs`).redirects(0)]);
    expect([fromS3.status, fromDisk.status]).toEqual([301, 301]);
    expect(fromS3.headers.location).toBe(`${s3Url}docs/`);
    expect(fromS3.headers['content-security-policy']).toBe(fromDisk.headers['content-security-policy']);
  });

  it('answers ranges with 206 and the exact bytes, an unsatisfiable range with 416, a matching ETag with 304', async () => {
    const part = await request(onS3.baseUrl).get(`${s3Url}assets/data.bin`).set('Range', 'bytes=1000-1999').responseType('blob').expect(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${binary.length}`);
    expect(Buffer.compare(part.body as Buffer, binary.subarray(1000, 2000))).toBe(0);
    await request(onS3.baseUrl).get(`${s3Url}assets/data.bin`).set('Range', 'bytes=900000-').expect(416);
    const first = await request(onS3.baseUrl).get(`${s3Url}assets/app.js`).expect(200);
    const again = await request(onS3.baseUrl).get(`${s3Url}assets/app.js`).set('If-None-Match', first.headers.etag).expect(304);
    expect(again.text ?? '').toBe('');
    await request(onS3.baseUrl).get(`${s3Url}assets/app.js`).set('If-Modified-Since', new Date(Date.now() + 60_000).toUTCString()).expect(304);
    const head = await request(onS3.baseUrl).head(`${s3Url}assets/data.bin`).expect(200);
    expect(head.headers['content-length']).toBe(String(binary.length));
  });

  it('never serves dotfiles, escapes or missing files (attack)', async () => {
    await bucket.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${s3Site.prefix}.env`, Body: 'SECRET=1' }));
    for (const path of [`${s3Url}.env`, `${s3Url}assets/%2e%2e/%2e%2e/x`, `${s3Url}..%2F..%2Fblobs%2Fx`, `${s3Url}nope.html`]) {
      const response = await request(onS3.baseUrl).get(path);
      expect([path, response.status]).toEqual([path, 404]);
      expect(response.text).not.toContain('SECRET');
    }
  });

  it('serves nothing whose deployment row does not exist, even with its objects in the bucket (attack: a publish killed before its commit)', async () => {
    const [namespace] = s3Site.prefix.split('/').slice(1);
    const orphan = `sites/${namespace}/zzzzzzzz-orphan-20260101000000/`;
    await bucket.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: `${orphan}index.html`, Body: 'not committed' }));
    const response = await request(onS3.baseUrl).get(`/${namespace}/zzzzzzzz-orphan-20260101000000/index.html`);
    expect(response.status).toBe(404);
    expect(response.text).not.toContain('not committed');
    // The leftover sweep removes the orphan's objects once they are older than DEPLOY_LEFTOVER_GRACE_MS, not before,
    // and leaves the committed deploy's alone.
    const reconciler = onS3.app.get(SiteReconciler);
    expect((await reconciler.sweep()).orphans).toBe(0);
    expect(await bucket.list(orphan)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await reconciler.sweep()).orphans).toBe(1);
    expect(await bucket.list(orphan)).toEqual([]);
    expect((await bucket.list(s3Site.prefix)).length).toBeGreaterThan(0);
  });

  it('hides a deleted site at once and removes its objects', async () => {
    await request(onS3.baseUrl).delete(`/api/deploy/${s3Site.id}`).set('Authorization', `Bearer ${s3Site.token}`).expect(204);
    await request(onS3.baseUrl).get(`${s3Url}index.html`).expect(404);
    expect(await bucket.list(s3Site.prefix)).toEqual([]);
  });
});

