import { safeRegexProblem } from './safe-regex';

/** One regular expression found in a JSON Schema: where (`<prefix>.properties.code.pattern`) and its source. */
export interface SchemaPattern {
  path: string;
  source: string;
}

/** Keywords whose values are data, not schemas: patterns inside them are not patterns. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/**
 * Every `pattern` value and `patternProperties` key inside a JSON Schema, with its field path under `prefix`
 * (issue 19, item 3: JSON-schema patterns are user-supplied regexes). Ajv only builds the patterns it needs, so a
 * write-time check walks the whole schema instead. Iterative: a deeply nested schema can't overflow the stack.
 */
export function schemaPatterns(schema: unknown, prefix: string): SchemaPattern[] {
  const found: SchemaPattern[] = [];
  // Entries are nodes still to walk or patterns already found; pushed last-first so they come out in document order.
  const stack: ({ node: unknown; path: string } | { pattern: SchemaPattern })[] = [{ node: schema, path: prefix }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    if ('pattern' in entry) {
      found.push(entry.pattern);
      continue;
    }
    const { node, path } = entry;
    const next: typeof stack = [];
    if (Array.isArray(node)) {
      node.forEach((item, index) => next.push({ node: item, path: `${path}[${index}]` }));
    } else if (typeof node === 'object' && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'pattern' && typeof value === 'string') next.push({ pattern: { path: `${path}.pattern`, source: value } });
        if (key === 'patternProperties' && typeof value === 'object' && value !== null) {
          for (const source of Object.keys(value)) next.push({ pattern: { path: `${path}.patternProperties`, source } });
        }
        if (!DATA_KEYWORDS.has(key)) next.push({ node: value, path: `${path}.${key}` });
      }
    }
    stack.push(...next.reverse());
  }
  return found;
}

/**
 * The patterns of a JSON Schema that the RE2 engine can't run, each with its path and the problem (construct named,
 * see safe-regex.ts). Empty when every pattern may be stored.
 */
export function schemaPatternProblems(schema: unknown, prefix: string): { path: string; message: string }[] {
  return schemaPatterns(schema, prefix).flatMap(({ path, source }) => {
    const message = safeRegexProblem(source);
    return message ? [{ path, message: `${JSON.stringify(source)} ${message}` }] : [];
  });
}
