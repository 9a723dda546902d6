import { contactKey, planBatchStateChange, type BatchStateContact } from './batch-state.rules';

describe('planBatchStateChange', () => {
  const contacts = new Map<string, BatchStateContact>([
    [contactKey('zhangsan', 'wm-1'), { id: 'c1', state: 'fair' }],
    [contactKey('zhangsan', 'wm-2'), { id: 'c2', state: null }],
    [contactKey('lisi', 'wm-1'), { id: 'c3', state: 'web' }],
  ]);
  const states = new Set(['fair', 'web', 'store']);

  it('decides each item in order: change, unchanged, unknown state, unknown contact, repeated contact', () => {
    const plan = planBatchStateChange(
      [
        { userId: 'zhangsan', externalUserId: 'wm-1', state: 'store' },
        { userId: 'zhangsan', externalUserId: 'wm-2', state: 'web' },
        { userId: 'lisi', externalUserId: 'wm-1', state: 'web' },
        { userId: 'lisi', externalUserId: 'wm-2', state: 'store' },
        { userId: 'lisi', externalUserId: 'wm-1', state: 'nowhere' },
        { userId: 'zhangsan', externalUserId: 'wm-1', state: 'fair' },
      ],
      contacts,
      states,
      'Acme',
    );
    expect(plan.map((entry) => entry.outcome)).toEqual(['change', 'change', 'unchanged', 'failed', 'failed', 'failed']);
    expect(plan[0]).toMatchObject({ index: 0, contactId: 'c1', previousState: 'fair' });
    expect(plan[1]).toMatchObject({ contactId: 'c2', previousState: null });
    expect(plan[2]).toMatchObject({ contactId: 'c3', previousState: 'web' });
    expect(plan[3]).toMatchObject({ reason: 'Staff member lisi has no customer wm-2 in corp "Acme".' });
    expect(plan[4]).toMatchObject({ reason: 'Item 2 already changes this contact; a contact can move once per batch.' });
    expect(plan[5]).toMatchObject({ reason: 'Item 0 already changes this contact; a contact can move once per batch.' });
  });

  it('names an unknown state even for an unknown contact (the state is checked first)', () => {
    const [entry] = planBatchStateChange([{ userId: 'nobody', externalUserId: 'wm-9', state: 'gone' }], contacts, states, 'Acme');
    expect(entry).toMatchObject({ outcome: 'failed', reason: 'No contact way of corp "Acme" has the state "gone".' });
  });

  it('does not confuse ids that concatenate to the same text', () => {
    const tricky = new Map([[contactKey('ab', 'c'), { id: 'x', state: null }]]);
    const [entry] = planBatchStateChange([{ userId: 'a', externalUserId: 'bc', state: 'web' }], tricky, states, 'Acme');
    expect(entry.outcome).toBe('failed');
  });
});
