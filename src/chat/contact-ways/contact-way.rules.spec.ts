import { contactWayDefaultScope, defaultScopeLockKey, generateWayState, groupWayDefaultScope, WAY_STATE_PATTERN } from './contact-way.rules';

describe('contact way rules', () => {
  const corpId = '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42';
  const digitalStaffId = '5a0e1a4e-8a0c-4b3d-9c55-0d3b2f1e7a10';

  it('scopes a way with a digital staff to that digital staff, whatever its staff users', () => {
    expect(contactWayDefaultScope({ corpId, digitalStaffId, workChatUserIds: ['zhangsan', 'lisi'] })).toBe(`ds:${digitalStaffId}`);
  });

  it('scopes a single-staff way without digital staff to that staff user of the corp', () => {
    expect(contactWayDefaultScope({ corpId, digitalStaffId: null, workChatUserIds: ['zhangsan'] })).toBe(`user:${corpId}:zhangsan`);
  });

  it('gives a multi-staff way without digital staff no scope (it cannot be a default)', () => {
    expect(contactWayDefaultScope({ corpId, digitalStaffId: null, workChatUserIds: ['zhangsan', 'lisi'] })).toBeNull();
  });

  it('scopes group ways to their digital staff, else to their corp', () => {
    expect(groupWayDefaultScope({ corpId, digitalStaffId })).toBe(`ds:${digitalStaffId}`);
    expect(groupWayDefaultScope({ corpId, digitalStaffId: null })).toBe(`corp:${corpId}`);
  });

  it('keys the setDefault lock by table, tenant and scope', () => {
    expect(defaultScopeLockKey('chat_contact_way', 'acme', 'ds:x')).toBe('chat_contact_way:acme:ds:x');
    expect(defaultScopeLockKey('chat_contact_way', 'acme', 'ds:x')).not.toBe(defaultScopeLockKey('chat_group_way', 'acme', 'ds:x'));
  });

  it('generates distinct states the API itself would accept, fitting the scope varchar', () => {
    const states = new Set(Array.from({ length: 200 }, () => generateWayState('cw')));
    expect(states.size).toBe(200);
    for (const state of states) {
      expect(state).toMatch(/^cw_[A-Za-z0-9]{16}$/);
      expect(state).toMatch(WAY_STATE_PATTERN);
    }
  });
});
