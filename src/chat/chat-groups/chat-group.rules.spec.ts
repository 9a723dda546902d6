import { checkChatGroupTeam, type ChatGroupTeamInput } from './chat-group.rules';

const base: ChatGroupTeamInput = { enabled: true, channelIds: ['c1'], memberUserIds: ['u1'], digitalStaffId: null, routingStrategy: 'round_robin', maxConcurrentChatsPerMember: null };
const limits = { maxChannels: 2, maxMembers: 2 };

describe('chat group rules (chat-management-api.md, Channel and chat group: ChatGroupSaveRequest)', () => {
  it('accepts a team with members, with a digital staff only, or disabled with no one', () => {
    expect(checkChatGroupTeam(base, limits)).toEqual([]);
    expect(checkChatGroupTeam({ ...base, memberUserIds: [], digitalStaffId: 'd1' }, limits)).toEqual([]);
    expect(checkChatGroupTeam({ ...base, enabled: false, memberUserIds: [] }, limits)).toEqual([]);
    expect(checkChatGroupTeam({ ...base, maxConcurrentChatsPerMember: 5 }, limits)).toEqual([]);
  });

  it('refuses an enabled group with no one to answer, and a per-member limit without members', () => {
    expect(checkChatGroupTeam({ ...base, memberUserIds: [] }, limits)).toEqual([
      { field: 'memberUserIds', message: 'An enabled chat group needs someone to answer: give memberUserIds, a digitalStaffId, or both (or save it with enabled false).' },
    ]);
    expect(checkChatGroupTeam({ ...base, memberUserIds: [], digitalStaffId: 'd1', maxConcurrentChatsPerMember: 3 }, limits)).toEqual([
      { field: 'maxConcurrentChatsPerMember', message: 'maxConcurrentChatsPerMember limits members, but the group has none: add memberUserIds or leave it out.' },
    ]);
  });

  it('enforces the channel and member caps', () => {
    expect(checkChatGroupTeam({ ...base, channelIds: ['a', 'b', 'c'], memberUserIds: ['x', 'y', 'z'] }, limits)).toEqual([
      { field: 'channelIds', message: 'channelIds has 3 channels; at most 2 are allowed (CHAT_GROUP_MAX_CHANNELS).' },
      { field: 'memberUserIds', message: 'memberUserIds has 3 members; at most 2 are allowed (CHAT_GROUP_MAX_MEMBERS).' },
    ]);
  });
});
