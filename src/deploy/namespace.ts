import { RESERVED_ROOT_SEGMENTS } from '../common/http/reserved-path-segments';

/** A namespace (contactId) or project slug: letters, digits, `_` and `-`, starting with a letter or digit. */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Names no namespace may take (issue 12, item 3), lowercase: every first path segment the app serves at the root of
 * its origin (src/common/http/reserved-path-segments.ts, the one list; test/deploy/namespaces.e2e-spec.ts derives
 * the segments from the routes and fails when one is missing). Sites are served at `/<contactId>/…`, so a namespace
 * named like one of them would shadow the API, its docs or its discovery documents. Compared case-insensitively.
 */
export const RESERVED_NAMESPACES: ReadonlySet<string> = new Set(RESERVED_ROOT_SEGMENTS);

/**
 * Why `value` cannot name a namespace, or undefined when it can. The reserved rule is checked first, so `.well-known`
 * is refused as reserved rather than as badly formed.
 * @returns one sentence naming the rule broken (reserved name, or the pattern)
 */
export function namespaceProblem(value: string): string | undefined {
  if (RESERVED_NAMESPACES.has(value.toLowerCase())) {
    return `contactId "${value}" is a reserved name: the app serves /${value.toLowerCase()}/ at the root of its origin, where sites are published. Choose another contactId.`;
  }
  if (!NAMESPACE_PATTERN.test(value)) {
    return 'contactId may use letters, digits, _ and - (max 64), starting with a letter or digit';
  }
  return undefined;
}

/** True when `value` can be a namespace (deployment-gateway.md: the user's contactId is the namespace). */
export function isValidNamespace(value: string): boolean {
  return namespaceProblem(value) === undefined;
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
