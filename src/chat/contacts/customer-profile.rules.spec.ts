import { applyProfileUpdate, mergePartnerInfo, PROFILE_NAME_PATTERN, profileSizeBytes } from './customer-profile.rules';

describe('customer profile rules', () => {
  it('merges shallowly by default: sets given keys, removes null keys, keeps the rest', () => {
    const current = { city: 'Hangzhou', budget: 3000, tags: ['vip'] };
    const next = applyProfileUpdate(current, { budget: 5000, city: null, level: 'gold' });
    expect(next).toEqual({ budget: 5000, tags: ['vip'], level: 'gold' });
    expect(current).toEqual({ city: 'Hangzhou', budget: 3000, tags: ['vip'] });
  });

  it('replaces the whole profile when asked, leaving out null keys', () => {
    expect(applyProfileUpdate({ city: 'Hangzhou', budget: 3000 }, { level: 'gold', gone: null }, true)).toEqual({ level: 'gold' });
  });

  it('creates a profile that does not exist yet', () => {
    expect(applyProfileUpdate(undefined, { a: 1 })).toEqual({ a: 1 });
    expect(applyProfileUpdate(undefined, {})).toEqual({});
  });

  it('accepts profile names of letters, digits, _ . - starting with a letter, up to 64 characters', () => {
    for (const name of ['basic', 'crm.v2', 'partner', 'A_b-c', 'x'.repeat(64)]) expect(PROFILE_NAME_PATTERN.test(name)).toBe(true);
    for (const name of ['', '1basic', 'has space', 'a/b', 'x'.repeat(65), '_x']) expect(PROFILE_NAME_PATTERN.test(name)).toBe(false);
  });

  it('measures the stored size in UTF-8 bytes of the JSON text', () => {
    expect(profileSizeBytes({})).toBe(2);
    expect(profileSizeBytes({ a: '张' })).toBe('{"a":"张"}'.length + 2);
  });

  it('merges partner info: named fields win over stored ones, attributes merge, and the improvement is recorded', () => {
    const now = new Date('2026-03-01T10:00:00Z');
    const first = mergePartnerInfo(undefined, { nickname: 'Lily', mobile: '13800000000', attributes: { vipLevel: 2 } }, 'improveUserInfo', now);
    expect(first).toEqual({ nickname: 'Lily', mobile: '13800000000', vipLevel: 2, improvedAt: '2026-03-01T10:00:00.000Z', improvedBy: 'improveUserInfo' });
    const later = new Date('2026-03-02T10:00:00Z');
    const second = mergePartnerInfo(first, { company: 'Globex', attributes: { vipLevel: null, source: 'crm' } }, 'improveCustomerInfo', later);
    expect(second).toEqual({ nickname: 'Lily', mobile: '13800000000', company: 'Globex', source: 'crm', improvedAt: '2026-03-02T10:00:00.000Z', improvedBy: 'improveCustomerInfo' });
  });

  it('does not let attributes override the named fields given in the same call', () => {
    const merged = mergePartnerInfo(undefined, { mobile: '139', attributes: { mobile: 'from-attributes' } }, 'improveUserInfo', new Date(0));
    expect(merged.mobile).toBe('139');
  });
});
