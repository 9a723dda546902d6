import type { ExplorationBudget } from '../campaigns/exploration-budget';

/**
 * Which budget limit refused a request (evaluation-platform.md, Errors: "Exploration session over budget: sessions per
 * window, turns per session, or minimum interval between sessions → 409 with a readable reason").
 * `outside_window` is the campaign's service-cycle window itself: sessions are counted per window, so none may start
 * before it opens or after it closes.
 */
export type BudgetLimit = 'sessions_per_window' | 'min_session_interval' | 'turns_per_session' | 'outside_window';

/** A refused request: which limit, a readable reason, the numbers behind it and when a retry can succeed. */
export interface BudgetRefusal {
  allowed: false;
  limit: BudgetLimit;
  /** A sentence a person can act on: the limit, the numbers, when the next attempt is allowed. */
  reason: string;
  /** The limit's value (sessions, turns or ms); null for `outside_window`. */
  limitValue: number | null;
  /** What is used of it (sessions in the window, turns of the session, ms since the previous start); null for `outside_window`. */
  used: number | null;
  /** Earliest time a new attempt can pass this limit; null when none will within the current window or session. */
  nextAllowedAt: Date | null;
}

/** Outcome of a budget check. */
export type BudgetDecision = { allowed: true } | BudgetRefusal;

/** What the session budget check needs; all times are instants (compare in one clock, e.g. the database's). */
export interface SessionBudgetFacts {
  /** The campaign's effective budget (rule 4: defaults with the override applied field by field). */
  budget: ExplorationBudget;
  /** The campaign's service-cycle window, half-open: [windowStart, windowEnd). */
  windowStart: Date;
  windowEnd: Date;
  /** Sessions of the campaign started inside the window (closed ones included). */
  sessionsInWindow: number;
  /** Start of the campaign's most recent session, null when it has none. */
  lastSessionStartedAt: Date | null;
  now: Date;
}

/** What is left of a campaign's exploration budget at `now` (the patrol reports it). */
export interface RemainingBudget {
  sessionsPerWindow: number;
  sessionsUsed: number;
  /** max(0, sessionsPerWindow − sessionsUsed). */
  sessionsLeft: number;
  turnsPerSession: number;
  minSessionIntervalMs: number;
  /** When the next session may start: `now` when one may start at once; null when none may in this window. */
  nextSessionAllowedAt: Date | null;
  /** ms from `now` to `nextSessionAllowedAt` (0 = now); null when none may in this window. */
  nextSessionInMs: number | null;
  /** The limit that blocks a session now, null when one may start now. */
  blockedBy: BudgetLimit | null;
}

const iso = (date: Date) => date.toISOString();

/**
 * Whether a campaign may open one more exploration session at `facts.now` (evaluation-platform.md, Limits and
 * Errors). Checked in this order, the first failing one is reported:
 * 1. `outside_window`: `now` is before the window opens (next allowed: the window start) or at/after it closes (none).
 * 2. `sessions_per_window`: `sessionsInWindow >= sessionsPerWindow` (none until a new window, i.e. a new campaign).
 * 3. `min_session_interval`: the previous session started less than `minSessionIntervalMs` ago (next allowed: previous
 *    start + interval, or none when that is at/after the window end).
 * Pure.
 */
export function checkSessionBudget(facts: SessionBudgetFacts): BudgetDecision {
  const { budget, windowStart, windowEnd, sessionsInWindow, lastSessionStartedAt, now } = facts;
  const window = `${iso(windowStart)} to ${iso(windowEnd)}`;
  if (now.getTime() < windowStart.getTime()) {
    return {
      allowed: false,
      limit: 'outside_window',
      reason: `The campaign's service-cycle window (${window}) has not opened yet: exploration sessions may start from ${iso(windowStart)}.`,
      limitValue: null,
      used: null,
      nextAllowedAt: windowStart,
    };
  }
  if (now.getTime() >= windowEnd.getTime()) {
    return {
      allowed: false,
      limit: 'outside_window',
      reason: `The campaign's service-cycle window (${window}) has closed: no more exploration sessions can start for this campaign.`,
      limitValue: null,
      used: null,
      nextAllowedAt: null,
    };
  }
  if (sessionsInWindow >= budget.sessionsPerWindow) {
    return {
      allowed: false,
      limit: 'sessions_per_window',
      reason:
        `Exploration budget exhausted: the campaign has started ${sessionsInWindow} of its ${budget.sessionsPerWindow} sessions per window ` +
        `(sessions_per_window) in its window ${window}; no more sessions are allowed before the window closes.`,
      limitValue: budget.sessionsPerWindow,
      used: sessionsInWindow,
      nextAllowedAt: null,
    };
  }
  if (lastSessionStartedAt) {
    const sinceMs = now.getTime() - lastSessionStartedAt.getTime();
    if (sinceMs < budget.minSessionIntervalMs) {
      const next = new Date(lastSessionStartedAt.getTime() + budget.minSessionIntervalMs);
      const fits = next.getTime() < windowEnd.getTime();
      const sinceText = `${Math.max(0, sinceMs)} ms ago`;
      return {
        allowed: false,
        limit: 'min_session_interval',
        reason:
          `Too soon: the previous exploration session of this campaign started ${sinceText} and the minimum interval between sessions ` +
          `(min_session_interval_ms) is ${budget.minSessionIntervalMs} ms; ` +
          (fits
            ? `the next session is allowed at ${iso(next)} (in ${next.getTime() - now.getTime()} ms).`
            : `that is at or after the window's end (${iso(windowEnd)}), so no more sessions can start in this window.`),
        limitValue: budget.minSessionIntervalMs,
        used: Math.max(0, sinceMs),
        nextAllowedAt: fits ? next : null,
      };
    }
  }
  return { allowed: true };
}

/**
 * Whether a session that has used `turnsUsed` turns may deliver one more virtual-user message (a turn counts once
 * delivered, even when no reply comes). Pure.
 * @param turnsPerSession the campaign's effective `turnsPerSession`
 */
export function checkTurnBudget(turnsUsed: number, turnsPerSession: number): BudgetDecision {
  if (turnsUsed < turnsPerSession) return { allowed: true };
  return {
    allowed: false,
    limit: 'turns_per_session',
    reason:
      `Exploration budget exhausted: this session has used ${turnsUsed} of its ${turnsPerSession} turns (turns_per_session); ` +
      `close it, and open a new session if the campaign's budget allows one.`,
    limitValue: turnsPerSession,
    used: turnsUsed,
    nextAllowedAt: null,
  };
}

/**
 * The remaining exploration budget of a campaign at `facts.now` (patrol rule 2): sessions left in the window, when the
 * next session may start (combining every session limit) and the turns each session gets. Pure.
 */
export function remainingBudget(facts: SessionBudgetFacts): RemainingBudget {
  const { budget, sessionsInWindow, now } = facts;
  const decision = checkSessionBudget(facts);
  let nextSessionAllowedAt: Date | null = now;
  let blockedBy: BudgetLimit | null = null;
  if (!decision.allowed) {
    blockedBy = decision.limit;
    nextSessionAllowedAt = decision.nextAllowedAt;
    // Waiting for the window to open may still leave the interval in the way (two steps: counts do not change with time).
    if (nextSessionAllowedAt) {
      const later = checkSessionBudget({ ...facts, now: nextSessionAllowedAt });
      if (!later.allowed) nextSessionAllowedAt = later.nextAllowedAt;
    }
  }
  return {
    sessionsPerWindow: budget.sessionsPerWindow,
    sessionsUsed: sessionsInWindow,
    sessionsLeft: Math.max(0, budget.sessionsPerWindow - sessionsInWindow),
    turnsPerSession: budget.turnsPerSession,
    minSessionIntervalMs: budget.minSessionIntervalMs,
    nextSessionAllowedAt,
    nextSessionInMs: nextSessionAllowedAt ? Math.max(0, nextSessionAllowedAt.getTime() - now.getTime()) : null,
    blockedBy,
  };
}
