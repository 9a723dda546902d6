import type { ChatTurn } from './channel';

/** Placeholders a body template may hold; whitespace inside the braces is allowed (`{{ message }}`). */
const PLACEHOLDER = /\{\{\s*(message|history|session_id)\s*\}\}/g;
const WHOLE_HISTORY = /^\{\{\s*history\s*\}\}$/;

/**
 * Fills an HTTP channel's body template for one send (issue: http channel, like promptfoo's HTTP provider).
 * Works on the parsed JSON value, never on JSON text, so any message is JSON-safe:
 * - a string that is exactly `{{history}}` becomes the history array (`[{ role, content }]`, oldest first);
 * - in any other string `{{message}}` and `{{session_id}}` are replaced by their text and `{{history}}` by the
 *   history as JSON text;
 * - object keys, numbers, booleans and null are kept; unknown `{{...}}` are left as they are.
 * Pure: the template is not modified.
 * @param template a JSON value (object, array, string, number, boolean or null)
 * @returns a new JSON value ready for JSON.stringify
 */
export function renderBodyTemplate(template: unknown, values: { message: string; history: ChatTurn[]; sessionId: string }): unknown {
  const history = () => values.history.map(({ role, content }) => ({ role, content }));
  const render = (node: unknown): unknown => {
    if (typeof node === 'string') {
      if (WHOLE_HISTORY.test(node)) return history();
      // A replacer function, because a replacement string would expand `$&`, `$1`... found in the message.
      return node.replace(PLACEHOLDER, (_match, name: string) =>
        name === 'message' ? values.message : name === 'session_id' ? values.sessionId : JSON.stringify(history()),
      );
    }
    if (Array.isArray(node)) return node.map(render);
    // fromEntries defines own properties, so a "__proto__" key in a template stays data.
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, render(item)]));
    return node;
  };
  return render(template);
}

/** True when some string in the template holds `{{message}}`, i.e. the case's message would actually be sent. */
export function templateMentionsMessage(template: unknown): boolean {
  if (typeof template === 'string') return /\{\{\s*message\s*\}\}/.test(template);
  if (Array.isArray(template)) return template.some(templateMentionsMessage);
  if (template && typeof template === 'object') return Object.values(template).some(templateMentionsMessage);
  return false;
}
