import { isUuidShaped } from '../../common/ids/uuid-shape';
import { escapeLike, likeOperator } from '../../database/like-contains';

/**
 * Saved contact-list filters (issue 6, Contact views: "filter definition (validated structure: which contact
 * fields, operators), sort"). Pure functions, no I/O: the structure check behind the 400 field errors, and the
 * translation of a view into a parameterised SQL condition and order over chat_external_contact for the contact
 * list.
 *
 * A filter is `{ match: 'all' | 'any', conditions: [{ field, operator, value? }] }` (one level, no nesting):
 * `all` joins the conditions with AND, `any` with OR; no conditions matches every contact. Fields are contact
 * fields of ExternalContactEntity; each has a kind that decides its operators and values:
 *
 * | kind | fields | operators → value |
 * |---|---|---|
 * | text | name, remark, description, mobile, externalUserId, workChatUserId, state, customerCorpName | eq, ne, contains, notContains, startsWith → string (1..200 chars); in, notIn → 1..100 strings; isEmpty, isNotEmpty → none |
 * | id | corpId | eq, ne → UUID; in, notIn → 1..100 UUIDs |
 * | boolean | aiEnabled | eq → true / false |
 * | choice | gender (0 unknown, 1 male, 2 female), type (1 personal, 2 enterprise) | eq, ne → one of the numbers; in, notIn → 1..100 of them |
 * | tags | tags (tag names) | hasAny, hasAll, hasNone → 1..100 names (1..64 chars); isEmpty, isNotEmpty → none |
 * | time | createdAt, addedAt, lastMessageAt, stateAt | before, after → `yyyy-MM-dd HH:mm:ss` (UTC, the chat timestamp format); between → [from, to] inclusive, from ≤ to; withinLastDays → integer 1..3650; isEmpty, isNotEmpty → none |
 *
 * Text comparisons: eq/ne/in/notIn exact; contains/notContains/startsWith case-insensitive, wildcards taken
 * literally. `ne`, `notIn`, `notContains` also match contacts where the field is empty (null). Sort: up to
 * {@link CONTACT_VIEW_MAX_SORT_KEYS} keys of name, remark, createdAt, updatedAt, addedAt, lastMessageAt, stateAt.
 */

/** Kinds of contact field a condition can test. */
export type ContactFieldKind = 'text' | 'id' | 'boolean' | 'choice' | 'tags' | 'time';

/** A filterable contact field: its kind, its column in chat_external_contact, allowed values of a choice. */
export interface ContactFieldSpec {
  kind: ContactFieldKind;
  column: string;
  values?: readonly number[];
}

/** The contact fields a view may filter on (see the module doc). */
export const CONTACT_VIEW_FIELDS: Readonly<Record<string, ContactFieldSpec>> = {
  name: { kind: 'text', column: 'name' },
  remark: { kind: 'text', column: 'remark' },
  description: { kind: 'text', column: 'description' },
  mobile: { kind: 'text', column: 'mobile' },
  externalUserId: { kind: 'text', column: 'external_user_id' },
  workChatUserId: { kind: 'text', column: 'work_chat_user_id' },
  state: { kind: 'text', column: 'state' },
  customerCorpName: { kind: 'text', column: 'customer_corp_name' },
  corpId: { kind: 'id', column: 'corp_id' },
  aiEnabled: { kind: 'boolean', column: 'ai_enabled' },
  gender: { kind: 'choice', column: 'gender', values: [0, 1, 2] },
  type: { kind: 'choice', column: 'type', values: [1, 2] },
  tags: { kind: 'tags', column: 'tags' },
  createdAt: { kind: 'time', column: 'created_at' },
  addedAt: { kind: 'time', column: 'added_at' },
  lastMessageAt: { kind: 'time', column: 'last_message_at' },
  stateAt: { kind: 'time', column: 'state_at' },
};

/** Operators of each field kind. */
export const CONTACT_VIEW_OPERATORS: Readonly<Record<ContactFieldKind, readonly string[]>> = {
  text: ['eq', 'ne', 'contains', 'notContains', 'startsWith', 'in', 'notIn', 'isEmpty', 'isNotEmpty'],
  id: ['eq', 'ne', 'in', 'notIn'],
  boolean: ['eq'],
  choice: ['eq', 'ne', 'in', 'notIn'],
  tags: ['hasAny', 'hasAll', 'hasNone', 'isEmpty', 'isNotEmpty'],
  time: ['before', 'after', 'between', 'withinLastDays', 'isEmpty', 'isNotEmpty'],
};

/** Every operator name. */
export const ALL_CONTACT_VIEW_OPERATORS: readonly string[] = [...new Set(Object.values(CONTACT_VIEW_OPERATORS).flat())];

/** Sort fields of a view → column. */
export const CONTACT_VIEW_SORT_FIELDS: Readonly<Record<string, string>> = {
  name: 'name',
  remark: 'remark',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  addedAt: 'added_at',
  lastMessageAt: 'last_message_at',
  stateAt: 'state_at',
};

export const CONTACT_VIEW_MAX_SORT_KEYS = 3;
/** Most entries of a list value (in, notIn, tags). */
export const CONTACT_VIEW_MAX_LIST = 100;
/** Longest text value, characters. */
export const CONTACT_VIEW_MAX_TEXT = 200;

export type ContactViewMatch = 'all' | 'any';

export interface ContactViewCondition {
  field: string;
  operator: string;
  value?: unknown;
}

export interface ContactViewFilter {
  match: ContactViewMatch;
  conditions: ContactViewCondition[];
}

export interface ContactViewSort {
  field: string;
  direction: 'asc' | 'desc';
}

/** One problem of a view, for the `errors[]` of a 400. */
export interface ContactViewProblem {
  field: string;
  message: string;
}

/** A view compiled for a TypeORM query builder: an SQL condition with named parameters, and the order. */
export interface CompiledContactView {
  where: string;
  parameters: Record<string, unknown>;
  orderBy: [string, 'ASC' | 'DESC'][];
}

const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const DAY_MS = 86_400_000;
const NO_VALUE = new Set(['isEmpty', 'isNotEmpty']);

/**
 * Checks a filter's structure: known fields, operators that fit the field, values that fit the operator, at most
 * `maxConditions` conditions.
 * @param prefix path of the filter in the request, for the problem fields (e.g. `filter`)
 * @returns every problem found (empty when the filter is fine)
 */
export function checkContactViewFilter(filter: ContactViewFilter, maxConditions: number, prefix = 'filter'): ContactViewProblem[] {
  const problems: ContactViewProblem[] = [];
  if (filter.match !== 'all' && filter.match !== 'any') problems.push({ field: `${prefix}.match`, message: 'match must be "all" or "any".' });
  if (!Array.isArray(filter.conditions)) return [...problems, { field: `${prefix}.conditions`, message: 'conditions must be an array.' }];
  if (filter.conditions.length > maxConditions) {
    problems.push({ field: `${prefix}.conditions`, message: `The filter has ${filter.conditions.length} conditions; at most ${maxConditions} are allowed (CHAT_CONTACT_VIEW_MAX_CONDITIONS).` });
  }
  filter.conditions.forEach((condition, index) => problems.push(...checkCondition(condition, `${prefix}.conditions[${index}]`)));
  return problems;
}

/**
 * Checks sort keys: allow-listed fields, asc/desc, no field twice, at most {@link CONTACT_VIEW_MAX_SORT_KEYS}.
 * @returns every problem found
 */
export function checkContactViewSort(sort: readonly ContactViewSort[], prefix = 'sort'): ContactViewProblem[] {
  const problems: ContactViewProblem[] = [];
  if (sort.length > CONTACT_VIEW_MAX_SORT_KEYS) problems.push({ field: prefix, message: `At most ${CONTACT_VIEW_MAX_SORT_KEYS} sort keys.` });
  const seen = new Set<string>();
  sort.forEach((key, index) => {
    if (!Object.hasOwn(CONTACT_VIEW_SORT_FIELDS, key.field)) {
      problems.push({ field: `${prefix}[${index}].field`, message: `Cannot sort by "${key.field}"; allowed: ${Object.keys(CONTACT_VIEW_SORT_FIELDS).join(', ')}.` });
    } else if (seen.has(key.field)) {
      problems.push({ field: `${prefix}[${index}].field`, message: `"${key.field}" is sorted by twice.` });
    }
    seen.add(key.field);
    if (key.direction !== 'asc' && key.direction !== 'desc') problems.push({ field: `${prefix}[${index}].direction`, message: 'direction must be "asc" or "desc".' });
  });
  return problems;
}

/**
 * Compiles a checked view into an SQL condition over chat_external_contact and its order. Column names come from
 * the allow-list only; every value is a named parameter (`cv<n>…`), so user text never becomes SQL.
 * @param filter a filter that passed {@link checkContactViewFilter}
 * @param sort sort keys that passed {@link checkContactViewSort}
 * @param alias the contact table's alias in the query
 * @param now the instant `withinLastDays` counts back from
 * @throws Error for a filter that was not checked (an unknown field or operator): a programming error
 */
export function compileContactView(filter: ContactViewFilter, sort: readonly ContactViewSort[], alias: string, now: Date): CompiledContactView {
  const parameters: Record<string, unknown> = {};
  const parts = filter.conditions.map((condition, index) => compileCondition(condition, alias, `cv${index}`, parameters, now));
  const where = parts.length === 0 ? 'TRUE' : `(${parts.join(filter.match === 'any' ? ' OR ' : ' AND ')})`;
  const orderBy = sort.map((key): [string, 'ASC' | 'DESC'] => [`${alias}.${CONTACT_VIEW_SORT_FIELDS[key.field]}`, key.direction === 'desc' ? 'DESC' : 'ASC']);
  return { where, parameters, orderBy };
}

/**
 * Parses the chat timestamp format `yyyy-MM-dd HH:mm:ss` as UTC.
 * @returns the instant, or null when the text is not a real date and time
 */
export function parseViewTimestamp(text: unknown): Date | null {
  if (typeof text !== 'string') return null;
  const match = TIMESTAMP.exec(text);
  if (!match) return null;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const value = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const real = value.getUTCFullYear() === year && value.getUTCMonth() === month - 1 && value.getUTCDate() === day && value.getUTCHours() === hour && value.getUTCMinutes() === minute;
  return real && second < 60 ? value : null;
}

function checkCondition(condition: ContactViewCondition, path: string): ContactViewProblem[] {
  const spec = Object.hasOwn(CONTACT_VIEW_FIELDS, condition.field) ? CONTACT_VIEW_FIELDS[condition.field] : undefined;
  if (!spec) return [{ field: `${path}.field`, message: `Unknown contact field "${condition.field}"; allowed: ${Object.keys(CONTACT_VIEW_FIELDS).join(', ')}.` }];
  const operators = CONTACT_VIEW_OPERATORS[spec.kind];
  if (!operators.includes(condition.operator)) {
    return [{ field: `${path}.operator`, message: `Operator "${condition.operator}" does not apply to ${condition.field}; use one of ${operators.join(', ')}.` }];
  }
  const problem = valueProblem(spec, condition);
  return problem ? [{ field: `${path}.value`, message: problem }] : [];
}

/** Why a condition's value does not fit its field and operator, or null. */
function valueProblem(spec: ContactFieldSpec, { field, operator, value }: ContactViewCondition): string | null {
  const label = `${field} ${operator}`;
  if (NO_VALUE.has(operator)) return value === undefined || value === null ? null : `${label} takes no value.`;
  const text = (item: unknown) => typeof item === 'string' && item.length > 0 && item.length <= CONTACT_VIEW_MAX_TEXT;
  const list = (check: (item: unknown) => boolean, what: string) =>
    Array.isArray(value) && value.length > 0 && value.length <= CONTACT_VIEW_MAX_LIST && value.every(check) ? null : `${label} takes a list of 1..${CONTACT_VIEW_MAX_LIST} ${what}.`;
  switch (spec.kind) {
    case 'text':
      if (operator === 'in' || operator === 'notIn') return list(text, `strings of 1..${CONTACT_VIEW_MAX_TEXT} characters`);
      return text(value) ? null : `${label} takes a string of 1..${CONTACT_VIEW_MAX_TEXT} characters.`;
    case 'id':
      if (operator === 'in' || operator === 'notIn') return list(isUuidShaped, 'UUIDs');
      return isUuidShaped(value) ? null : `${label} takes a UUID.`;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${label} takes true or false.`;
    case 'choice': {
      const allowed = spec.values ?? [];
      const choice = (item: unknown) => typeof item === 'number' && allowed.includes(item);
      if (operator === 'in' || operator === 'notIn') return list(choice, `values of ${allowed.join(', ')}`);
      return choice(value) ? null : `${label} takes one of ${allowed.join(', ')}.`;
    }
    case 'tags':
      return list((item) => typeof item === 'string' && item.length > 0 && item.length <= 64, 'tag names of 1..64 characters');
    case 'time': {
      if (operator === 'withinLastDays') return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 3650 ? null : `${label} takes a whole number of days, 1..3650.`;
      if (operator === 'between') {
        const range = Array.isArray(value) && value.length === 2 ? value.map(parseViewTimestamp) : null;
        if (!range || !range[0] || !range[1]) return `${label} takes [from, to], two timestamps "yyyy-MM-dd HH:mm:ss" (UTC).`;
        const [from, to] = value as unknown[];
        return range[0].getTime() <= range[1].getTime() ? null : `${label}: from (${String(from)}) is after to (${String(to)}).`;
      }
      return parseViewTimestamp(value) ? null : `${label} takes a timestamp "yyyy-MM-dd HH:mm:ss" (UTC), for example 2026-03-01 08:30:00.`;
    }
  }
}

function compileCondition(condition: ContactViewCondition, alias: string, key: string, parameters: Record<string, unknown>, now: Date): string {
  const spec = Object.hasOwn(CONTACT_VIEW_FIELDS, condition.field) ? CONTACT_VIEW_FIELDS[condition.field] : undefined;
  if (!spec || !CONTACT_VIEW_OPERATORS[spec.kind].includes(condition.operator)) throw new Error(`Unchecked contact view condition ${condition.field} ${condition.operator}.`);
  const column = `${alias}.${spec.column}`;
  const value = condition.value;
  const bind = (suffix: string, parameter: unknown) => {
    parameters[`${key}${suffix}`] = parameter;
    return `:${key}${suffix}`;
  };
  const bindList = (parameter: unknown) => {
    parameters[key] = parameter;
    return `(:...${key})`;
  };
  if (spec.kind === 'tags') {
    const element = `${key}_tag`;
    const names = `SELECT 1 FROM jsonb_array_elements(${column}) ${element} WHERE ${element}->>'tagName' IN ${bindList(value)}`;
    switch (condition.operator) {
      case 'hasAny':
        return `EXISTS (${names})`;
      case 'hasNone':
        return `NOT EXISTS (${names})`;
      case 'hasAll':
        return `(SELECT count(DISTINCT ${element}->>'tagName') FROM jsonb_array_elements(${column}) ${element} WHERE ${element}->>'tagName' IN (:...${key})) = ${bind('n', new Set(value as string[]).size)}`;
      case 'isEmpty':
        return `jsonb_array_length(${column}) = 0`;
      default:
        return `jsonb_array_length(${column}) > 0`;
    }
  }
  switch (condition.operator) {
    case 'eq':
      return `${column} = ${bind('', value)}`;
    case 'ne':
      return `${column} IS DISTINCT FROM ${bind('', value)}`;
    case 'contains':
      return `${column} ${likeOperator(value as string)} ${bind('', `%${escapeLike(value as string)}%`)} ESCAPE '\\'`;
    case 'notContains':
      return `(${column} IS NULL OR ${column} NOT ${likeOperator(value as string)} ${bind('', `%${escapeLike(value as string)}%`)} ESCAPE '\\')`;
    case 'startsWith':
      return `${column} ${likeOperator(value as string)} ${bind('', `${escapeLike(value as string)}%`)} ESCAPE '\\'`;
    case 'in':
      return `${column} IN ${bindList(value)}`;
    case 'notIn':
      return `(${column} IS NULL OR ${column} NOT IN ${bindList(value)})`;
    case 'isEmpty':
      return spec.kind === 'text' ? `(${column} IS NULL OR ${column} = '')` : `${column} IS NULL`;
    case 'isNotEmpty':
      return spec.kind === 'text' ? `(${column} IS NOT NULL AND ${column} <> '')` : `${column} IS NOT NULL`;
    case 'before':
      return `${column} < ${bind('', parseViewTimestamp(value))}`;
    case 'after':
      return `${column} > ${bind('', parseViewTimestamp(value))}`;
    case 'between': {
      const [from, to] = value as [string, string];
      return `${column} BETWEEN ${bind('from', parseViewTimestamp(from))} AND ${bind('to', parseViewTimestamp(to))}`;
    }
    case 'withinLastDays':
      return `${column} >= ${bind('', new Date(now.getTime() - (value as number) * DAY_MS))}`;
    default:
      throw new Error(`Unchecked contact view operator ${condition.operator}.`);
  }
}

