/**
 * The script category tree (issue 6, Scripts: "categories as a tree … move with cycle refusal"). Pure functions over
 * the tenant's categories as `{ id, parentId }` rows, no I/O. Depth counts levels: a root is at depth 1.
 */

/** What the tree rules need of a category. */
export interface CategoryLink {
  id: string;
  parentId: string | null;
}

/** A category row as it is shown in the tree. */
export interface CategoryTreeItem extends CategoryLink {
  name: string;
  sortOrder: number;
}

/** A node of {@link buildCategoryTree}'s result. */
export type CategoryTreeNode<T extends CategoryTreeItem> = T & { children: CategoryTreeNode<T>[] };

/** Why a placement is refused. */
export type PlacementProblem = { kind: 'cycle'; message: string } | { kind: 'depth'; message: string };

/**
 * Nests categories under their parents. Siblings are ordered by `sortOrder`, then name, then id. A category whose
 * parent is not in `rows` is shown as a root (so nothing is ever hidden).
 */
export function buildCategoryTree<T extends CategoryTreeItem>(rows: readonly T[]): CategoryTreeNode<T>[] {
  const nodes = new Map<string, CategoryTreeNode<T>>(rows.map((row) => [row.id, { ...row, children: [] }]));
  const roots: CategoryTreeNode<T>[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  const order = (a: CategoryTreeNode<T>, b: CategoryTreeNode<T>) => a.sortOrder - b.sortOrder || compareText(a.name, b.name) || compareText(a.id, b.id);
  const sortAll = (list: CategoryTreeNode<T>[]) => {
    list.sort(order);
    for (const node of list) sortAll(node.children);
  };
  sortAll(roots);
  return roots;
}

/**
 * The ids of a category and of everything below it (the category first).
 * @param rows every category of the tenant
 */
export function subtreeIds(rows: readonly CategoryLink[], id: string): string[] {
  const children = childrenIndex(rows);
  const found: string[] = [];
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length) {
    const current = stack.pop()!;
    if (seen.has(current)) continue;
    seen.add(current);
    found.push(current);
    stack.push(...(children.get(current) ?? []));
  }
  return found;
}

/**
 * Depth of a category: 1 for a root, 2 for its children … A broken chain (a parent missing, or a cycle in corrupt
 * data) ends the count where it breaks.
 */
export function categoryDepth(rows: readonly CategoryLink[], id: string): number {
  const parents = new Map(rows.map((row) => [row.id, row.parentId]));
  let depth = 0;
  const seen = new Set<string>();
  let current: string | null | undefined = id;
  while (current && parents.has(current) && !seen.has(current)) {
    seen.add(current);
    depth += 1;
    current = parents.get(current);
  }
  return depth;
}

/** Levels of a category's subtree: 1 for a leaf. */
export function subtreeHeight(rows: readonly CategoryLink[], id: string): number {
  const children = childrenIndex(rows);
  const height = (node: string, seen: Set<string>): number => {
    if (seen.has(node)) return 0;
    seen.add(node);
    return 1 + Math.max(0, ...(children.get(node) ?? []).map((child) => height(child, seen)));
  };
  return height(id, new Set());
}

/**
 * Checks putting category `id` (new when it is not in `rows`) under `parentId` (null = a root): refused when the
 * parent is the category itself or one of its descendants (a cycle), or when the deepest category of its subtree
 * would sit deeper than `maxDepth`.
 * @param rows every category of the tenant (the current tree)
 * @returns the problem, or null when the placement is fine
 */
export function checkCategoryPlacement(rows: readonly CategoryLink[], id: string, parentId: string | null, maxDepth: number): PlacementProblem | null {
  const exists = rows.some((row) => row.id === id);
  if (parentId !== null && exists && subtreeIds(rows, id).includes(parentId)) {
    return {
      kind: 'cycle',
      message: parentId === id ? 'A category cannot be its own parent.' : `Category ${parentId} is inside category ${id}; moving ${id} under it would make a cycle.`,
    };
  }
  const parentDepth = parentId === null ? 0 : categoryDepth(rows, parentId);
  const height = exists ? subtreeHeight(rows, id) : 1;
  if (parentDepth + height > maxDepth) {
    return {
      kind: 'depth',
      message: `The category tree may be at most ${maxDepth} levels deep (CHAT_SCRIPT_CATEGORY_MAX_DEPTH); this would make it ${parentDepth + height}.`,
    };
  }
  return null;
}

function childrenIndex(rows: readonly CategoryLink[]): Map<string, string[]> {
  const children = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.parentId || row.parentId === row.id) continue;
    const list = children.get(row.parentId) ?? [];
    list.push(row.id);
    children.set(row.parentId, list);
  }
  return children;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
