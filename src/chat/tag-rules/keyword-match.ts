/**
 * Case-insensitive keyword matching shared by the keyword tag rules and the keyword human-intervention rules
 * (issue 6, "The inbound pipeline"). Text and keywords are compared after Unicode NFKC normalisation (full-width
 * letters and digits equal their ASCII forms) and lower-casing, as plain substrings (no word boundaries: customers
 * write Chinese without spaces). Pure functions, no I/O.
 */

/** The form text and keywords are compared in: NFKC, then lower case (locale-independent). */
export function normalizeForMatch(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * The keywords (as given) found in `text`, in the order given.
 * @param text the message text, already normalised with {@link normalizeForMatch}
 * @param keywords the rule's keywords as stored
 */
export function keywordsFound(text: string, keywords: readonly string[]): string[] {
  return keywords.filter((keyword) => {
    const needle = normalizeForMatch(keyword).trim();
    return needle.length > 0 && text.includes(needle);
  });
}

/**
 * Checks a keyword list as written by a user: trimmed, non-empty, at most `maxLength` characters, at most `maxCount`
 * entries, no two equal after normalisation.
 * @param field the list's field name (`keywords`); problems name `keywords` or `keywords[i]`
 * @returns the readable problems per field (empty when the list is fine)
 */
export function keywordListProblems(keywords: readonly string[], field: string, limits: { maxCount: number; maxLength: number }): { field: string; message: string }[] {
  if (keywords.length === 0) return [{ field, message: 'needs at least one entry' }];
  if (keywords.length > limits.maxCount) return [{ field, message: `has ${keywords.length} entries; at most ${limits.maxCount} are allowed` }];
  const problems: { field: string; message: string }[] = [];
  const seen = new Map<string, number>();
  keywords.forEach((keyword, index) => {
    const at = `${field}[${index}]`;
    if (keyword.trim().length === 0) problems.push({ field: at, message: 'is empty' });
    else if (keyword !== keyword.trim()) problems.push({ field: at, message: 'must not start or end with spaces' });
    if (keyword.length > limits.maxLength) problems.push({ field: at, message: `is ${keyword.length} characters long; at most ${limits.maxLength} are allowed` });
    const key = normalizeForMatch(keyword).trim();
    const earlier = seen.get(key);
    if (earlier !== undefined && key.length > 0) problems.push({ field: at, message: `repeats ${field}[${earlier}] (compared case-insensitively)` });
    else seen.set(key, index);
  });
  return problems;
}
