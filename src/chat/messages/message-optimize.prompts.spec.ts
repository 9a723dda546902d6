import { adviceOptimizePrompt, cleanModelAnswer, commentOptimizePrompt } from './message-optimize.prompts';

describe('optimize prompts', () => {
  it('puts the message and the draft or advice into the user turn', () => {
    const comment = commentOptimizePrompt({ message: 'We open at 9.', draft: 'too short' });
    expect(comment.map((m) => m.role)).toEqual(['system', 'user']);
    expect(comment[1].content).toContain('We open at 9.');
    expect(comment[1].content).toContain('too short');
    const advice = adviceOptimizePrompt({ message: 'We open at 9.', advice: 'mention Sundays' });
    expect(advice[0].content).toContain('Follow the operator\'s advice');
    expect(advice[1].content).toContain('mention Sundays');
  });

  it('cleans quotes and fences off the model\'s answer', () => {
    expect(cleanModelAnswer('  "Hello there"  ')).toBe('Hello there');
    expect(cleanModelAnswer('```text\nHello\n```')).toBe('Hello');
    expect(cleanModelAnswer('He said "hi"')).toBe('He said "hi"');
  });
});
