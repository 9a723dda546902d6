import { checkSessionBudget, checkTurnBudget, remainingBudget, SessionBudgetFacts } from './session-budget';

const at = (iso: string) => new Date(iso);
const facts = (extra: Partial<SessionBudgetFacts> = {}): SessionBudgetFacts => ({
  budget: { sessionsPerWindow: 3, turnsPerSession: 5, minSessionIntervalMs: 60_000 },
  windowStart: at('2030-01-01T00:00:00Z'),
  windowEnd: at('2030-01-31T00:00:00Z'),
  sessionsInWindow: 0,
  lastSessionStartedAt: null,
  now: at('2030-01-10T12:00:00Z'),
  ...extra,
});

describe('checkSessionBudget', () => {
  it('allows the first session inside the window', () => {
    expect(checkSessionBudget(facts())).toEqual({ allowed: true });
  });

  it('refuses when the window already has sessions_per_window sessions, with the numbers', () => {
    const decision = checkSessionBudget(facts({ sessionsInWindow: 3, lastSessionStartedAt: at('2030-01-02T00:00:00Z') }));
    expect(decision).toMatchObject({ allowed: false, limit: 'sessions_per_window', limitValue: 3, used: 3, nextAllowedAt: null });
    if (decision.allowed) throw new Error('unreachable');
    expect(decision.reason).toContain('3 of its 3 sessions per window (sessions_per_window)');
    expect(decision.reason).toContain('2030-01-01T00:00:00.000Z to 2030-01-31T00:00:00.000Z');
  });

  it('allows the last session of the budget', () => {
    expect(checkSessionBudget(facts({ sessionsInWindow: 2, lastSessionStartedAt: at('2030-01-02T00:00:00Z') }))).toEqual({ allowed: true });
  });

  it('refuses a session inside the minimum interval and says when the next one is allowed', () => {
    const decision = checkSessionBudget(facts({ sessionsInWindow: 1, lastSessionStartedAt: at('2030-01-10T11:59:40Z') }));
    expect(decision).toMatchObject({ allowed: false, limit: 'min_session_interval', limitValue: 60_000, used: 20_000, nextAllowedAt: at('2030-01-10T12:00:40Z') });
    if (decision.allowed) throw new Error('unreachable');
    expect(decision.reason).toContain('started 20000 ms ago');
    expect(decision.reason).toContain('(min_session_interval_ms) is 60000 ms');
    expect(decision.reason).toContain('allowed at 2030-01-10T12:00:40.000Z (in 40000 ms)');
  });

  it('allows exactly at the end of the interval, and always with an interval of 0', () => {
    expect(checkSessionBudget(facts({ sessionsInWindow: 1, lastSessionStartedAt: at('2030-01-10T11:59:00Z') }))).toEqual({ allowed: true });
    const zero = facts({ budget: { sessionsPerWindow: 3, turnsPerSession: 5, minSessionIntervalMs: 0 } });
    expect(checkSessionBudget({ ...zero, sessionsInWindow: 1, lastSessionStartedAt: zero.now })).toEqual({ allowed: true });
  });

  it('reports the window limit before the interval', () => {
    const decision = checkSessionBudget(facts({ sessionsInWindow: 3, lastSessionStartedAt: at('2030-01-10T11:59:59Z') }));
    expect(decision).toMatchObject({ allowed: false, limit: 'sessions_per_window' });
  });

  it('says no later session fits when the interval ends after the window', () => {
    const decision = checkSessionBudget(facts({ now: at('2030-01-30T23:59:30Z'), sessionsInWindow: 1, lastSessionStartedAt: at('2030-01-30T23:59:20Z') }));
    expect(decision).toMatchObject({ allowed: false, limit: 'min_session_interval', nextAllowedAt: null });
    if (decision.allowed) throw new Error('unreachable');
    expect(decision.reason).toContain("at or after the window's end");
  });

  it('refuses before the window opens (next: the window start) and after it closes (never)', () => {
    expect(checkSessionBudget(facts({ now: at('2029-12-31T00:00:00Z') }))).toMatchObject({ allowed: false, limit: 'outside_window', nextAllowedAt: at('2030-01-01T00:00:00Z') });
    const after = checkSessionBudget(facts({ now: at('2030-01-31T00:00:00Z') }));
    expect(after).toMatchObject({ allowed: false, limit: 'outside_window', nextAllowedAt: null });
    if (after.allowed) throw new Error('unreachable');
    expect(after.reason).toContain('has closed');
  });

  it('refuses every session when the budget allows none', () => {
    expect(checkSessionBudget(facts({ budget: { sessionsPerWindow: 0, turnsPerSession: 5, minSessionIntervalMs: 0 } }))).toMatchObject({ allowed: false, limit: 'sessions_per_window', used: 0, limitValue: 0 });
  });
});

describe('checkTurnBudget', () => {
  it('allows turns below the limit and refuses at it, with the numbers', () => {
    expect(checkTurnBudget(0, 2)).toEqual({ allowed: true });
    expect(checkTurnBudget(1, 2)).toEqual({ allowed: true });
    const decision = checkTurnBudget(2, 2);
    expect(decision).toMatchObject({ allowed: false, limit: 'turns_per_session', limitValue: 2, used: 2, nextAllowedAt: null });
    if (decision.allowed) throw new Error('unreachable');
    expect(decision.reason).toContain('used 2 of its 2 turns (turns_per_session)');
  });
});

describe('remainingBudget', () => {
  it('reports sessions left and a session possible now', () => {
    const now = at('2030-01-10T12:00:00Z');
    expect(remainingBudget(facts({ sessionsInWindow: 1, lastSessionStartedAt: at('2030-01-09T00:00:00Z') }))).toEqual({
      sessionsPerWindow: 3, sessionsUsed: 1, sessionsLeft: 2, turnsPerSession: 5, minSessionIntervalMs: 60_000,
      nextSessionAllowedAt: now, nextSessionInMs: 0, blockedBy: null,
    });
  });

  it('reports the time until the interval has passed', () => {
    const remaining = remainingBudget(facts({ sessionsInWindow: 1, lastSessionStartedAt: at('2030-01-10T11:59:30Z') }));
    expect(remaining).toMatchObject({ sessionsLeft: 2, blockedBy: 'min_session_interval', nextSessionAllowedAt: at('2030-01-10T12:00:30Z'), nextSessionInMs: 30_000 });
  });

  it('reports no next session when the window budget is spent (never negative)', () => {
    const remaining = remainingBudget(facts({ budget: { sessionsPerWindow: 1, turnsPerSession: 5, minSessionIntervalMs: 0 }, sessionsInWindow: 2 }));
    expect(remaining).toMatchObject({ sessionsLeft: 0, blockedBy: 'sessions_per_window', nextSessionAllowedAt: null, nextSessionInMs: null });
  });

  it('before the window opens, combines the window start with the interval', () => {
    const remaining = remainingBudget(facts({ now: at('2029-12-31T23:59:00Z'), lastSessionStartedAt: at('2029-12-31T23:59:50Z') }));
    expect(remaining).toMatchObject({ blockedBy: 'outside_window', nextSessionAllowedAt: at('2030-01-01T00:00:50Z'), nextSessionInMs: 110_000 });
  });
});
