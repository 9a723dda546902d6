import { keywordsFound, normalizeForMatch } from '../tag-rules/keyword-match';
import type { InterventionMatchType } from './intervention-rule.entity';
import type { SafeRegex } from '../../common/regex/safe-regex';
import { compileRuleRegex, ruleRegexProblems } from './regex-safety';

/** What {@link matchInterventionRules} needs of a human-intervention rule. */
export interface InterventionRuleInput {
  id: string;
  name: string;
  enabled: boolean;
  matchType: InterventionMatchType;
  patterns: readonly string[];
  allContacts: boolean;
  digitalStaffIds: readonly string[];
  switchAiOff: boolean;
  createTodo: boolean;
  reason: string;
}

/** Whether a rule covers the contacts of this digital staff: every contact, or the staff is among the rule's. */
export function ruleAppliesTo(rule: Pick<InterventionRuleInput, 'allContacts' | 'digitalStaffIds'>, digitalStaffId: string | null | undefined): boolean {
  return rule.allContacts || (!!digitalStaffId && rule.digitalStaffIds.includes(digitalStaffId));
}

/** The inbound customer message the rules look at. */
export interface InterventionMessage {
  text: string;
  /** The digital staff answering the contact, when one is bound; rules limited to digital staff need it. */
  digitalStaffId?: string | null;
}

/** One rule that matched, with what matched and its action. */
export interface InterventionMatch {
  ruleId: string;
  ruleName: string;
  matchType: InterventionMatchType;
  /** Keywords found, the regex source that matched, or the intent name. */
  matched: string[];
  switchAiOff: boolean;
  createTodo: boolean;
  reason: string;
}

/** What the pipeline should do about one message. */
export interface InterventionDecision {
  /** Matching rules, in rule order. */
  matches: InterventionMatch[];
  /** Some matching rule switches the contact's AI off. */
  switchAiOff: boolean;
  /** Some matching rule opens a to-do. */
  createTodo: boolean;
  /** Reasons of the matching rules, each once, in rule order. */
  reasons: string[];
}

/** Options of {@link matchInterventionRules}. */
export interface InterventionMatchOptions {
  /** Only the first this many characters of the text are looked at (CHAT_RULE_MATCH_MAX_CHARS). Default: all. */
  maxChars?: number;
}

/** Compiled rule regexes by source (sources are checked when written, so they compile). */
const compiled = new Map<string, SafeRegex | null>();
const COMPILED_CACHE_MAX = 2000;

/**
 * The human-intervention rules an inbound customer message triggers (chat-management-api.md, "Human-intervention
 * rule"; issue 6, "The inbound pipeline": rules "that match switch the contact's AI off, create a digital-staff
 * customer to-do and record why"). A rule applies when it is enabled and either covers all contacts or lists the
 * message's digital staff. It matches on:
 * - `keywords`: any keyword is a substring of the text (case-insensitive, NFKC; see tag-rules/keyword-match.ts);
 * - `regex`: any expression matches (case-insensitive, on the RE2 engine of src/common/regex: linear in the text, so
 *   no time limit is needed; issue 19, item 3);
 * - `intent`: `detectedIntent` equals one of the intent names (case-insensitive).
 * Deterministic and without I/O.
 * @param rules the tenant's rules, in the order they should apply
 * @param message the message text and its digital staff
 * @param detectedIntent the intent detected in the message, if any
 */
export function matchInterventionRules(
  rules: readonly InterventionRuleInput[],
  message: InterventionMessage,
  detectedIntent?: string | null,
  options: InterventionMatchOptions = {},
): InterventionDecision {
  const text = options.maxChars === undefined ? message.text : message.text.slice(0, options.maxChars);
  const normalized = normalizeForMatch(text);
  const intent = detectedIntent ? normalizeForMatch(detectedIntent).trim() : '';
  const decision: InterventionDecision = { matches: [], switchAiOff: false, createTodo: false, reasons: [] };
  for (const rule of rules) {
    if (!rule.enabled) continue;
    if (!ruleAppliesTo(rule, message.digitalStaffId)) continue;
    let matched: string[] = [];
    if (rule.matchType === 'keywords') {
      matched = keywordsFound(normalized, rule.patterns);
    } else if (rule.matchType === 'intent') {
      matched = intent ? rule.patterns.filter((name) => normalizeForMatch(name).trim() === intent) : [];
    } else {
      for (const source of rule.patterns) {
        if (compile(source)?.test(text)) {
          matched = [source];
          break;
        }
      }
    }
    if (matched.length === 0) continue;
    decision.matches.push({ ruleId: rule.id, ruleName: rule.name, matchType: rule.matchType, matched, switchAiOff: rule.switchAiOff, createTodo: rule.createTodo, reason: rule.reason });
    decision.switchAiOff ||= rule.switchAiOff;
    decision.createTodo ||= rule.createTodo;
    if (!decision.reasons.includes(rule.reason)) decision.reasons.push(rule.reason);
  }
  return decision;
}

/** The compiled regex of a stored source, or null if it does not compile (never for checked sources). */
function compile(source: string): SafeRegex | null {
  if (compiled.has(source)) return compiled.get(source)!;
  let regex: SafeRegex | null;
  try {
    regex = compileRuleRegex(source);
  } catch {
    regex = null;
  }
  if (compiled.size >= COMPILED_CACHE_MAX) compiled.clear();
  compiled.set(source, regex);
  return regex;
}

/** Intent names: letters, digits, spaces, `_`, `.`, `:`, `-`, not starting with a space. */
const INTENT_NAME = /^[\p{L}\p{N}_.:-][\p{L}\p{N} _.:-]*$/u;

/** Limits of a rule's patterns (from AppConfig.chatRules). */
export interface PatternLimits {
  maxPatterns: number;
  maxPatternLength: number;
}

/**
 * Checks the patterns of a rule as written by a user, per match type: keywords (see keywordListProblems), regular
 * expressions (each through ruleRegexProblems: length, RE2 syntax with unsupported constructs named, not matching an
 * empty text), intent names (letters, digits, ` _.:-`).
 * Count 1..maxPatterns, no repeats.
 * @returns problems as `{ index, message }` (index null for the whole list)
 */
export function interventionPatternProblems(matchType: InterventionMatchType, patterns: readonly string[], limits: PatternLimits): { index: number | null; message: string }[] {
  if (patterns.length === 0) return [{ index: null, message: 'needs at least one entry' }];
  if (patterns.length > limits.maxPatterns) return [{ index: null, message: `has ${patterns.length} entries; at most ${limits.maxPatterns} are allowed` }];
  const problems: { index: number | null; message: string }[] = [];
  const seen = new Map<string, number>();
  patterns.forEach((pattern, index) => {
    const key = matchType === 'regex' ? pattern : normalizeForMatch(pattern).trim();
    const earlier = seen.get(key);
    if (earlier !== undefined) problems.push({ index, message: `repeats patterns[${earlier}]` });
    else seen.set(key, index);
    if (matchType === 'regex') {
      for (const message of ruleRegexProblems(pattern, { maxLength: limits.maxPatternLength })) problems.push({ index, message });
      return;
    }
    if (pattern.trim().length === 0) problems.push({ index, message: 'is empty' });
    else if (pattern !== pattern.trim()) problems.push({ index, message: 'must not start or end with spaces' });
    if (pattern.length > limits.maxPatternLength) problems.push({ index, message: `is ${pattern.length} characters long; at most ${limits.maxPatternLength} are allowed` });
    if (matchType === 'intent' && pattern.trim().length > 0 && !INTENT_NAME.test(pattern)) problems.push({ index, message: 'an intent name has letters, digits, spaces, "_", ".", ":" or "-" only' });
  });
  return problems;
}
