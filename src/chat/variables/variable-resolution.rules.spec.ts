import { mergeVariableLayers, VariableCandidate, variablesByName } from './variable-resolution.rules';

const candidate = (overrides: Partial<VariableCandidate> & Pick<VariableCandidate, 'name' | 'source'>): VariableCandidate => ({
  type: 'string',
  value: `${overrides.source}-${overrides.name}`,
  scopeId: `scope-${overrides.source}`,
  scopeCreatedAt: 1000,
  definitionId: `def-${overrides.source}-${overrides.name}`,
  fromDefault: false,
  ...overrides,
});

describe('mergeVariableLayers', () => {
  it('lets the most specific source win: contact over digital staff over tenant', () => {
    const resolved = mergeVariableLayers([
      candidate({ name: 'greeting', source: 'contact' }),
      candidate({ name: 'greeting', source: 'tenant' }),
      candidate({ name: 'greeting', source: 'digital_staff' }),
      candidate({ name: 'company', source: 'tenant' }),
      candidate({ name: 'signature', source: 'digital_staff' }),
      candidate({ name: 'signature', source: 'tenant' }),
    ]);
    expect(resolved.map((v) => [v.name, v.value])).toEqual([
      ['company', 'tenant-company'],
      ['greeting', 'contact-greeting'],
      ['signature', 'digital_staff-signature'],
    ]);
    expect(resolved[0]).toEqual({ name: 'company', type: 'string', value: 'tenant-company', source: 'tenant', scopeId: 'scope-tenant', definitionId: 'def-tenant-company', fromDefault: false });
  });

  it('a more specific default still beats a less specific value', () => {
    const [winner] = mergeVariableLayers([candidate({ name: 'x', source: 'tenant', value: 'set' }), candidate({ name: 'x', source: 'contact', value: 'default', fromDefault: true })]);
    expect(winner).toMatchObject({ value: 'default', source: 'contact', fromDefault: true });
  });

  it('within a source a set value beats a default, then the older scope, then the smaller scope id', () => {
    const value = mergeVariableLayers([
      candidate({ name: 'x', source: 'contact', scopeId: 'a', value: 'default-old', fromDefault: true, scopeCreatedAt: 1 }),
      candidate({ name: 'x', source: 'contact', scopeId: 'b', value: 'set-new', scopeCreatedAt: 9 }),
    ]);
    expect(value[0].value).toBe('set-new');
    const older = [candidate({ name: 'y', source: 'tenant', scopeId: 'z', value: 'old', scopeCreatedAt: 1 }), candidate({ name: 'y', source: 'tenant', scopeId: 'a', value: 'new', scopeCreatedAt: 2 })];
    expect(mergeVariableLayers(older)[0].value).toBe('old');
    expect(mergeVariableLayers([...older].reverse())[0].value).toBe('old');
    const tie = [candidate({ name: 'z', source: 'tenant', scopeId: 'b', value: 'b' }), candidate({ name: 'z', source: 'tenant', scopeId: 'a', value: 'a' })];
    expect(mergeVariableLayers(tie)[0].value).toBe('a');
    expect(mergeVariableLayers([...tie].reverse())[0].value).toBe('a');
  });

  it('returns nothing for no candidates, and maps names to values', () => {
    expect(mergeVariableLayers([])).toEqual([]);
    const map = variablesByName(mergeVariableLayers([candidate({ name: 'n', source: 'tenant', type: 'number', value: 3 })]));
    expect(map.get('n')).toBe(3);
  });
});
