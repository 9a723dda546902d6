import { leftoverVerdict, orphanFolders } from './site-reconciler.rules';

describe('site reconciler rules (issue 19 item 5)', () => {
  it('removes a leftover once nothing in it changed for the grace period, or at once with no grace', () => {
    expect(leftoverVerdict(1_000, 61_000, 60_000)).toBe('remove');
    expect(leftoverVerdict(1_000, 60_999, 60_000)).toBe('keep');
    expect(leftoverVerdict(1_000, 1_000, 0)).toBe('remove');
  });

  it('names the published folders without a row, leaving names that are not deployment names alone', () => {
    const rows = new Set(['0a1b2c3d-site-20250101000000']);
    expect(orphanFolders(['0a1b2c3d-site-20250101000000', 'deadbeef-gone-20250101000000', '.hidden', 'Upper'], rows)).toEqual(['deadbeef-gone-20250101000000']);
    expect(orphanFolders([], rows)).toEqual([]);
  });
});
