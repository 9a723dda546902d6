/**
 * Types of chat variables and the check of a value against its definition (issue 6, Variables: "a value must match
 * its definition's type → 400"). Pure functions, no I/O.
 *
 * A value is JSON:
 * - `string`: a JSON string (empty allowed);
 * - `number`: a finite JSON number (a numeric string such as "12" is refused, so templates never guess);
 * - `boolean`: `true` or `false`;
 * - `date`: a string, either a calendar date `YYYY-MM-DD` or an ISO 8601 date-time with seconds optional and a zone
 *   (`2026-03-01T08:30:00Z`, `2026-03-01T16:30+08:00`); impossible dates (2026-02-30) are refused;
 * - `enum`: a string equal to one of the definition's `options`;
 * - `json`: any JSON value (object, array, string, number, boolean).
 * `null` is never a value: a subject without a value falls back to the definition's default (delete the value to
 * clear it).
 */
export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'date', 'enum', 'json'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

/** Names a variable may have (what `{{name}}` placeholders match): a letter or `_`, then letters, digits, `_`; at most 64. */
export const VARIABLE_NAME_PATTERN = /^[\p{L}_][\p{L}\p{N}_]{0,63}$/u;

/** Longest enum option, characters. */
export const VARIABLE_OPTION_MAX_CHARS = 100;

/** What a value check needs of a definition. */
export interface VariableTypeShape {
  name: string;
  type: VariableType;
  /** Allowed values of an `enum`. */
  options?: readonly string[] | null;
}

/** Result of {@link checkVariableValue}: ok, or the reason the value does not fit (a sentence for the caller). */
export type VariableCheck = { ok: true } | { ok: false; reason: string };

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/;

/**
 * Checks a value against its definition's type (and options for `enum`).
 * @param definition the variable's name, type and options
 * @param value the JSON value (already parsed)
 * @returns `{ ok: true }`, or `{ ok: false, reason }` naming the variable, the expected type and what was given
 */
export function checkVariableValue(definition: VariableTypeShape, value: unknown): VariableCheck {
  const refuse = (expected: string): VariableCheck => ({ ok: false, reason: `Variable "${definition.name}" is of type ${definition.type} and expects ${expected}; got ${describeJson(value)}.` });
  if (value === null || value === undefined) {
    return { ok: false, reason: `Variable "${definition.name}" cannot be set to ${value === null ? 'null' : 'nothing'}; delete the value to fall back to the default.` };
  }
  switch (definition.type) {
    case 'string':
      return typeof value === 'string' ? { ok: true } : refuse('a JSON string');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { ok: true } : refuse('a JSON number');
    case 'boolean':
      return typeof value === 'boolean' ? { ok: true } : refuse('true or false');
    case 'date':
      return typeof value === 'string' && isDateText(value) ? { ok: true } : refuse('a date "YYYY-MM-DD" or an ISO 8601 date-time with a zone ("2026-03-01T08:30:00Z")');
    case 'enum': {
      const options = definition.options ?? [];
      const list = options.map((option) => JSON.stringify(option)).join(', ');
      return typeof value === 'string' && options.includes(value) ? { ok: true } : refuse(`one of ${list}`);
    }
    case 'json':
      return isJsonValue(value) ? { ok: true } : refuse('a JSON value');
    default:
      return { ok: false, reason: `Variable "${definition.name}" has an unknown type "${String(definition.type)}".` };
  }
}

/**
 * Checks the `options` of a definition: an `enum` needs 1..maxOptions distinct, non-empty strings of at most
 * {@link VARIABLE_OPTION_MAX_CHARS} characters; other types take none.
 * @returns problems as `{ field, message }` (empty when fine)
 */
export function checkVariableOptions(type: VariableType, options: readonly unknown[] | null | undefined, maxOptions: number): { field: string; message: string }[] {
  if (type !== 'enum') {
    return options != null ? [{ field: 'options', message: `options are only for enum variables, not ${type}.` }] : [];
  }
  if (!options || options.length === 0) return [{ field: 'options', message: 'An enum variable needs at least one option.' }];
  const problems: { field: string; message: string }[] = [];
  if (options.length > maxOptions) problems.push({ field: 'options', message: `options has ${options.length} entries; at most ${maxOptions} are allowed (CHAT_VARIABLE_MAX_ENUM_OPTIONS).` });
  const seen = new Set<string>();
  options.forEach((option, index) => {
    if (typeof option !== 'string' || option.length === 0 || option.length > VARIABLE_OPTION_MAX_CHARS) {
      problems.push({ field: `options[${index}]`, message: `Each option is a non-empty string of at most ${VARIABLE_OPTION_MAX_CHARS} characters.` });
    } else if (seen.has(option)) {
      problems.push({ field: `options[${index}]`, message: `Option "${option}" is listed twice.` });
    } else {
      seen.add(option);
    }
  });
  return problems;
}

/** Size of a value as stored and sent: bytes of its JSON text (UTF-8). */
export function variableValueBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** A short description of a JSON value for error messages: its kind and, for scalars, the value (cut at 40 characters). */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === 'number') return `a number (${value})`;
  if (typeof value === 'boolean') return `a boolean (${value})`;
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/** Whether the text is a real calendar date `YYYY-MM-DD` or ISO 8601 date-time with a zone (see the module doc). */
export function isDateText(text: string): boolean {
  const calendar = CALENDAR_DATE.exec(text);
  if (calendar) return isRealDate(+calendar[1], +calendar[2], +calendar[3]);
  const dateTime = DATE_TIME.exec(text);
  if (!dateTime) return false;
  const [, year, month, day, hour, minute, second, , zoneHours, zoneMinutes] = dateTime;
  if (!isRealDate(+year, +month, +day)) return false;
  if (+hour > 23 || +minute > 59 || (second !== undefined && +second > 59)) return false;
  return zoneHours === undefined || (+zoneHours <= 14 && +zoneMinutes <= 59);
}

function isRealDate(year: number, month: number, day: number): boolean {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether a parsed value is plain JSON (no functions, no non-finite numbers, no undefined inside). */
function isJsonValue(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isJsonValue);
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).every(isJsonValue);
  return false;
}
