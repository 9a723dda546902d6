import { fromWireMessage, parseToolArguments, toWireMessages, toWireTools } from './tool-calling';

describe('tool calling wire translation', () => {
  it('maps system/user/assistant, assistant tool-call turns and tool results', () => {
    expect(
      toWireMessages([
        { role: 'system', content: 'persona' },
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'get_order', arguments: '{"id":"7"}' }] },
        { role: 'tool', toolCallId: 'c1', content: '{"ok":true}' },
        { role: 'assistant', content: 'done' },
      ]),
    ).toEqual([
      { role: 'system', content: 'persona' },
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_order', arguments: '{"id":"7"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'assistant', content: 'done' },
    ]);
  });

  it('refuses an assistant tool-call turn without calls', () => {
    expect(() => toWireMessages([{ role: 'assistant', content: 'x', toolCalls: [] }])).toThrow(/at least one call/);
  });

  it('maps tool definitions, leaving out an empty description', () => {
    expect(toWireTools([{ name: 'a-b_1', description: null, parameters: { type: 'object' } }, { name: 'c', description: 'Does c', parameters: {} }])).toEqual([
      { type: 'function', function: { name: 'a-b_1', parameters: { type: 'object' } } },
      { type: 'function', function: { name: 'c', description: 'Does c', parameters: {} } },
    ]);
  });

  it('refuses names the API does not accept, and duplicates', () => {
    expect(() => toWireTools([{ name: 'has space', parameters: {} }])).toThrow(/not accepted/);
    expect(() => toWireTools([{ name: 'x'.repeat(65), parameters: {} }])).toThrow(/not accepted/);
    expect(() => toWireTools([{ name: 'a.b', parameters: {} }])).toThrow(/not accepted/);
    expect(() => toWireTools([{ name: 'a', parameters: {} }, { name: 'a', parameters: {} }])).toThrow(/twice/);
  });

  it('reads function calls first, keeping any text beside them', () => {
    expect(
      fromWireMessage(
        {
          content: 'let me check',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } },
            { id: 'c2', type: 'custom', custom: { name: 'g', input: 'x' } },
          ],
        },
        'm',
      ),
    ).toEqual({ kind: 'tool_calls', toolCalls: [{ id: 'c1', name: 'f', arguments: '{}' }], text: 'let me check' });
    expect(fromWireMessage({ content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '' } }] }, 'm')).toEqual({
      kind: 'tool_calls',
      toolCalls: [{ id: 'c1', name: 'f', arguments: '' }],
      text: null,
    });
  });

  it('reads the final text, and refuses an answer with neither', () => {
    expect(fromWireMessage({ content: 'Hello', tool_calls: [] }, 'm')).toEqual({ kind: 'text', text: 'Hello' });
    expect(fromWireMessage({ content: '' }, 'm')).toEqual({ kind: 'text', text: '' });
    expect(() => fromWireMessage({ content: null }, 'm')).toThrow(/neither text nor tool calls/);
    expect(() => fromWireMessage(undefined, 'm')).toThrow(/neither/);
  });
});

describe('parseToolArguments', () => {
  it('reads JSON arguments, takes blank ones as none, refuses what is not JSON', () => {
    expect(parseToolArguments('{"q":"price","n":2}')).toEqual({ value: { q: 'price', n: 2 } });
    expect(parseToolArguments('  ')).toEqual({ value: {} });
    expect(parseToolArguments('[1]')).toEqual({ value: [1] });
    expect(parseToolArguments('{"q":')).toBeUndefined();
  });
});
