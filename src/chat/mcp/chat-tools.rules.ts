import type { ExternalContactTag } from '../contacts/external-contact.entity';
import type { PlatformTagGroup } from '../platform';

/**
 * Pure rules of the tool-style endpoints (chat-management-api.md, "Tool-style endpoints": `{T}/mcp/chat/contact/...`;
 * issue 6, "Tool-style endpoints") and of their MCP tools: how a request names its contact, the text it may send,
 * and how customer tags are resolved against the corp's tag library and applied to the tags a contact holds. No I/O.
 */

/** How a tool request names one contact (the relation of one customer with one staff member). */
export interface ContactReference {
  /** Atrium's contact id (chat_external_contact.id, the console paths' `contactId`). */
  contactId?: string | null;
  /** The staff member's platform userid (`workChatUserId`). */
  workChatUserId?: string | null;
  /** The customer's platform id (`external_userid`). */
  externalUserId?: string | null;
}

/**
 * Checks how a request names its contact: exactly one of `contactId` or `externalUserId`; `externalUserId` needs
 * `workChatUserId` (a customer may be the contact of several staff members). `workChatUserId` next to `contactId`
 * is allowed: the contact must then belong to that staff member.
 * @returns the reason the reference is unusable (a 400 detail), or undefined when it is fine
 */
export function contactReferenceProblem(ref: ContactReference): string | undefined {
  const byId = ref.contactId !== undefined && ref.contactId !== null;
  const byCustomer = ref.externalUserId !== undefined && ref.externalUserId !== null;
  if (byId && byCustomer) return 'Name the contact either by `contactId` or by `workChatUserId` + `externalUserId`, not both.';
  if (!byId && !byCustomer) return 'Name the contact: `contactId` (Atrium contact id), or `workChatUserId` + `externalUserId`.';
  if (byCustomer && (ref.workChatUserId === undefined || ref.workChatUserId === null)) {
    return '`externalUserId` needs `workChatUserId`: a customer is the contact of each staff member they added.';
  }
  return undefined;
}

/**
 * Checks the text of a tool send: not blank, at most `maxChars` characters (CHAT_MESSAGE_MAX_TEXT_CHARS, the same
 * limit as the console send).
 * @returns the reason it is refused (a 400 detail), or undefined
 */
export function messageTextProblem(content: string, maxChars: number): string | undefined {
  if (typeof content !== 'string' || content.trim() === '') return '`content` must be a non-empty text.';
  if (content.length > maxChars) return `\`content\` is ${content.length} characters; at most ${maxChars} (CHAT_MESSAGE_MAX_TEXT_CHARS).`;
  return undefined;
}

/** Which tags a tag request names: platform corp tag ids and/or tag names (optionally within one tag group). */
export interface TagSelection {
  tagIds?: string[] | null;
  tagNames?: string[] | null;
  /** Only tags of the group with this name (for names that exist in several groups); null or undefined: any group. */
  groupName?: string | null;
}

/**
 * Checks a tag selection: at least one tag, at most `maxTags` (CHAT_MCP_MAX_TAGS) ids and names together.
 * @returns the reason it is refused (a 400 detail), or undefined
 */
export function tagSelectionProblem(selection: TagSelection, maxTags: number): string | undefined {
  const count = distinct(selection.tagIds).length + distinct(selection.tagNames).length;
  if (count === 0) return 'Name at least one tag in `tagIds` or `tagNames`.';
  if (count > maxTags) return `The request names ${count} tags; at most ${maxTags} per request (CHAT_MCP_MAX_TAGS).`;
  return undefined;
}

/** A corp tag of the corp's tag library, with its group. */
export interface LibraryTag {
  tagId: string;
  tagName: string;
  groupId: string;
  groupName: string;
}

/** The outcome of {@link resolveLibraryTags}. */
export interface TagResolution {
  /** The tags named, once each, in the order named (ids first, then names). */
  tags: LibraryTag[];
  /** Ids that are no corp tag of the corp. */
  unknownIds: string[];
  /** Names that match no corp tag (in `groupName`, when given). */
  unknownNames: string[];
  /** Names that match tags of several groups (give `groupName` or the tag id). */
  ambiguousNames: string[];
}

/**
 * Resolves tag ids and names against the corp's tag library (the platform's tag groups). Names compare exactly
 * (the platform's tag names are case-sensitive); with `groupName`, only that group's tags are considered for names.
 */
export function resolveLibraryTags(groups: PlatformTagGroup[], selection: TagSelection): TagResolution {
  const library: LibraryTag[] = groups.flatMap((group) => group.tags.map((tag) => ({ tagId: tag.tagId, tagName: tag.name, groupId: group.groupId, groupName: group.groupName })));
  const byId = new Map(library.map((tag) => [tag.tagId, tag]));
  const result: TagResolution = { tags: [], unknownIds: [], unknownNames: [], ambiguousNames: [] };
  const seen = new Set<string>();
  const take = (tag: LibraryTag) => {
    if (seen.has(tag.tagId)) return;
    seen.add(tag.tagId);
    result.tags.push(tag);
  };
  for (const id of distinct(selection.tagIds)) {
    const tag = byId.get(id);
    if (tag) take(tag);
    else result.unknownIds.push(id);
  }
  for (const name of distinct(selection.tagNames)) {
    const matches = library.filter((tag) => tag.tagName === name && (selection.groupName == null || tag.groupName === selection.groupName));
    if (matches.length === 0) result.unknownNames.push(name);
    else if (matches.length > 1) result.ambiguousNames.push(name);
    else take(matches[0]);
  }
  return result;
}

/** What adding tags to a contact changes. */
export interface TagAddPlan {
  /** Corp tag ids to mark on the platform (not on the contact yet). */
  addTagIds: string[];
  /** The contact's tags afterwards (the current ones, then the added ones). */
  next: ExternalContactTag[];
}

/**
 * Adds library tags to a contact's tags: tags the contact already has (same corp tag id) are left as they are, so
 * adding twice changes nothing (`addTagIds` empty).
 */
export function planTagAdd(current: ExternalContactTag[], tags: LibraryTag[]): TagAddPlan {
  const held = new Set(current.filter((tag) => tag.type === 1 && tag.tagId).map((tag) => tag.tagId!));
  const added = tags.filter((tag) => !held.has(tag.tagId));
  return {
    addTagIds: added.map((tag) => tag.tagId),
    next: [...current, ...added.map((tag): ExternalContactTag => ({ tagId: tag.tagId, tagName: tag.tagName, groupId: tag.groupId, groupName: tag.groupName, type: 1 }))],
  };
}

/** What deleting tags from a contact changes. */
export interface TagRemovePlan {
  /** Corp tag ids to unmark on the platform. */
  removeTagIds: string[];
  /** The contact's tags that go (corp and personal). */
  removed: ExternalContactTag[];
  /** The contact's tags afterwards, in their order. */
  next: ExternalContactTag[];
}

/**
 * Removes tags from a contact's tags, matched against the tags the contact holds (not the library): corp tags by id
 * or by name, personal tags (type 2, Atrium's display tags) by name; `groupName` limits name matches to that group.
 * A tag the contact does not hold is ignored, so deleting twice changes nothing.
 */
export function planTagRemove(current: ExternalContactTag[], selection: TagSelection): TagRemovePlan {
  const ids = new Set(distinct(selection.tagIds));
  const names = new Set(distinct(selection.tagNames));
  const matches = (tag: ExternalContactTag) =>
    (tag.type === 1 && tag.tagId !== undefined && ids.has(tag.tagId)) ||
    (tag.tagName !== undefined && names.has(tag.tagName) && (selection.groupName == null || tag.groupName === selection.groupName));
  const removed = current.filter(matches);
  return {
    removeTagIds: [...new Set(removed.filter((tag) => tag.type === 1 && tag.tagId).map((tag) => tag.tagId!))],
    removed,
    next: current.filter((tag) => !matches(tag)),
  };
}

/** The distinct non-empty values of an optional list, in their order. */
function distinct(values: string[] | null | undefined): string[] {
  return [...new Set((values ?? []).filter((value) => typeof value === 'string' && value.length > 0))];
}
