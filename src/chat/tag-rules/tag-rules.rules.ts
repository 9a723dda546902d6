import { keywordsFound, normalizeForMatch } from './keyword-match';
import type { TagRuleMatchMode } from './tag-rule.entity';

/** What {@link tagsForMessage} needs of a keyword tag rule. */
export interface TagRuleInput {
  id: string;
  enabled: boolean;
  keywords: readonly string[];
  matchMode: TagRuleMatchMode;
  tagNames: readonly string[];
  platformTagIds: readonly string[];
}

/** The tags an inbound message earns its contact, and which rules gave them. */
export interface TagsForMessage {
  /** Tag names to add, each once, in rule order. */
  tagNames: string[];
  /** Platform corp tag ids to add, each once, in rule order. */
  platformTagIds: string[];
  /** Ids of the rules that matched, in rule order. */
  matchedRuleIds: string[];
}

/**
 * The tags keyword tag rules add for one inbound customer message (chat-management-api.md, "Keyword tag rule";
 * issue 6, "The inbound pipeline": "keyword tag rules add tags"). A rule matches when it is enabled and the text
 * contains any (`matchMode: 'any'`) or all (`'all'`) of its keywords, compared case-insensitively after NFKC
 * normalisation. Tags are de-duplicated (names case-sensitively, as the platform keeps them). Pure, no I/O.
 * @param rules the tenant's rules, in the order they should apply
 * @param text the message text (only the first `maxChars` characters are looked at, when given)
 */
export function tagsForMessage(rules: readonly TagRuleInput[], text: string, maxChars?: number): TagsForMessage {
  const haystack = normalizeForMatch(maxChars === undefined ? text : text.slice(0, maxChars));
  const tagNames = new Set<string>();
  const platformTagIds = new Set<string>();
  const matchedRuleIds: string[] = [];
  for (const rule of rules) {
    if (!rule.enabled || rule.keywords.length === 0) continue;
    const found = keywordsFound(haystack, rule.keywords).length;
    const matches = rule.matchMode === 'all' ? found === rule.keywords.length : found > 0;
    if (!matches) continue;
    matchedRuleIds.push(rule.id);
    for (const name of rule.tagNames) tagNames.add(name);
    for (const id of rule.platformTagIds) platformTagIds.add(id);
  }
  return { tagNames: [...tagNames], platformTagIds: [...platformTagIds], matchedRuleIds };
}
