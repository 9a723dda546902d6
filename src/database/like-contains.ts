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

/**
 * Whether contains-searches may rely on a `pg_trgm` GIN index for terms of 3+ characters (set at start-up by
 * PagingModule from `pg_extension`). Without it every term also takes the character/bigram index path, which works
 * without any extension.
 */
let trigramIndexes = true;

/** Records whether `pg_trgm` is installed in the app's database (see {@link containsMatch}). */
export function setTrigramSearch(available: boolean): void {
  trigramIndexes = available;
}

/** Longest term (characters) that takes the character/bigram index path even where `pg_trgm` is installed. */
export const SHORT_TERM_MAX_CHARS = 2;

/**
 * A case-insensitive "contains" condition on `column` that an index serves (issue 23 item 2), with the same result as
 * `column ILIKE '%term%' ESCAPE '\'` for every term (the ILIKE always stays as the final check):
 * - terms of 3+ characters: the `pg_trgm` GIN index on the column (`gin_trgm_ops`) serves the ILIKE itself;
 * - terms of 1–2 characters (a Chinese surname), and every term where `pg_trgm` is missing: also
 *   `atrium_grams(column) @> atrium_term_grams(term)` — the GIN index over the lower-cased value's characters and
 *   bigrams (migration 1795600200000) finds the candidates; every match of the ILIKE contains those grams.
 * @param column the column as the query builder writes it (`contact.name`)
 * @param parameter a parameter name unique in the statement (`name`); `<parameter>_term` is used too
 * @param text the user's term, taken literally (`%`, `_`, `\` match themselves)
 * @returns the SQL condition (in parentheses) and its named parameters
 */
export function containsMatch(column: string, parameter: string, text: string): [string, Record<string, string>] {
  const like = `${column} ILIKE :${parameter} ESCAPE '\\'`;
  const grams = text.length > 0 && (!trigramIndexes || [...text].length <= SHORT_TERM_MAX_CHARS);
  if (!grams) return [`(${like})`, { [parameter]: likeContains(text) }];
  return [`(${like} AND atrium_grams(${column}) @> atrium_term_grams(:${parameter}_term))`, { [parameter]: likeContains(text), [`${parameter}_term`]: text }];
}
