import { fixedSegmentsAfter, RESERVED_ROOT_SEGMENTS } from './reserved-path-segments';

describe('fixedSegmentsAfter', () => {
  const paths = ['/api/runs', '/api/:tenant/console/x', '/api/v1/:tenant/y', '/api/v1/workChat/z', '/docs', '/docs-json', '/oauth/token', '/api/{id}/files', '/'];

  it('gives the fixed root segments', () => expect(fixedSegmentsAfter(paths, [[]])).toEqual(['api', 'docs', 'docs-json', 'oauth']));
  it('gives the fixed segments after /api/ and /api/v1/, lowercased, skipping parameters', () =>
    expect(fixedSegmentsAfter(paths, [['api'], ['api', 'v1']])).toEqual(['runs', 'v1', 'workchat']));
  it('ignores paths that end at the prefix', () => expect(fixedSegmentsAfter(['/api'], [['api']])).toEqual([]));
});

describe('RESERVED_ROOT_SEGMENTS', () => {
  it('holds the segments issue 12 names, lowercase and once each', () => {
    expect(RESERVED_ROOT_SEGMENTS).toEqual(expect.arrayContaining(['api', 'docs', 'docs-json', 'metrics', '.well-known', 'oauth', 'health']));
    expect(RESERVED_ROOT_SEGMENTS.every((segment) => segment === segment.toLowerCase())).toBe(true);
    expect(new Set(RESERVED_ROOT_SEGMENTS).size).toBe(RESERVED_ROOT_SEGMENTS.length);
  });
});
