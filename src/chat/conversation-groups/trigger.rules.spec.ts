import { normalizeTriggerAction } from './trigger.rules';

const OWN = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';

describe('trigger rules (chat-management-api.md, Conversations: ConversationGroupTriggerPayload)', () => {
  it('builds the settings of each action', () => {
    expect(normalizeTriggerAction({ action: 'send_text', text: '  Hello {{name}} ' }, OWN)).toEqual({ actionConfig: { text: 'Hello {{name}}' }, targetConversationGroupId: null, problems: [] });
    expect(normalizeTriggerAction({ action: 'send_script', scriptContentId: OTHER }, OWN).actionConfig).toEqual({ scriptContentId: OTHER });
    expect(normalizeTriggerAction({ action: 'add_tags', tagNames: ['VIP', ' vip', 'Refund'] }, OWN).actionConfig).toEqual({ tagNames: ['VIP', 'Refund'] });
    expect(normalizeTriggerAction({ action: 'handoff', handoffReason: ' asks for a person ' }, OWN).actionConfig).toEqual({ reason: 'asks for a person' });
    expect(normalizeTriggerAction({ action: 'handoff' }, OWN)).toEqual({ actionConfig: {}, targetConversationGroupId: null, problems: [] });
    expect(normalizeTriggerAction({ action: 'switch_group', targetConversationGroupId: OTHER }, OWN)).toEqual({ actionConfig: {}, targetConversationGroupId: OTHER, problems: [] });
    expect(normalizeTriggerAction({ action: 'terminate' }, OWN)).toEqual({ actionConfig: {}, targetConversationGroupId: null, problems: [] });
  });

  it('requires the field of each action that needs one', () => {
    const missing = (action: Parameters<typeof normalizeTriggerAction>[0]['action']) => normalizeTriggerAction({ action }, OWN).problems;
    expect(missing('send_text')).toEqual([{ field: 'text', message: 'text is required for action send_text.' }]);
    expect(missing('send_script')).toEqual([{ field: 'scriptContentId', message: 'scriptContentId is required for action send_script.' }]);
    expect(missing('add_tags')).toEqual([{ field: 'tagNames', message: 'tagNames is required for action add_tags.' }]);
    expect(missing('switch_group')).toEqual([{ field: 'targetConversationGroupId', message: 'targetConversationGroupId is required for action switch_group.' }]);
  });

  it('refuses fields of other actions, blank texts and tags, and switching to the own group', () => {
    expect(normalizeTriggerAction({ action: 'terminate', text: 'bye', targetConversationGroupId: OTHER }, OWN).problems).toEqual([
      { field: 'text', message: 'text does not apply to action terminate.' },
      { field: 'targetConversationGroupId', message: 'targetConversationGroupId does not apply to action terminate.' },
    ]);
    expect(normalizeTriggerAction({ action: 'send_text', text: '   ' }, OWN).problems).toEqual([{ field: 'text', message: 'text must not be blank.' }]);
    expect(normalizeTriggerAction({ action: 'add_tags', tagNames: ['ok', ' '] }, OWN).problems).toEqual([{ field: 'tagNames', message: 'tagNames must not contain blank entries.' }]);
    expect(normalizeTriggerAction({ action: 'switch_group', targetConversationGroupId: OWN }, OWN).problems).toEqual([
      { field: 'targetConversationGroupId', message: 'targetConversationGroupId must be another conversation group than the trigger\'s own.' },
    ]);
  });
});
