import { buildCategoryTree, categoryDepth, checkCategoryPlacement, subtreeHeight, subtreeIds } from './script-tree.rules';

// root-a ─ a1 ─ a11
//        └ a2
// root-b
const rows = [
  { id: 'a11', parentId: 'a1', name: 'Leaf', sortOrder: 0 },
  { id: 'root-b', parentId: null, name: 'B', sortOrder: 0 },
  { id: 'a2', parentId: 'root-a', name: 'Alpha', sortOrder: 1 },
  { id: 'a1', parentId: 'root-a', name: 'Zulu', sortOrder: 0 },
  { id: 'root-a', parentId: null, name: 'A', sortOrder: 0 },
];

describe('buildCategoryTree', () => {
  it('nests children and orders siblings by sortOrder, then name', () => {
    const tree = buildCategoryTree(rows);
    const shape = (nodes: ReturnType<typeof buildCategoryTree>): unknown => nodes.map((node) => [node.id, shape(node.children)]);
    expect(shape(tree)).toEqual([
      ['root-a', [['a1', [['a11', []]]], ['a2', []]]],
      ['root-b', []],
    ]);
  });

  it('shows a category whose parent is missing as a root', () => {
    expect(buildCategoryTree([{ id: 'x', parentId: 'gone', name: 'X', sortOrder: 0 }]).map((node) => node.id)).toEqual(['x']);
  });
});

describe('subtree, depth and height', () => {
  it('lists a category and its descendants', () => {
    expect(subtreeIds(rows, 'root-a').sort()).toEqual(['a1', 'a11', 'a2', 'root-a']);
    expect(subtreeIds(rows, 'a11')).toEqual(['a11']);
  });

  it('counts depth from 1 at a root and height from 1 at a leaf', () => {
    expect(categoryDepth(rows, 'root-a')).toBe(1);
    expect(categoryDepth(rows, 'a11')).toBe(3);
    expect(subtreeHeight(rows, 'root-a')).toBe(3);
    expect(subtreeHeight(rows, 'a2')).toBe(1);
  });

  it('stops on corrupt cycles instead of looping', () => {
    const loop = [{ id: 'x', parentId: 'y' }, { id: 'y', parentId: 'x' }];
    expect(categoryDepth(loop, 'x')).toBe(2);
    expect(subtreeIds(loop, 'x').sort()).toEqual(['x', 'y']);
  });
});

describe('checkCategoryPlacement', () => {
  it('allows moves that keep a tree within the depth', () => {
    expect(checkCategoryPlacement(rows, 'a2', 'root-b', 8)).toBeNull();
    expect(checkCategoryPlacement(rows, 'a1', null, 8)).toBeNull();
    expect(checkCategoryPlacement(rows, 'new', 'a11', 4)).toBeNull();
  });

  it('refuses a category under itself or under a descendant', () => {
    expect(checkCategoryPlacement(rows, 'root-a', 'root-a', 8)).toEqual({ kind: 'cycle', message: 'A category cannot be its own parent.' });
    expect(checkCategoryPlacement(rows, 'root-a', 'a11', 8)).toEqual({ kind: 'cycle', message: 'Category a11 is inside category root-a; moving root-a under it would make a cycle.' });
  });

  it('refuses a placement deeper than the maximum, counting the moved subtree', () => {
    expect(checkCategoryPlacement(rows, 'new', 'a11', 3)).toEqual({ kind: 'depth', message: 'The category tree may be at most 3 levels deep (CHAT_SCRIPT_CATEGORY_MAX_DEPTH); this would make it 4.' });
    expect(checkCategoryPlacement(rows, 'root-a', 'root-b', 3)?.kind).toBe('depth');
    expect(checkCategoryPlacement(rows, 'root-a', 'root-b', 4)).toBeNull();
  });
});
