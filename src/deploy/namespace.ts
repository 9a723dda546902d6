/** A namespace (contactId) or project slug: letters, digits, `_` and `-`, starting with a letter or digit. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** First path segments the app itself uses; no namespace may take them, or its sites would shadow the API. */
export const RESERVED_NAMESPACES = new Set(['api', 'docs', 'docs-json', 'docs-yaml', 'health', 'oauth', 'favicon.ico', 'robots.txt']);

/** True when `value` can be a namespace (deployment-gateway.md: the user's contactId is the namespace). */
export function isValidNamespace(value: string): boolean {
  return NAMESPACE_PATTERN.test(value) && !RESERVED_NAMESPACES.has(value.toLowerCase());
}

/**
 * Derives a namespace from an agent id when registration names no contactId: lowercase, other characters → `-`,
 * at most 56 characters, prefixed `agent-` so it can never equal a reserved name.
 */
export function namespaceForAgent(agentId: string): string {
  const slug = agentId
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 57);
  return `agent-${slug || 'anonymous'}`;
}
