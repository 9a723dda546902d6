import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { ajvSafeRegExp } from '../../common/regex/safe-regex';
import { schemaPatternProblems } from '../../common/regex/schema-patterns';

/** Compiled validators kept at most; the oldest is dropped first. */
const MAX_CACHED_SCHEMAS = 256;

/** Ajv errors named in a failure reason. */
const MAX_REPORTED_ERRORS = 3;

type Compiled = { validate: ValidateFunction } | { error: string };

// Keyed by JSON text so the same schema in many cases (and many runs) compiles once; failures are cached too,
// because an invalid schema is checked on validation and again on every evaluation.
const cache = new Map<string, Compiled>();

/**
 * Compiles a JSON Schema (draft-07, Ajv 8) for the `json-schema` and `is-json` rules (issue: "json-schema (Ajv)").
 * Returns `{ validate }`, or `{ error }` with Ajv's message when the schema is not a JSON object or is invalid
 * (bad keyword value, unresolvable `$ref`, a `pattern` or `patternProperties` key the RE2 engine can't run, naming the
 * construct). Never throws. Unknown keywords and `format`s are ignored: no format plugin is a dependency, and authors'
 * schemas often carry annotations. Patterns run on RE2 through Ajv's `code.regExp` (linear time, issue 19 item 3).
 */
export function compileJsonSchema(schema: unknown): Compiled {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { error: 'schema must be a JSON object' };
  }
  const key = JSON.stringify(schema);
  const hit = cache.get(key);
  if (hit) return hit;

  let compiled: Compiled;
  try {
    // Ajv builds only the patterns it needs, so every pattern of the schema is checked first.
    const [unsupported] = schemaPatternProblems(schema, 'schema');
    if (unsupported) throw new Error(`${unsupported.path} ${unsupported.message}`);
    // One Ajv per schema: a shared instance refuses a second schema with the same `$id`, and keeps every schema.
    const ajv = new Ajv({ allErrors: true, strict: false, logger: false, code: { regExp: ajvSafeRegExp } });
    compiled = { validate: ajv.compile(schema) };
  } catch (err) {
    compiled = { error: err instanceof Error ? err.message : String(err) };
  }
  if (cache.size >= MAX_CACHED_SCHEMAS) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/**
 * The first Ajv errors as one readable string, e.g. `/total must be number; / must have required property 'id'`
 * (at most 3, then `(+N more)`). Empty string for no errors.
 */
export function describeSchemaErrors(errors: ErrorObject[] | null | undefined): string {
  if (!errors?.length) return '';
  const shown = errors
    .slice(0, MAX_REPORTED_ERRORS)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  const more = errors.length > MAX_REPORTED_ERRORS ? ` (+${errors.length - MAX_REPORTED_ERRORS} more)` : '';
  return shown.join('; ') + more;
}
