import type { PlatformTagGroup } from '../platform';
import { hasCorpTags, resolveFollowTags } from './contact-tags.rules';

describe('contact tag rules', () => {
  const groups: PlatformTagGroup[] = [
    { groupId: 'grp-level', groupName: 'Level', order: 0, createdAt: new Date(0), tags: [{ tagId: 'tag-vip', name: 'VIP', order: 0, createdAt: new Date(0) }] },
    { groupId: 'grp-src', groupName: 'Source', order: 1, createdAt: new Date(0), tags: [{ tagId: 'tag-fair', name: 'Fair', order: 0, createdAt: new Date(0) }] },
  ];

  it('fills names and groups of corp tags from the tag groups, keeps personal tags and unknown ids, drops repeats', () => {
    const resolved = resolveFollowTags(
      [
        { tagId: 'tag-vip', type: 1 },
        { tagId: 'tag-fair', tagName: 'old name', type: 1 },
        { tagId: 'tag-vip', type: 1 },
        { tagName: 'likes tea', type: 2 },
        { tagId: 'tag-unknown', tagName: 'Mystery', groupName: 'Other', type: 1 },
      ],
      groups,
    );
    expect(resolved).toEqual([
      { tagId: 'tag-vip', tagName: 'VIP', groupId: 'grp-level', groupName: 'Level', type: 1 },
      { tagId: 'tag-fair', tagName: 'Fair', groupId: 'grp-src', groupName: 'Source', type: 1 },
      { tagName: 'likes tea', type: 2 },
      { tagId: 'tag-unknown', tagName: 'Mystery', groupName: 'Other', type: 1 },
    ]);
  });

  it('knows when corp tags need resolving', () => {
    expect(hasCorpTags([{ tagName: 'x', type: 2 }])).toBe(false);
    expect(hasCorpTags([{ tagId: 't', type: 1 }])).toBe(true);
    expect(hasCorpTags([])).toBe(false);
  });
});
