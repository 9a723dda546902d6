/**
 * Script retrieval for the reply pipeline (issue 6, Scripts: `ScriptsService.search(tenantId, text, limit)`, "simple
 * ranked keyword/ILIKE match"). Pure functions, no I/O: the service reads candidate scripts with a cheap SQL
 * prefilter (a keyword contained in the text, or a search term contained in title, content or tags) and ranks them
 * here.
 *
 * Score of a script for a customer text (case-insensitive):
 * - 10 per script keyword contained in the text (the main signal: operators list the phrases a script answers);
 * - 5 when the whole title is contained in the text;
 * - 3 per search term contained in the title, 2 per term contained in a tag, 1 per term contained in the content.
 * Scripts scoring 0 are dropped; ties go to the most recently updated script, then the smaller id.
 *
 * Search terms: the text lower-cased, split on anything that is not a letter or digit; words shorter than three
 * characters are dropped (two for words with Han characters), since short pieces match inside too many words ("hi"
 * in "shipping"); a word with Han characters (Chinese has no spaces between words) also contributes its
 * overlapping two-character pieces. At most {@link MAX_SEARCH_TERMS} distinct terms, longest first.
 */

/** Most search terms taken from one text. */
export const MAX_SEARCH_TERMS = 24;

/** Points per kind of match (see the module doc). */
export const SEARCH_WEIGHTS = { keyword: 10, title: 5, termInTitle: 3, termInTag: 2, termInContent: 1 } as const;

/** What ranking needs of a script. */
export interface SearchableScript {
  id: string;
  title: string;
  content: string;
  keywords: readonly string[];
  tags: readonly string[];
  /** ms since the epoch */
  updatedAt: number;
}

/** A ranked script: its score and what matched (keywords as written, terms lower-cased). */
export interface ScriptMatch<T extends SearchableScript> {
  script: T;
  score: number;
  matchedKeywords: string[];
  matchedTerms: string[];
}

const HAN = /\p{Script=Han}/u;

/**
 * The search terms of a text (see the module doc).
 * @param text customer text or operator query
 */
export function searchTerms(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => [...word].length >= (HAN.test(word) ? 2 : 3));
  const terms = new Set<string>();
  for (const word of words) {
    terms.add(word);
    const chars = [...word];
    if (chars.length > 2 && chars.some((char) => HAN.test(char))) {
      for (let index = 0; index + 1 < chars.length; index += 1) {
        const piece = chars[index] + chars[index + 1];
        if (HAN.test(chars[index]) || HAN.test(chars[index + 1])) terms.add(piece);
      }
    }
  }
  return [...terms].sort((a, b) => [...b].length - [...a].length || (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_SEARCH_TERMS);
}

/**
 * Scores one script against a text.
 * @param terms searchTerms(text)
 */
export function scoreScript<T extends SearchableScript>(script: T, text: string, terms: readonly string[]): ScriptMatch<T> {
  const haystack = text.toLowerCase();
  const title = script.title.toLowerCase();
  const content = script.content.toLowerCase();
  const tags = script.tags.map((tag) => tag.toLowerCase());
  const matchedKeywords = [...new Set(script.keywords.filter((keyword) => keyword.trim().length > 0 && haystack.includes(keyword.trim().toLowerCase())))];
  let score = matchedKeywords.length * SEARCH_WEIGHTS.keyword;
  if (title.trim().length > 0 && haystack.includes(title.trim())) score += SEARCH_WEIGHTS.title;
  const matchedTerms: string[] = [];
  for (const term of terms) {
    let points = 0;
    if (title.includes(term)) points += SEARCH_WEIGHTS.termInTitle;
    if (tags.some((tag) => tag.includes(term))) points += SEARCH_WEIGHTS.termInTag;
    if (content.includes(term)) points += SEARCH_WEIGHTS.termInContent;
    if (points > 0) matchedTerms.push(term);
    score += points;
  }
  return { script, score, matchedKeywords, matchedTerms };
}

/**
 * Ranks scripts for a text: scores each, drops those scoring 0, sorts by score (then most recently updated, then
 * id) and keeps the first `limit`.
 */
export function rankScripts<T extends SearchableScript>(scripts: readonly T[], text: string, limit: number): ScriptMatch<T>[] {
  const terms = searchTerms(text);
  return scripts
    .map((script) => scoreScript(script, text, terms))
    .filter((match) => match.score > 0)
    .sort((a, b) => b.score - a.score || b.script.updatedAt - a.script.updatedAt || (a.script.id < b.script.id ? -1 : a.script.id > b.script.id ? 1 : 0))
    .slice(0, Math.max(0, limit));
}
