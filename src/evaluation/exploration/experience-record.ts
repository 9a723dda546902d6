import { nearestRank } from '../rules/run-summary';
import { detectRefusal } from '../rules/refusal';
import type { StopKind } from './stop-marker';

/**
 * How an exploration session ended:
 * - `goal_reached`: the virtual user reached its goal (its model wrote `[[DONE]]`, or the caller said so at close);
 * - `abandoned`: the virtual user gave up (`[[GIVE_UP]]`, or the caller said so), or the session was closed early
 *   with turns left and nothing else to report;
 * - `budget_exhausted`: every turn of the session's budget (turns_per_session) was used without a verdict;
 * - `error`: the last turn got no reply (the target failed or timed out) and there is no verdict.
 */
export const EXPLORATION_OUTCOMES = ['goal_reached', 'abandoned', 'budget_exhausted', 'error'] as const;
export type ExplorationOutcome = (typeof EXPLORATION_OUTCOMES)[number];
/** Outcomes a caller may state when closing; the other two are facts the platform derives. */
export const CALLER_OUTCOMES = ['goal_reached', 'abandoned'] as const;
export type CallerOutcome = (typeof CALLER_OUTCOMES)[number];
/** Where the outcome came from. */
export type OutcomeSource = 'caller' | 'stop_marker' | 'derived';

/**
 * Why a reply is notable:
 * `error` the delivery failed (target error or timeout); `no_reply` the turn was still in flight at close;
 * `slowest` the slowest reply of the session; `refusal` the reply refuses (same detector as the `is-refusal` rule);
 * `empty` the reply is empty or whitespace; `repeated` the reply is the same as the previous turn's (a loop sign).
 */
export const NOTABLE_REASONS = ['error', 'no_reply', 'slowest', 'refusal', 'empty', 'repeated'] as const;
export type NotableReason = (typeof NOTABLE_REASONS)[number];

/** One notable turn in an experience record; texts are cut to the excerpt length (with `…`). */
export interface NotableReply {
  turn_index: number;
  reasons: NotableReason[];
  message: string;
  reply: string | null;
  latency_ms: number | null;
  error: string | null;
}

/** The normalised experience record stored when a session closes (snake_case: stored and returned as is). */
export interface ExperienceRecord {
  persona: string;
  goal: string;
  mode: string;
  /** Turns used (virtual-user messages delivered). */
  turns: number;
  /** The session's turn budget (turns_per_session) at close. */
  turn_limit: number;
  /** Turns that got a reply. */
  replies: number;
  /** Turns whose delivery failed. */
  errors: number;
  outcome: ExplorationOutcome;
  outcome_source: OutcomeSource;
  /** Nearest-rank median / maximum reply latency, ms; null with no replies. */
  latency_p50_ms: number | null;
  latency_max_ms: number | null;
  /** From start to close, ms. */
  duration_ms: number;
  /** The caller's notes at close, or null. */
  notes: string | null;
  /** At most the configured number, by turn index. */
  notable_replies: NotableReply[];
}

/** One turn as stored. `completed` is false while the delivery is still in flight. */
export interface ExperienceTurn {
  turnIndex: number;
  message: string;
  reply: string | null;
  latencyMs: number | null;
  error: string | null;
  completed: boolean;
}

/** What the normalisation needs. */
export interface ExperienceInput {
  persona: string;
  goal: string;
  mode: string;
  turnsUsed: number;
  turnsPerSession: number;
  turns: ExperienceTurn[];
  /** The stop marker a driving model wrote, if any. */
  stopMarker: StopKind | null;
  /** The outcome the caller stated at close, if any (wins over everything). */
  requestedOutcome?: CallerOutcome | null;
  notes?: string | null;
  startedAt: Date;
  closedAt: Date;
  /** Largest number of notable replies kept; texts are cut to `excerptChars` characters. */
  limits: { maxNotableReplies: number; excerptChars: number };
}

/** Lower number = kept first when the notable replies exceed the cap. */
const PRIORITY: Record<NotableReason, number> = { error: 0, no_reply: 1, slowest: 2, refusal: 3, empty: 4, repeated: 5 };

/** `text` cut to `max` characters, with `…` when cut. */
function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The outcome of a session (see EXPLORATION_OUTCOMES): the caller's stated outcome, else the driving model's stop
 * marker (`done` → goal_reached, `give_up` → abandoned), else derived: the last turn failed or never got a reply →
 * `error`; all turns used → `budget_exhausted`; otherwise `abandoned`. Pure.
 */
export function deriveOutcome(input: Pick<ExperienceInput, 'requestedOutcome' | 'stopMarker' | 'turns' | 'turnsUsed' | 'turnsPerSession'>): {
  outcome: ExplorationOutcome;
  source: OutcomeSource;
} {
  if (input.requestedOutcome) return { outcome: input.requestedOutcome, source: 'caller' };
  if (input.stopMarker) return { outcome: input.stopMarker === 'done' ? 'goal_reached' : 'abandoned', source: 'stop_marker' };
  const last = [...input.turns].sort((a, b) => a.turnIndex - b.turnIndex).at(-1);
  if (last && (last.error !== null || !last.completed)) return { outcome: 'error', source: 'derived' };
  if (input.turnsUsed >= input.turnsPerSession) return { outcome: 'budget_exhausted', source: 'derived' };
  return { outcome: 'abandoned', source: 'derived' };
}

/**
 * Builds the normalised experience record of a closing session (issue 4, Exploration: "close stores a normalised
 * experience record: persona, goal, turns, outcome, notable replies"). Notable replies are flagged by simple rules
 * (see NOTABLE_REASONS); one entry per turn with all its reasons; when more than `limits.maxNotableReplies` turns are
 * notable, the most serious are kept (error, no_reply, slowest, refusal, empty, repeated; then earlier turns first),
 * listed by turn index. Pure.
 */
export function normaliseExperience(input: ExperienceInput): ExperienceRecord {
  const turns = [...input.turns].sort((a, b) => a.turnIndex - b.turnIndex);
  const replied = turns.filter((turn) => turn.completed && turn.error === null && turn.reply !== null);
  const latencies = replied.map((turn) => turn.latencyMs).filter((value): value is number => value !== null && Number.isFinite(value));
  const slowest = replied.reduce<ExperienceTurn | null>((best, turn) => (turn.latencyMs !== null && (best === null || turn.latencyMs > (best.latencyMs ?? -1)) ? turn : best), null);

  const flagged: { turn: ExperienceTurn; reasons: NotableReason[] }[] = [];
  turns.forEach((turn, position) => {
    const reasons: NotableReason[] = [];
    if (turn.error !== null) reasons.push('error');
    else if (!turn.completed) reasons.push('no_reply');
    if (turn === slowest) reasons.push('slowest');
    if (turn.reply !== null && turn.error === null) {
      if (turn.reply.trim() === '') reasons.push('empty');
      else if (detectRefusal(turn.reply).refusal) reasons.push('refusal');
      const previous = turns[position - 1];
      if (previous?.reply != null && previous.reply.trim() !== '' && previous.reply.trim() === turn.reply.trim()) reasons.push('repeated');
    }
    if (reasons.length > 0) flagged.push({ turn, reasons: reasons.sort((a, b) => PRIORITY[a] - PRIORITY[b]) });
  });
  const kept = [...flagged]
    .sort((a, b) => PRIORITY[a.reasons[0]] - PRIORITY[b.reasons[0]] || a.turn.turnIndex - b.turn.turnIndex)
    .slice(0, Math.max(0, input.limits.maxNotableReplies))
    .sort((a, b) => a.turn.turnIndex - b.turn.turnIndex);

  const { outcome, source } = deriveOutcome({ ...input, turns });
  const max = input.limits.excerptChars;
  return {
    persona: input.persona,
    goal: input.goal,
    mode: input.mode,
    turns: input.turnsUsed,
    turn_limit: input.turnsPerSession,
    replies: replied.length,
    errors: turns.filter((turn) => turn.error !== null).length,
    outcome,
    outcome_source: source,
    latency_p50_ms: nearestRank(latencies, 50),
    latency_max_ms: latencies.length > 0 ? Math.max(...latencies) : null,
    duration_ms: Math.max(0, input.closedAt.getTime() - input.startedAt.getTime()),
    notes: input.notes ?? null,
    notable_replies: kept.map(({ turn, reasons }) => ({
      turn_index: turn.turnIndex,
      reasons,
      message: cut(turn.message, max),
      reply: turn.reply === null ? null : cut(turn.reply, max),
      latency_ms: turn.latencyMs,
      error: turn.error,
    })),
  };
}
