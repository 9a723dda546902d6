import { compileSafeRegex, RegexSyntaxError, type SafeRegex } from '../../common/regex/safe-regex';

/**
 * Regular expressions of human-intervention rules (issue 6, "Configuration resources": regexes are validated at write
 * time; issue 19, item 3: they run in linear time). They run on the RE2 engine of src/common/regex (JavaScript syntax;
 * backreferences and lookaround are refused, naming the construct), so no pattern can stall the event loop and no
 * time probe is needed. Matching is case-insensitive.
 */

/** Flags every rule regex is compiled with: case-insensitive (RE2 is always Unicode). */
export const RULE_REGEX_FLAGS = 'i';

/** Compiles a rule regex with {@link RULE_REGEX_FLAGS} on RE2. @throws RegexSyntaxError on a source RE2 can't run */
export function compileRuleRegex(source: string): SafeRegex {
  return compileSafeRegex(source, RULE_REGEX_FLAGS);
}

/**
 * Every check of a rule regex written by a user: not empty, at most `maxLength` characters, runnable by RE2 (the
 * problem names an unsupported construct such as a backreference or a lookahead), and not matching an empty text.
 * @param limits.maxLength longest source, characters (CHAT_RULE_MAX_PATTERN_LENGTH)
 * @returns readable problems, empty when the source may be stored
 */
export function ruleRegexProblems(source: string, limits: { maxLength: number }): string[] {
  if (source.length === 0) return ['is empty'];
  if (source.length > limits.maxLength) return [`is ${source.length} characters long; at most ${limits.maxLength} are allowed`];
  let regex: SafeRegex;
  try {
    regex = compileRuleRegex(source);
  } catch (error) {
    if (error instanceof RegexSyntaxError) return [error.message];
    throw error;
  }
  if (regex.test('')) return ['matches an empty text, so it would match every message'];
  return [];
}
