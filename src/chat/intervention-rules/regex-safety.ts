import { Script, createContext } from 'node:vm';

/**
 * Guards against catastrophic regular expressions in human-intervention rules (issue 6, "Configuration resources":
 * regexes are validated at write time). No RE2 or safe-regex package is installed, so the approach is layered and
 * documented here:
 *
 * 1. Length cap (CHAT_RULE_MAX_PATTERN_LENGTH) and syntax: the source must compile with flags `iu`.
 * 2. Static check of the source ({@link regexStructureProblems}): no backreferences (`\1`, `\k<name>`), and no
 *    unbounded quantifier inside a group that is itself repeated unboundedly or more than 10 times (star height > 1:
 *    `(a+)+`, `(\w*\s?)*`, `(x+){2,50}`), the classic exponential shapes.
 * 3. Bounded evaluation ({@link probeRegex}): the compiled expression is run against adversarial inputs as long as
 *    the longest text the rules ever look at (CHAT_RULE_MATCH_MAX_CHARS): each character of the pattern and a few
 *    common ones, repeated, followed by a character that forces a failed match. Each run is interrupted after
 *    CHAT_RULE_REGEX_PROBE_TIMEOUT_MS (node:vm `timeout`, which stops V8's backtracking); a run that needs longer
 *    is refused. Measured on 2,000 characters: linear and quadratic expressions (`\d+x`, `a.*b`) take under 50 ms,
 *    cubic ones (`.*a.*b`) seconds, exponential ones forever — the generous limit separates them even on a busy
 *    server. This catches polynomial blow-ups the static check lets through (`.*a.*b.*c`, `(a|a)*b`).
 *    All probes of one request share a budget of PROBE_BUDGET_FACTOR × that limit ({@link probeDeadline}): an
 *    expression that cannot be checked within it is refused too, so one write blocks the event loop for at most
 *    about 2 s (defaults).
 * 4. At match time every evaluation runs through {@link boundedRegexTest} with CHAT_RULE_REGEX_TIMEOUT_MS on text
 *    cut to the same length, so an input the probes missed costs at most that long and counts as "no match".
 */

/** Flags every rule regex is compiled with: case-insensitive, Unicode. */
export const RULE_REGEX_FLAGS = 'iu';

/** A repeated group containing an unbounded quantifier is refused when it repeats more often than this (or unboundedly). */
const NESTED_REPEAT_LIMIT = 10;

/** Characters always used in the probes besides those of the pattern. */
const PROBE_BASE_CHARACTERS = ['a', 'A', '0', ' ', '_', '-', '.', ',', '\n', '中', '@', '!'];
/** Most distinct probe characters taken from one pattern. */
const MAX_PATTERN_PROBE_CHARACTERS = 24;
/** Ends every probe: matched by almost nothing, so the engine has to give up (and backtrack) at the end. */
const PROBE_TERMINATOR = '\u0000';

/** Limits of a rule regex (from AppConfig.chatRules). */
export interface RegexLimits {
  /** Longest source, characters. */
  maxLength: number;
  /** Length of the probe inputs: the longest text rules look at, characters. */
  probeLength: number;
  /** Time limit of one probe evaluation, ms (CHAT_RULE_REGEX_PROBE_TIMEOUT_MS). */
  probeTimeoutMs: number;
  /**
   * Epoch ms after which no probe runs (a budget shared by all expressions of one request, see
   * {@link probeDeadline}); unset = none.
   */
  deadline?: number;
}

/** Probing all expressions of one request may take this many probe time limits together. */
export const PROBE_BUDGET_FACTOR = 4;

/**
 * The deadline of the probes of one write request: {@link PROBE_BUDGET_FACTOR} × the probe time limit from now. The
 * probes run synchronously (they block the event loop), so one request may not block it for longer than that.
 */
export function probeDeadline(probeTimeoutMs: number, now = Date.now()): number {
  return now + PROBE_BUDGET_FACTOR * probeTimeoutMs;
}

const context = createContext(Object.create(null) as Record<string, unknown>);
const testScript = new Script('pattern.lastIndex = 0; pattern.test(subject) === true');

/**
 * `regex.test(subject)`, interrupted after `timeoutMs`. Synchronous: it blocks the event loop for at most that long.
 * @returns true / false, or 'timeout' when the evaluation was stopped
 */
export function boundedRegexTest(regex: RegExp, subject: string, timeoutMs: number): boolean | 'timeout' {
  context.pattern = regex;
  context.subject = subject;
  try {
    return testScript.runInContext(context, { timeout: Math.max(1, Math.floor(timeoutMs)) }) as boolean;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  } finally {
    context.pattern = undefined;
    context.subject = undefined;
  }
}

/** Compiles a rule regex with {@link RULE_REGEX_FLAGS}. @throws SyntaxError on an invalid source */
export function compileRuleRegex(source: string): RegExp {
  return new RegExp(source, RULE_REGEX_FLAGS);
}

/**
 * Static check of a source that already compiles with `u` (step 2 above): backreferences and nested unbounded
 * repetition.
 * @returns readable problems, empty when none
 */
export function regexStructureProblems(source: string): string[] {
  const problems = new Set<string>();
  const stack: { hasUnbounded: boolean }[] = [{ hasUnbounded: false }];
  let previous: { group: boolean; hasUnbounded: boolean } | null = null;
  let i = 0;
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      const next = source[i + 1];
      if (next !== undefined && ((next >= '1' && next <= '9') || next === 'k')) problems.add('backreferences (\\1, \\k<name>) are not allowed');
      i += escapeLength(source, i);
      previous = { group: false, hasUnbounded: false };
    } else if (char === '[') {
      i = classEnd(source, i);
      previous = { group: false, hasUnbounded: false };
    } else if (char === '(') {
      stack.push({ hasUnbounded: false });
      i += groupPrefixLength(source, i);
      previous = null;
    } else if (char === ')') {
      const frame = stack.pop() ?? { hasUnbounded: false };
      const parent = stack[stack.length - 1] ?? stack[0];
      if (frame.hasUnbounded) parent.hasUnbounded = true;
      previous = { group: true, hasUnbounded: frame.hasUnbounded };
      i += 1;
    } else if (char === '*' || char === '+' || char === '?' || (char === '{' && /^\{\d+(,\d*)?\}/.test(source.slice(i)))) {
      const quantifier = readQuantifier(source, i);
      i = quantifier.end;
      if (source[i] === '?') i += 1;
      if (previous?.group && previous.hasUnbounded && (quantifier.max === Infinity || quantifier.max > NESTED_REPEAT_LIMIT)) {
        problems.add('a repeated group contains an unbounded quantifier (like (a+)+), which can take exponential time');
      }
      if (quantifier.max === Infinity) stack[stack.length - 1].hasUnbounded = true;
      previous = null;
    } else {
      previous = char === '|' ? null : { group: false, hasUnbounded: false };
      i += 1;
    }
  }
  return [...problems];
}

/**
 * Runs the compiled regex against adversarial inputs of `probeLength` characters (step 3 above), each with the
 * time limit (a probe that times out is run once more: only a second timeout refuses the expression), within the
 * request's deadline when one is given.
 * @returns a readable problem, or null when every probe finished in time
 */
export function probeRegex(regex: RegExp, source: string, limits: Pick<RegexLimits, 'probeLength' | 'probeTimeoutMs' | 'deadline'>): string | null {
  for (const probe of probeInputs(source, limits.probeLength)) {
    const left = limits.deadline === undefined ? limits.probeTimeoutMs : Math.min(limits.probeTimeoutMs, limits.deadline - Date.now());
    if (left < 1) return overBudget(limits.probeTimeoutMs);
    if (boundedRegexTest(regex, probe, left) === 'timeout') {
      if (left < limits.probeTimeoutMs) return overBudget(limits.probeTimeoutMs);
      // The limit is wall-clock time: a GC pause or a starved CPU can stop a quick expression once, while a
      // catastrophic one times out every time. So a timed-out probe gets one more run before the verdict.
      const again = limits.deadline === undefined ? limits.probeTimeoutMs : Math.min(limits.probeTimeoutMs, limits.deadline - Date.now());
      if (again < limits.probeTimeoutMs) return overBudget(limits.probeTimeoutMs);
      if (boundedRegexTest(regex, probe, again) !== 'timeout') continue;
      return `it takes longer than ${limits.probeTimeoutMs} ms on a ${limits.probeLength}-character text (catastrophic backtracking); simplify it (avoid nested or adjacent repetition like (a+)+ or .*a.*b)`;
    }
  }
  return null;
}

function overBudget(probeTimeoutMs: number): string {
  return `could not be checked in time: the regular expressions of this request take more than ${PROBE_BUDGET_FACTOR * probeTimeoutMs} ms together to check; use fewer or simpler ones`;
}

/** The probe inputs of a source: each distinct character of it (and the base set) repeated, then the terminator. */
export function probeInputs(source: string, length: number): string[] {
  const fromPattern = [...new Set([...source].filter((char) => !'\\^$.|?*+()[]{}'.includes(char)))].slice(0, MAX_PATTERN_PROBE_CHARACTERS);
  const characters = [...new Set([...fromPattern, ...PROBE_BASE_CHARACTERS])];
  return characters.map((char) => char.repeat(Math.max(1, length - 1)) + PROBE_TERMINATOR);
}

/**
 * Every check of a rule regex written by a user (steps 1–3 above).
 * @returns readable problems, empty when the source may be stored
 */
export function ruleRegexProblems(source: string, limits: RegexLimits): string[] {
  if (source.length === 0) return ['is empty'];
  if (source.length > limits.maxLength) return [`is ${source.length} characters long; at most ${limits.maxLength} are allowed`];
  let regex: RegExp;
  try {
    regex = compileRuleRegex(source);
  } catch (error) {
    return [`is not a valid regular expression: ${(error as Error).message}`];
  }
  const structure = regexStructureProblems(source);
  if (structure.length > 0) return structure;
  if (regex.test('')) return ['matches an empty text, so it would match every message'];
  const slow = probeRegex(regex, source, limits);
  return slow ? [slow] : [];
}

/** Length of the escape sequence starting at `start` (a backslash). */
function escapeLength(source: string, start: number): number {
  const next = source[start + 1];
  if ((next === 'u' && source[start + 2] === '{') || next === 'p' || next === 'P') {
    const close = source.indexOf('}', start);
    return close === -1 ? 2 : close - start + 1;
  }
  if (next === 'k' && source[start + 2] === '<') {
    const close = source.indexOf('>', start);
    return close === -1 ? 2 : close - start + 1;
  }
  if (next === 'u') return 6;
  if (next === 'x') return 4;
  if (next === 'c') return 3;
  return 2;
}

/** Index just past the character class starting at `start` (a `[`). */
function classEnd(source: string, start: number): number {
  let i = start + 1;
  if (source[i] === '^') i += 1;
  if (source[i] === ']') i += 1;
  while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? escapeLength(source, i) : 1;
  return i + 1;
}

/** Length of the group opener at `start`: `(`, `(?:`, `(?=`, `(?!`, `(?<=`, `(?<!`, `(?<name>`. */
function groupPrefixLength(source: string, start: number): number {
  if (source[start + 1] !== '?') return 1;
  const kind = source[start + 2];
  if (kind === '<' && source[start + 3] !== '=' && source[start + 3] !== '!') {
    const close = source.indexOf('>', start);
    return close === -1 ? 3 : close - start + 1;
  }
  return kind === '<' ? 4 : 3;
}

/** Reads `*`, `+`, `?` or `{n}`, `{n,}`, `{n,m}` at `start`. */
function readQuantifier(source: string, start: number): { max: number; end: number } {
  const char = source[start];
  if (char === '*' || char === '+') return { max: Infinity, end: start + 1 };
  if (char === '?') return { max: 1, end: start + 1 };
  const match = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(start))!;
  const max = match[2] === undefined ? Number(match[1]) : match[3] === '' ? Infinity : Number(match[3]);
  return { max, end: start + match[0].length };
}
