import { checkVariableOptions, checkVariableValue, describeJson, isDateText, variableValueBytes, VariableTypeShape } from './variable-value.rules';

const def = (type: VariableTypeShape['type'], options?: string[]): VariableTypeShape => ({ name: 'v', type, options });

describe('checkVariableValue', () => {
  it.each([
    ['string', 'hello'],
    ['string', ''],
    ['number', 12.5],
    ['number', -3],
    ['boolean', false],
    ['date', '2026-02-28'],
    ['date', '2024-02-29'],
    ['date', '2026-03-01T08:30:00Z'],
    ['date', '2026-03-01T16:30+08:00'],
    ['date', '2026-03-01T08:30:00.123-05:30'],
    ['json', { a: [1, 'x', null] }],
    ['json', [1, 2]],
    ['json', 'text'],
  ] as const)('accepts a %s value %j', (type, value) => {
    expect(checkVariableValue(def(type), value)).toEqual({ ok: true });
  });

  it.each([
    ['string', 12, 'Variable "v" is of type string and expects a JSON string; got a number (12).'],
    ['number', '12', 'Variable "v" is of type number and expects a JSON number; got a string ("12").'],
    ['boolean', 'true', 'Variable "v" is of type boolean and expects true or false; got a string ("true").'],
    ['date', '2026-02-30', 'Variable "v" is of type date and expects a date "YYYY-MM-DD" or an ISO 8601 date-time with a zone ("2026-03-01T08:30:00Z"); got a string ("2026-02-30").'],
    ['json', Number.NaN, 'Variable "v" is of type json and expects a JSON value; got a number (NaN).'],
  ] as const)('refuses a %s value %j with the reason', (type, value, reason) => {
    expect(checkVariableValue(def(type), value)).toEqual({ ok: false, reason });
  });

  it.each(['2026-3-01', '2026-03-01 08:30:00', '2026-03-01T08:30:00', '2026-03-01T24:00:00Z', '2026-03-01T08:60Z', '2026-13-01', '2023-02-29'])('refuses the date text %s', (text) => {
    expect(isDateText(text)).toBe(false);
    expect(checkVariableValue(def('date'), text).ok).toBe(false);
  });

  it('checks enum values against the options', () => {
    expect(checkVariableValue(def('enum', ['gold', 'silver']), 'gold')).toEqual({ ok: true });
    expect(checkVariableValue(def('enum', ['gold', 'silver']), 'bronze')).toEqual({ ok: false, reason: 'Variable "v" is of type enum and expects one of "gold", "silver"; got a string ("bronze").' });
    expect(checkVariableValue(def('enum', ['1']), 1).ok).toBe(false);
  });

  it('never accepts null or undefined, whatever the type', () => {
    for (const type of ['string', 'number', 'boolean', 'date', 'enum', 'json'] as const) {
      expect(checkVariableValue(def(type, ['a']), null)).toEqual({ ok: false, reason: 'Variable "v" cannot be set to null; delete the value to fall back to the default.' });
      expect(checkVariableValue(def(type, ['a']), undefined).ok).toBe(false);
    }
  });

  it('refuses non-JSON values nested in json', () => {
    expect(checkVariableValue(def('json'), { f: () => 1 }).ok).toBe(false);
    expect(checkVariableValue(def('json'), [Infinity]).ok).toBe(false);
  });
});

describe('checkVariableOptions', () => {
  it('requires options for enum only', () => {
    expect(checkVariableOptions('enum', ['a', 'b'], 10)).toEqual([]);
    expect(checkVariableOptions('string', undefined, 10)).toEqual([]);
    expect(checkVariableOptions('string', ['a'], 10)).toEqual([{ field: 'options', message: 'options are only for enum variables, not string.' }]);
    expect(checkVariableOptions('enum', [], 10)).toEqual([{ field: 'options', message: 'An enum variable needs at least one option.' }]);
    expect(checkVariableOptions('enum', null, 10)).toEqual([{ field: 'options', message: 'An enum variable needs at least one option.' }]);
  });

  it('refuses duplicates, empty or long options, and more than the maximum', () => {
    expect(checkVariableOptions('enum', ['a', 'a', '', 'x'.repeat(101)], 3)).toEqual([
      { field: 'options', message: 'options has 4 entries; at most 3 are allowed (CHAT_VARIABLE_MAX_ENUM_OPTIONS).' },
      { field: 'options[1]', message: 'Option "a" is listed twice.' },
      { field: 'options[2]', message: 'Each option is a non-empty string of at most 100 characters.' },
      { field: 'options[3]', message: 'Each option is a non-empty string of at most 100 characters.' },
    ]);
  });
});

describe('helpers', () => {
  it('measures values as UTF-8 JSON bytes', () => {
    expect(variableValueBytes('é')).toBe(4);
    expect(variableValueBytes({ a: 1 })).toBe(7);
  });

  it('describes values briefly', () => {
    expect(describeJson('x'.repeat(50))).toBe(`a string ("${'x'.repeat(40)}…")`);
    expect(describeJson([])).toBe('an array');
    expect(describeJson({})).toBe('an object');
    expect(describeJson(null)).toBe('null');
  });
});
