import type { FieldProblem } from '../conversation-groups/id-lists';

/** The team fields of a chat group request. */
export interface ChatGroupTeamInput {
  enabled: boolean;
  channelIds: readonly string[];
  memberUserIds: readonly string[];
  digitalStaffId: string | null;
  routingStrategy: string;
  maxConcurrentChatsPerMember: number | null;
}

/**
 * Cross-field rules of a chat group (the team that handles its channels' chats):
 * - an enabled group must have someone to answer: a digital staff or at least one member;
 * - `maxConcurrentChatsPerMember` limits members, so it needs at least one member;
 * - id lists must be within their caps.
 * @param limits most channels (CHAT_GROUP_MAX_CHANNELS) and members (CHAT_GROUP_MAX_MEMBERS)
 * @returns every problem (empty when valid)
 */
export function checkChatGroupTeam(input: ChatGroupTeamInput, limits: { maxChannels: number; maxMembers: number }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (input.channelIds.length > limits.maxChannels) {
    problems.push({ field: 'channelIds', message: `channelIds has ${input.channelIds.length} channels; at most ${limits.maxChannels} are allowed (CHAT_GROUP_MAX_CHANNELS).` });
  }
  if (input.memberUserIds.length > limits.maxMembers) {
    problems.push({ field: 'memberUserIds', message: `memberUserIds has ${input.memberUserIds.length} members; at most ${limits.maxMembers} are allowed (CHAT_GROUP_MAX_MEMBERS).` });
  }
  if (input.enabled && input.memberUserIds.length === 0 && !input.digitalStaffId) {
    problems.push({ field: 'memberUserIds', message: 'An enabled chat group needs someone to answer: give memberUserIds, a digitalStaffId, or both (or save it with enabled false).' });
  }
  if (input.maxConcurrentChatsPerMember !== null && input.memberUserIds.length === 0) {
    problems.push({ field: 'maxConcurrentChatsPerMember', message: 'maxConcurrentChatsPerMember limits members, but the group has none: add memberUserIds or leave it out.' });
  }
  return problems;
}
