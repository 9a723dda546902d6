/**
 * Reading an llm-rubric judge's answer as a person would (issue 24 item 1): the first complete JSON object that
 * holds a verdict, found by a balanced scan (not first `{` to last `}`), inside a fence or prose or not; string
 * booleans and numbers coerced; a score on 0–10 or 0–100 normalised to 0..1 with the scale recorded.
 */

/** Characters of an answer scanned at most (the run caps stored answers separately: EVAL_JUDGE_ANSWER_MAX_CHARS). */
export const MAX_JUDGE_SCAN_CHARS = 100_000;

/** `{` positions tried at most; with the scan bound this keeps the work linear-bounded (≤ 64 × 100k steps). */
const MAX_OBJECT_STARTS = 64;

/** Score scales the reader knows: the prompt's 0..1, and the 0–10 and 0–100 scales models fall back to. */
export type JudgeScoreScale = '0-1' | '0-10' | '0-100';

/** A verdict read from a judge's answer. `score` is 0..1; `scale` is the scale the judge's raw score was read on. */
export interface JudgeVerdict {
  pass: boolean;
  score: number;
  reason: string;
  scale: JudgeScoreScale;
}

/** The judge's answer holds no readable verdict: the case is `errored` (judge failure), never `failed`. */
export class JudgeAnswerError extends Error {
  override readonly name = 'JudgeAnswerError';
}

const TRUE_WORDS = new Set(['true', 'yes', 'pass', 'passed', 'y']);
const FALSE_WORDS = new Set(['false', 'no', 'fail', 'failed', 'n']);

/** `true`/`false`, or the strings and 1/0 a small model writes instead; undefined when unreadable. */
function readBoolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === 0) return value === 1;
  if (typeof value !== 'string') return undefined;
  const word = value.trim().toLowerCase();
  return TRUE_WORDS.has(word) ? true : FALSE_WORDS.has(word) ? false : undefined;
}

/** A number, a numeric string, `85%` or `8/10`; undefined when unreadable. A fraction or percent carries its scale. */
function readNumber(value: unknown): { value: number; outOf?: number } | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? { value } : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  const fraction = /^(-?\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)$/.exec(text);
  if (fraction) return { value: Number(fraction[1]), outOf: Number(fraction[2]) };
  const percent = /^(-?\d+(?:\.\d+)?)\s*%$/.exec(text);
  if (percent) return { value: Number(percent[1]), outOf: 100 };
  if (text === '' || !Number.isFinite(Number(text))) return undefined;
  return { value: Number(text) };
}

/**
 * The score on 0..1 and the scale it was read on. A bare score is read on the prompt's 0..1 scale when it fits,
 * else on 0–10, else on 0–100; an explicit `scale`/`max_score`/`out_of` or an `8/10` / `85%` form wins.
 * Undefined when negative or above 100.
 */
function normaliseScore(raw: { value: number; outOf?: number }, declared: number | undefined): { score: number; scale: JudgeScoreScale } | undefined {
  const outOf = raw.outOf ?? declared;
  if (raw.value < 0) return undefined;
  if (outOf === 10 || (outOf === undefined && raw.value > 1 && raw.value <= 10)) {
    return raw.value <= 10 ? { score: raw.value / 10, scale: '0-10' } : undefined;
  }
  if (outOf === 100 || (outOf === undefined && raw.value > 10 && raw.value <= 100)) {
    return raw.value <= 100 ? { score: raw.value / 100, scale: '0-100' } : undefined;
  }
  if (outOf === undefined || outOf === 1) return raw.value <= 1 ? { score: raw.value, scale: '0-1' } : undefined;
  return undefined;
}

/**
 * End index (exclusive) of the JSON object starting at `start` (a `{`), found by counting braces outside strings;
 * -1 when it never closes before `end`.
 */
function balancedEnd(text: string, start: number, end: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < end; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b) depth += 1;
    else if (c === 0x7d && --depth === 0) return i + 1;
  }
  return -1;
}

/** The verdict in one parsed object, or undefined when it holds none (no readable `pass`). */
function verdictOf(object: Record<string, unknown>): JudgeVerdict | { problem: string } | undefined {
  if (!Object.hasOwn(object, 'pass')) return undefined;
  const pass = readBoolean(object.pass);
  if (pass === undefined) return { problem: `"pass" is ${JSON.stringify(object.pass)}, neither true nor false` };
  const declared = readNumber(object.scale ?? object.max_score ?? object.out_of)?.value;
  let score: { score: number; scale: JudgeScoreScale } = { score: pass ? 1 : 0, scale: '0-1' };
  if (object.score !== undefined && object.score !== null) {
    const raw = readNumber(object.score);
    const normalised = raw && normaliseScore(raw, declared);
    if (!normalised) return { problem: `"score" is ${JSON.stringify(object.score)}, on no known scale (0..1, 0–10, 0–100)` };
    score = normalised;
  }
  const reasonField = [object.reason, object.reasoning, object.explanation].find((r) => typeof r === 'string' && r.trim() !== '');
  return { pass, ...score, reason: (reasonField as string | undefined) ?? '' };
}

/**
 * Reads a judge's answer (issue 24 item 1). Scans the first {@link MAX_JUDGE_SCAN_CHARS} characters for `{`,
 * takes each balanced object (strings and escapes respected) that parses as JSON, and returns the first with a
 * readable `pass` (`true`/`false`, or `"true"`/`"yes"`/`"pass"`/`"false"`/`"no"`/`"fail"`, 1/0). Text around it —
 * a fence, reasoning with braces, a remark after — is ignored. `score`: number, numeric string, `8/10` or `85%`;
 * normalised to 0..1 (see `normaliseScore`); absent → 1 or 0 from `pass`. `reason`: `reason`, `reasoning` or
 * `explanation`.
 * @throws JudgeAnswerError naming what was missing (no JSON object, no verdict, unreadable `pass` or `score`)
 */
export function readJudgeAnswer(answer: string): JudgeVerdict {
  const end = Math.min(answer.length, MAX_JUDGE_SCAN_CHARS);
  let objects = 0;
  let starts = 0;
  let problem: string | undefined;
  for (let start = answer.indexOf('{'); start >= 0 && start < end && starts < MAX_OBJECT_STARTS; start = answer.indexOf('{', start + 1)) {
    starts += 1;
    const close = balancedEnd(answer, start, end);
    if (close < 0) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.slice(start, close));
    } catch {
      continue;
    }
    objects += 1;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
    const verdict = verdictOf(parsed as Record<string, unknown>);
    if (verdict && 'problem' in verdict) problem ??= verdict.problem;
    else if (verdict) return verdict;
  }
  if (problem) throw new JudgeAnswerError(`unreadable judge answer: ${problem}`);
  throw new JudgeAnswerError(
    objects === 0 ? 'unreadable judge answer: no JSON object in it' : 'unreadable judge answer: no JSON object with a "pass" verdict',
  );
}
