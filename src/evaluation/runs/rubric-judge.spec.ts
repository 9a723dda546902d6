import { parseJudgeAnswer } from './rubric-judge';

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
