import type { PlatformGroupMember } from '../platform';

/**
 * Syncing a group room's members from the platform's member list (guide `syncGroup`). Pure rules, no I/O.
 */

/** A stored member row, as the diff needs it. */
export interface StoredGroupMember {
  id: string;
  memberUserId: string;
  memberType: number;
  name: string | null;
  joinScene: number;
  joinedAt: Date | null;
}

/** What to write so the stored members match the platform. */
export interface GroupMemberDiff {
  insert: PlatformGroupMember[];
  update: { id: string; member: PlatformGroupMember }[];
  /** Rows of members who left (every row of such a member, duplicates included). */
  deleteIds: string[];
}

/**
 * Compares stored rows with the platform's members, matching by member user id:
 * - a platform member without a row → insert;
 * - a member whose first row (in the given order) differs in type, name, join scene or join time → update that row;
 * - rows of members no longer on the platform → delete.
 * Further rows of a member still present (legacy duplicates) are left to the dedup operation. A member listed
 * twice by the platform counts once.
 */
export function diffGroupMembers(stored: StoredGroupMember[], platform: PlatformGroupMember[]): GroupMemberDiff {
  const rowsByMember = new Map<string, StoredGroupMember[]>();
  for (const row of stored) rowsByMember.set(row.memberUserId, [...(rowsByMember.get(row.memberUserId) ?? []), row]);
  const seen = new Set<string>();
  const diff: GroupMemberDiff = { insert: [], update: [], deleteIds: [] };
  for (const member of platform) {
    if (seen.has(member.userId)) continue;
    seen.add(member.userId);
    const first = rowsByMember.get(member.userId)?.[0];
    if (!first) diff.insert.push(member);
    else if (!sameMember(first, member)) diff.update.push({ id: first.id, member });
  }
  for (const [memberUserId, rows] of rowsByMember) if (!seen.has(memberUserId)) diff.deleteIds.push(...rows.map((row) => row.id));
  return diff;
}

function sameMember(row: StoredGroupMember, member: PlatformGroupMember): boolean {
  return (
    row.memberType === member.type &&
    (row.name ?? null) === (member.name ?? null) &&
    row.joinScene === member.joinScene &&
    (row.joinedAt?.getTime() ?? null) === member.joinedAt.getTime()
  );
}
