/**
 * Conversation states and the moves between them (chat-management-api.md, States and transitions: conversation
 * `activate` and `terminate`; the spec names no states, so they are defined here):
 *
 * ```
 *   pending ──activate──▶ active ──terminate──▶ terminated (final)
 *      └──────────────terminate──────────────────▲
 * ```
 *
 * - A conversation is created `pending` (or `active` when created with `activate: true`).
 * - `activate`: pending → active. On an active conversation it changes nothing and succeeds (PUT is idempotent).
 * - `terminate`: pending or active → terminated. On a terminated conversation it changes nothing and succeeds.
 * - `terminated` is final: activating it is refused (409). A customer who writes again starts a NEW conversation,
 *   so a terminated one keeps its history, times and group as they were.
 * - Editing (PUT) is allowed while open (pending, active); deleting is allowed unless active (terminate first).
 */
export const CONVERSATION_STATUSES = ['pending', 'active', 'terminated'] as const;
export type ConversationStatus = (typeof CONVERSATION_STATUSES)[number];

/** The state-changing operations. */
export const CONVERSATION_ACTIONS = ['activate', 'terminate'] as const;
export type ConversationAction = (typeof CONVERSATION_ACTIONS)[number];

/** The state each action leads to. */
const TARGET: Record<ConversationAction, ConversationStatus> = { activate: 'active', terminate: 'terminated' };

/** Which states each action may move from (besides its own target state, where it is a no-op). */
const MOVES_FROM: Record<ConversationAction, readonly ConversationStatus[]> = {
  activate: ['pending'],
  terminate: ['pending', 'active'],
};

/** What applying an action to a state does. */
export type TransitionPlan =
  | { kind: 'move'; from: ConversationStatus; to: ConversationStatus }
  | { kind: 'unchanged'; status: ConversationStatus }
  | { kind: 'refused'; status: ConversationStatus; allowed: ConversationAction[] };

/** Whether the status graph has an edge from `from` to `to` (a real change; same-state is not a move). */
export function canMove(from: ConversationStatus, to: ConversationStatus): boolean {
  return CONVERSATION_ACTIONS.some((action) => TARGET[action] === to && MOVES_FROM[action].includes(from));
}

/** The actions that change a conversation in `status` (empty for the final state). */
export function allowedActions(status: ConversationStatus): ConversationAction[] {
  return CONVERSATION_ACTIONS.filter((action) => MOVES_FROM[action].includes(status));
}

/** The status an action leads to. */
export function targetStatus(action: ConversationAction): ConversationStatus {
  return TARGET[action];
}

/** The states an action really moves from: the `status IN (...)` of its conditional UPDATE. */
export function movableFrom(action: ConversationAction): readonly ConversationStatus[] {
  return MOVES_FROM[action];
}

/**
 * What `action` does to a conversation in `status`: a move, nothing (already in the target state), or a refusal
 * naming the actions allowed from `status`.
 */
export function planTransition(status: ConversationStatus, action: ConversationAction): TransitionPlan {
  if (MOVES_FROM[action].includes(status)) return { kind: 'move', from: status, to: TARGET[action] };
  if (status === TARGET[action]) return { kind: 'unchanged', status };
  return { kind: 'refused', status, allowed: allowedActions(status) };
}

/** A sentence for a refused move: names the current state and the allowed moves. */
export function refusalMessage(conversationId: string, status: ConversationStatus, action: ConversationAction): string {
  const allowed = allowedActions(status);
  const moves = allowed.length ? `allowed: ${allowed.join(', ')}` : `${status} is final, no move is allowed; create a new conversation instead`;
  return `Conversation ${conversationId} is ${status}; it cannot ${action} (${moves}).`;
}

/** Whether a conversation in `status` may be edited (PUT): only while open. */
export function canEdit(status: ConversationStatus): boolean {
  return status !== 'terminated';
}

/** Whether a conversation in `status` may be deleted: not while active (terminate it first). */
export function canDelete(status: ConversationStatus): boolean {
  return status !== 'active';
}
