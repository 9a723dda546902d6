import { getDataSourceToken } from '@nestjs/typeorm';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';
/** Small limit so the 413 test sends little. */
const MAX_BYTES = 64 * 1024;

/** A 1×1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4480000000049454e44ae426082',
  'hex',
);
/** The start of a PDF: enough for magic-byte detection. */
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');

const sha256 = (content: Buffer) => createHash('sha256').update(content).digest('hex');

/** Every regular file under `dir`, as paths relative to it. */
function filesUnder(dir: string, prefix = ''): string[] {
  if (!existsSync(join(dir, prefix))) return [];
  return readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(dir, join(prefix, entry.name)) : [join(prefix, entry.name)],
  );
}

describe('evaluation files and categories (issue 4: Files)', () => {
  let testApp: TestApp;
  let storageRoot: string;
  let dataSource: DataSource;
  const api = (method: 'get' | 'post' | 'patch' | 'delete', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);

  /** Factory: uploads `content` as `filename` (claimed type `contentType`) with optional fields. */
  const upload = (content: Buffer, filename: string, options: { contentType?: string; categoryId?: string; description?: string } = {}) => {
    const call = api('post', '/api/files');
    if (options.categoryId) call.field('category_id', options.categoryId);
    if (options.description) call.field('description', options.description);
    return call.attach('file', content, { filename, contentType: options.contentType ?? 'application/octet-stream' });
  };
  /** Factory: creates a category. */
  const newCategory = async (name: string, parentId: string | null = null): Promise<{ id: string; name: string; parent_id: string | null }> =>
    (await api('post', '/api/file-categories').send({ name, parent_id: parentId }).expect(201)).body;
  const download = (id: string) => api('get', `/api/files/${id}/download`).responseType('blob'); // body as raw bytes, whatever the type
  const storageKeyOf = async (fileId: string): Promise<string> => (await dataSource.query('SELECT storage_key FROM eval_file WHERE id = $1', [fileId]))[0].storage_key;
  const blobs = () => filesUnder(storageRoot).filter((path) => !path.startsWith(`.tmp${sep}`));

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, EVAL_FILE_MAX_BYTES: String(MAX_BYTES) });
    storageRoot = testApp.config.storage.root;
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
  });
  afterAll(() => testApp?.close());

  it('stores under $DATA_DIR/files by default and asks for a credential', async () => {
    expect(storageRoot).toBe(join(testApp.dataDir, 'files'));
    await request(testApp.baseUrl).get('/api/files').expect(401);
    await request(testApp.baseUrl).post('/api/files').attach('file', PNG, 'a.png').expect(401);
  });

  describe('upload and download', () => {
    it('serves a PNG named .txt as image/png, with its exact bytes and safe download headers', async () => {
      const created = await upload(PNG, 'notes.txt', { contentType: 'text/plain', description: 'A tiny image' }).expect(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        name: 'notes.txt',
        description: 'A tiny image',
        size_bytes: PNG.length,
        sha256: sha256(PNG),
        content_type: 'image/png',
        category_id: null,
        download_url: `/api/files/${created.body.id}/download`,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });

      const response = await download(created.body.id).expect(200);
      expect(Buffer.compare(response.body as Buffer, PNG)).toBe(0);
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['content-length']).toBe(String(PNG.length));
      expect(response.headers['content-disposition']).toBe(`attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
      expect(response.headers['x-content-type-options']).toBe('nosniff');

      // The stored blob is the same bytes, under a generated key inside the storage root.
      const key = await storageKeyOf(created.body.id);
      expect(key).toMatch(/^evaluation-files\/[0-9a-f]{2}\/[0-9a-f]{2}\/[0-9a-f]{32}$/);
      expect(readFileSync(join(storageRoot, key)).equals(PNG)).toBe(true);
      expect(await api('get', `/api/files/${created.body.id}`).expect(200)).toHaveProperty('body', created.body);
    });

    it('keeps a UTF-8 name and offers it in filename* with an ASCII fallback', async () => {
      const created = await upload(PDF, '報告 ✓.pdf', { contentType: 'application/pdf' }).expect(201);
      expect(created.body).toMatchObject({ name: '報告 ✓.pdf', content_type: 'application/pdf', size_bytes: PDF.length, sha256: sha256(PDF) });
      const response = await download(created.body.id).expect(200);
      expect(response.headers['content-disposition']).toBe(`attachment; filename="file.pdf"; filename*=UTF-8''%E5%A0%B1%E5%91%8A%20%E2%9C%93.pdf`);
      expect(decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(response.headers['content-disposition'])![1])).toBe('報告 ✓.pdf');
      expect(Buffer.compare(response.body as Buffer, PDF)).toBe(0);
    });

    it('keeps a claimed text type only for real text, and never serves active content under its own type', async () => {
      const csv = Buffer.from('name,score\nÅsa,3\n');
      const table = await upload(csv, 'scores.csv', { contentType: 'text/csv' }).expect(201);
      expect(table.body.content_type).toBe('text/csv; charset=utf-8');
      expect((await download(table.body.id).expect(200)).headers['content-type']).toBe('text/csv; charset=utf-8');

      const html = await upload(Buffer.from('<html><script>alert(1)</script></html>'), 'page.html', { contentType: 'text/html' }).expect(201);
      expect(html.body.content_type).toBe('application/octet-stream');
      const served = await download(html.body.id).expect(200);
      expect(served.headers['content-type']).toBe('application/octet-stream');
      expect(served.headers['content-disposition']).toMatch(/^attachment;/);

      const binaryAsText = await upload(Buffer.from([0x00, 0x01, 0xfe, 0xff]), 'data.txt', { contentType: 'text/plain' }).expect(201);
      expect(binaryAsText.body.content_type).toBe('application/octet-stream');
    });

    it('accepts a file of exactly the limit and refuses one byte more with 413, storing nothing', async () => {
      const before = blobs();
      const total = (await api('get', '/api/files').expect(200)).body.totalElements;

      const refused = await upload(Buffer.alloc(MAX_BYTES + 1, 7), 'big.bin').expect(413);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.body.detail).toBe('The file is larger than the limit of 64 KiB (65536 bytes); nothing was stored.');
      expect(blobs()).toEqual(before);
      expect((await api('get', '/api/files').expect(200)).body.totalElements).toBe(total);
      expect(filesUnder(join(testApp.dataDir, 'tmp', 'uploads'))).toEqual([]);

      const exact = await upload(Buffer.alloc(MAX_BYTES, 7), 'exact.bin').expect(201);
      expect(exact.body.size_bytes).toBe(MAX_BYTES);
      expect(filesUnder(join(testApp.dataDir, 'tmp', 'uploads'))).toEqual([]);
    });

    it('answers 400 when no file is sent', async () => {
      const fieldsOnly = await api('post', '/api/files').field('description', 'forgot the file').expect(400);
      expect(fieldsOnly.body.detail).toBe('No file was sent: attach the content as the multipart/form-data field "file".');
      const json = await api('post', '/api/files').send({}).expect(400);
      expect(json.body.detail).toContain('field "file"');
      const otherField = await api('post', '/api/files').attach('upload', PNG, 'a.png').expect(400);
      expect(otherField.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('never uses a path-like name on disk: the content lands under the storage root, the name keeps only its last segment', async () => {
      const boundary = 'atrium-boundary-7f3a';
      const body = Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="../../../outside/evil.txt"\r\nContent-Type: text/plain\r\n\r\n`),
        Buffer.from('escaped?\n'),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      const before = blobs();
      const dataBefore = new Set(filesUnder(testApp.dataDir));
      const created = await api('post', '/api/files').set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(body).expect(201);
      expect(created.body.name).toBe('evil.txt');

      const windows = await upload(Buffer.from('x'), 'ignored', { contentType: 'text/plain' }).expect(201);
      const renamed = await api('patch', `/api/files/${windows.body.id}`).send({ name: '..\\..\\boot.ini' }).expect(200);
      expect(renamed.body.name).toBe('boot.ini');

      const key = await storageKeyOf(created.body.id);
      expect(blobs()).toEqual(expect.arrayContaining([...before, key.split('/').join(sep)]));
      expect(readFileSync(join(storageRoot, key), 'utf8')).toBe('escaped?\n');
      expect(existsSync(join(testApp.dataDir, '..', 'outside'))).toBe(false);
      expect(existsSync(join(testApp.dataDir, 'outside'))).toBe(false);
      // The only files these uploads left in the data folder are the two blobs, under generated keys inside the storage root.
      const written = filesUnder(testApp.dataDir).filter((path) => !dataBefore.has(path));
      expect(written).toHaveLength(2);
      for (const path of written) expect(relative(storageRoot, join(testApp.dataDir, path))).toMatch(/^evaluation-files[/\\][0-9a-f]{2}[/\\][0-9a-f]{2}[/\\][0-9a-f]{32}$/);
    });
  });

  describe('categories', () => {
    it('builds a tree, refuses duplicate sibling names and moves that would make a loop', async () => {
      const a = await newCategory('Tree A');
      const b = await newCategory('B', a.id);
      const c = await newCategory('C', b.id);
      const d = await newCategory('Tree D');

      const duplicate = await api('post', '/api/file-categories').send({ name: '  tree   a ' }).expect(409);
      expect(duplicate.body.detail).toBe('A category named "Tree A" already exists at the top level; sibling names must differ (ignoring case).');
      await newCategory('B', d.id); // the same name under another parent is fine

      const loop = await api('patch', `/api/file-categories/${a.id}`).send({ parent_id: c.id }).expect(409);
      expect(loop.body.detail).toBe('Cannot move category "Tree A" into "C": "C" is inside "Tree A" (Tree A › B › C), so the move would make a loop.');
      expect(loop.body.cycle).toEqual([a.id, b.id, c.id]);
      const self = await api('patch', `/api/file-categories/${a.id}`).send({ parent_id: a.id }).expect(409);
      expect(self.body.detail).toBe('Cannot move category "Tree A" into itself.');

      // Moving B (with C) under D clashes with D's own B.
      const clash = await api('patch', `/api/file-categories/${b.id}`).send({ parent_id: d.id }).expect(409);
      expect(clash.body.detail).toContain('A category named "B" already exists in that category');

      const moved = await api('patch', `/api/file-categories/${b.id}`).send({ parent_id: d.id, name: 'B moved' }).expect(200);
      expect(moved.body).toMatchObject({ id: b.id, name: 'B moved', parent_id: d.id });
      // Now A is no ancestor of C: moving A under C is allowed, and back to the top level too.
      await api('patch', `/api/file-categories/${a.id}`).send({ parent_id: c.id }).expect(200);
      const detail = await api('get', `/api/file-categories/${a.id}`).expect(200);
      expect(detail.body.path.map((step: { name: string }) => step.name)).toEqual(['Tree D', 'B moved', 'C', 'Tree A']);
      const toTop = await api('patch', `/api/file-categories/${a.id}`).send({ parent_id: null }).expect(200);
      expect(toTop.body.parent_id).toBeNull();
      await api('patch', `/api/file-categories/${a.id}`).send({ name: 'TREE A' }).expect(200); // case-only rename of itself

      const tree = await api('get', '/api/file-categories/tree').expect(200);
      const top = tree.body.categories.filter((node: { name: string }) => node.name.startsWith('TREE') || node.name.startsWith('Tree'));
      expect(top.map((node: { name: string }) => node.name)).toEqual(['TREE A', 'Tree D']);
      const treeD = top[1];
      expect(treeD.children.map((node: { name: string }) => node.name)).toEqual(['B', 'B moved']);
      expect(treeD.children[1].children).toEqual([{ id: c.id, name: 'C', parent_id: b.id, file_count: 0, children: [] }]);

      const children = await api('get', `/api/file-categories?parent_id=${d.id}&sort=name,desc`).expect(200);
      expect(children.body.content.map((row: { name: string }) => row.name)).toEqual(['B moved', 'B']);
      const roots = await api('get', '/api/file-categories?parent_id=root&q=tree').expect(200);
      expect(roots.body.content.map((row: { name: string }) => row.name)).toEqual(['TREE A', 'Tree D']);
    });

    it('lets only one of two concurrent crossing moves win, so no loop can form', async () => {
      for (let round = 0; round < 5; round++) {
        const x = await newCategory(`Cross X${round}`);
        const y = await newCategory(`Cross Y${round}`);
        const [first, second] = await Promise.all([
          api('patch', `/api/file-categories/${x.id}`).send({ parent_id: y.id }),
          api('patch', `/api/file-categories/${y.id}`).send({ parent_id: x.id }),
        ]);
        expect([first.status, second.status].sort()).toEqual([200, 409]);
        const parents = [(await api('get', `/api/file-categories/${x.id}`).expect(200)).body.parent_id, (await api('get', `/api/file-categories/${y.id}`).expect(200)).body.parent_id];
        expect(parents.filter((parent) => parent === null)).toHaveLength(1);
      }
    });

    it('refuses invalid names with 400', async () => {
      const blank = await api('post', '/api/file-categories').send({ name: '   ' }).expect(400);
      expect(blank.body.detail).toBe('A category name must not be empty.');
      const control = await api('post', '/api/file-categories').send({ name: 'a\nb' }).expect(400);
      expect(control.body.detail).toBe('A category name must not contain control characters or line breaks.');
      await api('post', '/api/file-categories').send({ name: 'x', parent_id: 'not-a-uuid' }).expect(400);
    });

    it('files and moves files between categories, and lists them by category and name', async () => {
      const inbox = await newCategory('Inbox');
      const archive = await newCategory('Archive');
      const first = await upload(Buffer.from('first'), 'alpha-report.txt', { contentType: 'text/plain', categoryId: inbox.id }).expect(201);
      expect(first.body.category_id).toBe(inbox.id);
      await upload(Buffer.from('second'), 'beta-report.txt', { contentType: 'text/plain', categoryId: inbox.id }).expect(201);

      const moved = await api('patch', `/api/files/${first.body.id}`).send({ category_id: archive.id, description: 'kept' }).expect(200);
      expect(moved.body).toMatchObject({ category_id: archive.id, description: 'kept', name: 'alpha-report.txt' });
      const inArchive = await api('get', `/api/files?category_id=${archive.id}`).expect(200);
      expect(inArchive.body.content.map((file: { id: string }) => file.id)).toEqual([first.body.id]);
      const search = await api('get', `/api/files?category_id=${inbox.id}&q=BETA`).expect(200);
      expect(search.body.content.map((file: { name: string }) => file.name)).toEqual(['beta-report.txt']);
      const wildcard = await api('get', '/api/files?q=%25').expect(200); // a literal %, not a wildcard
      expect(wildcard.body.totalElements).toBe(0);

      const uncategorized = await api('patch', `/api/files/${first.body.id}`).send({ category_id: null }).expect(200);
      expect(uncategorized.body.category_id).toBeNull();
      const root = await api('get', '/api/files?category_id=root&q=alpha-report').expect(200);
      expect(root.body.content.map((file: { id: string }) => file.id)).toEqual([first.body.id]);
      const detail = await api('get', `/api/file-categories/${inbox.id}`).expect(200);
      expect(detail.body).toMatchObject({ name: 'Inbox', file_count: 1, subcategory_count: 0, path: [{ id: inbox.id, name: 'Inbox' }] });
    });

    it('refuses to delete a non-empty category unless recursive, which removes the subtree, its files and their blobs', async () => {
      const top = await newCategory('Project X');
      const child = await newCategory('Runs', top.id);
      const grandchild = await newCategory('2024', child.id);
      const outside = await newCategory('Unrelated');
      const topFile = await upload(PNG, 'top.png', { categoryId: top.id }).expect(201);
      const deepFile = await upload(PDF, 'deep.pdf', { categoryId: grandchild.id }).expect(201);
      const keptFile = await upload(Buffer.from('stay'), 'stay.txt', { categoryId: outside.id }).expect(201);
      const keys = [await storageKeyOf(topFile.body.id), await storageKeyOf(deepFile.body.id)];
      const keptKey = await storageKeyOf(keptFile.body.id);
      for (const key of [...keys, keptKey]) expect(existsSync(join(storageRoot, key))).toBe(true);

      const refused = await api('delete', `/api/file-categories/${top.id}`).expect(409);
      expect(refused.body.detail).toBe(
        'Category "Project X" is not empty: it holds 1 file and 1 subcategory. Move or delete them first, or delete with recursive=true to remove the category, everything below it and the files\' contents.',
      );
      expect(refused.body).toMatchObject({ file_count: 1, subcategory_count: 1 });
      const refusedChild = await api('delete', `/api/file-categories/${child.id}?recursive=false`).expect(409);
      expect(refusedChild.body.detail).toContain('it holds 0 files and 1 subcategory');
      await api('delete', `/api/file-categories/${top.id}?recursive=maybe`).expect(400);
      for (const key of keys) expect(existsSync(join(storageRoot, key))).toBe(true);

      const deleted = await api('delete', `/api/file-categories/${top.id}?recursive=true`).expect(200);
      expect(deleted.body).toEqual({ deleted_categories: 3, deleted_files: 2 });
      for (const id of [top.id, child.id, grandchild.id]) await api('get', `/api/file-categories/${id}`).expect(404);
      for (const id of [topFile.body.id, deepFile.body.id]) {
        await api('get', `/api/files/${id}`).expect(404);
        await api('get', `/api/files/${id}/download`).expect(404);
      }
      for (const key of keys) expect(existsSync(join(storageRoot, key))).toBe(false);
      expect(existsSync(join(storageRoot, keptKey))).toBe(true);
      await api('get', `/api/files/${keptFile.body.id}`).expect(200);

      const empty = await newCategory('Empty');
      await api('delete', `/api/file-categories/${empty.id}`).expect(200, { deleted_categories: 1, deleted_files: 0 });
    });

    it('deletes a file: row and blob', async () => {
      const created = await upload(Buffer.from('bye'), 'bye.txt', { contentType: 'text/plain' }).expect(201);
      const key = await storageKeyOf(created.body.id);
      expect(existsSync(join(storageRoot, key))).toBe(true);
      await api('delete', `/api/files/${created.body.id}`).expect(204);
      expect(existsSync(join(storageRoot, key))).toBe(false);
      await api('get', `/api/files/${created.body.id}`).expect(404);
      await api('delete', `/api/files/${created.body.id}`).expect(404);
    });
  });

  it('answers 404 for unknown ids, storing nothing for an upload into an unknown category', async () => {
    const unknown = randomUUID();
    const file = await upload(Buffer.from('x'), 'x.txt').expect(201);
    const category = await newCategory('Known');
    const before = blobs();

    const missingCategory = await upload(Buffer.from('lost'), 'lost.txt', { categoryId: unknown }).expect(404);
    expect(missingCategory.body.detail).toBe(`No file category ${unknown}.`);
    expect(blobs()).toEqual(before);

    for (const path of [`/api/files/${unknown}`, `/api/files/${unknown}/download`, `/api/file-categories/${unknown}`]) {
      const response = await api('get', path).expect(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    await api('patch', `/api/files/${unknown}`).send({ name: 'y' }).expect(404);
    await api('delete', `/api/files/${unknown}`).expect(404);
    await api('patch', `/api/files/${file.body.id}`).send({ category_id: unknown }).expect(404);
    await api('patch', `/api/file-categories/${unknown}`).send({ name: 'y' }).expect(404);
    const unknownParent = await api('patch', `/api/file-categories/${category.id}`).send({ parent_id: unknown }).expect(404);
    expect(unknownParent.body.detail).toBe(`No file category ${unknown} (parent_id).`);
    await api('post', '/api/file-categories').send({ name: 'Orphan', parent_id: unknown }).expect(404);
    await api('delete', `/api/file-categories/${unknown}`).expect(404);
    await api('get', '/api/files/not-a-uuid').expect(400);
  });
});
