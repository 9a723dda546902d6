import { JSONPath } from 'jsonpath-plus';
import { ChannelError } from './channel';
import { extractReply, plainReplyPath, replyPathProblem } from './reply-path';

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

describe('plain reply paths (read by walking the body)', () => {
  it('recognises paths of .name and [index] segments only', () => {
    expect(plainReplyPath('$.choices[0].message.content')).toEqual(['choices', 0, 'message', 'content']);
    expect(plainReplyPath('$.données')).toEqual(['données']);
    expect(plainReplyPath('$')).toEqual([]);
    for (const path of ['$..content', '$.items[*].text', '$.m[-1:].c', "$['a b']", '$["x"]', '$.a-b', '$.length', '$.__proto__', '$.constructor']) expect(plainReplyPath(path)).toBeUndefined();
  });

  // The walk must answer what JSONPath answers: every path on every body, compared with JSONPath's first match.
  const bodies: unknown[] = [
    { reply: 'hi', n: 3, ok: false, z: 0, e: '', nil: null, obj: { a: 1, '0': 'zero' }, list: [{ t: 'first' }, { t: 'second' }, 'x'], choices: [{ message: { content: 'c' } }] },
    [{ reply: 'in array' }, 'second'],
    { list: { 0: 'object with key 0' } },
    'just text',
    42,
    null,
    JSON.parse('{"__proto__": {"reply": "polluted?"}, "reply": "own"}'),
  ];
  const paths = ['$', '$.reply', '$.n', '$.ok', '$.z', '$.e', '$.nil', '$.obj', '$.obj.a', '$.obj[0]', '$.list[0].t', '$.list[1].t', '$.list[2]', '$.list[3]', '$.list[0]', '$[0].reply', '$[1]', '$[5]', '$.missing.deeper', '$.reply.deeper', '$.choices[0].message.content', '$.list.t'];
  const outcome = (read: () => string) => {
    try {
      return { text: read() };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  it.each(paths)('%s reads what JSONPath reads', (path) => {
    expect(plainReplyPath(path)).toBeDefined();
    for (const body of bodies) {
      const viaJsonPath = outcome(() => extractReply(body, path, undefined));
      expect({ body, path, ...outcome(() => extractReply(body, path)) }).toEqual({ body, path, ...viaJsonPath });
    }
  });

  it('really walks (the comparison above is not JSONPath against itself)', () => {
    // Keys that disagree with the path text show which one was read: the walk's keys.
    expect(extractReply({ other: 'x' }, '$.reply', ['other'])).toBe('x');
    expect(JSONPath({ path: '$.reply', json: { other: 'x' }, wrap: true, eval: false })).toEqual([]);
  });
});
