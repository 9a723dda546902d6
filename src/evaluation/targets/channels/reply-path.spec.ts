import { ChannelError } from './channel';
import { extractReply, replyPathProblem } from './reply-path';

describe('replyPathProblem', () => {
  it.each(['$', '$.reply', '$.choices[0].message.content', "$['a b'].c", '$["x"]', '$..content', '$.items[*].text', '$.messages[-1:].content', '$.données'])(
    'accepts %s',
    (path) => expect(replyPathProblem(path)).toBeUndefined(),
  );

  it.each(['', 'reply', '$[', '$.a[?(@.x)]', '$.a.', '$.a~', '$..', '$.a[0', 42])('refuses %p', (path) => {
    expect(replyPathProblem(path)).toMatch(/^replyPath must be a JSONPath/);
  });
});

describe('extractReply', () => {
  const body = { reply: 'hi', n: 3, ok: false, obj: { a: 1 }, nil: null, list: [{ t: 'first' }, { t: 'second' }] };

  it('returns the first matching text, turning numbers and booleans into text', () => {
    expect(extractReply(body, '$.reply')).toBe('hi');
    expect(extractReply(body, '$.list[*].t')).toBe('first');
    expect(extractReply(body, '$.list[-1:].t')).toBe('second');
    expect(extractReply(body, '$.n')).toBe('3');
    expect(extractReply(body, '$.ok')).toBe('false');
  });

  it.each([
    ['$.missing', /matched nothing/],
    ['$.obj', /matched an object/],
    ['$.nil', /matched null/],
  ])('throws a non-retryable ChannelError for %s', (path, message) => {
    let caught: unknown;
    try {
      extractReply(body, path);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChannelError);
    expect(caught).toMatchObject({ retryable: false, message: expect.stringMatching(message) });
  });
});
