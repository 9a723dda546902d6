import { analysisDefaultRefusal } from './analysis-default.rule';

describe('analysisDefaultRefusal (rule 5)', () => {
  it('accepts an enabled chat configuration', () => expect(analysisDefaultRefusal({ enabled: true, type: 'chat' })).toBeUndefined());
  it('refuses a disabled one', () => expect(analysisDefaultRefusal({ enabled: false, type: 'chat' })).toMatch(/disabled/));
  it('refuses an embedding one', () => expect(analysisDefaultRefusal({ enabled: true, type: 'embedding' })).toMatch(/chat/));
});
