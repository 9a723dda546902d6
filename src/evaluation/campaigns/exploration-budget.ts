/** An exploration budget (evaluation-platform.md, Limits): what one campaign may spend per service-cycle window. */
export interface ExplorationBudget {
  /** Exploration sessions that may be opened inside the campaign's window. */
  sessionsPerWindow: number;
  /** Virtual-user messages delivered per session (a turn counts when delivered, even with no reply). */
  turnsPerSession: number;
  /** Least time between the starts of two sessions of the campaign, in ms. */
  minSessionIntervalMs: number;
}

/** A campaign's override: any subset of the budget's fields. */
export type BudgetOverride = Partial<ExplorationBudget>;

/**
 * The effective budget (rule 4): the platform default with each field the override sets replacing the default's,
 * one by one; fields the override leaves out (or sets to null/undefined) keep the default.
 * @param defaults the platform defaults (configuration: EVAL_EXPLORATION_*)
 * @param override the campaign's override, or null
 */
export function effectiveBudget(defaults: ExplorationBudget, override: BudgetOverride | null | undefined): ExplorationBudget {
  const pick = <K extends keyof ExplorationBudget>(key: K): ExplorationBudget[K] => override?.[key] ?? defaults[key];
  return { sessionsPerWindow: pick('sessionsPerWindow'), turnsPerSession: pick('turnsPerSession'), minSessionIntervalMs: pick('minSessionIntervalMs') };
}
