import { JSONPath } from 'jsonpath-plus';
import { ChannelError } from './channel';

/**
 * One segment of the JSONPath subset accepted for reply paths: `.name`, `.*`, `..name`, `..*`, `[0]`, `[*]`,
 * `[-1:]` (slices), `['name']`, `["name"]`, each optionally after `..`. Filters, scripts and jsonpath-plus
 * extensions (`~`, `^`, `@type()`) are refused: a reply path only points at text.
 */
const SEGMENT = /(?:\.\.?(?:[\p{L}_][\p{L}\p{N}_-]*|\*)|(?:\.\.)?\[(?:\d+|\*|-?\d*:-?\d*|'[^'\\]*'|"[^"\\]*")\])/uy;

/**
 * Checks a reply path against the accepted JSONPath subset (issue: http channel "a JSON path to the reply text").
 * @returns a problem description, or undefined when the path is usable
 */
export function replyPathProblem(path: unknown): string | undefined {
  const usage = "replyPath must be a JSONPath such as $.reply or $.choices[0].message.content (segments .name, ['name'], [index], [start:end], *, ..)";
  if (typeof path !== 'string' || !path.startsWith('$')) return usage;
  SEGMENT.lastIndex = 1;
  while (SEGMENT.lastIndex < path.length) {
    const at = SEGMENT.lastIndex;
    if (!SEGMENT.test(path)) return `${usage}; unexpected text at position ${at}`;
  }
  return undefined;
}

/**
 * Reads the reply text out of a parsed reply body. The first match counts; numbers and booleans are turned into text.
 * @throws ChannelError (non-retryable) when nothing matches or the match is an object, array or null
 */
export function extractReply(body: unknown, path: string): string {
  // eval: false, so even a path that slipped past validation cannot run script expressions.
  const matches = JSONPath({ path, json: body as object, wrap: true, eval: false }) as unknown[];
  if (matches.length === 0) throw new ChannelError(`reply path ${path} matched nothing in the target's reply`, { retryable: false });
  const value = matches[0];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object';
  throw new ChannelError(`reply path ${path} matched ${kind}, not text`, { retryable: false });
}
