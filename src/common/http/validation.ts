import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { undeclaredNullFields } from './null-fields';
import { cacheValidationMetadata } from './validation-metadata-cache';

/** Flattens nested class-validator errors into `{ field: 'a.b[0].c', messages }` entries. */
export function flattenValidationErrors(errors: ValidationError[], parent = ''): { field: string; messages: string[] }[] {
  return errors.flatMap((error) => {
    const field = parent ? (/^\d+$/.test(error.property) ? `${parent}[${error.property}]` : `${parent}.${error.property}`) : error.property;
    const own = error.constraints ? [{ field, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flattenValidationErrors(error.children ?? [], field)];
  });
}

/** Validated query DTOs kept (entries) by {@link QueryResults}. */
export const QUERY_RESULTS_MAX_ENTRIES = 1_000;
/** Longest query (as JSON, characters) whose validated DTO is kept; longer ones are validated every time. */
export const QUERY_RESULTS_MAX_KEY_LENGTH = 1_024;

/**
 * Validated query DTOs by class and query text (issue 14 item 1: class-validator and class-transformer were ~6 % of a
 * hot list request's CPU). A query DTO's validation and transformation are pure functions of the query (its
 * validators and transforms read nothing else), so a query seen before answers a fresh copy of the DTO it gave then.
 * Only successes are kept (a refusal is validated again, so its error body is built as always), and only DTOs whose
 * own values are primitives or arrays of primitives (copied per request, so a caller changing its DTO changes no one
 * else's). A query not seen before costs what it did plus one JSON.stringify.
 */
class QueryResults {
  private readonly results = new LRUCache<string, object>({ max: QUERY_RESULTS_MAX_ENTRIES });
  private readonly classIds = new WeakMap<object, number>();

  /** The cache key of `value` validated as `metatype`, or undefined when it is not to be kept. */
  keyOf(value: unknown, metatype: unknown): string | undefined {
    if (typeof metatype !== 'function' || value === null || typeof value !== 'object') return undefined;
    let id = this.classIds.get(metatype);
    if (id === undefined) this.classIds.set(metatype, (id = nextClassId++));
    const text = JSON.stringify(value);
    return text.length > QUERY_RESULTS_MAX_KEY_LENGTH ? undefined : `${id}\u0000${text}`;
  }

  /** A fresh copy of the DTO kept under `key`, if any. */
  get(key: string): unknown {
    const kept = this.results.get(key);
    return kept === undefined ? undefined : copyOf(kept);
  }

  /** Keeps a copy of `result` (`value` validated as `metatype`) when its values are primitives or arrays of them. */
  set(key: string, value: unknown, result: unknown, metatype: { prototype: unknown }): void {
    // A query passed through as it came (no DTO class to validate it) is not a copy to keep.
    if (result === value || result === null || typeof result !== 'object' || Object.getPrototypeOf(result) !== metatype.prototype) return;
    if (Object.getOwnPropertySymbols(result).length > 0) return;
    const plain = Object.values(result).every((field) => isPrimitive(field) || (Array.isArray(field) && Object.getPrototypeOf(field) === Array.prototype && field.every(isPrimitive)));
    if (plain) this.results.set(key, copyOf(result));
  }
}
let nextClassId = 1;

function isPrimitive(value: unknown): boolean {
  return value === null || (typeof value !== 'object' && typeof value !== 'function');
}

/** Same prototype, same own enumerable fields in the same order; arrays copied. */
function copyOf(source: object): object {
  const copy = Object.create(Object.getPrototypeOf(source)) as Record<string, unknown>;
  for (const [name, field] of Object.entries(source)) copy[name] = Array.isArray(field) ? field.slice() : field;
  return copy;
}

/**
 * ValidationPipe that also refuses `null` in fields whose `@ApiProperty` does not declare `nullable: true`, and
 * answers a query it validated before from {@link QueryResults}.
 */
class AtriumValidationPipe extends ValidationPipe {
  private readonly queries = new QueryResults();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const key = metadata.type === 'query' ? this.queries.keyOf(value, metadata.metatype) : undefined;
    if (key !== undefined) {
      const known = this.queries.get(key);
      if (known !== undefined) return known;
    }
    const result = await super.transform(value, metadata);
    if (key !== undefined) this.queries.set(key, value, result, metadata.metatype as { prototype: unknown });
    const nulls = metadata.type === 'body' ? undeclaredNullFields(result) : [];
    if (nulls.length > 0) {
      const errors = nulls.map((field) => ({ field, messages: [`${field} must not be null (omit it to leave it unchanged)`] }));
      throw new BadRequestException({ message: `Invalid request: ${errors.map((entry) => `${entry.field} (${entry.messages[0]})`).join('; ')}`, errors });
    }
    return result;
  }
}

/**
 * The global ValidationPipe (DESIGN.md, Request pipeline): unknown fields are refused, values transformed to the
 * DTO's types, and `null` only where the field is declared `nullable: true` (issue 22); a failure is a 400 problem
 * with one `errors[]` entry per field. Class-validator's metadata of each DTO is looked up once, not per request
 * (validation-metadata-cache.ts).
 */
export function createValidationPipe(): ValidationPipe {
  cacheValidationMetadata();
  return new AtriumValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => {
      const fields = flattenValidationErrors(errors);
      return new BadRequestException({
        message: `Invalid request: ${fields.map((entry) => `${entry.field} (${entry.messages.join(', ')})`).join('; ')}`,
        errors: fields,
      });
    },
  });
}
