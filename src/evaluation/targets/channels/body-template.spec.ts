import { renderBodyTemplate, templateMentionsMessage } from './body-template';
import type { ChatTurn } from './channel';

describe('renderBodyTemplate', () => {
  const history: ChatTurn[] = [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: 'hello "there"' },
  ];
  const values = { message: 'say "hi"\n{\\}', history, sessionId: 'case-7' };

  it('substitutes placeholders inside nested values and keeps other JSON values', () => {
    const template = { input: { text: '{{message}}', sid: 'session {{ session_id }}' }, tags: ['{{session_id}}', 3, true, null], n: 1 };
    expect(renderBodyTemplate(template, values)).toEqual({
      input: { text: 'say "hi"\n{\\}', sid: 'session case-7' },
      tags: ['case-7', 3, true, null],
      n: 1,
    });
  });

  it('turns a string that is exactly {{history}} into the history array', () => {
    expect(renderBodyTemplate({ messages: '{{history}}', also: '{{ history }}' }, values)).toEqual({ messages: history, also: history });
  });

  it('JSON-stringifies history inside a longer string', () => {
    const rendered = renderBodyTemplate({ prompt: 'context: {{history}}' }, values) as { prompt: string };
    expect(rendered.prompt).toBe(`context: ${JSON.stringify(history)}`);
  });

  it('is JSON-safe for quotes, newlines and replacement patterns in the message', () => {
    const message = '"}, "admin": true, "x": "$& $1 $$';
    const rendered = renderBodyTemplate({ q: '{{message}}' }, { ...values, message });
    expect(JSON.parse(JSON.stringify(rendered))).toEqual({ q: message });
  });

  it('leaves keys and unknown placeholders alone and does not modify the template', () => {
    const template = { '{{message}}': '{{unknown}}', list: ['{{message}}'] };
    const copy = structuredClone(template);
    expect(renderBodyTemplate(template, values)).toEqual({ '{{message}}': '{{unknown}}', list: [values.message] });
    expect(template).toEqual(copy);
  });

  it('keeps a "__proto__" key as data', () => {
    const template = JSON.parse('{"__proto__": {"polluted": "{{message}}"}}');
    const rendered = renderBodyTemplate(template, values) as Record<string, unknown>;
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(Object.keys(rendered)).toEqual(['__proto__']);
  });

  it('renders a bare string template', () => {
    expect(renderBodyTemplate('{{message}}', values)).toBe(values.message);
  });

  it('tells whether a template mentions {{message}}', () => {
    expect(templateMentionsMessage({ a: [{ b: 'x {{ message }}' }] })).toBe(true);
    expect(templateMentionsMessage({ a: '{{history}}' })).toBe(false);
  });
});
