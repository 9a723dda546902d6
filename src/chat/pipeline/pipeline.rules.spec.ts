import { decideInboundAction, InboundFacts, interventionReason, nextAttempt, toReplyOutcome } from './pipeline.rules';

const ready: InboundFacts = { aiEnabled: true, staffBound: true, staffEnabled: true, inService: true, intervention: null, workChatUserId: 'zhangsan' };

describe('decideInboundAction', () => {
  it('replies when the AI is on, a digital staff is bound and enabled, in service time', () => {
    expect(decideInboundAction(ready)).toEqual({ kind: 'reply' });
  });

  it('an intervention rule wins over everything, also when the AI is already off', () => {
    expect(decideInboundAction({ ...ready, intervention: { reasons: ['Complaint'] } })).toEqual({ kind: 'intervene', reason: 'Complaint' });
    expect(decideInboundAction({ ...ready, aiEnabled: false, inService: false, intervention: { reasons: ['Refund', 'Refund', 'Angry'] } })).toEqual({ kind: 'intervene', reason: 'Refund; Angry' });
  });

  it('skips with a reason: AI off, no digital staff, digital staff disabled', () => {
    expect(decideInboundAction({ ...ready, aiEnabled: false })).toEqual({ kind: 'skip', reason: 'AI replies are switched off for this contact.' });
    expect(decideInboundAction({ ...ready, staffBound: false })).toMatchObject({ kind: 'skip', reason: expect.stringContaining('"zhangsan" is bound to no digital staff') });
    expect(decideInboundAction({ ...ready, staffEnabled: false })).toMatchObject({ kind: 'skip', reason: expect.stringContaining('is disabled') });
  });

  it('out of service time → the out-of-hours step (only when everything else allows a reply)', () => {
    expect(decideInboundAction({ ...ready, inService: false })).toEqual({ kind: 'out_of_hours' });
    expect(decideInboundAction({ ...ready, inService: false, aiEnabled: false }).kind).toBe('skip');
  });
});

describe('interventionReason', () => {
  it('joins distinct reasons and has a default', () => {
    expect(interventionReason([' a ', 'b', 'a'])).toBe('a; b');
    expect(interventionReason([])).toBe('A human-intervention rule matched the message.');
  });
});

describe('toReplyOutcome (reply-state row → outcome)', () => {
  const row = { replyMessageId: null, reason: null, replyText: null };
  it('open rows have no outcome yet', () => {
    expect(toReplyOutcome({ ...row, status: 'queued' })).toBeNull();
    expect(toReplyOutcome({ ...row, status: 'composing' })).toBeNull();
  });
  it('maps final rows', () => {
    expect(toReplyOutcome({ ...row, status: 'sent', replyMessageId: 'm1', replyText: 'Hi' })).toEqual({ status: 'replied', messageId: 'm1', text: 'Hi' });
    expect(toReplyOutcome({ ...row, status: 'out_of_hours', replyMessageId: 'm2', replyText: 'Closed' })).toEqual({ status: 'out_of_hours', messageId: 'm2', text: 'Closed' });
    expect(toReplyOutcome({ ...row, status: 'out_of_hours', reason: 'already sent' })).toEqual({ status: 'out_of_hours', messageId: null, text: null });
    expect(toReplyOutcome({ ...row, status: 'intervened', reason: 'Complaint' })).toEqual({ status: 'intervened', reason: 'Complaint' });
    expect(toReplyOutcome({ ...row, status: 'skipped', reason: 'AI off' })).toEqual({ status: 'skipped', reason: 'AI off' });
    expect(toReplyOutcome({ ...row, status: 'failed', reason: 'model down' })).toEqual({ status: 'failed', reason: 'model down' });
  });
});

describe('nextAttempt', () => {
  it('retries with doubling delays while attempts remain', () => {
    expect(nextAttempt(1, { maxAttempts: 3, baseDelayMs: 1000, retryable: true })).toEqual({ kind: 'retry', delayMs: 1000 });
    expect(nextAttempt(2, { maxAttempts: 3, baseDelayMs: 1000, retryable: true })).toEqual({ kind: 'retry', delayMs: 2000 });
    expect(nextAttempt(3, { maxAttempts: 3, baseDelayMs: 1000, retryable: true })).toEqual({ kind: 'fail' });
  });
  it('caps the delay and never retries what cannot succeed', () => {
    expect(nextAttempt(10, { maxAttempts: 20, baseDelayMs: 1000, retryable: true, maxDelayMs: 5000 })).toEqual({ kind: 'retry', delayMs: 5000 });
    expect(nextAttempt(1, { maxAttempts: 3, baseDelayMs: 1000, retryable: false })).toEqual({ kind: 'fail' });
  });
});
