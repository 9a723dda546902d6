import type { ChatMessage } from '../../llm/chat-model';
import { STOP_MARKERS } from './stop-marker';

/** One earlier turn of the session as the virtual-user model sees it. */
export interface VirtualUserTurn {
  /** What the virtual user sent. */
  message: string;
  /** What the target replied; null when it did not (then `error` says why, or the reply is still pending). */
  reply: string | null;
  error: string | null;
}

/**
 * The chat messages that ask a model to play the virtual user (issue 4, Exploration: "persona + goal → next
 * message"). The model plays the *user*, so roles are mirrored: its own earlier messages are `assistant` turns and
 * the target's replies are `user` turns; a turn without a reply shows the failure in brackets. The system prompt gives
 * the persona, the goal, the turns left and the stop markers (`[[DONE]]` goal reached, `[[GIVE_UP]]` giving up).
 * An empty transcript ends with a `user` line asking for the opening message, so every request ends with a user turn.
 * Pure.
 * @param turnsLeft turns the session may still deliver, including the one being asked for (≥ 1)
 */
export function buildVirtualUserPrompt(persona: string, goal: string, transcript: readonly VirtualUserTurn[], turnsLeft: number): ChatMessage[] {
  const system = [
    'You play a user talking to a conversational agent, to explore how the agent behaves. Stay in character.',
    `Persona: ${persona}`,
    `Goal: ${goal}`,
    `Write only the next message this user sends to the agent: no quotes, no role labels, no commentary. You may send at most ${turnsLeft} more message${turnsLeft === 1 ? '' : 's'}.`,
    `When the goal is reached, answer with a line ${STOP_MARKERS.done} (after a final message if the user would write one).`,
    `If the user would give up, answer with a line ${STOP_MARKERS.give_up}.`,
  ].join('\n');
  const messages: ChatMessage[] = [{ role: 'system', content: system }];
  for (const turn of transcript) {
    messages.push({ role: 'assistant', content: turn.message });
    const reply = turn.reply ?? (turn.error ? `[The agent did not reply: ${turn.error}]` : '[The agent has not replied yet]');
    messages.push({ role: 'user', content: reply });
  }
  if (transcript.length === 0) messages.push({ role: 'user', content: '[The conversation has not started. Write the user\'s first message to the agent.]' });
  return messages;
}
