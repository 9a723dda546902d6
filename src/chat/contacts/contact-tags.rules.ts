import type { PlatformCustomerTag, PlatformTagGroup } from '../platform';
import type { ExternalContactTag } from './external-contact.entity';

/**
 * Tags of a contact as stored: the platform's follow tags, with names and group filled in from the corp's tag
 * groups (the platform's customer lists give corp tag ids only). Pure rules, no I/O.
 */

/**
 * Resolves follow tags against the corp's tag groups: a corp tag (type 1) gets its name, group id and group name
 * from the groups when its id is known there, else keeps what the platform gave; personal tags (type 2) keep their
 * name. Repeated corp tag ids are kept once.
 */
export function resolveFollowTags(tags: PlatformCustomerTag[], groups: PlatformTagGroup[]): ExternalContactTag[] {
  const byId = new Map<string, { tagName: string; groupId: string; groupName: string }>();
  for (const group of groups) for (const tag of group.tags) byId.set(tag.tagId, { tagName: tag.name, groupId: group.groupId, groupName: group.groupName });
  const seen = new Set<string>();
  const resolved: ExternalContactTag[] = [];
  for (const tag of tags) {
    if (tag.type === 1 && tag.tagId) {
      if (seen.has(tag.tagId)) continue;
      seen.add(tag.tagId);
      const known = byId.get(tag.tagId);
      resolved.push(compact({ tagId: tag.tagId, tagName: known?.tagName ?? tag.tagName, groupId: known?.groupId, groupName: known?.groupName ?? tag.groupName, type: 1 }));
    } else {
      resolved.push(compact({ tagName: tag.tagName, groupName: tag.groupName, type: tag.type }));
    }
  }
  return resolved;
}

/** Whether any follow tag is a corp tag (only then the corp's tag groups are worth fetching). */
export function hasCorpTags(tags: PlatformCustomerTag[]): boolean {
  return tags.some((tag) => tag.type === 1 && tag.tagId);
}

function compact(tag: ExternalContactTag): ExternalContactTag {
  return Object.fromEntries(Object.entries(tag).filter(([, value]) => value !== undefined)) as unknown as ExternalContactTag;
}
