/**
 * Pure checks of a JSON request body (issue 19, item 4: "a depth limit on JSON gives 400 problem+json, never 500").
 * V8's JSON.parse copes with any depth, but the code after it (class-transformer, class-validator, our own walkers)
 * recurses per level: a 10,000-deep body overflowed the stack there (a 500). The depth is measured on the text before
 * parsing, in one linear pass with no recursion.
 */

/**
 * The deepest nesting of arrays and objects in a JSON text, counted until it exceeds `limit` (then `limit + 1` is
 * returned at once). Brackets inside strings don't count. The text need not be valid JSON: the parser judges that.
 * @param text the body as text
 * @param limit stop counting past this depth
 * @returns the depth (0 for a scalar), at most `limit + 1`
 */
export function jsonNestingDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i += 1; // backslash: skip the escaped character
      else if (code === 0x22) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return deepest;
      }
    } else if (code === 0x7d || code === 0x5d) depth -= 1;
  }
  return deepest;
}

/** The media type and charset of a Content-Type header value, lower-cased (`application/json`, `utf-8`). */
export function parseContentType(header: string | undefined): { type: string; charset?: string } {
  if (!header) return { type: '' };
  const [type, ...parameters] = header.split(';');
  const charset = parameters
    .map((parameter) => parameter.trim().split('='))
    .find(([name]) => name.trim().toLowerCase() === 'charset')?.[1]
    ?.trim()
    .replace(/^"(.*)"$/, '$1')
    .toLowerCase();
  return charset ? { type: type.trim().toLowerCase(), charset } : { type: type.trim().toLowerCase() };
}

/**
 * Whether a request is a JSON body this app parses: `Content-Type: application/json` (as Express's JSON parser took
 * it) and a body announced by `Content-Length` or `Transfer-Encoding`.
 */
export function isJsonBodyRequest(headers: { 'content-type'?: string; 'content-length'?: string; 'transfer-encoding'?: string }): boolean {
  if (parseContentType(headers['content-type']).type !== 'application/json') return false;
  return headers['transfer-encoding'] !== undefined || headers['content-length'] !== undefined;
}

/**
 * Parses a JSON body text as Express's strict JSON parser did: empty → `{}`; otherwise it must be an object or an
 * array at the top level, nested at most `maxDepth` deep.
 * @returns the value, or `{ problem }` with a readable reason (400)
 */
export function parseJsonBody(text: string, maxDepth: number): { value: unknown } | { problem: string } {
  if (text.trim() === '') return { value: {} };
  const first = text.trimStart()[0];
  if (first !== '{' && first !== '[') return { problem: 'The JSON body must be an object or an array.' };
  const depth = jsonNestingDepth(text, maxDepth);
  if (depth > maxDepth) return { problem: `The JSON body is nested more than ${maxDepth} levels deep (HTTP_JSON_MAX_DEPTH).` };
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { problem: `The body is not valid JSON: ${(error as Error).message}` };
  }
}
