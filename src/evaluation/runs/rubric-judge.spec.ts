import { createRubricJudge, parseJudgeAnswer } from './rubric-judge';

describe('parseJudgeAnswer', () => {
  it('reads a plain or fenced JSON verdict and clamps the score', () => {
    expect(parseJudgeAnswer('{"pass": true, "score": 0.9, "reason": "Polite and correct."}')).toEqual({ pass: true, score: 0.9, reason: 'Polite and correct.' });
    expect(parseJudgeAnswer('```json\n{"pass": false, "score": 7, "reason": "x"}\n```')).toEqual({ pass: false, score: 1, reason: 'x' });
    expect(parseJudgeAnswer('{"pass": false}')).toEqual({ pass: false, score: 0, reason: '' });
  });
  it('refuses answers without a verdict', () => {
    expect(() => parseJudgeAnswer('I think it is fine')).toThrow(/JSON/);
    expect(() => parseJudgeAnswer('{"score": 1}')).toThrow(/pass/);
  });
});

describe('createRubricJudge', () => {
  const modelAnswering = (answer: string) => ({ complete: async () => answer });
  it('refuses an answer over maxAnswerChars before parsing it, and reads one within it', async () => {
    const long = `{"pass": true, "score": 1, "reason": "${'x'.repeat(500)}"}`;
    await expect(createRubricJudge(modelAnswering(long), { maxAnswerChars: 100 })({ rubric: 'r', output: 'o' })).rejects.toThrow(/EVAL_JUDGE_ANSWER_MAX_CHARS=100/);
    await expect(createRubricJudge(modelAnswering(long), { maxAnswerChars: 1000 })({ rubric: 'r', output: 'o' })).resolves.toMatchObject({ pass: true, score: 1 });
  });
});
