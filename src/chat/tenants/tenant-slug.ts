/**
 * Tenant ids are slugs that appear as the first path segment after `/api/` (`/api/{tenant}/console/...`,
 * chat-management-api.md, Notation) and after `/api/v1/` (`/api/v1/{tenant}/chat/group/way/...`). A tenant must
 * never be named like a fixed segment the app serves (`/api/runs`, `/api/v1/workChat/...`), or its routes and the
 * fixed ones would shadow each other. test/chat/reserved-slugs.e2e-spec.ts derives the first segment of every
 * route the app serves and fails when one is missing from {@link RESERVED_TENANT_SLUGS}.
 */

/** Lowercase letter first, then 1..62 lowercase letters, digits or hyphens (2..63 characters in all). */
export const TENANT_SLUG_PATTERN = /^[a-z][a-z0-9-]{1,62}$/;

/**
 * Slugs no tenant may take: every fixed first segment of the app's `/api/...` routes (today's and the ones the specs
 * announce), API version segments, and names kept for the platform's own use. Add a segment here in the same change
 * that adds a route under it.
 */
export const RESERVED_TENANT_SLUGS: ReadonlySet<string> = new Set([
  // versions and the chat wing's fixed prefixes (chat-management-api.md: /api/v1/..., /api/console/...)
  'v1',
  'v2',
  'v3',
  'console',
  'mcp',
  'chat',
  'workchat',
  'platform',
  'chat-simulator',
  'oauth',
  // deployment gateway (deployment-gateway.md)
  'auth',
  'admin',
  'deploy',
  'deployments',
  'exec',
  'upload',
  'uploads',
  'health',
  // evaluation platform (evaluation-platform.md)
  'runs',
  'reports',
  'stats',
  'campaigns',
  'exploration',
  'scenarios',
  'targets',
  'model-configs',
  'intelligent-evaluations',
  'files',
  'file-categories',
  'analysis',
  'webhooks',
  // the app's own pages and generic names
  'api',
  'docs',
  'docs-json',
  'swagger',
  'openapi',
  'static',
  'assets',
  'public',
  'internal',
  'system',
  'metrics',
  'status',
  'well-known',
]);

/**
 * Why `slug` cannot name a tenant, or undefined when it can.
 * @returns a reason a person can act on (pattern or reserved word)
 */
export function tenantSlugProblem(slug: string): string | undefined {
  if (!TENANT_SLUG_PATTERN.test(slug)) {
    return `Tenant id "${slug}" is not a valid slug: use 2..63 characters, lowercase letters, digits and hyphens, starting with a letter.`;
  }
  if (RESERVED_TENANT_SLUGS.has(slug)) {
    return `Tenant id "${slug}" is reserved: it is a fixed path segment of the API (/api/${slug}/...). Choose another id.`;
  }
  return undefined;
}
