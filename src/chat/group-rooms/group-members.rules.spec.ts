import type { PlatformGroupMember } from '../platform';
import { diffGroupMembers, type StoredGroupMember } from './group-members.rules';

describe('diffGroupMembers', () => {
  const joined = new Date('2026-01-01T00:00:00Z');
  const member = (userId: string, extra: Partial<PlatformGroupMember> = {}): PlatformGroupMember => ({ userId, type: 2, joinedAt: joined, joinScene: 1, name: `name-${userId}`, ...extra });
  const row = (id: string, memberUserId: string, extra: Partial<StoredGroupMember> = {}): StoredGroupMember => ({ id, memberUserId, memberType: 2, name: `name-${memberUserId}`, joinScene: 1, joinedAt: joined, ...extra });

  it('inserts new members, updates changed ones, deletes every row of members who left', () => {
    const diff = diffGroupMembers(
      [row('r1', 'wm-a'), row('r2', 'wm-b', { name: 'old' }), row('r3', 'wm-gone'), row('r4', 'wm-gone')],
      [member('wm-a'), member('wm-b'), member('wm-new'), member('zhangsan', { type: 1, name: undefined })],
    );
    expect(diff.insert.map((entry) => entry.userId)).toEqual(['wm-new', 'zhangsan']);
    expect(diff.update).toEqual([{ id: 'r2', member: member('wm-b') }]);
    expect(diff.deleteIds).toEqual(['r3', 'r4']);
  });

  it('writes nothing when the rows already match (a second sync is a no-op)', () => {
    const diff = diffGroupMembers([row('r1', 'wm-a'), row('r2', 'zhangsan', { memberType: 1, name: null })], [member('wm-a'), member('zhangsan', { type: 1, name: undefined })]);
    expect(diff).toEqual({ insert: [], update: [], deleteIds: [] });
  });

  it('leaves legacy duplicates of present members to dedup and counts a repeated platform member once', () => {
    const diff = diffGroupMembers([row('r1', 'wm-a'), row('r2', 'wm-a')], [member('wm-a'), member('wm-a')]);
    expect(diff).toEqual({ insert: [], update: [], deleteIds: [] });
  });

  it('notices a changed join time or scene', () => {
    const later = new Date('2026-02-01T00:00:00Z');
    expect(diffGroupMembers([row('r1', 'wm-a')], [member('wm-a', { joinedAt: later })]).update).toHaveLength(1);
    expect(diffGroupMembers([row('r1', 'wm-a')], [member('wm-a', { joinScene: 3 })]).update).toHaveLength(1);
  });
});
