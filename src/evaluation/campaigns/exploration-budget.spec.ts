import { effectiveBudget, ExplorationBudget } from './exploration-budget';

const defaults: ExplorationBudget = { sessionsPerWindow: 20, turnsPerSession: 10, minSessionIntervalMs: 60_000 };

describe('effectiveBudget (rule 4)', () => {
  it('is the default without an override', () => {
    expect(effectiveBudget(defaults, null)).toEqual(defaults);
    expect(effectiveBudget(defaults, undefined)).toEqual(defaults);
    expect(effectiveBudget(defaults, {})).toEqual(defaults);
  });

  it('overrides each field separately', () => {
    expect(effectiveBudget(defaults, { turnsPerSession: 3 })).toEqual({ sessionsPerWindow: 20, turnsPerSession: 3, minSessionIntervalMs: 60_000 });
    expect(effectiveBudget(defaults, { sessionsPerWindow: 2, minSessionIntervalMs: 0 })).toEqual({ sessionsPerWindow: 2, turnsPerSession: 10, minSessionIntervalMs: 0 });
  });

  it('keeps zero as an override (a campaign may allow no sessions) but not null', () => {
    expect(effectiveBudget(defaults, { sessionsPerWindow: 0 }).sessionsPerWindow).toBe(0);
    expect(effectiveBudget(defaults, { sessionsPerWindow: null as unknown as number }).sessionsPerWindow).toBe(20);
  });

  it('does not change its inputs', () => {
    const override = { turnsPerSession: 1 };
    effectiveBudget(defaults, override);
    expect(override).toEqual({ turnsPerSession: 1 });
    expect(defaults.turnsPerSession).toBe(10);
  });
});
