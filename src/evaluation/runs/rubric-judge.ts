import type { ChatModel } from '../../llm/chat-model';
import type { RubricJudge } from '../rules/rule.types';
import { judgeAnswerProblem } from './run-caps';

/** The judge's instructions; it must answer with one JSON object. */
const JUDGE_SYSTEM_PROMPT =
  'You grade an AI agent\'s reply against a rubric. Answer with one JSON object only: ' +
  '{"pass": boolean, "score": number between 0 and 1, "reason": "one or two sentences"}.';

/**
 * Reads the judge's answer: a JSON object (possibly inside a ```json fence) with `pass`, `score`, `reason`.
 * @throws Error when the answer holds no such object
 */
export function parseJudgeAnswer(answer: string): { pass: boolean; score: number; reason: string } {
  const match = /\{[\s\S]*\}/.exec(answer);
  if (!match) throw new Error('The judge did not answer with a JSON object.');
  const parsed = JSON.parse(match[0]) as { pass?: unknown; score?: unknown; reason?: unknown };
  if (typeof parsed.pass !== 'boolean') throw new Error('The judge\'s answer has no boolean "pass".');
  const score = typeof parsed.score === 'number' && Number.isFinite(parsed.score) ? Math.min(1, Math.max(0, parsed.score)) : parsed.pass ? 1 : 0;
  return { pass: parsed.pass, score, reason: typeof parsed.reason === 'string' ? parsed.reason : '' };
}

/**
 * The llm-rubric judge over a chat model (issue 3: llm-rubric): asks the model to grade the reply against the
 * rubric, at temperature `temperature` (default 0), and returns its verdict and reason. An answer longer than
 * `maxAnswerChars` (EVAL_JUDGE_ANSWER_MAX_CHARS) is refused unparsed (issue 19 item 2).
 * @throws Error (the rule then fails with "judge failed: …") on a model failure, an over-long or unreadable answer
 */
export function createRubricJudge(model: ChatModel, options: { temperature?: number; timeoutMs?: number; maxAnswerChars?: number } = {}): RubricJudge {
  return async ({ rubric, output }) => {
    const answer = await model.complete(
      [
        { role: 'system', content: JUDGE_SYSTEM_PROMPT },
        { role: 'user', content: `Rubric:\n${rubric}\n\nReply to grade:\n${output}` },
      ],
      { temperature: options.temperature ?? 0, timeoutMs: options.timeoutMs, json: true },
    );
    const problem = options.maxAnswerChars === undefined ? null : judgeAnswerProblem(answer, options.maxAnswerChars);
    if (problem) throw new Error(problem);
    return parseJudgeAnswer(answer);
  };
}
