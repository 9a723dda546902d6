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
  const grams = gramsMatch(`atrium_grams(${column})`, `${parameter}_term`, text);
  if (!grams) return [`(${like})`, { [parameter]: likeContains(text) }];
  return [`(${like} AND ${grams[0]})`, { [parameter]: likeContains(text), ...grams[1] }];
}

/**
 * The character/bigram candidate condition of a contains-search, or undefined where the trigram index serves the term
 * (3+ characters with `pg_trgm`) or the term is empty: `<grams> @> atrium_term_grams(:parameter)`. For searches whose
 * indexed expression is not `atrium_grams(column)` (a JSON array's elements: `atrium_jsonb_grams(keywords)`); the
 * caller keeps its own ILIKE as the final check.
 * @param grams the indexed grams expression
 * @param parameter a parameter name unique in the statement, bound to the raw term
 * @param options.evenWithTrigrams for every term length: the expression has no trigram index (a JSON array's elements)
 */
export function gramsMatch(grams: string, parameter: string, text: string, options: { evenWithTrigrams?: boolean } = {}): [string, Record<string, string>] | undefined {
  if (text.length === 0 || (trigramIndexes && !options.evenWithTrigrams && [...text].length > SHORT_TERM_MAX_CHARS)) return undefined;
  return [`${grams} @> atrium_term_grams(:${parameter})`, { [parameter]: text }];
}
