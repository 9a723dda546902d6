/**
 * Escapes `%`, `_` and `\` so user text matches literally inside an `ILIKE … ESCAPE '\'` pattern.
 * @returns the escaped text, to be wrapped in `%` as the filter needs (see {@link likeContains})
 */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * A "contains" pattern of user text (the contains filters of the chat and evaluation lists), for
 * `ILIKE … ESCAPE '\'`.
 * @returns `%<escaped text>%`
 */
export function likeContains(text: string): string {
  return `%${escapeLike(text)}%`;
}
