import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ScriptsService } from '../../src/chat/scripts/scripts.service';
import { startTestApp, TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Scripts (chat-management-api.md, Console endpoints: `{C}/chat/script-category/{id}`, `{C}/chat/script-content/{id}`;
 * issue 6, Scripts and acceptance 6): the category tree (create, move with cycle and depth refusal, sibling names,
 * recursive delete), script contents (create, paged list by category and keyword, replace, delete, limits), the
 * ranked search the reply pipeline uses, tenant isolation and the write scope.
 */
describe('scripts ({C}/chat/script-category, {C}/chat/script-content)', () => {
  let testApp: TestApp;
  let token: string;
  let reader: string;
  let otherToken: string;
  let dataSource: DataSource;
  const CATEGORIES = '/api/acme/console/chat/script-category';
  const CONTENTS = '/api/acme/console/chat/script-content';
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const newCategory = async (name: string, parentId: string | null = null, sortOrder = 0) => (await api('post', CATEGORIES).send({ name, parentId, sortOrder }).expect(200)).body.id as string;
  const newScript = async (body: Record<string, unknown>) => (await api('post', CONTENTS).send(body).expect(200)).body.id as string;

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_SCRIPT_CATEGORY_MAX_DEPTH: '3', CHAT_SCRIPT_MAX_CATEGORIES: '12', CHAT_SCRIPT_CONTENT_MAX_CHARS: '500', CHAT_SCRIPT_MAX_ITEMS: '3', CHAT_SCRIPT_SEARCH_MAX_RESULTS: '5' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    reader = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
  });
  afterAll(() => testApp?.close());

  describe('categories', () => {
    it('creates categories, reads one and lists the tree with children in order', async () => {
      const created = await api('post', CATEGORIES).send({ name: 'After-sales', description: 'Returns and repairs' }).expect(200);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tenantId: 'acme',
        parentId: null,
        name: 'After-sales',
        sortOrder: 0,
        description: 'Returns and repairs',
        contentCount: 0,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      const returns = await newCategory('Returns', created.body.id, 2);
      const repairs = await newCategory('Repairs', created.body.id, 1);
      await newCategory('Pre-sales');
      await newScript({ categoryId: returns, title: 'Return window', content: 'You have 30 days.' });
      expect((await api('get', `${CATEGORIES}/${returns}`).expect(200)).body).toMatchObject({ id: returns, parentId: created.body.id, contentCount: 1 });
      const tree = await api('get', CATEGORIES).expect(200);
      const shape = (nodes: { name: string; children: unknown[] }[]): unknown => nodes.map((node) => [node.name, shape(node.children as never)]);
      expect(shape(tree.body)).toEqual([
        ['After-sales', [['Repairs', []], ['Returns', []]]],
        ['Pre-sales', []],
      ]);
      expect(tree.body[0].children[1]).toMatchObject({ id: returns, contentCount: 1, children: [] });
      expect(tree.body[0].children[0].id).toBe(repairs);
    });

    it('validates the body (400 with field errors) and the parent (404)', async () => {
      const bad = await api('post', CATEGORIES).send({ name: '', parentId: 'nope', sortOrder: 1.5 }).expect(400);
      expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['name', 'parentId', 'sortOrder']);
      const unknownParent = await api('post', CATEGORIES).send({ name: 'Orphan', parentId: '00000000-0000-4000-8000-000000000000' }).expect(404);
      expect(unknownParent.body.detail).toBe('No script category 00000000-0000-4000-8000-000000000000 in this tenant (parentId).');
    });

    it('keeps sibling names unique (409) but allows the same name elsewhere in the tree', async () => {
      const root = await newCategory('Siblings');
      await newCategory('Same', root);
      const duplicate = await api('post', CATEGORIES).send({ name: 'Same', parentId: root }).expect(409);
      expect(duplicate.body.detail).toBe(`Category ${root} already has a subcategory named "Same".`);
      const rootDuplicate = await api('post', CATEGORIES).send({ name: 'Siblings' }).expect(409);
      expect(rootDuplicate.body.detail).toBe('There already is a root script category named "Siblings".');
      await newCategory('Same');
      await api('delete', `${CATEGORIES}/${root}?recursive=true`).expect(200);
    });

    it('moves a category with its subtree, refusing cycles and too deep a tree (409)', async () => {
      const a = await newCategory('Move A');
      const b = await newCategory('Move B', a);
      const c = await newCategory('Move C', b);
      const self = await api('put', `${CATEGORIES}/${a}`).send({ name: 'Move A', parentId: a }).expect(409);
      expect(self.body.detail).toBe('A category cannot be its own parent.');
      const cycle = await api('put', `${CATEGORIES}/${a}`).send({ name: 'Move A', parentId: c }).expect(409);
      expect(cycle.body.detail).toBe(`Category ${c} is inside category ${a}; moving ${a} under it would make a cycle.`);
      const tooDeep = await api('post', CATEGORIES).send({ name: 'Fourth level', parentId: c }).expect(409);
      expect(tooDeep.body.detail).toBe('The category tree may be at most 3 levels deep (CHAT_SCRIPT_CATEGORY_MAX_DEPTH); this would make it 4.');
      const other = await newCategory('Move target');
      const moved = await api('put', `${CATEGORIES}/${b}`).send({ name: 'Move B', parentId: other, sortOrder: 4 }).expect(200);
      expect(moved.body).toMatchObject({ id: b, parentId: other, sortOrder: 4 });
      expect((await api('get', `${CATEGORIES}/${c}`).expect(200)).body.parentId).toBe(b);
      const deepMove = await api('put', `${CATEGORIES}/${other}`).send({ name: 'Move target', parentId: a }).expect(409);
      expect(deepMove.body.detail).toBe('The category tree may be at most 3 levels deep (CHAT_SCRIPT_CATEGORY_MAX_DEPTH); this would make it 4.');
      const back = await api('put', `${CATEGORIES}/${b}`).send({ name: 'Move B', parentId: null }).expect(200);
      expect(back.body.parentId).toBeNull();
      for (const id of [c, b, a, other]) await api('delete', `${CATEGORIES}/${id}`).expect(200);
    });

    it('refuses to delete a non-empty category unless recursive, which removes the subtree and its scripts', async () => {
      const top = await newCategory('Disposable');
      const child = await newCategory('Disposable child', top);
      const script = await newScript({ categoryId: child, title: 'Temp', content: 'Temp' });
      const refused = await api('delete', `${CATEGORIES}/${top}`).expect(409);
      expect(refused.body.detail).toBe('Category "Disposable" has 1 subcategories and 1 scripts; empty it first, or delete with ?recursive=true to remove them too.');
      const deleted = await api('delete', `${CATEGORIES}/${top}?recursive=true`).expect(200);
      expect(deleted.text).toBe('');
      await api('get', `${CATEGORIES}/${child}`).expect(404);
      await api('get', `${CONTENTS}/${script}`).expect(404);
      const empty = await newCategory('Empty');
      expect((await api('delete', `${CATEGORIES}/${empty}`).expect(200)).text).toBe('');
      await api('delete', `${CATEGORIES}/${empty}`).expect(404);
    });

    it('refuses more than CHAT_SCRIPT_MAX_CATEGORIES categories per tenant (409)', async () => {
      const count = Number((await dataSource.query("SELECT count(*)::int AS n FROM chat_script_category WHERE tenant_id = 'acme'"))[0].n);
      for (let index = count; index < 12; index += 1) await newCategory(`Filler ${index}`);
      const over = await api('post', CATEGORIES).send({ name: 'One too many' }).expect(409);
      expect(over.body.detail).toBe('The tenant already has 12 script categories; at most 12 are allowed (CHAT_SCRIPT_MAX_CATEGORIES).');
      await dataSource.query("DELETE FROM chat_script_category WHERE tenant_id = 'acme' AND name LIKE 'Filler %'");
    });
  });

  describe('contents', () => {
    let parent: string;
    let child: string;

    beforeAll(async () => {
      parent = await newCategory('Catalogue');
      child = await newCategory('Shoes', parent);
    });

    it('creates, reads, replaces (moving it) and deletes a script', async () => {
      const created = await api('post', CONTENTS)
        .send({
          categoryId: parent,
          title: 'Sizes',
          content: 'Hi {{nickname}}, our shoes run small.',
          attachments: [{ type: 'image', name: 'size-chart.png', url: 'https://cdn.example.com/size-chart.png', mimeType: 'image/png', sizeBytes: 1024 }],
          keywords: ['size', ' Size ', 'fit'],
          tags: ['catalogue'],
        })
        .expect(200);
      expect(created.body).toEqual({
        id: expect.any(String),
        tenantId: 'acme',
        categoryId: parent,
        title: 'Sizes',
        content: 'Hi {{nickname}}, our shoes run small.',
        attachments: [{ type: 'image', name: 'size-chart.png', url: 'https://cdn.example.com/size-chart.png', mimeType: 'image/png', sizeBytes: 1024 }],
        keywords: ['size', 'fit'],
        tags: ['catalogue'],
        enabled: true,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect((await api('get', `${CONTENTS}/${created.body.id}`).expect(200)).body).toEqual(created.body);
      const moved = await api('put', `${CONTENTS}/${created.body.id}`).send({ categoryId: child, title: 'Shoe sizes', content: 'They run small.', enabled: false }).expect(200);
      expect(moved.body).toMatchObject({ categoryId: child, title: 'Shoe sizes', attachments: [], keywords: [], tags: [], enabled: false });
      await api('put', `${CONTENTS}/${created.body.id}`).send({ categoryId: '00000000-0000-4000-8000-000000000000', title: 'x', content: 'x' }).expect(404);
      expect((await api('delete', `${CONTENTS}/${created.body.id}`).expect(200)).text).toBe('');
      await api('get', `${CONTENTS}/${created.body.id}`).expect(404);
      await api('delete', `${CONTENTS}/${created.body.id}`).expect(404);
    });

    it('validates fields (400), counts (400), the text size (413) and the category (404)', async () => {
      const bad = await api('post', CONTENTS).send({ categoryId: parent, title: '', content: 'x', attachments: [{ type: 'audio', name: 'a' }], keywords: [''] }).expect(400);
      expect(bad.body.errors.map((error: { field: string }) => error.field).sort()).toEqual(['attachments[0].type', 'attachments[0].url', 'keywords', 'title']);
      await api('post', CONTENTS).send({ categoryId: parent, title: 'x', content: 'x', attachments: [{ type: 'file', name: 'a', url: 'ftp://files.example.com/a' }] }).expect(400);
      await api('post', CONTENTS).send({ categoryId: parent, title: 'x', content: 'x', attachments: [{ type: 'file', name: 'a', mediaId: 'media-1' }] }).expect(200);
      const many = await api('post', CONTENTS).send({ categoryId: parent, title: 'x', content: 'x', keywords: ['a', 'b', 'c', 'd'] }).expect(400);
      expect(many.body.errors).toEqual([{ field: 'keywords', messages: ['keywords has 4 entries; at most 3 are allowed (CHAT_SCRIPT_MAX_ITEMS).'] }]);
      const long = await api('post', CONTENTS).send({ categoryId: parent, title: 'x', content: 'x'.repeat(501) }).expect(413);
      expect(long.body.detail).toBe('The script text is 501 characters; at most 500 are allowed (CHAT_SCRIPT_CONTENT_MAX_CHARS).');
      const unknown = await api('post', CONTENTS).send({ categoryId: '00000000-0000-4000-8000-000000000000', title: 'x', content: 'x' }).expect(404);
      expect(unknown.body.detail).toBe('No script category 00000000-0000-4000-8000-000000000000 in this tenant.');
    });

    it('pages by category (with subcategories), keyword (wildcards literal), tag and enabled, sorted', async () => {
      await dataSource.query("DELETE FROM chat_script_content WHERE tenant_id = 'acme'");
      await newScript({ categoryId: parent, title: 'Opening hours', content: 'We open at 9.', tags: ['store'] });
      await newScript({ categoryId: child, title: 'Boots', content: 'Boots are 100% leather.', keywords: ['winter'] });
      await newScript({ categoryId: child, title: 'Sandals', content: 'Summer only.', enabled: false });
      const inParent = await api('get', `${CONTENTS}?categoryId=${parent}`).expect(200);
      expect(inParent.body.content.map((script: { title: string }) => script.title)).toEqual(['Opening hours']);
      const withChildren = await api('get', `${CONTENTS}?categoryId=${parent}&includeSubcategories=true&sort=title,asc&size=2`).expect(200);
      expect(withChildren.body).toMatchObject({ page: 0, size: 2, totalElements: 3, totalPages: 2 });
      expect(withChildren.body.content.map((script: { title: string }) => script.title)).toEqual(['Boots', 'Opening hours']);
      const byKeyword = await api('get', `${CONTENTS}?keyword=WINTER`).expect(200);
      expect(byKeyword.body.content.map((script: { title: string }) => script.title)).toEqual(['Boots']);
      expect((await api('get', `${CONTENTS}?keyword=${encodeURIComponent('100%')}`).expect(200)).body.totalElements).toBe(1);
      expect((await api('get', `${CONTENTS}?keyword=${encodeURIComponent('0_l')}`).expect(200)).body.totalElements).toBe(0);
      expect((await api('get', `${CONTENTS}?tag=store`).expect(200)).body.content.map((script: { title: string }) => script.title)).toEqual(['Opening hours']);
      expect((await api('get', `${CONTENTS}?enabled=false`).expect(200)).body.content.map((script: { title: string }) => script.title)).toEqual(['Sandals']);
      expect((await api('get', CONTENTS).expect(200)).body.content[0].title).toBe('Sandals');
      await api('get', `${CONTENTS}?categoryId=00000000-0000-4000-8000-000000000000`).expect(404);
      const sort = await api('get', `${CONTENTS}?sort=content,asc`).expect(400);
      expect(sort.body.detail).toBe('Invalid request: sort (Cannot sort by "content"; allowed: createdAt, updatedAt, title)');
      await api('get', `${CONTENTS}?size=201`).expect(400);
    });
  });

  describe('search (the reply pipeline\'s retrieval)', () => {
    it('ranks enabled scripts by keywords contained in the text, then title and term matches', async () => {
      const category = await newCategory('Search');
      const refund = await newScript({ categoryId: category, title: 'Refunds', content: 'Refunds take 5 days.', keywords: ['refund', 'money back'] });
      const returns = await newScript({ categoryId: category, title: 'Returns', content: 'Return within 30 days for a refund.' });
      const chinese = await newScript({ categoryId: category, title: '退货流程', content: '请在30天内申请。', keywords: ['退货'] });
      await newScript({ categoryId: category, title: 'Refund (old)', content: 'Outdated.', keywords: ['refund'], enabled: false });
      await newScript({ categoryId: category, title: 'Shipping', content: 'Ships in 2 days.' });

      const hits = await api('get', `${CONTENTS}/search?text=${encodeURIComponent('Hi, I want my money back — how does a refund work?')}`).expect(200);
      expect(hits.body.map((hit: { script: { id: string } }) => hit.script.id)).toEqual([refund, returns]);
      expect(hits.body[0]).toMatchObject({ score: 24, matchedKeywords: ['refund', 'money back'], matchedTerms: ['refund'] });
      expect(hits.body[0].script).toMatchObject({ title: 'Refunds', enabled: true });

      const service = testApp.app.get(ScriptsService);
      const zh = await service.search('acme', '你好，我想退货', 3);
      expect(zh.map((hit) => [hit.script.id, hit.matchedKeywords])).toEqual([[chinese, ['退货']]]);
      expect(await service.search('acme', 'completely unrelated words', 3)).toEqual([]);
      expect(await service.search('globex', 'refund', 3)).toEqual([]);

      const limited = await api('get', `${CONTENTS}/search?text=refund&limit=1`).expect(200);
      expect(limited.body).toHaveLength(1);
      const tooMany = await api('get', `${CONTENTS}/search?text=refund&limit=6`).expect(400);
      expect(tooMany.body.detail).toBe('limit must be 1..5 (CHAT_SCRIPT_SEARCH_MAX_RESULTS), got 6.');
      await api('get', `${CONTENTS}/search`).expect(400);
    });
  });

  describe('tenant isolation and scopes of the token', () => {
    it('answers 403 for another tenant\'s paths and 404 for its ids', async () => {
      const foreignCategory = (await api('post', '/api/globex/console/chat/script-category', otherToken).send({ name: 'Foreign' }).expect(200)).body.id;
      const foreignScript = (await api('post', '/api/globex/console/chat/script-content', otherToken).send({ categoryId: foreignCategory, title: 'Foreign', content: 'x', keywords: ['refund'] }).expect(200)).body.id;
      const forbidden = await api('get', '/api/globex/console/chat/script-category').expect(403);
      expect(forbidden.body.detail).toBe('The access token is not valid for tenant "globex" (it is for: acme).');
      await api('post', '/api/globex/console/chat/script-content').send({ categoryId: foreignCategory, title: 'x', content: 'x' }).expect(403);
      await api('get', `${CATEGORIES}/${foreignCategory}`).expect(404);
      await api('put', `${CATEGORIES}/${foreignCategory}`).send({ name: 'Mine' }).expect(404);
      await api('delete', `${CATEGORIES}/${foreignCategory}?recursive=true`).expect(404);
      await api('post', CATEGORIES).send({ name: 'Under foreign', parentId: foreignCategory }).expect(404);
      await api('get', `${CONTENTS}/${foreignScript}`).expect(404);
      await api('put', `${CONTENTS}/${foreignScript}`).send({ categoryId: foreignCategory, title: 'x', content: 'x' }).expect(404);
      await api('delete', `${CONTENTS}/${foreignScript}`).expect(404);
      await api('post', CONTENTS).send({ categoryId: foreignCategory, title: 'x', content: 'x' }).expect(404);
      const search = await api('get', `${CONTENTS}/search?text=refund`).expect(200);
      expect(search.body.map((hit: { script: { id: string } }) => hit.script.id)).not.toContain(foreignScript);
      expect((await api('get', `/api/globex/console/chat/script-content/${foreignScript}`, otherToken).expect(200)).body.title).toBe('Foreign');
    });

    it('answers 403 to writes without chat:write, and serves reads', async () => {
      const [first] = (await api('get', CATEGORIES, reader).expect(200)).body;
      for (const [method, path, body] of [
        ['post', CATEGORIES, { name: 'x' }],
        ['put', `${CATEGORIES}/${first.id}`, { name: 'x' }],
        ['delete', `${CATEGORIES}/${first.id}`, undefined],
        ['post', CONTENTS, { categoryId: first.id, title: 'x', content: 'x' }],
        ['delete', `${CONTENTS}/${first.id}`, undefined],
      ] as const) {
        const response = await api(method, path, reader).send(body);
        expect([method, path, response.status]).toEqual([method, path, 403]);
      }
      await api('get', `${CONTENTS}/search?text=refund`, reader).expect(200);
    });
  });
});
