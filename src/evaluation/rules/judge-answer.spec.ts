import { JudgeAnswerError, MAX_JUDGE_SCAN_CHARS, readJudgeAnswer } from './judge-answer';

describe('readJudgeAnswer (issue 24 item 1)', () => {
  it.each<[string, string, { pass: boolean; score: number; scale: string }]>([
    ['plain', '{"pass": true, "score": 0.9, "reason": "ok"}', { pass: true, score: 0.9, scale: '0-1' }],
    ['a brace in the reasoning before the verdict', 'The user typed {name}; a set {a, b}. {"pass": false, "score": 0.2, "reason": "no"}', { pass: false, score: 0.2, scale: '0-1' }],
    ['a remark after the verdict', '{"pass": true, "score": 1, "reason": "ok"}\nNote: I also weighed {tone}.', { pass: true, score: 1, scale: '0-1' }],
    ['a brace inside the reason string', '{"pass": true, "score": 0.8, "reason": "uses } and { freely"}', { pass: true, score: 0.8, scale: '0-1' }],
    ['string booleans and numbers', '{"pass": "true", "score": "0.9", "reason": "s"}', { pass: true, score: 0.9, scale: '0-1' }],
    ['"false" as a string is false', '{"pass": "False", "score": "0.1"}', { pass: false, score: 0.1, scale: '0-1' }],
    ['a json fence', 'Here:\n```json\n{"pass": true, "score": 0.7, "reason": "f"}\n```', { pass: true, score: 0.7, scale: '0-1' }],
    ['a 0–10 score', '{"pass": true, "score": 8, "reason": "t"}', { pass: true, score: 0.8, scale: '0-10' }],
    ['a 0–100 score', '{"pass": true, "score": 85}', { pass: true, score: 0.85, scale: '0-100' }],
    ['an 8/10 string', '{"pass": true, "score": "8/10"}', { pass: true, score: 0.8, scale: '0-10' }],
    ['a percent string', '{"pass": true, "score": "90%"}', { pass: true, score: 0.9, scale: '0-100' }],
    ['a declared scale', '{"pass": true, "score": 1, "scale": 10}', { pass: true, score: 0.1, scale: '0-10' }],
    ['no score: from pass', '{"pass": false, "reason": "x"}', { pass: false, score: 0, scale: '0-1' }],
    ['the first object with a verdict, skipping one without', '{"step": 1} then {"pass": true, "score": 0.6}', { pass: true, score: 0.6, scale: '0-1' }],
    ['yes as a verdict', '{"pass": "yes"}', { pass: true, score: 1, scale: '0-1' }],
  ])('%s', (_what, answer, expected) => {
    expect(readJudgeAnswer(answer)).toMatchObject(expected);
  });

  it('keeps the reason, from reason, reasoning or explanation', () => {
    expect(readJudgeAnswer('{"pass": true, "reasoning": "because"}').reason).toBe('because');
    expect(readJudgeAnswer('{"pass": true, "explanation": "so"}').reason).toBe('so');
  });

  it.each<[string, string, RegExp]>([
    ['prose only', 'It looks fine to me.', /no JSON object in it/],
    ['no verdict', '{"score": 0.9, "reason": "no pass field"}', /no JSON object with a "pass" verdict/],
    ['an unreadable pass', '{"pass": "maybe"}', /"pass" is "maybe"/],
    ['a score on no scale', '{"pass": true, "score": 250}', /on no known scale/],
    ['a negative score', '{"pass": true, "score": -1}', /on no known scale/],
    ['an unclosed object', '{"pass": true, "score": 0.9', /no JSON object in it/],
  ])('refuses %s with a JudgeAnswerError', (_what, answer, message) => {
    expect(() => readJudgeAnswer(answer)).toThrow(JudgeAnswerError);
    expect(() => readJudgeAnswer(answer)).toThrow(message);
  });

  it('ATTACK: thousands of unclosed braces and a verdict past the scan bound stay bounded and unread', () => {
    const hostile = `${'{'.repeat(200_000)}{"pass": true}`;
    const started = process.hrtime.bigint();
    expect(() => readJudgeAnswer(hostile)).toThrow(JudgeAnswerError);
    // Wide margin: the scan is bounded to 64 starts over MAX_JUDGE_SCAN_CHARS characters.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(5_000);
    expect(() => readJudgeAnswer(`${' '.repeat(MAX_JUDGE_SCAN_CHARS)}{"pass": true}`)).toThrow(/no JSON object/);
  });
});
