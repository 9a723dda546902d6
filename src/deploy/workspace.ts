import { join } from 'node:path';

/**
 * A namespace's own workspace folders (issue 12, item 1: `DEPLOY_ALLOWED_DIRS` is a list of roots under which each
 * namespace gets its own folder). Uploads write there and exec runs there; no namespace sees another's.
 * @param allowedRoots absolute roots from `config.deploy.allowedDirs`
 * @param namespace a valid namespace (NAMESPACE_PATTERN), so it is one path segment
 * @returns one absolute folder per root, `<root>/<namespace>`; the first is the default `cwd` and upload base
 */
export function namespaceWorkspaces(allowedRoots: readonly string[], namespace: string): string[] {
  return allowedRoots.map((root) => join(root, namespace));
}
