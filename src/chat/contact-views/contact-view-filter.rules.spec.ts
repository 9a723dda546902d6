import { checkContactViewFilter, checkContactViewSort, compileContactView, ContactViewFilter, parseViewTimestamp } from './contact-view-filter.rules';

const NOW = new Date('2026-03-10T00:00:00Z');
const filter = (conditions: ContactViewFilter['conditions'], match: ContactViewFilter['match'] = 'all'): ContactViewFilter => ({ match, conditions });

describe('checkContactViewFilter', () => {
  it('accepts a value that fits each kind of field', () => {
    const problems = checkContactViewFilter(
      filter([
        { field: 'name', operator: 'contains', value: 'ann' },
        { field: 'remark', operator: 'in', value: ['a', 'b'] },
        { field: 'mobile', operator: 'isEmpty' },
        { field: 'corpId', operator: 'eq', value: '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42' },
        { field: 'aiEnabled', operator: 'eq', value: false },
        { field: 'gender', operator: 'in', value: [1, 2] },
        { field: 'tags', operator: 'hasAll', value: ['VIP'] },
        { field: 'createdAt', operator: 'between', value: ['2026-01-01 00:00:00', '2026-01-31 23:59:59'] },
        { field: 'lastMessageAt', operator: 'withinLastDays', value: 7 },
        { field: 'addedAt', operator: 'isNotEmpty', value: null },
      ]),
      30,
    );
    expect(problems).toEqual([]);
  });

  it('names the condition, and says what is wrong, for each bad part', () => {
    const problems = checkContactViewFilter(
      filter([
        { field: 'secret', operator: 'eq', value: 'x' },
        { field: 'name', operator: 'before', value: 'x' },
        { field: 'aiEnabled', operator: 'eq', value: 'yes' },
        { field: 'gender', operator: 'eq', value: 3 },
        { field: 'createdAt', operator: 'after', value: '2026-02-30 00:00:00' },
        { field: 'createdAt', operator: 'between', value: ['2026-02-01 00:00:00', '2026-01-01 00:00:00'] },
        { field: 'mobile', operator: 'isEmpty', value: 'x' },
        { field: 'tags', operator: 'hasAny', value: [] },
        { field: 'corpId', operator: 'eq', value: 'not-a-uuid' },
        { field: 'lastMessageAt', operator: 'withinLastDays', value: 1.5 },
      ]),
      30,
    );
    expect(problems).toEqual([
      { field: 'filter.conditions[0].field', message: expect.stringMatching(/^Unknown contact field "secret"; allowed: name, remark, /) },
      { field: 'filter.conditions[1].operator', message: 'Operator "before" does not apply to name; use one of eq, ne, contains, notContains, startsWith, in, notIn, isEmpty, isNotEmpty.' },
      { field: 'filter.conditions[2].value', message: 'aiEnabled eq takes true or false.' },
      { field: 'filter.conditions[3].value', message: 'gender eq takes one of 0, 1, 2.' },
      { field: 'filter.conditions[4].value', message: 'createdAt after takes a timestamp "yyyy-MM-dd HH:mm:ss" (UTC), for example 2026-03-01 08:30:00.' },
      { field: 'filter.conditions[5].value', message: 'createdAt between: from (2026-02-01 00:00:00) is after to (2026-01-01 00:00:00).' },
      { field: 'filter.conditions[6].value', message: 'mobile isEmpty takes no value.' },
      { field: 'filter.conditions[7].value', message: 'tags hasAny takes a list of 1..100 tag names of 1..64 characters.' },
      { field: 'filter.conditions[8].value', message: 'corpId eq takes a UUID.' },
      { field: 'filter.conditions[9].value', message: 'lastMessageAt withinLastDays takes a whole number of days, 1..3650.' },
    ]);
  });

  it('refuses a match other than all/any and more conditions than allowed', () => {
    const problems = checkContactViewFilter({ match: 'some' as never, conditions: [{ field: 'name', operator: 'isEmpty' }, { field: 'name', operator: 'isNotEmpty' }] }, 1);
    expect(problems).toEqual([
      { field: 'filter.match', message: 'match must be "all" or "any".' },
      { field: 'filter.conditions', message: 'The filter has 2 conditions; at most 1 are allowed (CHAT_CONTACT_VIEW_MAX_CONDITIONS).' },
    ]);
  });

  it('does not take prototype names for fields', () => {
    expect(checkContactViewFilter(filter([{ field: 'constructor', operator: 'eq', value: 'x' }]), 5)[0].field).toBe('filter.conditions[0].field');
  });
});

describe('checkContactViewSort', () => {
  it('allows listed fields once each, up to three keys', () => {
    expect(checkContactViewSort([{ field: 'lastMessageAt', direction: 'desc' }, { field: 'name', direction: 'asc' }])).toEqual([]);
    expect(checkContactViewSort([{ field: 'mobile', direction: 'asc' }, { field: 'name', direction: 'up' as never }, { field: 'name', direction: 'asc' }, { field: 'remark', direction: 'asc' }])).toEqual([
      { field: 'sort', message: 'At most 3 sort keys.' },
      { field: 'sort[0].field', message: 'Cannot sort by "mobile"; allowed: name, remark, createdAt, updatedAt, addedAt, lastMessageAt, stateAt.' },
      { field: 'sort[1].direction', message: 'direction must be "asc" or "desc".' },
      { field: 'sort[2].field', message: '"name" is sorted by twice.' },
    ]);
  });
});

describe('compileContactView', () => {
  it('joins conditions with AND or OR, binding every value as a parameter', () => {
    const compiled = compileContactView(
      filter([
        { field: 'name', operator: 'contains', value: '50%_off' },
        { field: 'aiEnabled', operator: 'eq', value: true },
      ]),
      [{ field: 'lastMessageAt', direction: 'desc' }],
      'contact',
      NOW,
    );
    expect(compiled).toEqual({
      where: "(contact.name ILIKE :cv0 ESCAPE '\\' AND contact.ai_enabled = :cv1)",
      parameters: { cv0: '%50\\%\\_off%', cv1: true },
      orderBy: [['contact.last_message_at', 'DESC']],
    });
    expect(compileContactView(filter([{ field: 'state', operator: 'isEmpty' }, { field: 'mobile', operator: 'ne', value: '1' }], 'any'), [], 'c', NOW).where).toBe(
      "((c.state IS NULL OR c.state = '') OR c.mobile IS DISTINCT FROM :cv1)",
    );
  });

  it('matches everything without conditions', () => {
    expect(compileContactView(filter([]), [], 'c', NOW)).toEqual({ where: 'TRUE', parameters: {}, orderBy: [] });
  });

  it('compiles tag, list and time operators', () => {
    const compiled = compileContactView(
      filter([
        { field: 'tags', operator: 'hasAll', value: ['a', 'b', 'a'] },
        { field: 'gender', operator: 'notIn', value: [0] },
        { field: 'createdAt', operator: 'between', value: ['2026-01-01 00:00:00', '2026-01-02 00:00:00'] },
        { field: 'lastMessageAt', operator: 'withinLastDays', value: 2 },
        { field: 'tags', operator: 'hasNone', value: ['x'] },
      ]),
      [],
      'c',
      NOW,
    );
    expect(compiled.where).toBe(
      "((SELECT count(DISTINCT cv0_tag->>'tagName') FROM jsonb_array_elements(c.tags) cv0_tag WHERE cv0_tag->>'tagName' IN (:...cv0)) = :cv0n AND " +
        '(c.gender IS NULL OR c.gender NOT IN (:...cv1)) AND c.created_at BETWEEN :cv2from AND :cv2to AND c.last_message_at >= :cv3 AND ' +
        "NOT EXISTS (SELECT 1 FROM jsonb_array_elements(c.tags) cv4_tag WHERE cv4_tag->>'tagName' IN (:...cv4)))",
    );
    expect(compiled.parameters).toEqual({
      cv0: ['a', 'b', 'a'],
      cv0n: 2,
      cv1: [0],
      cv2from: new Date('2026-01-01T00:00:00Z'),
      cv2to: new Date('2026-01-02T00:00:00Z'),
      cv3: new Date('2026-03-08T00:00:00Z'),
      cv4: ['x'],
    });
  });

  it('refuses to compile an unchecked condition', () => {
    expect(() => compileContactView(filter([{ field: 'secret', operator: 'eq', value: 1 }]), [], 'c', NOW)).toThrow('Unchecked contact view condition secret eq.');
  });
});

describe('parseViewTimestamp', () => {
  it('reads yyyy-MM-dd HH:mm:ss as UTC and refuses impossible ones', () => {
    expect(parseViewTimestamp('2026-03-01 08:30:00')).toEqual(new Date('2026-03-01T08:30:00Z'));
    expect(parseViewTimestamp('2026-03-01T08:30:00')).toBeNull();
    expect(parseViewTimestamp('2026-03-01 24:00:00')).toBeNull();
    expect(parseViewTimestamp('2026-03-01 23:59:60')).toBeNull();
    expect(parseViewTimestamp(5)).toBeNull();
  });
});
