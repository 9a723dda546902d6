import { LRUCache } from 'lru-cache';

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
 * Characters that no case mapping changes or produces (Chinese characters, kana, Hangul, digits, white space): checked
 * over every code point against JavaScript's and PostgreSQL's `lower()` (like-contains.spec.ts).
 */
const CASELESS_TERM = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Nd}\s]+$/u;

/**
 * The operator of a case-insensitive contains-search of `text` (issue 23 acceptance 1): `LIKE` when the term holds only
 * characters without case ({@link CASELESS_TERM}, e.g. `王伟`), where it selects exactly the rows `ILIKE` selects; else
 * `ILIKE`. In a UTF-8 database `ILIKE` lower-cases every value it tests: a walk of 18,000 names of a million for `王伟`
 * took 2.6 ms with `ILIKE` against 0.55 ms with `LIKE` (PostgreSQL 17, no parallel workers).
 * @returns `'LIKE'` or `'ILIKE'`, to write before a pattern of {@link likeContains}
 */
export function likeOperator(text: string): 'LIKE' | 'ILIKE' {
  return CASELESS_TERM.test(text) ? 'LIKE' : 'ILIKE';
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
 * @param options.common the term is common in the table ({@link termIsCommon}): the ILIKE alone, served by no index
 * @returns the SQL condition (in parentheses) and its named parameters
 */
export function containsMatch(column: string, parameter: string, text: string, options: { common?: boolean } = {}): [string, Record<string, string>] {
  // A common term (termIsCommon): the ILIKE alone, on `column || ''` so no search index serves it and the planner walks
  // the list's sort index (a page is found in its first rows) instead of reading every candidate.
  const operator = likeOperator(text);
  if (options.common) return [`((${column} || '') ${operator} :${parameter} ESCAPE '\\')`, { [parameter]: likeContains(text) }];
  const like = `${column} ${operator} :${parameter} ESCAPE '\\'`;
  const grams = gramsMatch(`atrium_grams(${column})`, `${parameter}_term`, text);
  if (!grams) return [`(${like})`, { [parameter]: likeContains(text) }];
  return [`(${like} AND ${grams[0]})`, { [parameter]: likeContains(text), ...grams[1] }];
}

/**
 * The scope a search is confined to, for the scoped search indexes (migration 1795600700000): the equality columns every
 * query of the list has (`contact.tenant_id`, `contact.work_chat_user_id`) and their values in this query, in the
 * index's order.
 */
export interface SearchScope {
  columns: readonly string[];
  values: readonly string[];
}

/** Joins a scope's parts, in SQL as in the index expression (`tenant_id || '/' || work_chat_user_id`) and in JS. */
const SCOPE_SEPARATOR = '/';

/**
 * U+001F: atrium_grams and atrium_scoped_grams (migration 1795600700000) end each gram with it and split on it, so a
 * gram holding it comes out broken. A term holding it (never in a real name) takes no grams index, only the ILIKE.
 */
const GRAM_SEPARATOR = '\u001f';

/**
 * A case-insensitive "contains" condition on `column` served by the scoped grams index of `(scope, column)` (issue 23
 * acceptance 1; migration 1795600700000), with the same result as `column ILIKE '%term%' ESCAPE '\'` for every term.
 * See {@link scopedContainsAny}.
 */
export function scopedContainsMatch(column: string, scope: SearchScope, parameter: string, text: string): [string, Record<string, unknown>] {
  return scopedContainsAny([column], scope, parameter, text);
}

/**
 * "One of `columns` contains the term (or `orElse` holds)", case-insensitively, served by the scoped grams index of
 * each `(scope, column)` (issue 23 acceptance 1; migration 1795600700000), with the same result as
 * `column1 ILIKE '%term%' ESCAPE '\' OR column2 ILIKE … OR orElse` for every term (`%`, `_`, `\` taken literally):
 *
 *   (grams(column1) @> term grams OR grams(column2) @> … OR orElse) AND (column1 ILIKE … OR column2 ILIKE … OR orElse)
 *
 * `atrium_scoped_grams(<scope>, column) @> atrium_scoped_term_grams(:<parameter>_scope, :<parameter>_term)` reads only
 * this scope's posting lists of the term's character, bigram or trigrams, so a rare term costs its matches in the
 * scope, however big the table. Every ILIKE match holds its column's grams, so the two halves give exactly the ILIKE's
 * rows; written as two top-level conditions, the first one is the bitmap scan's own condition and is not computed
 * again per row (an `(ILIKE AND grams) OR …` would compute every candidate's grams). A term common in the scope
 * ({@link scopedTermIsCommon}) takes the ILIKEs alone (`options.grams: false`): the list's sort index walk finds a
 * page in its first rows. The caller's query keeps its own equalities on the scope columns.
 * @param columns the columns as the query builder writes them (`contact.name`)
 * @param parameter a parameter name unique in the statement; `<parameter>_scope` and `<parameter>_term` are used too
 * @param text the user's term; an empty one (or one holding U+001F) gives the ILIKEs alone
 * @param orElse another condition that also selects a row (`contact.external_user_id = :keyword`) and its parameters
 * @param options.grams false: the ILIKEs alone, for a term common in the scope ({@link scopedTermIsCommon}): the sort
 *   index walk then computes no grams (atrium_scoped_grams is a costly function, declared so to the planner)
 * @returns the SQL condition (in parentheses) and its named parameters
 */
export function scopedContainsAny(
  columns: readonly string[],
  scope: SearchScope,
  parameter: string,
  text: string,
  orElse?: [string, Record<string, unknown>],
  options: { grams?: boolean } = {},
): [string, Record<string, unknown>] {
  const any = (conditions: string[]) => [...conditions, ...(orElse ? [orElse[0]] : [])].join(' OR ');
  const operator = likeOperator(text);
  const likes = any(columns.map((column) => `${column} ${operator} :${parameter} ESCAPE '\\'`));
  const parameters = { [parameter]: likeContains(text), ...orElse?.[1] };
  if (options.grams === false || text.length === 0 || text.includes(GRAM_SEPARATOR)) return [`(${likes})`, parameters];
  const scoped = scope.columns.join(` || '${SCOPE_SEPARATOR}' || `);
  const grams = any(columns.map((column) => `atrium_scoped_grams(${scoped}, ${column}) @> atrium_scoped_term_grams(:${parameter}_scope, :${parameter}_term)`));
  return [`((${grams}) AND (${likes}))`, { ...parameters, [`${parameter}_scope`]: scope.values.join(SCOPE_SEPARATOR), [`${parameter}_term`]: text }];
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
  if (text.length === 0 || text.includes(GRAM_SEPARATOR) || (trigramIndexes && !options.evenWithTrigrams && [...text].length > SHORT_TERM_MAX_CHARS)) return undefined;
  return [`${grams} @> atrium_term_grams(:${parameter})`, { [parameter]: text }];
}

/** Runs one SQL statement with positional parameters (`$1`…): a DataSource's or EntityManager's `query`. */
export type RunQuery = (sql: string, parameters?: unknown[]) => Promise<unknown>;

/** Decisions of {@link scopedTermIsCommon} by table, columns, scope and term. */
const commonTerms = new LRUCache<string, Promise<boolean>>({ max: 10_000, ttl: 3_600_000 });

/**
 * Whether a scoped contains-search of `text` should walk the list's sort index with the ILIKEs alone (`true`: the term
 * is common in the scope) or read its candidates from the scoped grams indexes (`false`). Decided by counting the
 * scope's candidates in those indexes, at most `commonRows + 1` of them (the caller passes
 * PAGING_SEARCH_TOTAL_EXACT_CAP: past it the total is an estimate anyway, and the walk finds a page of such a term in
 * its first rows; below it, reading the candidates costs at most that many rows). The scope is in the index keys, so
 * this count is the scope's, which the planner cannot know: it multiplies the grams' frequency by the tenant's and the
 * staff member's own and takes a common term for a rare one.
 * The decision is kept for an hour per term and scope: the first search of a term pays the count (one posting list
 * read; ~2 ms for 5,000 candidates), the next ones and the later pages of that search nothing, and the pages keep one
 * statement (a cursor is bound to its statement). Another process counts the same rows, so decides alike unless the
 * rows changed across the bound in between; a cursor of the other statement is then answered 400 (start again).
 * @param run runs the count (a DataSource's `query`)
 * @param table the searched table (`chat_external_contact`)
 * @param scope the scope columns and values, columns unqualified (`['tenant_id', 'work_chat_user_id']`)
 * @param columns the searched columns, unqualified (`['name', 'remark']`)
 * @returns also true for a term no grams index serves (empty, or holding U+001F): the ILIKE path, with the scope's
 *   equalities indexable
 */
export function scopedTermIsCommon(run: RunQuery, table: string, scope: SearchScope, columns: readonly string[], text: string, options: { commonRows: number }): Promise<boolean> {
  if (text.length === 0 || text.includes(GRAM_SEPARATOR)) return Promise.resolve(true);
  const key = JSON.stringify([table, scope, columns, text, options.commonRows]);
  let deciding = commonTerms.get(key);
  if (!deciding) {
    const scoped = scope.columns.join(` || '${SCOPE_SEPARATOR}' || `);
    const grams = columns.map((column) => `atrium_scoped_grams(${scoped}, ${column}) @> atrium_scoped_term_grams($1, $2)`).join(' OR ');
    const limit = Math.max(0, Math.floor(options.commonRows)) + 1;
    deciding = run(`SELECT count(*)::int AS candidates FROM (SELECT 1 FROM ${table} WHERE ${grams} LIMIT ${limit}) AS scoped`, [scope.values.join(SCOPE_SEPARATOR), text]).then(
      (rows) => Number((rows as Array<{ candidates: number }>)[0]?.candidates ?? 0) > options.commonRows,
    );
    commonTerms.set(key, deciding);
    deciding.catch(() => commonTerms.delete(key));
  }
  return deciding;
}

/**
 * The scope's equalities of a scoped search (`contact.tenant_id = :tenantId AND …`), written so that no btree serves
 * them when the scoped grams index does (`indexable: false`, a term rare in its scope): the planner would otherwise AND
 * the grams' bitmap with a bitmap of every row of the tenant or staff member — a cost that follows the scope's size,
 * not the term's matches. `column || ''` leaves each equality a plain filter on the few candidates (the grams already
 * hold the scope). A common term's walk of the sort index needs them indexable.
 * @param equalities the scope columns as the query builder writes them, with their parameter names
 * @returns the SQL condition, without parameters (the caller binds them)
 */
export function scopeEqualities(equalities: ReadonlyArray<[column: string, parameter: string]>, indexable: boolean): string {
  return equalities.map(([column, parameter]) => (indexable ? `${column} = :${parameter}` : `(${column} || '') = :${parameter}`)).join(' AND ');
}

/**
 * How many index tuples a walk of a list's covering sort index reads in the time a search index's candidate costs
 * (a heap row fetched and checked): measured on the data-scale seed (issue 23), 7,600 tuples in 3 ms against 2,500
 * candidates in 6 ms.
 */
export const WALKED_TUPLES_PER_CANDIDATE = 6;

/** Rows a page 0 of the default size needs (20 and the look-ahead row): what a walk must find. */
const WALKED_PAGE_ROWS = 21;

/**
 * The candidates past which a term of a search without a scope is common ({@link termIsCommon}) in a table of `rows`:
 * a walk of the sort index finds a page of a term matching `m` rows after about `21 × rows / m` tuples, the search
 * index reads all `m`; the two cost the same at `m = √(21 × rows / WALKED_TUPLES_PER_CANDIDATE)` (1,871 of a million
 * rows), and never less than the search cap, below which the total is counted exactly. Either way a page costs at
 * most about that many rows: it grows as the square root of the table, not with it.
 */
export function commonCandidates(rows: number, commonRows: number): number {
  return Math.max(Math.floor(commonRows), Math.ceil(Math.sqrt((WALKED_PAGE_ROWS * Math.max(rows, 0)) / WALKED_TUPLES_PER_CANDIDATE)));
}

/**
 * {@link scopedTermIsCommon} for a search without a scope ({@link containsMatch} on a whole table, e.g. the scenarios'
 * `q`), where a term's matches grow with the table: common when its candidates in its own search index (the
 * character/bigram GIN for 1–2 characters, the trigram GIN's ILIKE for 3+) are more than {@link commonCandidates} of
 * the table's rows (pg_class.reltuples). A common term's page walks the sort index with the ILIKE alone, reading ids
 * from an index that holds the searched column (the list asks the pager for `walk`), and is not counted; a rare one
 * reads its candidates from the search index. Counted once per term (at most that many candidates), kept an hour.
 * Known limit: a walk assumes the matches are spread over the sort order; sorted by the searched column itself they
 * are not (a term's names sit together), and a page of a mid-frequency term sorted by name can read far more tuples.
 * @param table the searched table; `column` unqualified
 */
export function termIsCommon(run: RunQuery, table: string, column: string, text: string, options: { commonRows: number }): Promise<boolean> {
  if (text.length === 0) return Promise.resolve(true);
  const key = JSON.stringify([table, column, text, options.commonRows]);
  let deciding = commonTerms.get(key);
  if (!deciding) {
    const grams = gramsMatch(`atrium_grams(${column})`, 'term', text);
    const [condition, parameter] = grams ? [`atrium_grams(${column}) @> atrium_term_grams($1)`, text] : [`${column} ${likeOperator(text)} $1 ESCAPE '\\'`, likeContains(text)];
    const cap = Math.max(0, Math.floor(options.commonRows));
    deciding = run(
      `SELECT count(*)::int AS candidates, (SELECT greatest(reltuples, 0) FROM pg_class WHERE oid = '${table}'::regclass) AS rows
         FROM (SELECT 1 FROM ${table} WHERE ${condition}
                LIMIT (SELECT greatest(${cap}, ceil(sqrt(${WALKED_PAGE_ROWS} * greatest(reltuples, 0) / ${WALKED_TUPLES_PER_CANDIDATE}))) + 1 FROM pg_class WHERE oid = '${table}'::regclass)::bigint) AS found`,
      [parameter],
    ).then((result) => {
      const [row] = result as Array<{ candidates: number; rows: number }>;
      return Number(row?.candidates ?? 0) > commonCandidates(Number(row?.rows ?? 0), cap);
    });
    commonTerms.set(key, deciding);
    deciding.catch(() => commonTerms.delete(key));
  }
  return deciding;
}

/** One scope column of a {@link ListSearch}: the table's column (unqualified), its parameter name in the list's statement, and this request's value. */
export interface ScopeColumn {
  column: string;
  parameter: string;
  value: string;
}

/**
 * A list's contains-search, described once for both its statement and its common-or-rare decision (issue 23
 * acceptance 1): the searched table, the alias the list's query gives it, the scope (the equality columns of the
 * scoped grams index, in its order: migrations 1795600700000 and later; none for a whole-table search) and the searched
 * columns. Columns are unqualified here; {@link searchMatch} and {@link searchScopeCondition} qualify them with the
 * alias, the candidate count ({@link searchTermIsCommon}) reads them bare.
 */
export interface ListSearch {
  table: string;
  alias: string;
  scope: readonly ScopeColumn[];
  columns: readonly string[];
}

/** The search's scope with its columns qualified by the list's alias (`contact.tenant_id`) or bare (`tenant_id`, for the candidate count). */
export function searchScope(search: ListSearch, qualified: boolean): SearchScope {
  return { columns: search.scope.map(({ column }) => (qualified ? `${search.alias}.${column}` : column)), values: search.scope.map(({ value }) => value) };
}

/**
 * Whether `text` is common for `search` — in its scope ({@link scopedTermIsCommon}) or, without a scope, in its table
 * ({@link termIsCommon}, one column only) — counting at most `commonRows + 1` candidates once per term (kept an hour).
 * Lists call it through {@link import('../common/paging/list-pager').ListPager.isCommonTerm}, which passes the
 * configured search cap.
 * @throws Error a search without a scope over more than one column (a programming error)
 */
export function searchTermIsCommon(run: RunQuery, search: ListSearch, text: string, commonRows: number): Promise<boolean> {
  if (search.scope.length > 0) return scopedTermIsCommon(run, search.table, searchScope(search, false), search.columns, text, { commonRows });
  if (search.columns.length !== 1) throw new Error(`A search without a scope reads one column (${search.table}: ${search.columns.join(', ')}).`);
  return termIsCommon(run, search.table, search.columns[0], text, { commonRows });
}

/**
 * The search's condition on its columns (qualified with the alias): with a scope, {@link scopedContainsAny} (grams
 * unless `common`); without, {@link containsMatch} on its one column (a rare term's list passes `candidates` to the
 * pager, so that its page reads the candidates and sorts them).
 * @param options.common the term's decision ({@link searchTermIsCommon})
 * @param options.orElse another condition that also selects a row (scoped searches only)
 */
export function searchMatch(
  search: ListSearch,
  parameter: string,
  text: string,
  options: { common: boolean; orElse?: [string, Record<string, unknown>] },
): [string, Record<string, unknown>] {
  const columns = search.columns.map((column) => `${search.alias}.${column}`);
  if (search.scope.length > 0) return scopedContainsAny(columns, searchScope(search, true), parameter, text, options.orElse, { grams: !options.common });
  if (columns.length !== 1 || options.orElse) throw new Error(`A search without a scope reads one column and no other condition (${search.table}).`);
  // A rare term: the search index's condition. The list passes `candidates` to the pager, whose statements then read
  // every match before their first row (ListPager's windowed statement), so the planner never walks the sort index
  // instead, as it did under a bare LIMIT for 1,000 `Quinn` of 1M rows (23,000 heap rows, 45 ms; the candidates take
  // 1–3 ms).
  return containsMatch(columns[0], parameter, text, { common: options.common });
}

/**
 * The scope's equalities of the list's statement ({@link scopeEqualities}, qualified with the alias) and their
 * parameters: plain filters when the scoped grams index finds the rows (`rare`: a term rare in its scope), indexable
 * otherwise (no term, or a common one).
 */
export function searchScopeCondition(search: ListSearch, rare: boolean): [string, Record<string, string>] {
  return [
    scopeEqualities(search.scope.map(({ column, parameter }) => [`${search.alias}.${column}`, parameter]), !rare),
    Object.fromEntries(search.scope.map(({ parameter, value }) => [parameter, value])),
  ];
}
