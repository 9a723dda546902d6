import type { ChatModel } from '../../llm/chat-model';
import { readJudgeAnswer, type JudgeVerdict } from '../rules/judge-answer';
import type { RubricJudge } from '../rules/rule.types';
import { judgeAnswerProblem } from './run-caps';

/** The judge's instructions; it must answer with one JSON object, and the score's scale is stated (issue 24 item 1). */
export const JUDGE_SYSTEM_PROMPT =
  'You grade an AI agent\'s reply against a rubric. Answer with one JSON object only: ' +
  '{"pass": true or false, "score": a number from 0.0 (fails the rubric entirely) to 1.0 (meets it fully), "reason": "one or two sentences"}. ' +
  'The score is on the 0 to 1 scale, not 0 to 10 or 0 to 100. Write nothing outside the JSON object.';

/** HTTP statuses with which a model refuses a request it can't take (here: `response_format`). */
const REFUSED_REQUEST = new Set([400, 415, 422]);

/**
 * Reads the judge's answer (issue 24 item 1): see `readJudgeAnswer` — the first balanced JSON object with a
 * readable `pass`, strings coerced, 0–10/0–100 scores normalised with the scale recorded.
 * @throws JudgeAnswerError when the answer holds no readable verdict (the case is then `errored`)
 */
export function parseJudgeAnswer(answer: string): JudgeVerdict {
  return readJudgeAnswer(answer);
}

/**
 * The llm-rubric judge over a chat model (issue 3: llm-rubric): asks the model to grade the reply against the
 * rubric, at temperature `temperature` (default 0), and returns its verdict, reason and score scale. An answer
 * longer than `maxAnswerChars` (EVAL_JUDGE_ANSWER_MAX_CHARS) is refused unparsed (issue 19 item 2).
 * `responseFormat` (the model configuration's `supports_response_format`, issue 24 item 1): only then is
 * `response_format: json_object` sent; when the model refuses that request (HTTP 400/415/422) the call is made
 * once more without it, and the prompt alone asks for JSON.
 * @throws Error (the rule then fails with "judge failed: …") on a model failure or an over-long answer;
 *   JudgeAnswerError on an unreadable answer (the case is then errored)
 */
export function createRubricJudge(
  model: ChatModel,
  options: { temperature?: number; timeoutMs?: number; maxAnswerChars?: number; responseFormat?: boolean } = {},
): RubricJudge {
  return async ({ rubric, output }) => {
    const messages = [
      { role: 'system' as const, content: JUDGE_SYSTEM_PROMPT },
      { role: 'user' as const, content: `Rubric:\n${rubric}\n\nReply to grade:\n${output}` },
    ];
    const ask = (json: boolean) => model.complete(messages, { temperature: options.temperature ?? 0, timeoutMs: options.timeoutMs, json });
    let answer: string;
    try {
      answer = await ask(options.responseFormat === true);
    } catch (err) {
      const status = (err as { status?: unknown }).status;
      if (options.responseFormat !== true || typeof status !== 'number' || !REFUSED_REQUEST.has(status)) throw err;
      answer = await ask(false); // the model refused response_format: the prompt alone asks for JSON
    }
    const problem = options.maxAnswerChars === undefined ? null : judgeAnswerProblem(answer, options.maxAnswerChars);
    if (problem) throw new Error(problem);
    return readJudgeAnswer(answer);
  };
}
