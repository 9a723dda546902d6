import {
  allowedMoves,
  decideTransition,
  describeAllowedMoves,
  INTELLIGENT_STATUSES,
  IntelligentStatus,
  isTerminalIntelligentStatus,
  TRANSITION_TRIGGERS,
  TransitionTrigger,
} from './intelligent-lifecycle';

/**
 * The expected table, written out by hand from the spec (States and transitions) plus the documented extension
 * (cancel before execution), independently of the table in the code: "from>to" → the one trigger that performs it.
 */
const EXPECTED: Record<string, TransitionTrigger> = {
  'draft>planning': 'transition',
  'planning>pending_approval': 'transition',
  'pending_approval>executing': 'transition',
  'executing>completed': 'report',
  'executing>failed': 'transition',
  'executing>cancelled': 'transition',
  'draft>cancelled': 'transition',
  'planning>cancelled': 'transition',
  'pending_approval>cancelled': 'transition',
};

const EVERY_CASE = INTELLIGENT_STATUSES.flatMap((from) =>
  INTELLIGENT_STATUSES.flatMap((to) => TRANSITION_TRIGGERS.map((trigger) => [from, to, trigger] as [IntelligentStatus, IntelligentStatus, TransitionTrigger])),
);

describe('intelligent evaluation lifecycle (evaluation-platform.md, States and transitions)', () => {
  it('covers every (from, to, trigger) triple: 7 × 7 × 2', () => {
    expect(EVERY_CASE).toHaveLength(98);
  });

  it.each(EVERY_CASE)('%s → %s by %s', (from, to, trigger) => {
    const decision = decideTransition(from, to, trigger);
    const expected = EXPECTED[`${from}>${to}`] === trigger;
    expect(decision.allowed).toBe(expected);
    if (!decision.allowed) {
      // The refusal names the current state and every allowed move.
      expect(decision.reason).toContain(from);
      expect(decision.allowedMoves).toEqual(allowedMoves(from));
      for (const move of decision.allowedMoves) expect(decision.reason).toContain(move.to);
      if (isTerminalIntelligentStatus(from)) expect(decision.reason).toContain('terminal');
    }
  });

  it.each(INTELLIGENT_STATUSES.map((from) => [from]))('lists exactly the expected moves from %s', (from) => {
    const expected = Object.entries(EXPECTED)
      .filter(([pair]) => pair.startsWith(`${from}>`))
      .map(([pair, trigger]) => ({ to: pair.split('>')[1], trigger }));
    expect(allowedMoves(from)).toEqual(expect.arrayContaining(expected));
    expect(allowedMoves(from)).toHaveLength(expected.length);
  });

  it('marks completed, failed and cancelled terminal and nothing else', () => {
    expect(INTELLIGENT_STATUSES.filter(isTerminalIntelligentStatus)).toEqual(['completed', 'failed', 'cancelled']);
  });

  it('explains that completed needs the report when asked through a transition', () => {
    const decision = decideTransition('executing', 'completed', 'transition');
    expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining('only by submitting its structured report') });
  });

  it('explains that a report is accepted only while executing', () => {
    const decision = decideTransition('pending_approval', 'completed', 'report');
    expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining('only while the evaluation is executing; it is pending_approval') });
  });

  it('says a move to the same state is already done', () => {
    expect(decideTransition('planning', 'planning', 'transition')).toMatchObject({ allowed: false, reason: expect.stringContaining('already planning') });
  });

  it('describes the allowed moves in words, marking the report route and terminal states', () => {
    expect(describeAllowedMoves('draft')).toBe('planning, cancelled');
    expect(describeAllowedMoves('executing')).toBe('completed (by submitting the report), failed, cancelled');
    expect(describeAllowedMoves('failed')).toBe('none: failed is a terminal state');
  });

  it('returns copies, so callers cannot change the table', () => {
    allowedMoves('draft').pop();
    expect(allowedMoves('draft')).toHaveLength(2);
  });
});
