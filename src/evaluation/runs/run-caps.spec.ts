import { CASE_ERROR_MAX_CHARS, cutStored, judgeAnswerProblem, targetReplyProblem } from './run-caps';

describe('run caps (issue 19 item 2)', () => {
  it('cuts stored text to the cap and says how long it was', () => {
    expect(cutStored('short', 100)).toBe('short');
    const cut = cutStored('x'.repeat(5000), 100);
    expect(cut).toHaveLength(100);
    expect(cut.endsWith('… [cut: 5000 characters in all]')).toBe(true);
    expect(cutStored('y'.repeat(50), 10)).toBe('y'.repeat(10));
    expect(cutStored('z'.repeat(CASE_ERROR_MAX_CHARS + 1), CASE_ERROR_MAX_CHARS)).toHaveLength(CASE_ERROR_MAX_CHARS);
  });

  it('names the variable when a target reply or a judge answer is over its cap, and passes one at the cap', () => {
    expect(targetReplyProblem('a'.repeat(200), 200)).toBeNull();
    expect(targetReplyProblem('a'.repeat(201), 200)).toBe("The target's reply is 201 characters, over EVAL_TARGET_REPLY_MAX_CHARS=200: not judged; the transcript keeps its start.");
    expect(judgeAnswerProblem('{}', 100)).toBeNull();
    expect(judgeAnswerProblem('b'.repeat(101), 100)).toBe("the judge's answer is 101 characters, over EVAL_JUDGE_ANSWER_MAX_CHARS=100");
  });
});
