import { buildCategoryTree, categoryNameKey, CategoryRow, findMoveCycle, normalizeCategoryName, pathTo } from './category-tree';

/** A › B › C, and D at the top level. */
const ROWS: CategoryRow[] = [
  { id: 'a', name: 'A', parentId: null },
  { id: 'b', name: 'B', parentId: 'a' },
  { id: 'c', name: 'C', parentId: 'b' },
  { id: 'd', name: 'D', parentId: null },
];
const parentOf = (rows: CategoryRow[]) => (id: string) => rows.find((row) => row.id === id)?.parentId;

describe('category tree rules', () => {
  describe('findMoveCycle', () => {
    it('refuses a move under itself', () => {
      expect(findMoveCycle('a', 'a', parentOf(ROWS))).toEqual(['a']);
    });

    it('refuses a move under a descendant, naming the chain', () => {
      expect(findMoveCycle('a', 'c', parentOf(ROWS))).toEqual(['a', 'b', 'c']);
      expect(findMoveCycle('a', 'b', parentOf(ROWS))).toEqual(['a', 'b']);
      expect(findMoveCycle('b', 'c', parentOf(ROWS))).toEqual(['b', 'c']);
    });

    it('allows moves to the top level, to a sibling, to an ancestor and across branches', () => {
      expect(findMoveCycle('c', null, parentOf(ROWS))).toBeNull();
      expect(findMoveCycle('c', 'a', parentOf(ROWS))).toBeNull();
      expect(findMoveCycle('b', 'd', parentOf(ROWS))).toBeNull();
      expect(findMoveCycle('d', 'c', parentOf(ROWS))).toBeNull();
    });

    it('terminates on a loop that does not involve the moved category', () => {
      const broken: CategoryRow[] = [
        { id: 'x', name: 'X', parentId: 'y' },
        { id: 'y', name: 'Y', parentId: 'x' },
        { id: 'z', name: 'Z', parentId: null },
      ];
      expect(findMoveCycle('z', 'x', parentOf(broken))).toBeNull();
    });
  });

  it('builds the path from the top level', () => {
    expect(pathTo('c', parentOf(ROWS))).toEqual(['a', 'b', 'c']);
    expect(pathTo('d', parentOf(ROWS))).toEqual(['d']);
  });

  it('assembles a sorted forest with file counts', () => {
    const rows: CategoryRow[] = [...ROWS, { id: 'e', name: 'alpha', parentId: 'a' }];
    const tree = buildCategoryTree(rows, new Map([['b', 2], ['d', 1]]));
    expect(tree).toEqual([
      {
        id: 'a', name: 'A', parentId: null, fileCount: 0,
        children: [
          { id: 'e', name: 'alpha', parentId: 'a', fileCount: 0, children: [] },
          { id: 'b', name: 'B', parentId: 'a', fileCount: 2, children: [{ id: 'c', name: 'C', parentId: 'b', fileCount: 0, children: [] }] },
        ],
      },
      { id: 'd', name: 'D', parentId: null, fileCount: 1, children: [] },
    ]);
  });

  it('shows orphans and looped rows at the top level instead of losing them or recursing forever', () => {
    const tree = buildCategoryTree([
      { id: 'o', name: 'Orphan', parentId: 'gone' },
      { id: 'x', name: 'X', parentId: 'y' },
      { id: 'y', name: 'Y', parentId: 'x' },
    ]);
    expect(tree.map((node) => node.id)).toEqual(['o', 'x', 'y']);
  });

  describe('names', () => {
    it('normalises whitespace and Unicode', () => {
      expect(normalizeCategoryName('  Quarterly   reports ')).toEqual({ name: 'Quarterly reports' });
      expect(normalizeCategoryName('Cafe\u0301')).toEqual({ name: 'Café' });
    });

    it('refuses empty, overlong and control-character names with a reason', () => {
      expect(normalizeCategoryName('   ')).toEqual({ error: 'A category name must not be empty.' });
      expect(normalizeCategoryName('x'.repeat(201))).toEqual({ error: 'A category name has at most 200 characters.' });
      expect(normalizeCategoryName('a\nb')).toEqual({ error: 'A category name must not contain control characters or line breaks.' });
    });

    it('compares sibling names ignoring case and normalisation form', () => {
      expect(categoryNameKey('Reports')).toBe(categoryNameKey('reports'));
      expect(categoryNameKey('Café')).toBe(categoryNameKey('CAFE\u0301'.normalize('NFC')));
      expect(categoryNameKey('a')).not.toBe(categoryNameKey('b'));
    });
  });
});
