import { BadRequestException } from '@nestjs/common';
import { assertWindow, campaignMoveRefusal, normaliseBudgetOverride, normaliseSeeds } from './campaign-rules';

/** The message of the BadRequestException `action` throws (fails the test when it throws nothing or something else). */
function reasonOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(BadRequestException);
    return (error as BadRequestException).message;
  }
  throw new Error('expected a BadRequestException');
}

describe('normaliseSeeds (rule 3)', () => {
  it('turns missing or empty lists into null: opted out', () => {
    expect(normaliseSeeds(undefined, undefined, 10)).toEqual({ seedPersonas: null, seedGoals: null });
    expect(normaliseSeeds([], [], 10)).toEqual({ seedPersonas: null, seedGoals: null });
    expect(normaliseSeeds(null, [], 10)).toEqual({ seedPersonas: null, seedGoals: null });
    expect(normaliseSeeds(['  '], [''], 10)).toEqual({ seedPersonas: null, seedGoals: null });
  });

  it('keeps both lists trimmed, without blanks or repeats, in order', () => {
    expect(normaliseSeeds([' impatient buyer', 'student', 'impatient buyer '], ['refund', '', 'cancel order'], 10)).toEqual({
      seedPersonas: ['impatient buyer', 'student'],
      seedGoals: ['refund', 'cancel order'],
    });
  });

  it('refuses one list without the other, naming the empty one', () => {
    expect(reasonOf(() => normaliseSeeds(['student'], [], 10))).toMatch(/seed_goals is empty while seed_personas has 1 entry/);
    expect(reasonOf(() => normaliseSeeds(undefined, ['refund', 'cancel'], 10))).toMatch(/seed_personas is empty while seed_goals has 2 entries/);
  });

  it('refuses a list longer than the limit', () => {
    expect(reasonOf(() => normaliseSeeds(['a', 'b', 'c'], ['x'], 2))).toMatch(/seed_personas has 3 entries; at most 2/);
    expect(normaliseSeeds(['a', 'b', 'a'], ['x'], 2).seedPersonas).toEqual(['a', 'b']);
  });
});

describe('assertWindow', () => {
  it('accepts an end after the start', () => {
    expect(() => assertWindow(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00.001Z'))).not.toThrow();
  });

  it('refuses an end equal to or before the start, with both instants', () => {
    expect(reasonOf(() => assertWindow(new Date('2026-02-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z')))).toBe(
      'window_end (2026-01-01T00:00:00.000Z) must be after window_start (2026-02-01T00:00:00.000Z).',
    );
    expect(reasonOf(() => assertWindow(new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z')))).toMatch(/must be after/);
  });
});

describe('normaliseBudgetOverride', () => {
  it('keeps only the fields that are set, null when none', () => {
    expect(normaliseBudgetOverride(undefined)).toBeNull();
    expect(normaliseBudgetOverride({})).toBeNull();
    expect(normaliseBudgetOverride({ turnsPerSession: undefined })).toBeNull();
    expect(normaliseBudgetOverride({ turnsPerSession: 0, minSessionIntervalMs: undefined })).toEqual({ turnsPerSession: 0 });
    expect(normaliseBudgetOverride({ sessionsPerWindow: 3, turnsPerSession: 4, minSessionIntervalMs: 5 })).toEqual({ sessionsPerWindow: 3, turnsPerSession: 4, minSessionIntervalMs: 5 });
  });
});

describe('campaignMoveRefusal', () => {
  it('allows start from draft and cancel from draft or running', () => {
    expect(campaignMoveRefusal('draft', 'start')).toBeUndefined();
    expect(campaignMoveRefusal('draft', 'cancel')).toBeUndefined();
    expect(campaignMoveRefusal('running', 'cancel')).toBeUndefined();
  });

  it('refuses every other move, naming the allowed ones', () => {
    expect(campaignMoveRefusal('running', 'start')).toBe('Cannot start a running campaign: start moves draft → running; allowed from running: cancel (running → cancelled).');
    expect(campaignMoveRefusal('completed', 'start')).toBe('Cannot start a completed campaign: start moves draft → running; completed is terminal, no move is allowed.');
    expect(campaignMoveRefusal('cancelled', 'cancel')).toBe('Cannot cancel a cancelled campaign: cancel moves draft or running → cancelled; cancelled is terminal, no move is allowed.');
    expect(campaignMoveRefusal('completed', 'cancel')).toMatch(/^Cannot cancel a completed campaign/);
  });
});
