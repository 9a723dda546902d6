import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { ajvSafeRegExp } from '../../common/regex/safe-regex';
import { schemaPatternProblems } from '../../common/regex/schema-patterns';

/** Compiled validators kept at most; the oldest is dropped first. */
const MAX_CACHED_SCHEMAS = 256;

/** Ajv errors named in a failure reason. */
const MAX_REPORTED_ERRORS = 3;

/** `$schema` values that select draft 2020-12 (with or without the trailing `#`). */
const DRAFT_2020_12 = /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/;

/**
 * How a schema is read. `atrium`: draft-07, or draft 2020-12 when `$schema` says so; unknown keywords are
 * annotations (ignored). `promptfoo`: promptfoo 0.121's Ajv, draft-07 only, strict about unknown keywords
 * (an unknown keyword or a 2020-12 `$schema` refuses the schema). Both check `format` (ajv-formats) and run
 * `pattern`s on RE2.
 */
export type SchemaFlavour = 'atrium' | 'promptfoo';

type Compiled = { validate: ValidateFunction } | { error: string };

// Keyed by flavour + JSON text so the same schema in many cases (and many runs) compiles once; failures are cached
// too, because an invalid schema is checked on validation and again on every evaluation.
const cache = new Map<string, Compiled>();

/**
 * Compiles a JSON Schema for the `json-schema` and `is-json` rules (issue: "json-schema (Ajv)"; issue 24 item 1).
 * Returns `{ validate }`, or `{ error }` with Ajv's message when the schema is not a JSON object or is invalid
 * (bad keyword value, unresolvable `$ref`, unknown `format`, a `pattern` or `patternProperties` key the RE2 engine
 * can't run, naming the construct). Never throws. `format` is checked by ajv-formats (`email`, `date-time`, `uri`,
 * `uuid`, `ipv4`…; full mode). Draft 2020-12 (`"$schema": "https://json-schema.org/draft/2020-12/schema"`) uses
 * Ajv2020 in the `atrium` flavour. Patterns run on RE2 through Ajv's `code.regExp` (linear time, issue 19 item 3).
 */
export function compileJsonSchema(schema: unknown, flavour: SchemaFlavour = 'atrium'): Compiled {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return { error: 'schema must be a JSON object' };
  }
  const key = `${flavour}:${JSON.stringify(schema)}`;
  const hit = cache.get(key);
  if (hit) return hit;

  let compiled: Compiled;
  try {
    // Ajv builds only the patterns it needs, so every pattern of the schema is checked first.
    const [unsupported] = schemaPatternProblems(schema, 'schema');
    if (unsupported) throw new Error(`${unsupported.path} ${unsupported.message}`);
    compiled = { validate: newAjv(schema as Record<string, unknown>, flavour).compile(schema) };
  } catch (err) {
    compiled = { error: err instanceof Error ? err.message : String(err) };
  }
  if (cache.size >= MAX_CACHED_SCHEMAS) cache.delete(cache.keys().next().value as string);
  cache.set(key, compiled);
  return compiled;
}

/** One Ajv per schema: a shared instance refuses a second schema with the same `$id`, and keeps every schema. */
function newAjv(schema: Record<string, unknown>, flavour: SchemaFlavour): Ajv {
  const code = { regExp: ajvSafeRegExp };
  if (flavour === 'promptfoo') {
    return addFormats(new Ajv({ strictSchema: true, logger: false, code }));
  }
  const options = { allErrors: true, strict: false, logger: false as const, code };
  const is2020 = typeof schema.$schema === 'string' && DRAFT_2020_12.test(schema.$schema);
  return addFormats(is2020 ? (new Ajv2020(options) as unknown as Ajv) : new Ajv(options));
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
