import { deriveOutcome, ExperienceInput, ExperienceTurn, normaliseExperience } from './experience-record';

const turn = (turnIndex: number, extra: Partial<ExperienceTurn> = {}): ExperienceTurn => ({
  turnIndex,
  message: `message ${turnIndex}`,
  reply: `reply ${turnIndex}`,
  latencyMs: 100 + turnIndex,
  error: null,
  completed: true,
  ...extra,
});

const input = (extra: Partial<ExperienceInput> = {}): ExperienceInput => ({
  persona: 'impatient traveller',
  goal: 'rebook a cancelled flight',
  mode: 'manual',
  turnsUsed: 3,
  turnsPerSession: 5,
  turns: [turn(0), turn(1), turn(2)],
  stopMarker: null,
  startedAt: new Date('2030-01-01T00:00:00Z'),
  closedAt: new Date('2030-01-01T00:01:30Z'),
  limits: { maxNotableReplies: 10, excerptChars: 500 },
  ...extra,
});

describe('deriveOutcome', () => {
  const base = { turns: [turn(0)], turnsUsed: 1, turnsPerSession: 3, stopMarker: null };

  it('takes the caller outcome first, then the stop marker', () => {
    expect(deriveOutcome({ ...base, requestedOutcome: 'abandoned', stopMarker: 'done' })).toEqual({ outcome: 'abandoned', source: 'caller' });
    expect(deriveOutcome({ ...base, stopMarker: 'done' })).toEqual({ outcome: 'goal_reached', source: 'stop_marker' });
    expect(deriveOutcome({ ...base, stopMarker: 'give_up' })).toEqual({ outcome: 'abandoned', source: 'stop_marker' });
  });

  it('derives error when the last turn failed or is still in flight, even with the budget used', () => {
    expect(deriveOutcome({ ...base, turns: [turn(0), turn(1, { reply: null, error: 'no reply within 50 ms' })], turnsUsed: 3 })).toEqual({ outcome: 'error', source: 'derived' });
    expect(deriveOutcome({ ...base, turns: [turn(0, { reply: null, completed: false })] })).toEqual({ outcome: 'error', source: 'derived' });
  });

  it('derives budget_exhausted when every turn was used, abandoned otherwise', () => {
    expect(deriveOutcome({ ...base, turnsUsed: 3 })).toEqual({ outcome: 'budget_exhausted', source: 'derived' });
    expect(deriveOutcome(base)).toEqual({ outcome: 'abandoned', source: 'derived' });
    expect(deriveOutcome({ ...base, turns: [], turnsUsed: 0 })).toEqual({ outcome: 'abandoned', source: 'derived' });
  });

  it('looks at the last turn by index, not by array order', () => {
    expect(deriveOutcome({ ...base, turns: [turn(1), turn(0, { error: 'boom', reply: null })], turnsUsed: 2 }).outcome).toBe('abandoned');
  });
});

describe('normaliseExperience', () => {
  it('keeps persona, goal, counts, latencies and duration', () => {
    const record = normaliseExperience(input({ notes: 'felt slow' }));
    expect(record).toMatchObject({
      persona: 'impatient traveller', goal: 'rebook a cancelled flight', mode: 'manual',
      turns: 3, turn_limit: 5, replies: 3, errors: 0, outcome: 'abandoned', outcome_source: 'derived',
      latency_p50_ms: 101, latency_max_ms: 102, duration_ms: 90_000, notes: 'felt slow',
    });
    expect(record.notable_replies).toEqual([{ turn_index: 2, reasons: ['slowest'], message: 'message 2', reply: 'reply 2', latency_ms: 102, error: null }]);
  });

  it('flags errors, in-flight turns, refusals, empty and repeated replies', () => {
    const record = normaliseExperience(input({
      turnsUsed: 6,
      turnsPerSession: 6,
      turns: [
        turn(0, { reply: "I'm sorry, but I can't help with that." }),
        turn(1, { reply: '   ' }),
        turn(2, { reply: 'same answer', latencyMs: 900 }),
        turn(3, { reply: 'same answer' }),
        turn(4, { reply: null, latencyMs: null, error: 'target answered HTTP 500' }),
        turn(5, { reply: null, latencyMs: null, completed: false }),
      ],
    }));
    expect(record.notable_replies.map((item) => [item.turn_index, item.reasons])).toEqual([
      [0, ['refusal']],
      [1, ['empty']],
      [2, ['slowest']],
      [3, ['repeated']],
      [4, ['error']],
      [5, ['no_reply']],
    ]);
    expect(record).toMatchObject({ replies: 4, errors: 1, outcome: 'error', latency_max_ms: 900 });
  });

  it('keeps the most serious notable replies under the cap and cuts long texts', () => {
    const long = 'x'.repeat(50);
    const record = normaliseExperience(input({
      turns: [turn(0, { reply: "I'm sorry, but no." }), turn(1, { reply: long, latencyMs: 999 }), turn(2, { reply: null, error: 'no reply within 10 ms', latencyMs: null })],
      limits: { maxNotableReplies: 2, excerptChars: 10 },
    }));
    expect(record.notable_replies.map((item) => [item.turn_index, item.reasons])).toEqual([[1, ['slowest']], [2, ['error']]]);
    expect(record.notable_replies[0].reply).toBe(`${'x'.repeat(10)}…`);
    expect(record.notable_replies[0].message).toBe('message 1');
  });

  it('has no latency and no notable replies for a session without turns', () => {
    const record = normaliseExperience(input({ turns: [], turnsUsed: 0 }));
    expect(record).toMatchObject({ turns: 0, replies: 0, latency_p50_ms: null, latency_max_ms: null, notable_replies: [], outcome: 'abandoned' });
  });

  it('uses the stop marker for the outcome', () => {
    expect(normaliseExperience(input({ stopMarker: 'done' }))).toMatchObject({ outcome: 'goal_reached', outcome_source: 'stop_marker' });
  });
});
