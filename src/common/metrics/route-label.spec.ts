import { methodLabel, routeLabel, UNMATCHED_ROUTE } from './route-label';

describe('metric labels of HTTP requests (route-label.ts)', () => {
  it('is the matched route template, never the raw path', () => {
    expect(routeLabel({ baseUrl: '', route: { path: '/api/runs/:id' } })).toBe('/api/runs/:id');
    expect(routeLabel({ baseUrl: '/api', route: { path: '/health' } })).toBe('/api/health');
  });

  it('is `unmatched` when no route matched, or the route is not a plain template (the attack: ids in labels)', () => {
    expect(routeLabel({})).toBe(UNMATCHED_ROUTE);
    expect(routeLabel({ route: {} })).toBe(UNMATCHED_ROUTE);
    expect(routeLabel({ route: { path: /^\/api\/runs\/[0-9a-f-]+$/ } })).toBe(UNMATCHED_ROUTE);
    expect(routeLabel({ route: { path: ['/a', '/b'] } })).toBe(UNMATCHED_ROUTE);
    expect(routeLabel({ route: { path: `/${'x'.repeat(300)}` } })).toBe(UNMATCHED_ROUTE);
  });

  it('keeps the method label to the standard methods', () => {
    expect(methodLabel('get')).toBe('GET');
    expect(methodLabel('PROPFIND')).toBe('other');
    expect(methodLabel(`X${'1'.repeat(50)}`)).toBe('other');
    expect(methodLabel(undefined)).toBe('other');
  });
});
