import { reviewIntentionRecord } from './intention-records.rules';

describe('reviewIntentionRecord', () => {
  const before = new Date('2026-01-01T00:00:00Z');
  const now = new Date('2026-02-01T00:00:00Z');

  it('stamps the review time when a verdict is given or changed', () => {
    expect(reviewIntentionRecord({ status: 'open', reviewedAt: null }, 'confirmed', now)).toEqual({ status: 'confirmed', reviewedAt: now });
    expect(reviewIntentionRecord({ status: 'confirmed', reviewedAt: before }, 'rejected', now)).toEqual({ status: 'rejected', reviewedAt: now });
  });

  it('clears it when the record is reopened', () => {
    expect(reviewIntentionRecord({ status: 'rejected', reviewedAt: before }, 'open', now)).toEqual({ status: 'open', reviewedAt: null });
  });

  it('keeps status and time when the status is omitted or unchanged', () => {
    expect(reviewIntentionRecord({ status: 'confirmed', reviewedAt: before }, undefined, now)).toEqual({ status: 'confirmed', reviewedAt: before });
    expect(reviewIntentionRecord({ status: 'confirmed', reviewedAt: before }, 'confirmed', now)).toEqual({ status: 'confirmed', reviewedAt: before });
  });
});
