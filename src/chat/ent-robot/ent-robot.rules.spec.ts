import { checkRobotMessage, maskWebhookKey, WEBHOOK_KEY_PATTERN } from './ent-robot.rules';

const limits = { textMaxBytes: 10, markdownMaxBytes: 20, maxMentions: 2 };

describe('maskWebhookKey', () => {
  it('shows only the last 4 characters of a long key', () => {
    expect(maskWebhookKey('693a91f6-7xxx-4bc4-97a0-0ec2sifa5aaa')).toBe('****5aaa');
  });
  it('shows nothing of a short key', () => {
    expect(maskWebhookKey('abcdefgh123')).toBe('****');
  });
});

describe('WEBHOOK_KEY_PATTERN', () => {
  it('accepts a UUID key and refuses URLs, spaces and short keys', () => {
    expect(WEBHOOK_KEY_PATTERN.test('693a91f6-7aaa-4bc4-97a0-0ec2b1fa5aaa')).toBe(true);
    expect(WEBHOOK_KEY_PATTERN.test('https://example.com/send?key=abc')).toBe(false);
    expect(WEBHOOK_KEY_PATTERN.test('abc def ghi')).toBe(false);
    expect(WEBHOOK_KEY_PATTERN.test('short')).toBe(false);
  });
});

describe('checkRobotMessage', () => {
  it('accepts text within the byte limit and reports its size', () => {
    expect(checkRobotMessage({ msgType: 'text', content: 'hello', mentionedUserIds: ['a', 'b'] }, limits)).toEqual({ kind: 'ok', contentBytes: 5 });
  });
  it('counts UTF-8 bytes, not characters (4 CJK characters = 12 bytes > 10)', () => {
    const verdict = checkRobotMessage({ msgType: 'text', content: '你好世界' }, limits);
    expect(verdict).toMatchObject({ kind: 'too_large', field: 'content', contentBytes: 12 });
    if (verdict.kind !== 'ok') expect(verdict.reason).toContain('at most 10 bytes');
  });
  it('uses the markdown limit for markdown', () => {
    expect(checkRobotMessage({ msgType: 'markdown', content: '# 0123456789' }, limits).kind).toBe('ok');
    expect(checkRobotMessage({ msgType: 'markdown', content: 'x'.repeat(21) }, limits).kind).toBe('too_large');
  });
  it('refuses blank content', () => {
    expect(checkRobotMessage({ msgType: 'text', content: '  \n ' }, limits)).toMatchObject({ kind: 'invalid', field: 'content' });
  });
  it('refuses mentions on markdown and more mentions than allowed', () => {
    expect(checkRobotMessage({ msgType: 'markdown', content: 'x', mentionedMobiles: ['13800000000'] }, limits)).toMatchObject({ kind: 'invalid', field: 'mentionedUserIds' });
    expect(checkRobotMessage({ msgType: 'text', content: 'x', mentionedUserIds: ['a', 'b'], mentionedMobiles: ['1'] }, limits)).toMatchObject({ kind: 'invalid', reason: expect.stringContaining('At most 2 mentions') });
  });
});
