import { matchesMessageEvent, normalizeEventCondition } from './event-definition.rules';

describe('event definition rules (chat-management-api.md, Conversations: ConversationGroupEventDefinitionPayload)', () => {
  describe('normalizeEventCondition', () => {
    it('keeps only the fields of the type, trimmed and de-duplicated case-insensitively, matchMode defaulting to contains', () => {
      expect(normalizeEventCondition({ eventType: 'message_keyword', keywords: [' Refund ', 'refund', 'money back'] })).toEqual({
        condition: { keywords: ['Refund', 'money back'], matchMode: 'contains' },
        problems: [],
      });
      expect(normalizeEventCondition({ eventType: 'message_keyword', keywords: ['hi'], matchMode: 'exact' }).condition).toEqual({ keywords: ['hi'], matchMode: 'exact' });
      expect(normalizeEventCondition({ eventType: 'intent_detected', intents: ['refund_request', 'REFUND_REQUEST'] }).condition).toEqual({ intents: ['refund_request'] });
      expect(normalizeEventCondition({ eventType: 'tag_added', tagNames: ['VIP'] }).condition).toEqual({ tagNames: ['VIP'] });
      expect(normalizeEventCondition({ eventType: 'customer_idle', idleMinutes: 30 }).condition).toEqual({ idleMinutes: 30 });
      expect(normalizeEventCondition({ eventType: 'message_received' })).toEqual({ condition: {}, problems: [] });
      expect(normalizeEventCondition({ eventType: 'conversation_started' })).toEqual({ condition: {}, problems: [] });
    });

    it('requires the fields of each type', () => {
      expect(normalizeEventCondition({ eventType: 'message_keyword' }).problems).toEqual([{ field: 'keywords', message: 'keywords is required for eventType message_keyword.' }]);
      expect(normalizeEventCondition({ eventType: 'intent_detected' }).problems).toEqual([{ field: 'intents', message: 'intents is required for eventType intent_detected.' }]);
      expect(normalizeEventCondition({ eventType: 'tag_added' }).problems).toEqual([{ field: 'tagNames', message: 'tagNames is required for eventType tag_added.' }]);
      expect(normalizeEventCondition({ eventType: 'customer_idle' }).problems).toEqual([{ field: 'idleMinutes', message: 'idleMinutes is required for eventType customer_idle.' }]);
    });

    it('refuses every field that does not apply to the type, and blank entries', () => {
      expect(normalizeEventCondition({ eventType: 'message_received', keywords: ['x'], idleMinutes: 5 }).problems).toEqual([
        { field: 'keywords', message: 'keywords does not apply to eventType message_received.' },
        { field: 'idleMinutes', message: 'idleMinutes does not apply to eventType message_received.' },
      ]);
      expect(normalizeEventCondition({ eventType: 'intent_detected', intents: ['a'], matchMode: 'exact' }).problems).toEqual([
        { field: 'matchMode', message: 'matchMode does not apply to eventType intent_detected.' },
      ]);
      expect(normalizeEventCondition({ eventType: 'tag_added', tagNames: ['VIP', '  '] }).problems).toEqual([{ field: 'tagNames', message: 'tagNames must not contain blank entries.' }]);
    });
  });

  describe('matchesMessageEvent', () => {
    it('matches every message for message_received and nothing for non-message events', () => {
      expect(matchesMessageEvent({ eventType: 'message_received', condition: {} }, 'anything')).toBe(true);
      expect(matchesMessageEvent({ eventType: 'intent_detected', condition: { intents: ['refund'] } }, 'refund')).toBe(false);
      expect(matchesMessageEvent({ eventType: 'customer_idle', condition: { idleMinutes: 1 } }, 'refund')).toBe(false);
    });

    it('matches keywords contained in the text, ignoring case', () => {
      const definition = { eventType: 'message_keyword' as const, condition: { keywords: ['Refund', 'money back'], matchMode: 'contains' as const } };
      expect(matchesMessageEvent(definition, 'I want a REFUND please')).toBe(true);
      expect(matchesMessageEvent(definition, 'can I get my money back?')).toBe(true);
      expect(matchesMessageEvent(definition, 'where is my parcel')).toBe(false);
    });

    it('matches exact keywords only when the whole (trimmed) message is one', () => {
      const definition = { eventType: 'message_keyword' as const, condition: { keywords: ['Human'], matchMode: 'exact' as const } };
      expect(matchesMessageEvent(definition, '  human ')).toBe(true);
      expect(matchesMessageEvent(definition, 'a human please')).toBe(false);
    });
  });
});
