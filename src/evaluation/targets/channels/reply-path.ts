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

/** A plain segment: `.name` (an identifier) or `[index]`. */
const PLAIN_SEGMENT = /\.([\p{L}_][\p{L}\p{N}_]*)|\[(\d+)\]/uy;

/** Names a plain walk never reads (they are left to JSONPath, which knows what it does with them). */
const SPECIAL_NAMES = new Set(['__proto__', 'constructor', 'prototype', 'length']);

/**
 * The keys of a path made only of plain segments (`$.reply`, `$.choices[0].message.content`), or undefined for any
 * other path (wildcards, `..`, slices, quoted names): those are always read by JSONPath.
 */
export function plainReplyPath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const keys: (string | number)[] = [];
  PLAIN_SEGMENT.lastIndex = 1;
  while (PLAIN_SEGMENT.lastIndex < path.length) {
    const match = PLAIN_SEGMENT.exec(path);
    if (!match) return undefined;
    if (match[1] !== undefined) {
      if (SPECIAL_NAMES.has(match[1])) return undefined;
      keys.push(match[1]);
    } else keys.push(Number(match[2]));
  }
  return keys;
}

/** The value at `keys` when every step is an own property of an object (names) or an element of an array (indexes); else undefined. */
function walkPlain(body: unknown, keys: readonly (string | number)[]): { value: unknown } | undefined {
  let node = body;
  for (const key of keys) {
    if (node === null || typeof node !== 'object') return undefined;
    if (typeof key === 'number' ? !Array.isArray(node) || key >= node.length : Array.isArray(node) || !Object.prototype.hasOwnProperty.call(node, key)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return { value: node };
}

/**
 * Reads the reply text out of a parsed reply body. The first match counts; numbers and booleans are turned into text.
 * A plain path (see plainReplyPath) that leads to a value is read by walking the body (an evaluation run reads
 * thousands of replies; JSONPath's evaluation was a visible share of a case's CPU), with the same result JSONPath
 * gives; every other path, and a plain one that leads nowhere, is read by JSONPath.
 * @param keys plainReplyPath(path), when the caller computed it once
 * @throws ChannelError (non-retryable) when nothing matches or the match is an object, array or null
 */
export function extractReply(body: unknown, path: string, keys: readonly (string | number)[] | undefined = plainReplyPath(path)): string {
  const walked = keys ? walkPlain(body, keys) : undefined;
  // eval: false, so even a path that slipped past validation cannot run script expressions.
  const matches = walked ? [walked.value] : (JSONPath({ path, json: body as object, wrap: true, eval: false }) as unknown[]);
  if (matches.length === 0) throw new ChannelError(`reply path ${path} matched nothing in the target's reply`, { retryable: false });
  const value = matches[0];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : 'an object';
  throw new ChannelError(`reply path ${path} matched ${kind}, not text`, { retryable: false });
}
