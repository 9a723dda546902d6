/**
 * Escapes `%`, `_` and `\` so user text matches literally inside an `ILIKE … ESCAPE '\'` pattern, as a substring
 * (the "contains" filters of the chat and evaluation lists).
 * @returns `%<escaped text>%`
 */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
