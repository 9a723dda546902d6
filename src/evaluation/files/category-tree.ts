/**
 * Pure rules of the evaluation file category tree (issue 4: Files): names, sibling keys, cycle detection for
 * moves, and assembling the tree from flat rows.
 */

/** Longest category name, in characters. */
export const MAX_CATEGORY_NAME_LENGTH = 200;

/** A category as the rules see it. */
export interface CategoryRow {
  id: string;
  name: string;
  parentId: string | null;
}

/** A category of the assembled tree with its direct file count and its children (sorted by name). */
export interface CategoryTreeNode {
  id: string;
  name: string;
  parentId: string | null;
  fileCount: number;
  children: CategoryTreeNode[];
}

/**
 * A category name as stored: NFC, whitespace runs collapsed to one space, trimmed.
 * @returns the name, or an error message when nothing is left, it is too long, or it holds control characters
 */
export function normalizeCategoryName(raw: string): { name: string } | { error: string } {
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(raw)) return { error: 'A category name must not contain control characters or line breaks.' };
  const name = raw.normalize('NFC').replace(/\s+/gu, ' ').trim();
  if (!name) return { error: 'A category name must not be empty.' };
  if (name.length > MAX_CATEGORY_NAME_LENGTH) return { error: `A category name has at most ${MAX_CATEGORY_NAME_LENGTH} characters.` };
  return { name };
}

/** The sibling-uniqueness key of a (normalised) name: lowercased, so `Reports` and `reports` clash. */
export function categoryNameKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * Whether moving `categoryId` under `newParentId` would put it inside itself.
 * @param parentOf the current parent of a category id (null at the top level, undefined when unknown)
 * @returns null when the move is fine (or `newParentId` is null: the top level), else the chain of ids from
 *   `categoryId` down to `newParentId` that the move would close into a loop (just `[categoryId]` for a move
 *   under itself)
 */
export function findMoveCycle(categoryId: string, newParentId: string | null, parentOf: (id: string) => string | null | undefined): string[] | null {
  if (newParentId === null) return null;
  const chain: string[] = [];
  const seen = new Set<string>();
  for (let current: string | null | undefined = newParentId; current != null; current = parentOf(current)) {
    if (seen.has(current)) return null; // a loop above that does not pass through categoryId: not this move's doing
    seen.add(current);
    chain.push(current);
    if (current === categoryId) return chain.reverse();
  }
  return null;
}

/**
 * The ids from the top level down to `id` (inclusive), following `parentOf`; stops at an unknown id or a loop.
 */
export function pathTo(id: string, parentOf: (id: string) => string | null | undefined): string[] {
  const path: string[] = [];
  const seen = new Set<string>();
  for (let current: string | null | undefined = id; current != null && !seen.has(current); current = parentOf(current)) {
    seen.add(current);
    path.push(current);
  }
  return path.reverse();
}

/**
 * Assembles flat rows into a forest, children sorted by name (case-insensitively, then by id). A row whose parent
 * is missing is shown at the top level rather than lost.
 * @param fileCounts direct file count per category id (absent = 0)
 */
export function buildCategoryTree(rows: CategoryRow[], fileCounts: ReadonlyMap<string, number> = new Map()): CategoryTreeNode[] {
  const nodes = new Map<string, CategoryTreeNode>(
    rows.map((row) => [row.id, { id: row.id, name: row.name, parentId: row.parentId, fileCount: fileCounts.get(row.id) ?? 0, children: [] }]),
  );
  const roots: CategoryTreeNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId === null ? undefined : nodes.get(node.parentId);
    if (parent && findMoveCycle(node.id, node.parentId, (id) => nodes.get(id)?.parentId) === null) parent.children.push(node);
    else roots.push(node);
  }
  const byName = (a: CategoryTreeNode, b: CategoryTreeNode) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const sort = (list: CategoryTreeNode[]) => {
    list.sort(byName);
    for (const node of list) sort(node.children);
  };
  sort(roots);
  return roots;
}
