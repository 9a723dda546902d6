import { BadRequestException } from '@nestjs/common';
import { fieldProblems, missingIds, plural, quotedList, sortedUnique } from './id-lists';

describe('id list helpers', () => {
  it('finds the requested ids that were not found, once each, in request order', () => {
    expect(missingIds(['c', 'a', 'b', 'c'], ['a'])).toEqual(['c', 'b']);
    expect(missingIds(['a'], new Set(['a']))).toEqual([]);
  });

  it('quotes at most ten items and marks the rest', () => {
    expect(quotedList(['x', 'y'])).toBe('"x", "y"');
    expect(quotedList(['x'], 3)).toBe('"x", …');
    expect(quotedList(Array.from({ length: 12 }, (_, i) => `n${i}`))).toBe(`${Array.from({ length: 10 }, (_, i) => `"n${i}"`).join(', ')}, …`);
  });

  it('sorts and de-duplicates ids, and counts nouns', () => {
    expect(sortedUnique(['b', 'a', 'b'])).toEqual(['a', 'b']);
    expect(plural(1, 'trigger')).toBe('1 trigger');
    expect(plural(0, 'trigger')).toBe('0 triggers');
  });

  it('builds a 400 with one errors[] entry per problem', () => {
    const error = fieldProblems('Invalid thing', [
      { field: 'a', message: 'a is bad.' },
      { field: 'b', message: 'b is worse.' },
    ]);
    expect(error).toBeInstanceOf(BadRequestException);
    expect(error.getResponse()).toEqual({
      message: 'Invalid thing: a is bad. b is worse.',
      errors: [
        { field: 'a', messages: ['a is bad.'] },
        { field: 'b', messages: ['b is worse.'] },
      ],
    });
  });
});
