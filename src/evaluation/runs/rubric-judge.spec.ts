import { JudgeAnswerError } from '../rules/judge-answer';
import { createRubricJudge, JUDGE_SYSTEM_PROMPT, parseJudgeAnswer } from './rubric-judge';

describe('parseJudgeAnswer', () => {
  it('reads a JSON verdict, fenced or not, and a 0–10 score on its scale', () => {
    expect(parseJudgeAnswer('{"pass": true, "score": 0.9, "reason": "Polite and correct."}')).toEqual({ pass: true, score: 0.9, reason: 'Polite and correct.', scale: '0-1' });
    expect(parseJudgeAnswer('```json\n{"pass": false, "score": 7, "reason": "x"}\n```')).toEqual({ pass: false, score: 0.7, reason: 'x', scale: '0-10' });
    expect(parseJudgeAnswer('{"pass": false}')).toEqual({ pass: false, score: 0, reason: '', scale: '0-1' });
  });

  it('refuses an answer without a verdict with a JudgeAnswerError', () => {
    expect(() => parseJudgeAnswer('I think it is fine')).toThrow(JudgeAnswerError);
    expect(() => parseJudgeAnswer('I think it is fine')).toThrow(/no JSON object/);
    expect(() => parseJudgeAnswer('{"score": 1}')).toThrow(/"pass" verdict/);
  });
});

describe('createRubricJudge', () => {
  const modelAnswering = (answer: string) => ({ complete: async () => answer });
  it('refuses an answer over maxAnswerChars before parsing it, and reads one within it', async () => {
    const long = `{"pass": true, "score": 1, "reason": "${'x'.repeat(500)}"}`;
    await expect(createRubricJudge(modelAnswering(long), { maxAnswerChars: 100 })({ rubric: 'r', output: 'o' })).rejects.toThrow(/EVAL_JUDGE_ANSWER_MAX_CHARS=100/);
    await expect(createRubricJudge(modelAnswering(long), { maxAnswerChars: 1000 })({ rubric: 'r', output: 'o' })).resolves.toMatchObject({ pass: true, score: 1 });
  });

  it('states the score scale in its prompt', () => expect(JUDGE_SYSTEM_PROMPT).toMatch(/0 to 1 scale/));

  it('sends response_format only when the model config says it is supported, and retries without it when refused', async () => {
    const calls: boolean[] = [];
    const refusing = {
      complete: async (_m: unknown, options?: { json?: boolean }) => {
        calls.push(options?.json === true);
        if (options?.json) throw Object.assign(new Error('response_format is not supported'), { status: 400 });
        return '{"pass": true, "score": 1, "reason": "ok"}';
      },
    };
    await expect(createRubricJudge(refusing)({ rubric: 'r', output: 'o' })).resolves.toMatchObject({ pass: true });
    expect(calls).toEqual([false]);
    calls.length = 0;
    await expect(createRubricJudge(refusing, { responseFormat: true })({ rubric: 'r', output: 'o' })).resolves.toMatchObject({ pass: true });
    expect(calls).toEqual([true, false]);
  });

  it('does not retry a failure that is not a refusal of the request', async () => {
    let calls = 0;
    const down = { complete: async () => { calls += 1; throw Object.assign(new Error('upstream down'), { status: 503 }); } };
    await expect(createRubricJudge(down, { responseFormat: true })({ rubric: 'r', output: 'o' })).rejects.toThrow('upstream down');
    expect(calls).toBe(1);
  });
});
