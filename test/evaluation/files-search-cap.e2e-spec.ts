import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

/**
 * The files' and file categories' name search (`q`) counts exactly only up to PAGING_SEARCH_TOTAL_EXACT_CAP, like
 * every other search (docs/lists-and-search.md): counting a common term's matches reads each candidate row. Their
 * lists page through ListPager.find, which passes the search flag on. Without `q` the list's own cap holds.
 */
describe('file and file category searches count up to the search cap', () => {
  let testApp: TestApp;
  const api = (path: string) => request(testApp.baseUrl).get(path).set('X-API-Key', API_KEY).expect(200);

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, PAGING_SEARCH_TOTAL_EXACT_CAP: '3' });
    const dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await dataSource.query(
      `INSERT INTO eval_file (name, size_bytes, sha256, content_type, storage_key)
       SELECT 'report-' || i || '.txt', 1, repeat('0', 64), 'text/plain', 'cap-test-' || i FROM generate_series(1, 6) AS i`,
    );
    await dataSource.query(`INSERT INTO eval_file_category (name, name_key) SELECT 'Reports ' || i, 'reports ' || i FROM generate_series(1, 6) AS i`);
  });
  afterAll(() => testApp?.close());

  it.each(['/api/files', '/api/file-categories'])('%s?q=report: an estimate past the search cap; without q: exact', async (path) => {
    const searched = (await api(`${path}?q=report&size=2`)).body;
    expect(searched.totalElementsExact).toBe(false);
    expect(searched.totalElements).toBeGreaterThanOrEqual(4);
    expect(searched.content).toHaveLength(2);
    const rare = (await api(`${path}?q=report-5&size=2`)).body;
    expect(rare).toMatchObject({ totalElements: path === '/api/files' ? 1 : 0, totalElementsExact: true });
    const listed = (await api(`${path}?size=2`)).body;
    expect(listed).toMatchObject({ totalElements: 6, totalElementsExact: true });
  });
});
