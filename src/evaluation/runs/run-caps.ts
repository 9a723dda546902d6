/**
 * Caps on the text a run stores (issue 19 item 2: every stored model answer is capped when stored). Pure rules.
 */

/** Longest stored reason of one rule result (a judge's explanation), characters. */
export const RULE_REASON_MAX_CHARS = 2000;
/** Longest stored error of one case, characters (channel errors may quote the target). */
export const CASE_ERROR_MAX_CHARS = 2000;

/** `text` cut to at most `max` characters, the cut marked with how long it was. */
export function cutStored(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = `… [cut: ${text.length} characters in all]`;
  return max > note.length ? `${text.slice(0, max - note.length)}${note}` : text.slice(0, max);
}

/**
 * Why a target's reply can't be judged and stored whole: longer than `maxChars` (EVAL_TARGET_REPLY_MAX_CHARS).
 * The case is then `errored` with this reason (rules judged on a part of the reply would give a wrong verdict).
 * @returns the reason, or null when the reply fits
 */
export function targetReplyProblem(reply: string, maxChars: number): string | null {
  if (reply.length <= maxChars) return null;
  return `The target's reply is ${reply.length} characters, over EVAL_TARGET_REPLY_MAX_CHARS=${maxChars}: not judged; the transcript keeps its start.`;
}

/**
 * Why a judge's answer is not read: longer than `maxChars` (EVAL_JUDGE_ANSWER_MAX_CHARS), before any parsing.
 * @returns the reason, or null when it fits
 */
export function judgeAnswerProblem(answer: string, maxChars: number): string | null {
  if (answer.length <= maxChars) return null;
  return `the judge's answer is ${answer.length} characters, over EVAL_JUDGE_ANSWER_MAX_CHARS=${maxChars}`;
}
