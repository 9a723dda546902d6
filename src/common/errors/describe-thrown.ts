import { inspect, types } from 'node:util';

/**
 * Text for whatever was thrown, for the last-resort handlers of src/main.ts and the CLIs (issue 19, item 5): an
 * Error gives its stack (or only its message with `stack: false`) followed by its `cause` chain and, for an
 * AggregateError, its inner errors; anything else (undefined, a string, a plain object) is described as it is, so the
 * handler never fails itself on `error.stack` and the real cause is never hidden.
 * @param thrown the rejection reason or caught value, of any type
 * @param options.stack false: one line per error, no stack frames (CLI output)
 * @returns text without a trailing newline
 */
export function describeThrown(thrown: unknown, options: { stack?: boolean } = {}): string {
  const withStack = options.stack ?? true;
  const seen = new Set<unknown>();
  const describe = (value: unknown, depth: number): string => {
    // isNativeError: also errors of another realm (a vm context, a Jest sandbox), where instanceof Error is false.
    if (value instanceof Error || types.isNativeError(value)) {
      if (seen.has(value) || depth > 5) return value.message || value.name;
      seen.add(value);
      const head = withStack && value.stack ? value.stack : value.message || `${value.name} (no message)`;
      const parts = [head];
      if (value instanceof AggregateError) for (const inner of value.errors) parts.push(`  - ${describe(inner, depth + 1).replace(/\n/g, '\n    ')}`);
      if (value.cause !== undefined) parts.push(`Caused by: ${describe(value.cause, depth + 1)}`);
      return parts.join('\n');
    }
    if (value === undefined || value === null) return `${String(value)} was thrown (no error object; the log lines above may say more)`;
    if (typeof value === 'string') return value || '(an empty string was thrown)';
    return `a non-error value was thrown: ${inspect(value, { depth: 3, breakLength: Infinity })}`;
  };
  return describe(thrown, 0);
}
