import { RESERVED_TENANT_SLUGS, tenantSlugProblem } from './tenant-slug';

describe('tenant slugs (issue 5: ids that cannot collide with fixed path segments)', () => {
  it('accepts lowercase slugs of 2..63 characters starting with a letter', () => {
    for (const slug of ['acme', 'a1', 'acme-corp-2', `a${'b'.repeat(62)}`]) expect(tenantSlugProblem(slug)).toBeUndefined();
  });

  it('refuses slugs outside the pattern, saying what a valid one looks like', () => {
    for (const slug of ['a', '1acme', '-acme', 'Acme', 'ac_me', 'ac me', 'acme/x', `a${'b'.repeat(63)}`, '']) {
      expect(tenantSlugProblem(slug)).toMatch(/not a valid slug: use 2\.\.63 characters/);
    }
  });

  it('refuses every reserved word, naming the path it would shadow', () => {
    for (const slug of ['v1', 'console', 'mcp', 'runs', 'reports', 'campaigns', 'deploy', 'auth', 'admin', 'health', 'docs', 'files', 'exploration', 'platform']) {
      expect(RESERVED_TENANT_SLUGS.has(slug)).toBe(true);
      expect(tenantSlugProblem(slug)).toBe(`Tenant id "${slug}" is reserved: it is a fixed path segment of the API (/api/${slug}/...). Choose another id.`);
    }
  });

  it('keeps reserved words within the slug pattern, so each one is reachable by the check', () => {
    for (const slug of RESERVED_TENANT_SLUGS) expect(slug).toMatch(/^[a-z][a-z0-9-]{1,62}$/);
  });
});
