import { buildVirtualUserPrompt } from './virtual-user';

describe('buildVirtualUserPrompt', () => {
  it('opens with persona, goal, turns left and the stop markers, then asks for the first message', () => {
    const messages = buildVirtualUserPrompt('a retired teacher', 'find the opening hours', [], 1);
    expect(messages).toHaveLength(2);
    expect(messages[0].role).toBe('system');
    expect(messages[0].content).toContain('Persona: a retired teacher');
    expect(messages[0].content).toContain('Goal: find the opening hours');
    expect(messages[0].content).toContain('at most 1 more message.');
    expect(messages[0].content).toContain('[[DONE]]');
    expect(messages[0].content).toContain('[[GIVE_UP]]');
    expect(messages[1]).toEqual({ role: 'user', content: expect.stringContaining("first message") });
  });

  it('mirrors roles: own messages as assistant, target replies as user, failures in brackets', () => {
    const messages = buildVirtualUserPrompt('p', 'g', [
      { message: 'hi', reply: 'hello, how can I help?', error: null },
      { message: 'when are you open?', reply: null, error: 'no reply within 50 ms' },
      { message: 'hello?', reply: null, error: null },
    ], 3);
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: 'hello, how can I help?' },
      { role: 'assistant', content: 'when are you open?' },
      { role: 'user', content: '[The agent did not reply: no reply within 50 ms]' },
      { role: 'assistant', content: 'hello?' },
      { role: 'user', content: '[The agent has not replied yet]' },
    ]);
    expect(messages[0].content).toContain('at most 3 more messages.');
  });
});
