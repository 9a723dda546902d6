import { formatVariableValue, missingTemplateNames, renderTemplate, templateNames } from './template.rules';

describe('renderTemplate', () => {
  it('fills placeholders, with spaces inside the braces and names in any script', () => {
    expect(renderTemplate('Hi {{name}}, your level is {{ level }}. {{客户}}', { name: 'Ann', level: 3, 客户: 'VIP' })).toBe('Hi Ann, your level is 3. VIP');
  });

  it('keeps unknown names by default and drops them with unknown: empty', () => {
    expect(renderTemplate('Hi {{name}} {{missing}}', { name: 'Ann' })).toBe('Hi Ann {{missing}}');
    expect(renderTemplate('Hi {{name}} {{missing}}!', { name: 'Ann' }, { unknown: 'empty' })).toBe('Hi Ann !');
  });

  it('expands only one pass: a value containing a placeholder stays literal', () => {
    expect(renderTemplate('{{a}}', { a: '{{b}}', b: 'secret' })).toBe('{{b}}');
  });

  it('runs no code and ignores anything that is not a plain name', () => {
    const text = '{{ 1 + 1 }} {{name.toUpperCase()}} {{#if x}} {{constructor}} {{__proto__}} {{ }}';
    expect(renderTemplate(text, { x: true })).toBe(text);
    expect(renderTemplate('{{toString}}', {}, { unknown: 'empty' })).toBe('');
  });

  it('formats numbers, booleans, JSON, dates and empty values', () => {
    const rendered = renderTemplate('{{n}}|{{b}}|{{j}}|{{d}}|{{z}}', new Map<string, unknown>([['n', 12.5], ['b', false], ['j', { a: [1] }], ['d', '2026-03-01'], ['z', null]]));
    expect(rendered).toBe('12.5|false|{"a":[1]}|2026-03-01|');
  });

  it('replaces every occurrence and leaves text without placeholders alone', () => {
    expect(renderTemplate('{{a}}{{a}}-{{a}}', { a: 'x' })).toBe('xx-x');
    expect(renderTemplate('no braces here {single}', { a: 'x' })).toBe('no braces here {single}');
  });
});

describe('templateNames / missingTemplateNames', () => {
  it('lists distinct names in order of first use', () => {
    expect(templateNames('{{b}} {{a}} {{ b }} {{not valid}}')).toEqual(['b', 'a']);
  });

  it('lists names without a variable', () => {
    expect(missingTemplateNames('{{a}} {{b}} {{c}}', { b: 1 })).toEqual(['a', 'c']);
    expect(missingTemplateNames('{{constructor}}', {})).toEqual(['constructor']);
  });
});

describe('formatVariableValue', () => {
  it('renders each JSON kind', () => {
    expect(formatVariableValue('s')).toBe('s');
    expect(formatVariableValue(0)).toBe('0');
    expect(formatVariableValue(true)).toBe('true');
    expect(formatVariableValue([1, 'a'])).toBe('[1,"a"]');
    expect(formatVariableValue(undefined)).toBe('');
  });
});
