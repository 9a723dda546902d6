import { RE2JS } from 're2js';
import { toRe2Syntax, unsupportedRegexConstruct } from './regex-dialect';

/**
 * The one regular-expression engine for user-supplied patterns (issue 19, item 3): RE2 through `re2js` (a pure-JS port
 * of RE2; matching time is linear in the input, there is no backtracking, so no pattern can block the event loop).
 * The native `re2` package can't be installed here (ISSUE-NOTES, 19). Dialect: see regex-dialect.ts.
 */

/** A pattern that cannot be run: invalid, or a construct RE2 does not support. The message is readable by users. */
export class RegexSyntaxError extends Error {}

/** A match: the matched text and its start (UTF-16 index, as JavaScript strings count). */
export interface SafeRegexMatch {
  text: string;
  index: number;
}

/** A compiled pattern. Stateless (no `lastIndex`): safe to share and cache. */
export interface SafeRegex {
  /** The pattern as the user wrote it. */
  readonly source: string;
  /** The effective flags among `i`, `m`, `s`, sorted. */
  readonly flags: string;
  /** Whether the pattern matches anywhere in `text` (unanchored, like `RegExp.prototype.test`). Linear time. */
  test(text: string): boolean;
  /** The leftmost match in `text`, or null. Linear time. */
  exec(text: string): SafeRegexMatch | null;
  /** `/source/flags`, for messages. */
  toString(): string;
}

/** Flags that change matching: case-insensitive, `^`/`$` at line ends, `.` matches `\n`. */
const EFFECTIVE_FLAGS: Record<string, number> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL };
/** Flags accepted with no effect: `u` (RE2 is always Unicode), `g` `y` `d` (one test per text needs no state). */
const NEUTRAL_FLAGS = 'uygd';

/**
 * Problems with a flag string as a user writes it (JavaScript RegExp flags): `i`, `m`, `s` change matching; `u`, `g`,
 * `y`, `d` are accepted without effect; anything else (including `v`) or a repeated flag is refused.
 * @returns a readable problem, or null
 */
export function regexFlagsProblem(flags: string): string | null {
  const seen = new Set<string>();
  for (const flag of flags) {
    if (!(flag in EFFECTIVE_FLAGS) && !NEUTRAL_FLAGS.includes(flag)) return `flag "${flag}" is not supported (use i, m, s; u, g, y and d have no effect)`;
    if (seen.has(flag)) return `flag "${flag}" is repeated`;
    seen.add(flag);
  }
  return null;
}

/**
 * Why a pattern can't be stored, or null when it can: an unsupported flag, a construct RE2 can't run (named, see
 * {@link unsupportedRegexConstruct}) or RE2's syntax error. Pure: the write-time check of every rule type.
 */
export function safeRegexProblem(source: string, flags = ''): string | null {
  try {
    compileSafeRegex(source, flags);
    return null;
  } catch (error) {
    if (error instanceof RegexSyntaxError) return error.message;
    throw error;
  }
}

/**
 * Compiles a user's pattern (JavaScript syntax, see regex-dialect.ts) on RE2.
 * @param flags JavaScript flags, see {@link regexFlagsProblem}
 * @throws RegexSyntaxError with a readable message naming the problem (unsupported construct or flag, bad syntax)
 */
export function compileSafeRegex(source: string, flags = ''): SafeRegex {
  const flagProblem = regexFlagsProblem(flags);
  if (flagProblem) throw new RegexSyntaxError(flagProblem);
  const construct = unsupportedRegexConstruct(source);
  if (construct) throw new RegexSyntaxError(construct);
  const effective = [...flags].filter((flag) => flag in EFFECTIVE_FLAGS).sort().join('');
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(toRe2Syntax(source), [...effective].reduce((bits, flag) => bits | EFFECTIVE_FLAGS[flag], 0));
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    throw new RegexSyntaxError(`is not a valid regular expression for the RE2 engine: ${message}`);
  }
  return {
    source,
    flags: effective,
    test: (text) => compiled.test(text),
    exec: (text) => {
      // The DFA test is several times cheaper than exec's capture-tracking NFA: most texts don't match.
      if (!compiled.test(text)) return null;
      // re2js returns a RegExpExecArray-shaped array (typed as any[]).
      const match = compiled.exec(text) as (string[] & { index: number }) | null;
      return match ? { text: match[0], index: match.index } : null;
    },
    toString: () => `/${source}/${effective}`,
  };
}

/**
 * Ajv's `code.regExp` option (ajv docs, "code.regExp"): Ajv builds every `pattern` and `patternProperties` key
 * (and `additionalProperties` next to them) through it, so JSON-schema patterns run on RE2 too. Ajv passes `u` as
 * the flags; RE2 is always Unicode. Throws RegexSyntaxError for a pattern RE2 can't run, which makes Ajv's compile
 * fail with that message. `toString()` is unique per pattern: Ajv keys its compiled-pattern scope by it.
 */
export const ajvSafeRegExp = Object.assign((pattern: string, flags: string): SafeRegex => compileSafeRegex(pattern, flags.replace(/[^ims]/g, '')), {
  code: 'ajvSafeRegExp',
});
