import { nextScenarioVersion, normalisedJson } from './syllabus';

describe('scenario versioning (evaluation-platform.md, rule 1)', () => {
  const base = { version: 3, cases: [{ id: 'a', input: 'hi', rules: [{ type: 'contains', value: 'x' }] }], modelBindings: { judge: 'm1' }, llmConfig: { temperature: 0 } };

  it('normalises key order at every depth', () => {
    expect(normalisedJson({ b: 1, a: { d: 2, c: [{ f: 1, e: 2 }] } })).toBe('{"a":{"c":[{"e":2,"f":1}],"d":2},"b":1}');
  });
  it('keeps the version when nothing in the syllabus changed, whatever the key order', () => {
    expect(nextScenarioVersion(base, { cases: [{ rules: [{ value: 'x', type: 'contains' }], input: 'hi', id: 'a' }], modelBindings: { judge: 'm1' }, llmConfig: { temperature: 0 } })).toBe(3);
  });
  it.each([
    ['cases', { ...base, cases: [{ id: 'a', input: 'hello', rules: [] }] }],
    ['case order', { ...base, cases: [{ id: 'b', input: 'x', rules: [] }, ...base.cases] }],
    ['model bindings', { ...base, modelBindings: { judge: 'm2' } }],
    ['llm config', { ...base, llmConfig: { temperature: 0.5 } }],
  ])('goes up by one when %s change', (_name, next) => {
    expect(nextScenarioVersion(base, next)).toBe(4);
  });
});
