import {
  buildReplyPrompt,
  buildToolCatalog,
  cut,
  describeMessage,
  historyReadChars,
  historyTurns,
  latestCustomerText,
  malformedToolCalls,
  MAX_TOOL_CALLS_PER_ROUND,
  storedReplyProblem,
  parseIntentReport,
  REPORT_INTENT_FUNCTION,
  renderReplyText,
  ReplyPromptInput,
  sanitizeToolName,
  toolResultText,
} from './ai-reply.rules';
import { TOOL_NAME_PATTERN } from '../../llm/tool-calling';

const op = (providerId: string, providerName: string, name: string) => ({ providerId, providerName, name, description: `does ${name}`, parameters: { type: 'object' } });

describe('buildToolCatalog', () => {
  it('offers the built-in intent function first and keeps unique operation names', () => {
    const catalog = buildToolCatalog([op('p1', 'Orders', 'get_order'), op('p2', 'CRM', 'find-customer')]);
    expect(catalog.definitions.map((d) => d.name)).toEqual([REPORT_INTENT_FUNCTION, 'get_order', 'find-customer']);
    expect(catalog.definitions[1].description).toBe('[Orders] does get_order');
    expect(catalog.operations.get('get_order')).toEqual({ providerId: 'p1', operation: 'get_order' });
    expect(catalog.operations.get('find-customer')).toEqual({ providerId: 'p2', operation: 'find-customer' });
    expect(catalog.operations.has(REPORT_INTENT_FUNCTION)).toBe(false);
  });

  it('qualifies names shared by several providers, or the built-in\'s, with the provider name', () => {
    const catalog = buildToolCatalog([op('p1', 'Order Service', 'lookup'), op('p2', '订单 API', 'lookup'), op('p3', 'Intents', REPORT_INTENT_FUNCTION)]);
    const names = catalog.definitions.map((d) => d.name);
    expect(names).toEqual([REPORT_INTENT_FUNCTION, 'Order_Service__lookup', 'API__lookup', `Intents__${REPORT_INTENT_FUNCTION}`]);
    expect(catalog.operations.get('Order_Service__lookup')).toEqual({ providerId: 'p1', operation: 'lookup' });
    expect(catalog.operations.get('API__lookup')).toEqual({ providerId: 'p2', operation: 'lookup' });
    expect(catalog.operations.get(`Intents__${REPORT_INTENT_FUNCTION}`)).toEqual({ providerId: 'p3', operation: REPORT_INTENT_FUNCTION });
  });

  it('numbers names that still collide and keeps every name within 64 valid characters', () => {
    const long = 'o'.repeat(64);
    const catalog = buildToolCatalog([op('p1', 'Same', 'x'), op('p2', 'Same', 'x'), op('p3', 'A', long), op('p4', 'B', long), op('p5', '***', 'x')]);
    const names = catalog.definitions.map((d) => d.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(TOOL_NAME_PATTERN.test(name)).toBe(true);
    expect(names).toContain('Same__x');
    expect(names).toContain('Same__x_2');
    expect(names).toContain('provider__x');
    expect(catalog.operations.get('Same__x_2')).toEqual({ providerId: 'p2', operation: 'x' });
    const longNames = names.filter((name) => name.startsWith('ooo'));
    expect(longNames).toHaveLength(2);
    expect(longNames.every((name) => name.length <= 64)).toBe(true);
    expect(new Set(longNames.map((name) => catalog.operations.get(name)!.providerId))).toEqual(new Set(['p3', 'p4']));
  });

  it('sanitizes names to the API alphabet', () => {
    expect(sanitizeToolName('a b.c/d')).toBe('a_b_c_d');
    expect(sanitizeToolName('__x__')).toBe('x');
    expect(sanitizeToolName('é')).toBe('');
    expect(sanitizeToolName('y'.repeat(80))).toHaveLength(64);
  });
});

describe('parseIntentReport', () => {
  it('reads the intent and clamps the confidence', () => {
    expect(parseIntentReport('{"intent":" refund_request ","confidence":0.8}')).toEqual({ ok: true, intent: { name: 'refund_request', confidence: 0.8 } });
    expect(parseIntentReport('{"intent":"退款","confidence":1.5}')).toEqual({ ok: true, intent: { name: '退款', confidence: 1 } });
    expect(parseIntentReport('{"intent":"x","confidence":null}')).toEqual({ ok: true, intent: { name: 'x', confidence: null } });
    expect(parseIntentReport('{"intent":"x"}')).toEqual({ ok: true, intent: { name: 'x', confidence: null } });
  });

  it('refuses bad JSON, a missing or bad intent, a bad confidence', () => {
    expect(parseIntentReport('{')).toEqual({ ok: false, error: expect.stringMatching(/JSON/) });
    expect(parseIntentReport('[1]')).toEqual({ ok: false, error: expect.stringMatching(/object/) });
    expect(parseIntentReport('')).toEqual({ ok: false, error: expect.stringMatching(/intent/) });
    expect(parseIntentReport('{"intent":"a/b"}')).toEqual({ ok: false, error: expect.stringMatching(/intent/) });
    expect(parseIntentReport(JSON.stringify({ intent: 'x'.repeat(101) }))).toEqual({ ok: false, error: expect.stringMatching(/intent/) });
    expect(parseIntentReport('{"intent":"x","confidence":"high"}')).toEqual({ ok: false, error: expect.stringMatching(/confidence/) });
  });
});

describe('renderReplyText', () => {
  it('fills known variables, keeps unknown ones as written, expands only once, trims', () => {
    const variables = new Map<string, unknown>([['name', 'Ada'], ['points', 12], ['trap', '{{name}}']]);
    expect(renderReplyText('  Hi {{ name }}, you have {{points}} points; {{missing}} {{trap}} {{a.b}} ', variables)).toBe('Hi Ada, you have 12 points; {{missing}} {{name}} {{a.b}}');
  });
});

describe('history', () => {
  const message = (sender: 'customer' | 'staff' | 'ai', content: string | null, msgType = 'text') => ({ sender, msgType, content, attachmentFileName: msgType === 'text' ? null : 'a.png' });

  it('maps customer to user and staff/ai to assistant, oldest first, attachments described, empty texts skipped', () => {
    const { turns, dropped } = historyTurns([message('customer', 'hello'), message('ai', 'hi!'), message('staff', '  '), message('customer', null, 'image'), message('staff', 'ok')], 1000);
    expect(turns).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi!' },
      { role: 'user', content: '[image: a.png]' },
      { role: 'assistant', content: 'ok' },
    ]);
    expect(dropped).toBe(0);
  });

  it('keeps the newest messages that fit the character cap and always the latest one (cut)', () => {
    const history = [message('customer', 'a'.repeat(10)), message('ai', 'b'.repeat(10)), message('customer', 'c'.repeat(10))];
    expect(historyTurns(history, 25)).toEqual({ turns: [{ role: 'assistant', content: 'b'.repeat(10) }, { role: 'user', content: 'c'.repeat(10) }], dropped: 1 });
    expect(historyTurns(history, 5)).toEqual({ turns: [{ role: 'user', content: 'cccc…' }], dropped: 2 });
  });

  it('finds the latest customer text', () => {
    expect(latestCustomerText([message('customer', 'first'), message('customer', 'second '), message('ai', 'reply'), message('customer', null, 'image')])).toBe('second');
    expect(latestCustomerText([message('ai', 'x')])).toBeNull();
    expect(describeMessage({ sender: 'customer', msgType: 'file', content: null })).toBe('[file]');
  });
});

describe('buildReplyPrompt', () => {
  const base: ReplyPromptInput = {
    staff: { name: 'Mia', persona: 'You are Mia, a cheerful shop assistant.', description: 'Handles orders' },
    group: {
      name: 'VIP',
      description: 'Premium customers',
      systemPrompt: 'Always offer free shipping.',
      maxReplyChars: 300,
      eventDefinitions: [{ name: 'asks_refund', eventType: 'intent_detected', description: 'Customer wants money back' }],
      triggers: [{ name: 'handoff_refund', action: 'handoff', description: null }],
    },
    scripts: [{ id: 's1', title: 'Shipping', content: 'Dear {{name}}, shipping takes {{days}} days.' }],
    variables: new Map<string, unknown>([['name', 'Ada'], ['days', 3]]),
    knownIntents: ['refund_request', ' refund_request', 'complaint'],
    history: [{ sender: 'customer', msgType: 'text', content: 'How long is shipping?' }],
    limits: { historyMaxChars: 1000, scriptMaxChars: 1000 },
  };

  it('puts persona, group, variables, rendered scripts and intents in the system message, then the history', () => {
    const prompt = buildReplyPrompt(base);
    const system = prompt.messages[0];
    expect(system.role).toBe('system');
    expect(system.content.startsWith('You are Mia, a cheerful shop assistant.')).toBe(true);
    expect(system.content).toContain('About you (Mia): Handles orders');
    expect(system.content).toContain('## Conversation group: VIP');
    expect(system.content).toContain('Premium customers');
    expect(system.content).toContain('Always offer free shipping.');
    expect(system.content).toContain('under 300 characters');
    expect(system.content).toContain('- asks_refund (intent_detected): Customer wants money back');
    expect(system.content).toContain('- handoff_refund: handoff');
    expect(system.content).toContain('- name: Ada');
    expect(system.content).toContain('- days: 3');
    expect(system.content).toContain('### Shipping\nDear Ada, shipping takes 3 days.');
    expect(system.content).toContain('Known intent names (use one of them when it fits): refund_request, complaint');
    expect(system.content).toContain(REPORT_INTENT_FUNCTION);
    expect(prompt.messages.slice(1)).toEqual([{ role: 'user', content: 'How long is shipping?' }]);
    expect(prompt.scriptIds).toEqual(['s1']);
    expect(prompt.droppedHistory).toBe(0);
  });

  it('leaves out what is absent: no group, no variables, no scripts, no intents', () => {
    const prompt = buildReplyPrompt({ ...base, staff: { ...base.staff, description: null }, group: null, variables: new Map(), scripts: [], knownIntents: [] });
    const system = prompt.messages[0].content;
    expect(system).not.toContain('About you');
    expect(system).not.toContain('Conversation group');
    expect(system).not.toContain('variables');
    expect(system).not.toContain('scripts');
    expect(system).not.toContain('Known intent names');
    expect(prompt.scriptIds).toEqual([]);
  });

  it('caps script text by characters (the last script cut, later ones left out)', () => {
    const scripts = [
      { id: 'a', title: 'A', content: 'x'.repeat(30) },
      { id: 'b', title: 'B', content: 'y'.repeat(30) },
      { id: 'c', title: 'C', content: 'z'.repeat(30) },
    ];
    const prompt = buildReplyPrompt({ ...base, scripts, limits: { historyMaxChars: 1000, scriptMaxChars: 40 } });
    expect(prompt.scriptIds).toEqual(['a', 'b']);
    expect(prompt.messages[0].content).toContain('x'.repeat(30));
    expect(prompt.messages[0].content).toContain(`${'y'.repeat(9)}…`);
    expect(prompt.messages[0].content).not.toContain('z');
    expect(buildReplyPrompt({ ...base, scripts, limits: { historyMaxChars: 1000, scriptMaxChars: 0 } }).scriptIds).toEqual([]);
  });

  it('cuts long variable values', () => {
    const prompt = buildReplyPrompt({ ...base, variables: new Map([['bio', 'q'.repeat(2000)]]) });
    expect(prompt.messages[0].content).toContain(`- bio: ${'q'.repeat(499)}…`);
    expect(prompt.messages[0].content).not.toContain('q'.repeat(501));
  });
});

describe('helpers', () => {
  it('cut marks what it cuts', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(cut('abcdef', 1)).toBe('a');
  });

  it('toolResultText gives JSON, truncated with a note when too long', () => {
    expect(toolResultText({ ok: true }, 100)).toBe('{"ok":true}');
    const long = toolResultText({ body: 'x'.repeat(500) }, 200);
    expect(long).toHaveLength(200);
    expect(long).toMatch(/\[truncated: 511 characters in all\]$/);
    expect(toolResultText(undefined, 100)).toBe('null');
  });
});

describe('stored caps (issue 19 item 2)', () => {
  it('refuses a raw or rendered answer over the cap, naming the variable, and accepts one at the cap', () => {
    expect(storedReplyProblem({ content: 'a'.repeat(100), originalAiContent: 'a'.repeat(100) }, 100)).toBeNull();
    expect(storedReplyProblem({ content: 'short', originalAiContent: 'b'.repeat(101) }, 100)).toBe("The model's reply is 101 characters, over CHAT_AI_REPLY_MAX_CHARS=100: it was not stored or sent.");
    expect(storedReplyProblem({ content: 'c'.repeat(150), originalAiContent: '{{x}}' }, 100)).toContain('150 characters');
    expect(storedReplyProblem({ content: 'c'.repeat(150), originalAiContent: null }, 100)).toContain('150 characters');
  });

  it('reads one character past the prompt cap, so a cut message is still marked cut', () => {
    expect(historyReadChars(16_000)).toBe(16_001);
    expect(historyReadChars(0)).toBe(2);
    const read = 'x'.repeat(historyReadChars(50));
    const { turns } = historyTurns([{ sender: 'customer', msgType: 'text', content: read }], 50);
    expect(turns[0].content).toHaveLength(50);
    expect(turns[0].content.endsWith('…')).toBe(true);
  });

  it('tells malformed tool calls from well-formed ones', () => {
    const good = { id: 'call_1', name: 'get_order', arguments: '{"id":1}' };
    expect(malformedToolCalls([good, { ...good, arguments: 'not json' }])).toBeNull();
    expect(malformedToolCalls('calls')).toContain('not a list');
    expect(malformedToolCalls(Array.from({ length: MAX_TOOL_CALLS_PER_ROUND + 1 }, () => good))).toContain(`${MAX_TOOL_CALLS_PER_ROUND + 1} tool calls`);
    expect(malformedToolCalls([good, { ...good, name: 42 }])).toBe('The chat model sent a malformed tool call (call 2: id, name and arguments must be strings).');
    expect(malformedToolCalls([{ ...good, arguments: { id: 1 } }])).toContain('call 1');
    expect(malformedToolCalls([{ ...good, id: '' }])).toContain('call 1');
    expect(malformedToolCalls([null])).toContain('call 1');
  });
});
