import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { RESERVED_TENANT_SLUGS, tenantSlugProblem } from '../../src/chat/tenants/tenant-slug';
import { fixedSegmentsAfter } from '../../src/common/http/reserved-path-segments';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Issue 5: tenant ids cannot collide with fixed path segments, and "a test derives the list from the routes". Every
 * route the app serves (the Express router's routes, and the OpenAPI document's paths) is reduced to the segment a
 * tenant could stand in: the first after `/api/`, and the first after `/api/v1/` (the `/api/v1/{tenant}/...`
 * layout). Each fixed one must be reserved, so adding a route under a new segment fails here until the segment is
 * added to RESERVED_TENANT_SLUGS.
 */
describe('reserved tenant slugs cover every fixed path segment the app serves', () => {
  let testApp: TestApp;
  let routePaths: string[];
  let fromRouter: string[];
  let fromDocument: string[];

  beforeAll(async () => {
    testApp = await startTestApp();
    const router = (testApp.app.getHttpAdapter().getInstance() as { router: { stack: { route?: { path: unknown } }[] } }).router;
    fromRouter = router.stack.map((layer) => layer.route?.path).filter((path): path is string => typeof path === 'string');
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body as { paths: Record<string, unknown> };
    fromDocument = Object.keys(document.paths).map((path) => path.replace(/\{(\w+)\}/g, ':$1'));
    routePaths = [...new Set([...fromRouter, ...fromDocument])];
  });
  afterAll(() => testApp?.close());

  /** The fixed segments a tenant slug would compete with, after `/api/` and `/api/v1/` (lowercased: slugs are lowercase). */
  const competingSegments = (paths: string[]) => fixedSegmentsAfter(paths, [['api'], ['api', 'v1']]);

  it('finds the app\'s routes (router and document agree on the chat, deploy and evaluation prefixes)', () => {
    for (const paths of [fromRouter, fromDocument]) {
      expect(paths).toEqual(expect.arrayContaining(['/api/:tenant/console/workChat/corps', '/api/platform/tenants', '/api/health', '/api/runs']));
    }
    expect(competingSegments(routePaths)).toEqual(expect.arrayContaining(['admin', 'auth', 'health', 'platform', 'runs']));
  });

  it('reserves each of them, so no tenant can shadow a fixed route', () => {
    const unreserved = competingSegments(routePaths).filter((segment) => !RESERVED_TENANT_SLUGS.has(segment) && /^[a-z][a-z0-9-]{1,62}$/.test(segment));
    expect(unreserved).toEqual([]);
  });

  it('refuses to create a tenant named like any of them, through the platform rule', () => {
    for (const segment of competingSegments(routePaths).filter((s) => /^[a-z][a-z0-9-]{1,62}$/.test(s))) {
      expect(tenantSlugProblem(segment)).toContain('is reserved');
    }
  });

  it('also reserves the fixed segments of every path the specs announce (spec/endpoints.json), built or not', () => {
    const rows = JSON.parse(readFileSync(join(__dirname, '../../../shared/spec/endpoints.json'), 'utf8')) as { path: string }[];
    const announced = competingSegments(rows.map((row) => row.path.replace(/\{(\w+)\}/g, ':$1')));
    expect(announced).toEqual(expect.arrayContaining(['console', 'v1', 'campaigns', 'exploration', 'workchat']));
    expect(announced.filter((segment) => !RESERVED_TENANT_SLUGS.has(segment))).toEqual([]);
  });

  it('reserves the non-API prefixes the app serves next to /api (docs, OAuth2 server)', () => {
    for (const prefix of ['docs', 'docs-json', 'oauth']) expect(RESERVED_TENANT_SLUGS.has(prefix)).toBe(true);
  });
});
