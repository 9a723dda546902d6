/** How a model-driven virtual user ends a conversation: the goal is reached, or the user gives up. */
export type StopKind = 'done' | 'give_up';

/** The markers a virtual-user model writes to stop (told to it in the prompt, see virtual-user.ts). */
export const STOP_MARKERS: Record<StopKind, string> = { done: '[[DONE]]', give_up: '[[GIVE_UP]]' };

/** `[[DONE]]` / `[[GIVE_UP]]`, case-insensitive, spaces or `-` allowed inside (`[[ give up ]]`, `[[give-up]]`). */
const MARKER = /\[\[\s*(done|give[\s_-]*up)\s*\]\]/i;

/** A virtual-user model's answer split into the message to send and whether it asked to stop. */
export interface StopDetection {
  /** The text before the first marker, trimmed ('' when the answer is only a marker). Text after a marker is dropped. */
  message: string;
  /** The first marker found, or null when the answer holds none. */
  stop: StopKind | null;
}

/**
 * Finds a stop marker in a virtual-user model's answer (issue 4, Exploration: "driven by a model configuration until a
 * turn limit or a stop marker"). The marker may stand on its own line (the documented form) or end a line
 * (`Thanks, bye! [[DONE]]`); the first one wins. The message is what comes before it, so a final message and the marker
 * can come in one answer. Pure.
 */
export function detectStopMarker(answer: string): StopDetection {
  const match = MARKER.exec(answer);
  if (!match) return { message: answer.trim(), stop: null };
  const kind: StopKind = match[1].toLowerCase().startsWith('done') ? 'done' : 'give_up';
  return { message: answer.slice(0, match.index).trim(), stop: kind };
}
