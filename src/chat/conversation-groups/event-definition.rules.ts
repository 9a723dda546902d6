import type { EventCondition, EventType, KeywordMatchMode } from './event-definition.entity';
import type { FieldProblem } from './id-lists';

/** The type-specific fields of an event definition request. */
export interface EventConditionInput {
  eventType: EventType;
  keywords?: string[];
  matchMode?: KeywordMatchMode;
  intents?: string[];
  tagNames?: string[];
  idleMinutes?: number;
}

/** Which condition fields each event type needs (`required`) or may have (`optional`); all others are refused. */
const FIELDS_BY_TYPE: Record<EventType, { required: (keyof EventCondition)[]; optional: (keyof EventCondition)[] }> = {
  message_received: { required: [], optional: [] },
  message_keyword: { required: ['keywords'], optional: ['matchMode'] },
  intent_detected: { required: ['intents'], optional: [] },
  tag_added: { required: ['tagNames'], optional: [] },
  customer_idle: { required: ['idleMinutes'], optional: [] },
  conversation_started: { required: [], optional: [] },
};

const CONDITION_FIELDS: (keyof EventCondition)[] = ['keywords', 'matchMode', 'intents', 'tagNames', 'idleMinutes'];

/**
 * Checks the condition fields of an event definition against its type and normalises them: texts trimmed, blank
 * ones refused, duplicates (case-insensitive) dropped keeping the first, `matchMode` defaulting to `contains`.
 * Field shapes (array sizes, lengths, ranges) are the DTO's job; this is the cross-field rule.
 * @returns the condition to store, and every problem (empty when valid)
 */
export function normalizeEventCondition(input: EventConditionInput): { condition: EventCondition; problems: FieldProblem[] } {
  const rule = FIELDS_BY_TYPE[input.eventType];
  const problems: FieldProblem[] = [];
  const condition: EventCondition = {};
  for (const field of CONDITION_FIELDS) {
    const given = input[field] !== undefined && input[field] !== null;
    if (rule.required.includes(field) && !given) {
      problems.push({ field, message: `${field} is required for eventType ${input.eventType}.` });
    } else if (given && !rule.required.includes(field) && !rule.optional.includes(field)) {
      problems.push({ field, message: `${field} does not apply to eventType ${input.eventType}.` });
    }
  }
  for (const field of ['keywords', 'intents', 'tagNames'] as const) {
    const values = input[field];
    if (!values || !rule.required.includes(field)) continue;
    const { texts, blank } = distinctTexts(values);
    if (blank) problems.push({ field, message: `${field} must not contain blank entries.` });
    condition[field] = texts;
  }
  if (input.eventType === 'message_keyword') condition.matchMode = input.matchMode ?? 'contains';
  if (input.eventType === 'customer_idle' && input.idleMinutes !== undefined) condition.idleMinutes = input.idleMinutes;
  return { condition, problems };
}

/**
 * Whether a customer message's text is an occurrence of a message event: `message_received` matches every
 * message; `message_keyword` matches when the text contains a keyword (`contains`) or equals one after trimming
 * (`exact`), ignoring case; other event types never match a message.
 */
export function matchesMessageEvent(definition: { eventType: EventType; condition: EventCondition }, text: string): boolean {
  if (definition.eventType === 'message_received') return true;
  if (definition.eventType !== 'message_keyword') return false;
  const haystack = text.toLocaleLowerCase();
  const keywords = (definition.condition.keywords ?? []).map((keyword) => keyword.toLocaleLowerCase());
  return definition.condition.matchMode === 'exact' ? keywords.includes(haystack.trim()) : keywords.some((keyword) => haystack.includes(keyword));
}

/** Trimmed texts without case-insensitive duplicates (first kept), and whether any was blank. */
function distinctTexts(values: readonly string[]): { texts: string[]; blank: boolean } {
  const seen = new Set<string>();
  const texts: string[] = [];
  let blank = false;
  for (const value of values) {
    const text = value.trim();
    if (!text) {
      blank = true;
      continue;
    }
    const key = text.toLocaleLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    texts.push(text);
  }
  return { texts, blank };
}
