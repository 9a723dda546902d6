import SwaggerParser from '@apidevtools/swagger-parser';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../support/test-app';

const ENDPOINTS_FILE = join(__dirname, '../../../shared/spec/endpoints.json');
const COMMITTED_DOCUMENT = join(__dirname, '../../openapi.json');

interface EndpointRow {
  api: string;
  method: string;
  path: string;
  operationId?: string;
}

describe('OpenAPI contract', () => {
  let testApp: TestApp;
  let document: { paths: Record<string, Record<string, { operationId?: string; tags?: string[]; 'x-atrium-auth'?: unknown }>> };

  beforeAll(async () => {
    testApp = await startTestApp();
    const response = await request(testApp.baseUrl).get('/docs-json').expect(200);
    document = response.body;
  });
  afterAll(() => testApp?.close());

  it('serves Swagger UI at /docs', async () => {
    const response = await request(testApp.baseUrl).get('/docs/').expect(200);
    expect(response.text).toContain('swagger-ui');
  });

  it('contains every endpoint of spec/endpoints.json (all 134 rows), spelled the same', () => {
    const rows: EndpointRow[] = JSON.parse(readFileSync(ENDPOINTS_FILE, 'utf8'));
    expect(rows).toHaveLength(134);
    const missing = rows.filter((row) => {
      const operation = document.paths[row.path]?.[row.method.toLowerCase()];
      return !operation || (row.operationId !== undefined && operation.operationId !== row.operationId);
    });
    expect(missing).toEqual([]);
  });

  it('is a valid OpenAPI document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeDefined();
  });

  it('tags every operation with its wing and declares who may call it', () => {
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        expect({ path, method, tags: operation.tags?.length ?? 0 }).toEqual({ path, method, tags: expect.any(Number) });
        expect(operation.tags?.length).toBeGreaterThan(0);
        expect(operation['x-atrium-auth']).toBeDefined();
      }
    }
  });

  it('matches the committed openapi.json (run `npm run openapi:update` after an API change)', () => {
    const served = JSON.stringify(document, null, 2) + '\n';
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync(COMMITTED_DOCUMENT, served);
    expect(existsSync(COMMITTED_DOCUMENT)).toBe(true);
    expect(JSON.parse(readFileSync(COMMITTED_DOCUMENT, 'utf8'))).toEqual(document);
  });

  it('keeps the reviewed access rule of every route (a change here is a permission change)', () => {
    const rules = Object.entries(document.paths)
      .flatMap(([path, operations]) => Object.entries(operations).map(([method, operation]) => `${method.toUpperCase()} ${path} -> ${JSON.stringify(operation['x-atrium-auth'])}`))
      .sort();
    expect(rules).toMatchSnapshot();
  });
});
