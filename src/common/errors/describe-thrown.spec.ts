import { describeThrown } from './describe-thrown';

describe('describeThrown (issue 19, item 5: the real error, whatever was thrown)', () => {
  it('gives an Error its stack, or one line without it, with causes and inner errors', () => {
    const error = new Error('outer', { cause: new TypeError('inner') });
    expect(describeThrown(error)).toMatch(/^Error: outer\n\s+at /);
    expect(describeThrown(error, { stack: false })).toBe('outer\nCaused by: inner');
    expect(describeThrown(new Error(''), { stack: false })).toBe('Error (no message)');
    const aggregate = new AggregateError([new Error('a'), 'b'], 'several');
    expect(describeThrown(aggregate, { stack: false })).toBe('several\n  - a\n  - b');
  });

  it('describes undefined, null, strings and objects instead of failing on them', () => {
    expect(describeThrown(undefined)).toMatch(/^undefined was thrown/);
    expect(describeThrown(null)).toMatch(/^null was thrown/);
    expect(describeThrown('port taken')).toBe('port taken');
    expect(describeThrown({ code: 'EADDRINUSE', port: 5432 })).toBe("a non-error value was thrown: { code: 'EADDRINUSE', port: 5432 }");
    expect(describeThrown(42)).toBe('a non-error value was thrown: 42');
  });

  it('survives a cause cycle', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    (a as { cause?: unknown }).cause = b;
    expect(describeThrown(a, { stack: false })).toBe('a\nCaused by: b\nCaused by: a');
  });
});
