/**
 * Path segments that tenant-chosen names compete with. A name a client picks (a chat tenant slug after `/api/`, a
 * deployment namespace at the root of the site origin) must never equal a fixed segment the app serves, or the
 * name's pages and the app's routes would shadow each other (issue 5 for tenants, issue 12 item 3 for namespaces).
 * Both wings keep a static reserved list, and an e2e test per wing derives the fixed segments from the app's routes
 * with {@link fixedSegmentsAfter} and fails when one is missing from its list.
 */

/**
 * First path segments the app serves (or is announced to serve) at the root of its origin, lowercase. `api` holds
 * every wing's REST routes, `docs`/`docs-json`/`docs-yaml` the OpenAPI UI and documents, `oauth` the chat OAuth2
 * server, `.well-known` the discovery documents (RFC 8615), `metrics`/`health`/`healthz`/`readyz`/`livez` the
 * operations probes (issue 15), and the rest names browsers and proxies ask for or an operator's front end uses.
 * Add a segment here in the same change that mounts anything under a new root segment.
 */
export const RESERVED_ROOT_SEGMENTS: readonly string[] = [
  'api',
  'docs',
  'docs-json',
  'docs-yaml',
  'swagger',
  'openapi',
  'oauth',
  '.well-known',
  'well-known',
  'metrics',
  'health',
  'healthz',
  'readyz',
  'livez',
  'status',
  'static',
  'assets',
  'public',
  'internal',
  'system',
  'admin',
  'console',
  'login',
  'logout',
  'mcp',
  'sites',
  'favicon.ico',
  'robots.txt',
  'sitemap.xml',
];

/**
 * The fixed (non-parameter) segment that follows each of `prefixes` in each route path, lowercased and sorted.
 * `fixedSegmentsAfter(['/api/runs', '/api/:tenant/x'], [['api']])` is `['runs']`; `[[]]` gives root segments.
 * @param paths route paths in Express style (`/api/:tenant/...`); OpenAPI `{name}` parameters are read as `:name`
 * @param prefixes segment lists a competing name would follow (`[]` = the root)
 * @returns distinct fixed segments, lowercase, sorted
 */
export function fixedSegmentsAfter(paths: readonly string[], prefixes: readonly (readonly string[])[]): string[] {
  const segments = new Set<string>();
  for (const path of paths) {
    const parts = path
      .replace(/\{(\w+)\}/g, ':$1')
      .split('/')
      .filter(Boolean);
    for (const prefix of prefixes) {
      if (prefix.length >= parts.length || !prefix.every((segment, index) => parts[index] === segment)) continue;
      const candidate = parts[prefix.length];
      if (!candidate.startsWith(':') && !candidate.startsWith('*')) segments.add(candidate.toLowerCase());
    }
  }
  return [...segments].sort();
}
