import type { ExternalContactTag } from '../contacts/external-contact.entity';
import type { PlatformTagGroup } from '../platform';
import { contactReferenceProblem, messageTextProblem, planTagAdd, planTagRemove, resolveLibraryTags, tagSelectionProblem } from './chat-tools.rules';

const CONTACT = '6f1c2a52-8a47-4c5e-9d0e-3f3b7e0c9a11';

const group = (groupId: string, groupName: string, tags: [string, string][]): PlatformTagGroup => ({
  groupId,
  groupName,
  order: 0,
  createdAt: new Date(0),
  tags: tags.map(([tagId, name]) => ({ tagId, name, order: 0, createdAt: new Date(0) })),
});
const LIBRARY = [
  group('g-level', 'Level', [
    ['t-vip', 'VIP'],
    ['t-new', 'New'],
  ]),
  group('g-source', 'Source', [
    ['t-fair', 'Fair'],
    ['t-vip2', 'VIP'],
  ]),
];
const corpTag = (tagId: string, tagName: string, groupId = 'g-level', groupName = 'Level'): ExternalContactTag => ({ tagId, tagName, groupId, groupName, type: 1 });

describe('contactReferenceProblem', () => {
  it.each([
    [{ contactId: CONTACT }, undefined],
    [{ contactId: CONTACT, workChatUserId: 'zhangsan' }, undefined],
    [{ workChatUserId: 'zhangsan', externalUserId: 'wm1' }, undefined],
    [{ contactId: null, workChatUserId: 'zhangsan', externalUserId: 'wm1' }, undefined],
  ])('accepts %j', (ref, expected) => expect(contactReferenceProblem(ref)).toBe(expected));

  it('refuses both ways, neither way, and an external user id without the staff member', () => {
    expect(contactReferenceProblem({ contactId: CONTACT, workChatUserId: 'zhangsan', externalUserId: 'wm1' })).toContain('not both');
    expect(contactReferenceProblem({})).toContain('Name the contact');
    expect(contactReferenceProblem({ workChatUserId: 'zhangsan' })).toContain('Name the contact');
    expect(contactReferenceProblem({ externalUserId: 'wm1' })).toContain('needs `workChatUserId`');
    expect(contactReferenceProblem({ externalUserId: 'wm1', workChatUserId: null })).toContain('needs `workChatUserId`');
  });
});

describe('messageTextProblem', () => {
  it('accepts text up to the limit and refuses blank or longer text', () => {
    expect(messageTextProblem('Hello', 5)).toBeUndefined();
    expect(messageTextProblem('  x ', 4)).toBeUndefined();
    expect(messageTextProblem('Hello!', 5)).toBe('`content` is 6 characters; at most 5 (CHAT_MESSAGE_MAX_TEXT_CHARS).');
    expect(messageTextProblem(' \n\t', 5)).toContain('non-empty');
    expect(messageTextProblem('', 5)).toContain('non-empty');
  });
});

describe('tagSelectionProblem', () => {
  it('needs at least one tag and counts distinct ids and names against the limit', () => {
    expect(tagSelectionProblem({}, 3)).toContain('at least one tag');
    expect(tagSelectionProblem({ tagIds: [], tagNames: null }, 3)).toContain('at least one tag');
    expect(tagSelectionProblem({ tagIds: ['a', 'a', 'b'], tagNames: ['VIP'] }, 3)).toBeUndefined();
    expect(tagSelectionProblem({ tagIds: ['a', 'b'], tagNames: ['VIP', 'New'] }, 3)).toBe('The request names 4 tags; at most 3 per request (CHAT_MCP_MAX_TAGS).');
  });
});

describe('resolveLibraryTags', () => {
  it('resolves ids and unique names once each, ids first', () => {
    const result = resolveLibraryTags(LIBRARY, { tagIds: ['t-fair', 't-fair'], tagNames: ['New', 'Fair'] });
    expect(result).toEqual({
      tags: [
        { tagId: 't-fair', tagName: 'Fair', groupId: 'g-source', groupName: 'Source' },
        { tagId: 't-new', tagName: 'New', groupId: 'g-level', groupName: 'Level' },
      ],
      unknownIds: [],
      unknownNames: [],
      ambiguousNames: [],
    });
  });

  it('reports unknown ids, unknown names and names in several groups; groupName picks one', () => {
    const result = resolveLibraryTags(LIBRARY, { tagIds: ['t-nope'], tagNames: ['VIP', 'vip', 'Gold'] });
    expect(result).toMatchObject({ tags: [], unknownIds: ['t-nope'], unknownNames: ['vip', 'Gold'], ambiguousNames: ['VIP'] });
    expect(resolveLibraryTags(LIBRARY, { tagNames: ['VIP'], groupName: 'Source' }).tags).toEqual([{ tagId: 't-vip2', tagName: 'VIP', groupId: 'g-source', groupName: 'Source' }]);
    expect(resolveLibraryTags(LIBRARY, { tagNames: ['New'], groupName: 'Source' }).unknownNames).toEqual(['New']);
    expect(resolveLibraryTags(LIBRARY, { tagNames: ['VIP'], groupName: null }).ambiguousNames).toEqual(['VIP']);
  });
});

describe('planTagAdd', () => {
  const resolved = resolveLibraryTags(LIBRARY, { tagIds: ['t-vip', 't-fair'] }).tags;

  it('adds the tags the contact lacks after its current ones', () => {
    const personal: ExternalContactTag = { tagName: 'friendly', type: 2 };
    const plan = planTagAdd([personal, corpTag('t-vip', 'VIP')], resolved);
    expect(plan.addTagIds).toEqual(['t-fair']);
    expect(plan.next).toEqual([personal, corpTag('t-vip', 'VIP'), corpTag('t-fair', 'Fair', 'g-source', 'Source')]);
  });

  it('is idempotent: adding what the contact has changes nothing', () => {
    const first = planTagAdd([], resolved);
    const second = planTagAdd(first.next, resolved);
    expect(second).toEqual({ addTagIds: [], next: first.next });
  });

  it('does not take a personal tag of the same name for the corp tag', () => {
    expect(planTagAdd([{ tagName: 'VIP', type: 2 }], resolved).addTagIds).toEqual(['t-vip', 't-fair']);
  });
});

describe('planTagRemove', () => {
  const current: ExternalContactTag[] = [corpTag('t-vip', 'VIP'), { tagName: 'VIP', type: 2 }, corpTag('t-fair', 'Fair', 'g-source', 'Source'), { tagName: 'friendly', type: 2 }];

  it('removes corp tags by id and every tag of a name, keeping the order of the rest', () => {
    const plan = planTagRemove(current, { tagIds: ['t-fair'], tagNames: ['VIP'] });
    expect(plan.removeTagIds).toEqual(['t-vip', 't-fair']);
    expect(plan.removed).toEqual([corpTag('t-vip', 'VIP'), { tagName: 'VIP', type: 2 }, corpTag('t-fair', 'Fair', 'g-source', 'Source')]);
    expect(plan.next).toEqual([{ tagName: 'friendly', type: 2 }]);
  });

  it('limits name matches to groupName and only unmarks corp tags on the platform', () => {
    expect(planTagRemove(current, { tagNames: ['VIP'], groupName: 'Level' })).toEqual({ removeTagIds: ['t-vip'], removed: [corpTag('t-vip', 'VIP')], next: [current[1], current[2], current[3]] });
    expect(planTagRemove(current, { tagNames: ['friendly'] })).toEqual({ removeTagIds: [], removed: [current[3]], next: current.slice(0, 3) });
  });

  it('is idempotent: tags the contact does not hold are ignored', () => {
    const first = planTagRemove(current, { tagIds: ['t-vip'] });
    expect(planTagRemove(first.next, { tagIds: ['t-vip', 't-unknown'], tagNames: ['Gold'] })).toEqual({ removeTagIds: [], removed: [], next: first.next });
  });
});
