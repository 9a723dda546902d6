/**
 * The intelligent evaluation lifecycle (evaluation-platform.md, States and transitions) as a pure transition
 * table. The spec's table, plus one documented extension:
 *
 * | from             | to               | trigger                                              |
 * |------------------|------------------|------------------------------------------------------|
 * | draft            | planning         | `transition` (in sequence)                           |
 * | planning         | pending_approval | `transition` (in sequence; carries the plan)         |
 * | pending_approval | executing        | `transition` (in sequence; this is the approval)     |
 * | executing        | completed        | `report` only: submission of the structured report   |
 * | executing        | failed           | `transition` (terminal outcome)                      |
 * | executing        | cancelled        | `transition` (terminal outcome)                      |
 * | draft, planning, pending_approval | cancelled | `transition` — extension: an evaluation can be abandoned before it runs |
 *
 * `failed` is reached from `executing` only: before execution nothing has run that could fail, so an evaluation
 * that will not go ahead is cancelled (with a reason). `completed`, `failed` and `cancelled` are terminal. Every
 * other (from, to, trigger) is refused; the refusal names the current state and the moves allowed from it.
 */
export const INTELLIGENT_STATUSES = ['draft', 'planning', 'pending_approval', 'executing', 'completed', 'failed', 'cancelled'] as const;
export type IntelligentStatus = (typeof INTELLIGENT_STATUSES)[number];

/** States nothing moves out of; open sessions are closed on entering them. */
export const TERMINAL_INTELLIGENT_STATUSES: readonly IntelligentStatus[] = ['completed', 'failed', 'cancelled'];

/** How a move is asked for: the generic transition request, or the structured report submission. */
export const TRANSITION_TRIGGERS = ['transition', 'report'] as const;
export type TransitionTrigger = (typeof TRANSITION_TRIGGERS)[number];

/** One move allowed from a state, with the trigger that performs it. */
export interface AllowedMove {
  to: IntelligentStatus;
  trigger: TransitionTrigger;
}

const MOVES: Record<IntelligentStatus, readonly AllowedMove[]> = {
  draft: [
    { to: 'planning', trigger: 'transition' },
    { to: 'cancelled', trigger: 'transition' },
  ],
  planning: [
    { to: 'pending_approval', trigger: 'transition' },
    { to: 'cancelled', trigger: 'transition' },
  ],
  pending_approval: [
    { to: 'executing', trigger: 'transition' },
    { to: 'cancelled', trigger: 'transition' },
  ],
  executing: [
    { to: 'completed', trigger: 'report' },
    { to: 'failed', trigger: 'transition' },
    { to: 'cancelled', trigger: 'transition' },
  ],
  completed: [],
  failed: [],
  cancelled: [],
};

/** Whether `status` is terminal (`completed`, `failed`, `cancelled`). */
export function isTerminalIntelligentStatus(status: IntelligentStatus): boolean {
  return TERMINAL_INTELLIGENT_STATUSES.includes(status);
}

/** The moves allowed from `from`, in lifecycle order (empty for a terminal state). Returns a copy. */
export function allowedMoves(from: IntelligentStatus): AllowedMove[] {
  return MOVES[from].map((move) => ({ ...move }));
}

/** The outcome of asking for a move: allowed, or refused with a readable reason and the allowed moves. */
export type TransitionDecision =
  | { allowed: true }
  | { allowed: false; reason: string; allowedMoves: AllowedMove[] };

/**
 * The allowed moves from `from` in words, for error details: "planning, cancelled", "completed (by submitting the
 * report), failed, cancelled", or "none: completed is a terminal state".
 */
export function describeAllowedMoves(from: IntelligentStatus): string {
  return describeMoves(from, allowedMoves(from));
}

function describeMoves(from: IntelligentStatus, moves: AllowedMove[]): string {
  if (moves.length === 0) return `none: ${from} is a terminal state`;
  return moves.map((move) => (move.trigger === 'report' ? `${move.to} (by submitting the report)` : move.to)).join(', ');
}

/**
 * Decides whether an intelligent evaluation in `from` may move to `to` by `trigger`. Pure: no clock, no I/O.
 * @param from the current state
 * @param to the requested state
 * @param trigger `report` for the report submission (always towards `completed`), else `transition`
 * @returns `{ allowed: true }`, or `{ allowed: false, reason, allowedMoves }` where the reason names the current
 *          state and the allowed moves (what the 409 body says)
 */
export function decideTransition(from: IntelligentStatus, to: IntelligentStatus, trigger: TransitionTrigger): TransitionDecision {
  const moves = allowedMoves(from);
  if (moves.some((move) => move.to === to && move.trigger === trigger)) return { allowed: true };
  const allowed = describeMoves(from, moves);
  let reason: string;
  if (moves.some((move) => move.to === to)) {
    // The move exists but is made another way: today only executing → completed, which needs the report.
    reason = `An executing evaluation becomes completed only by submitting its structured report. Allowed moves from ${from}: ${allowed}.`;
  } else if (trigger === 'report') {
    reason = `A report can be submitted only while the evaluation is executing; it is ${from}. Allowed moves from ${from}: ${allowed}.`;
  } else if (from === to) {
    reason = `The evaluation is already ${from}. Allowed moves from ${from}: ${allowed}.`;
  } else {
    reason = `Cannot move an intelligent evaluation from ${from} to ${to}. Allowed moves from ${from}: ${allowed}.`;
  }
  return { allowed: false, reason, allowedMoves: moves };
}
