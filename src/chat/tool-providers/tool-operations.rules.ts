import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { isIP } from 'node:net';
import { ajvSafeRegExp } from '../../common/regex/safe-regex';
import { schemaPatternProblems } from '../../common/regex/schema-patterns';
import type { FieldProblem } from '../intervention-rules/field-errors';

/**
 * Operations of tool API providers (chat-management-api.md, "Tool API provider"; issue 6: "operations as JSON
 * Schema"): their shape, their input JSON Schemas (Ajv 8, draft-07) and how a call's arguments become an HTTP
 * request. Pure functions, no I/O.
 *
 * Arguments → request: `{name}` placeholders of the path take the argument of that name (URL-encoded; `.` and `..`
 * refused); for GET and DELETE the other arguments become query parameters (strings, numbers and booleans as text,
 * arrays of them repeated, anything else as JSON text); for POST, PUT and PATCH the other arguments are the JSON body.
 */

/** HTTP methods an operation may use. */
export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ToolMethod = (typeof TOOL_METHODS)[number];

/** One operation of a provider, as stored and as the model sees it (a function with JSON Schema parameters). */
export interface ToolOperation {
  /** Function name the model calls: a letter, then letters, digits, `_` or `-` (1..64); unique in the provider. */
  name: string;
  /** What the operation does, for the model (up to 1000 characters). */
  description?: string;
  method: ToolMethod;
  /** Path appended to the provider's base URL, starting with `/`; `{arg}` placeholders take arguments. */
  path: string;
  /** JSON Schema (draft-07) of the arguments: an object schema. */
  inputSchema: Record<string, unknown>;
}

/** Limits of an operation list (from AppConfig.chatTools and AppConfig.chatRules). */
export interface ToolOperationLimits {
  maxOperations: number;
  /** Largest input schema, bytes of its JSON text. */
  maxSchemaBytes: number;
}

/** JSON Schema of one operation (the stored shape), checked with Ajv before the input schema itself. */
export const TOOL_OPERATION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'method', 'path', 'inputSchema'],
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z][A-Za-z0-9_-]{0,63}$' },
    description: { type: 'string', maxLength: 1000 },
    method: { type: 'string', enum: [...TOOL_METHODS] },
    path: { type: 'string', minLength: 1, maxLength: 1000, pattern: '^/[^?#\\s]*$' },
    inputSchema: { type: 'object' },
  },
} as const;

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

const operationShape = new Ajv({ allErrors: true, strict: true, logger: false }).compile(TOOL_OPERATION_SCHEMA);

/** Too large to store: the caller answers 413. */
export class ToolSchemaTooLargeError extends Error {}

/**
 * Checks an operation list as written by a user: the list size, each operation's shape (Ajv, {@link
 * TOOL_OPERATION_SCHEMA}), unique names, a path without `..` segments whose placeholders are required properties of
 * the input schema, and an input schema that is an object schema Ajv compiles in strict mode (unknown keywords and
 * formats refused, `$ref` only within the schema) whose `pattern`s and `patternProperties` the RE2 engine can run
 * (src/common/regex: backreferences and lookaround are refused, naming the construct).
 * @returns problems per field (`operations[i].…`), empty when the list may be stored
 * @throws ToolSchemaTooLargeError when an input schema is over `maxSchemaBytes` (413)
 */
export function toolOperationsProblems(operations: readonly unknown[], limits: ToolOperationLimits): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (operations.length > limits.maxOperations) {
    return [{ field: 'operations', message: `has ${operations.length} operations; at most ${limits.maxOperations} are allowed` }];
  }
  const names = new Map<string, number>();
  operations.forEach((operation, index) => {
    const field = `operations[${index}]`;
    if (!operationShape(operation)) {
      problems.push(...ajvProblems(operationShape.errors, field));
      return;
    }
    const op = operation as unknown as ToolOperation;
    const earlier = names.get(op.name);
    if (earlier !== undefined) problems.push({ field: `${field}.name`, message: `"${op.name}" is already the name of operations[${earlier}]` });
    else names.set(op.name, index);
    if (op.path.split('/').some((segment) => segment === '.' || segment === '..')) problems.push({ field: `${field}.path`, message: 'must not contain "." or ".." segments' });
    const bytes = Buffer.byteLength(JSON.stringify(op.inputSchema), 'utf8');
    if (bytes > limits.maxSchemaBytes) throw new ToolSchemaTooLargeError(`${field}.inputSchema is ${bytes} bytes of JSON; at most ${limits.maxSchemaBytes} are allowed`);
    problems.push(...inputSchemaProblems(op, `${field}.inputSchema`));
    const properties = (op.inputSchema.properties ?? {}) as Record<string, unknown>;
    const required = Array.isArray(op.inputSchema.required) ? (op.inputSchema.required as unknown[]) : [];
    for (const [, placeholder] of op.path.matchAll(PLACEHOLDER)) {
      if (!(placeholder in properties) || !required.includes(placeholder)) {
        problems.push({ field: `${field}.path`, message: `placeholder {${placeholder}} must be a required property of the input schema` });
      }
    }
  });
  return problems;
}

/**
 * Compiles an operation's input schema for argument checks: Ajv 8 strict, all errors, defaults filled in, `pattern`s
 * and `patternProperties` on the RE2 engine (linear time, issue 19 item 3).
 * @throws Error with Ajv's message when the schema does not compile
 */
export function compileInputSchema(schema: Record<string, unknown>): ValidateFunction {
  return newAjv().compile(schema);
}

/** Ajv errors as field problems under `prefix` (`operations[0].method must be equal to one of the allowed values`). */
export function ajvProblems(errors: ErrorObject[] | null | undefined, prefix: string): FieldProblem[] {
  return (errors ?? []).map((error) => {
    const path = error.instancePath.split('/').slice(1).map((part) => (/^\d+$/.test(part) ? `[${part}]` : `.${part}`)).join('');
    const missing = error.keyword === 'required' ? `.${(error.params as { missingProperty: string }).missingProperty}` : '';
    const extra = error.keyword === 'additionalProperties' ? ` (${(error.params as { additionalProperty: string }).additionalProperty})` : '';
    const allowed = error.keyword === 'enum' ? `: ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` : '';
    return { field: `${prefix}${path}${missing}`, message: `${error.message ?? 'is invalid'}${extra}${allowed}` };
  });
}

/** The HTTP request of one call: absolute URL, method and JSON body (for POST, PUT, PATCH). */
export interface ToolHttpRequest {
  url: string;
  method: ToolMethod;
  body?: string;
}

/**
 * Builds the request of a call from validated arguments (see the module comment for the mapping).
 * @param baseUrl the provider's base URL (http/https, no query)
 * @throws Error naming a path argument that is `.` or `..`
 */
export function buildToolRequest(baseUrl: string, operation: Pick<ToolOperation, 'method' | 'path'>, args: Record<string, unknown>): ToolHttpRequest {
  const rest: Record<string, unknown> = { ...args };
  const path = operation.path.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = args[name];
    delete rest[name];
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (text === '.' || text === '..') throw new Error(`argument "${name}" may not be "${text}" (it is part of the path)`);
    return encodeURIComponent(text);
  });
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${path}`;
  if (operation.method === 'GET' || operation.method === 'DELETE') {
    for (const [key, value] of Object.entries(rest)) {
      if (value === undefined || value === null) continue;
      const values = Array.isArray(value) && value.every(isPrimitive) ? value : [value];
      for (const item of values) url.searchParams.append(key, isPrimitive(item) ? String(item) : JSON.stringify(item));
    }
    return { url: url.toString(), method: operation.method };
  }
  return { url: url.toString(), method: operation.method, body: JSON.stringify(rest) };
}

function isPrimitive(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
}

/** Input-schema problems: must be an object schema that compiles strictly, with patterns RE2 can run. */
function inputSchemaProblems(operation: ToolOperation, field: string): FieldProblem[] {
  const schema = operation.inputSchema;
  if (schema.type !== 'object') return [{ field: `${field}.type`, message: 'must be "object" (the arguments are an object)' }];
  const problems: FieldProblem[] = schemaPatternProblems(schema, field).map(({ path, message }) => ({ field: path, message }));
  if (problems.length > 0) return problems;
  try {
    compileInputSchema(schema);
  } catch (error) {
    problems.push({ field, message: `is not a valid JSON Schema: ${(error as Error).message}` });
  }
  return problems;
}

/** Formats input schemas may use (no format plugin is a dependency); each checked without backtracking regexes. */
const FORMATS: Record<string, (value: string) => boolean> = {
  date: (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)),
  time: (value) => /^\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/.test(value),
  'date-time': (value) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(value) && !Number.isNaN(Date.parse(value)),
  email: (value) => {
    const at = value.indexOf('@');
    return at > 0 && at === value.lastIndexOf('@') && value.indexOf('.', at + 2) > at + 1 && !/\s/.test(value) && !value.endsWith('.');
  },
  uri: (value) => URL.canParse(value),
  uuid: (value) => /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(value),
  ipv4: (value) => isIP(value) === 4,
  ipv6: (value) => isIP(value) === 6,
};

/** One Ajv per schema (a shared one would refuse a second schema with the same `$id` and keep every schema). */
function newAjv(): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    useDefaults: true,
    logger: false,
    formats: FORMATS,
    code: { regExp: ajvSafeRegExp },
  });
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
}
