import type { Type } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { PROBLEM_CONTENT_TYPE, reasonPhrase } from '../http/problem-details';
import { constraintsOf, RouteFacts } from './route-facts';

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is walked as plain JSON */
type Json = any;

/** Name of the shared RFC 9457 schema component every error response refers to. */
export const PROBLEM_SCHEMA_NAME = 'Problem';

/**
 * RFC 9457 problem details as `toProblem` (src/common/http/problem-details.ts) writes them: the five standard
 * members, `errors[]` on validation failures, `errorId` on a 500, and any extension member of the answering route.
 */
export const PROBLEM_SCHEMA = {
  type: 'object',
  description: 'RFC 9457 problem details: the body of every error response.',
  required: ['type', 'title', 'status'],
  properties: {
    type: { type: 'string', description: 'A URI reference naming the problem type; `about:blank` when the status says it all.', example: 'about:blank' },
    title: { type: 'string', description: "The status code's reason phrase.", example: 'Bad Request' },
    status: { type: 'integer', minimum: 100, maximum: 599, description: 'The HTTP status code.', example: 400 },
    detail: { type: 'string', description: 'What went wrong in this occurrence, for a human.' },
    instance: { type: 'string', description: 'The request path.' },
    errors: {
      type: 'array',
      description: 'One entry per invalid field (validation errors).',
      items: {
        type: 'object',
        required: ['field', 'messages'],
        properties: { field: { type: 'string', example: 'name' }, messages: { type: 'array', items: { type: 'string' } } },
      },
    },
    errorId: { type: 'string', description: 'On a 500: the id the server log carries for this failure.' },
  },
  additionalProperties: true,
};

/** Name of the JSON-RPC 2.0 error response component (the MCP endpoint's transport errors). */
export const JSON_RPC_ERROR_SCHEMA_NAME = 'JsonRpcErrorResponse';

/** A JSON-RPC 2.0 error response, as the MCP transport sends it for a message it refuses. */
export const JSON_RPC_ERROR_SCHEMA = {
  type: 'object',
  description: 'A JSON-RPC 2.0 error response (the MCP endpoint answers transport errors this way, not with problem+json).',
  required: ['jsonrpc', 'error'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { anyOf: [{ type: 'string' }, { type: 'integer' }, { type: 'object', nullable: true, enum: [null] }] },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer', example: -32700 }, message: { type: 'string' }, data: {} },
    },
  },
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const PROBLEM_REF = { $ref: `#/components/schemas/${PROBLEM_SCHEMA_NAME}` };

/** Default description of each error status this step declares. */
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input: a parameter or body field breaks its schema (`errors[]` names each field).',
  401: 'No credential, or an unknown, revoked or expired one.',
  403: 'The credential lacks the right for this operation.',
  404: 'No such resource, or not yours.',
  413: 'The request body is larger than this route accepts.',
  429: 'Too many failed credential checks from this address; `Retry-After` gives the seconds to wait.',
  503: 'The database is unreachable or the server is shutting down; `Retry-After` says when to try again.',
};

function resolve(document: Json, schema: Json): Json {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 10; hops++) {
    const name = String(current.$ref).replace('#/components/schemas/', '');
    current = document.components?.schemas?.[name];
  }
  return current;
}

/** Every operation of the document with its path and method. */
export function operationsOf(document: Json): { path: string; method: string; operation: Json }[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]: [string, Json]) =>
    METHODS.filter((method) => item?.[method]).map((method) => ({ path, method, operation: item[method] })),
  );
}

/** Declares `status` with the shared Problem schema as `application/problem+json`, keeping a route's own description. */
function declareProblem(operation: Json, status: number, description = ERROR_DESCRIPTIONS[status] ?? reasonPhrase(status)): void {
  operation.responses ??= {};
  const key = String(status);
  const existing = operation.responses[key];
  // The route says this error is a JSON-RPC error (the MCP transport): that is its body, not a problem.
  if (/JSON-RPC error/i.test(existing?.description ?? '')) {
    operation.responses[key] = { ...existing, content: { 'application/json': { schema: { $ref: `#/components/schemas/${JSON_RPC_ERROR_SCHEMA_NAME}` } } } };
    return;
  }
  const schemas = Object.values(existing?.content ?? {})
    .map((media: Json) => media?.schema)
    .filter((schema) => schema && schema.$ref !== PROBLEM_REF.$ref)
    .flatMap((schema) => (schema.allOf?.[0]?.$ref === PROBLEM_REF.$ref ? schema.allOf.slice(1) : [schema]));
  const schema = schemas.length > 0 ? { allOf: [PROBLEM_REF, ...schemas] } : PROBLEM_REF;
  operation.responses[key] = { ...existing, description: existing?.description || description, content: { [PROBLEM_CONTENT_TYPE]: { schema } } };
}

/** The schema of `null` alone, typed (Redocly's nullable-type-sibling). */
const NULL_ONLY = { type: 'object', nullable: true, enum: [null] };

/**
 * Makes every `nullable: true` mean what it says for a validator, with a `type` beside it: an enum gains `null`; a
 * `$ref` or `allOf` (which would still refuse `null`) becomes `anyOf: [that, null]`; alternatives each take `null`.
 */
function typeNullables(node: Json): void {
  if (!node || typeof node !== 'object') return;
  if (Array.isArray(node)) return node.forEach(typeNullables);
  for (const value of Object.values(node)) typeNullables(value);
  if (node.nullable !== true) return;
  if (node.enum && !node.enum.includes(null)) node.enum = [...node.enum, null];
  if (node.$ref || node.allOf) {
    // `{ nullable, type: object, allOf: [ref] }` (as @nestjs/swagger writes it) still refuses null through the ref.
    const inner = node.$ref ? { $ref: node.$ref } : node.allOf.length === 1 ? node.allOf[0] : { allOf: node.allOf };
    delete node.$ref;
    delete node.allOf;
    delete node.nullable;
    delete node.type;
    node.anyOf = [inner, NULL_ONLY];
    return;
  }
  if (node.type) return;
  if (node.enum) {
    node.type = typeof node.enum.find((value: unknown) => value !== null) === 'number' ? 'number' : 'string';
    return;
  }
  const alternatives = node.oneOf ?? node.anyOf;
  if (alternatives) {
    // null joins the alternatives; anyOf, since null could match more than one of a oneOf.
    delete node.nullable;
    delete node.oneOf;
    node.anyOf = alternatives.some((alternative: Json) => alternative.enum?.length === 1 && alternative.enum[0] === null) ? alternatives : [...alternatives, NULL_ONLY];
    return;
  }
  node.type = node.items ? 'array' : 'object';
}

/** Names of the component schemas reachable from any response (they describe what the server sends). */
function responseSchemaNames(document: Json): Set<string> {
  const names = new Set<string>();
  const visit = (node: Json): void => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(visit);
    if (typeof node.$ref === 'string') {
      const name = node.$ref.split('/').pop();
      if (!names.has(name)) {
        names.add(name);
        visit(document.components?.schemas?.[name]);
      }
    }
    for (const [key, value] of Object.entries(node)) if (key !== '$ref') visit(value);
  };
  for (const { operation } of operationsOf(document)) visit(operation.responses);
  return names;
}

/** Swagger's component name of a DTO class (`@ApiSchema({ name })`, else the class name). */
function componentName(type: Type<unknown>): string {
  return Reflect.getMetadata('swagger/apiSchema', type)?.name ?? type.name;
}

/**
 * The DTO classes whose unknown fields the global ValidationPipe refuses (`forbidNonWhitelisted`) for a body of
 * `type`: the class itself and, through `@ValidateNested` properties, every nested DTO class.
 */
export function whitelistedClasses(type: Type<unknown>, found = new Set<Type<unknown>>()): Set<Type<unknown>> {
  if (found.has(type)) return found;
  found.add(type);
  const nested = getMetadataStorage()
    .getTargetValidationMetadatas(type, '', true, false)
    .filter((rule) => rule.type === 'nestedValidation');
  for (const rule of nested) {
    const property = Reflect.getMetadata('swagger/apiModelProperties', type.prototype, rule.propertyName) as { type?: unknown } | undefined;
    let child = property?.type;
    if (typeof child === 'function' && !child.prototype) child = (child as () => unknown)();
    child = [child].flat()[0];
    if (typeof child === 'function' && ![String, Number, Boolean, Object, Array, Date].includes(child as never)) whitelistedClasses(child as Type<unknown>, found);
  }
  return found;
}

/**
 * Gives a body schema's properties what their class-validator rules enforce and the schema doesn't say yet:
 * `format: uuid`, `type: integer`, numeric and length bounds.
 */
function applyBodyConstraints(schema: Json, type: Type<unknown>): void {
  for (const [property, target] of Object.entries(schema?.properties ?? {}) as [string, Json][]) {
    if (!target || target.$ref || target.allOf) continue;
    const constraints = constraintsOf(type, property);
    if (constraints.format && target.type === 'string') target.format ??= constraints.format;
    if (constraints.type === 'integer' && target.type === 'number') target.type = 'integer';
    for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) {
      if (constraints[key] !== undefined && target[key] === undefined && (target.type === 'string') === key.endsWith('Length')) target[key] = constraints[key];
    }
  }
}

/** Applies the facts one route's validators give to its parameters. */
function applyParameterFacts(operation: Json, facts: RouteFacts): void {
  for (const parameter of operation.parameters ?? []) {
    const constraints = parameter.in === 'path' ? facts.pathParams[parameter.name] : parameter.in === 'query' ? facts.queryParams[parameter.name] : undefined;
    const schema = (parameter.schema ??= {});
    const target = schema.type === 'array' ? (schema.items ??= {}) : schema;
    if (target.type === 'integer' && typeof target.example === 'string' && /^\d+$/.test(target.example)) target.example = Number(target.example);
    if (!constraints) continue;
    if (constraints.type === 'integer' && (target.type === 'number' || target.type === 'integer' || !target.type)) {
      target.type = 'integer';
      if (typeof target.default === 'number' && !Number.isInteger(target.default)) delete target.default;
    }
    if (constraints.format && (target.type === 'string' || !target.type)) {
      target.type = 'string';
      target.format ??= constraints.format;
      // A uuid example that isn't one would mislead a client: keep it only when it fits.
      if (constraints.format === 'uuid' && target.example !== undefined && !/^[0-9a-f-]{36}$/i.test(String(target.example))) delete target.example;
    }
    for (const key of ['minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'enum'] as const) {
      if (constraints[key] !== undefined && target[key] === undefined) target[key] = constraints[key];
    }
  }
}

/**
 * Whether the operation's input names an existing resource by id outside its path (a required uuid query parameter,
 * or a uuid field of its body such as `scenario_id`), which the server answers with 404 when it doesn't exist.
 */
function namesAResource(document: Json, operation: Json): boolean {
  if ((operation.parameters ?? []).some((parameter: Json) => parameter.in === 'query' && parameter.required && parameter.schema?.format === 'uuid')) return true;
  const body = resolve(document, operation.requestBody?.content?.['application/json']?.schema);
  return Object.values(body?.properties ?? {}).some((property: Json) => resolve(document, property)?.format === 'uuid');
}

/** The path of the item resource of a collection (`/x` → `/x/{id}`), when the document has one. */
function itemPathOf(document: Json, collection: string): string | undefined {
  return Object.keys(document.paths ?? {}).find((path) => path.startsWith(`${collection}/{`) && /^\{[^}/]+\}$/.test(path.slice(collection.length + 1)));
}

/** `links` from each create (`POST /x` answering an object with an `id`) to the get/update/delete of `/x/{id}`. */
function addLinks(document: Json): void {
  for (const [collection, item] of Object.entries(document.paths ?? {}) as [string, Json][]) {
    const create = item.post;
    if (!create) continue;
    const itemPath = itemPathOf(document, collection);
    if (!itemPath) continue;
    const idName = itemPath.slice(collection.length + 2, -1);
    const [status, response] = (Object.entries(create.responses ?? {}) as [string, Json][]).find(([code]) => /^20[01]$/.test(code)) ?? [];
    const body = resolve(document, response?.content?.['application/json']?.schema);
    if (!status || !body?.properties?.id) continue;
    const links: Record<string, Json> = {};
    for (const method of ['get', 'put', 'patch', 'delete']) {
      const target = document.paths[itemPath][method];
      if (!target?.operationId) continue;
      const parameters: Record<string, string> = {};
      for (const parameter of target.parameters ?? []) {
        if (parameter.in !== 'path') continue;
        parameters[parameter.name] = parameter.name === idName ? '$response.body#/id' : `$request.path.${parameter.name}`;
      }
      links[target.operationId] = { operationId: target.operationId, parameters, description: `${method.toUpperCase()} ${itemPath} of the created resource.` };
    }
    if (Object.keys(links).length > 0) response.links = { ...response.links, ...links };
  }
}

/**
 * Makes the generated document say what the server enforces (issue 22 item 2; DESIGN.md, Request pipeline):
 * - path and query parameters carry the formats and bounds of their pipes and class-validator rules (uuid ids,
 *   integer `page`/`size` with their bounds);
 * - every error is `application/problem+json` with the one {@link PROBLEM_SCHEMA} (except those a route describes as a
 *   "JSON-RPC error": `application/json` {@link JSON_RPC_ERROR_SCHEMA}); 400 on every operation with input,
 *   401/403 where a credential is checked, 404 where a path names a resource, 413 where a body is read, 429 where
 *   the credential check is under a guessing limit, 503 everywhere (database down, shutdown);
 * - JSON bodies the ValidationPipe whitelists say `additionalProperties: false`;
 * - public operations say `security: []`; `servers` is never empty; `nullable` never stands without `type`;
 * - creates link to the get/update/delete of what they created.
 * Mutates and returns `document`. Idempotent.
 * @param facts what each route enforces ({@link collectRouteFacts})
 */
export function enrichOpenApiDocument(document: OpenAPIObject, facts: RouteFacts[]): OpenAPIObject {
  const doc = document as Json;
  doc.components ??= {};
  doc.components.schemas ??= {};
  doc.components.schemas[PROBLEM_SCHEMA_NAME] = PROBLEM_SCHEMA;
  if (JSON.stringify(doc.paths ?? {}).match(/JSON-RPC error/i)) doc.components.schemas[JSON_RPC_ERROR_SCHEMA_NAME] = JSON_RPC_ERROR_SCHEMA;
  if (!doc.servers?.length) doc.servers = [{ url: '/', description: 'The server that serves this document.' }];
  const factsByOperation = new Map(facts.map((fact) => [`${fact.method} ${fact.path}`, fact]));
  const strictSchemas = new Set<string>();

  for (const { path, method, operation } of operationsOf(doc)) {
    const fact = factsByOperation.get(`${method} ${path}`);
    if (fact) applyParameterFacts(operation, fact);
    if (fact?.bodyClass && operation.requestBody?.content?.['application/json']) {
      for (const type of whitelistedClasses(fact.bodyClass)) {
        strictSchemas.add(componentName(type));
        applyBodyConstraints(doc.components.schemas[componentName(type)], type);
      }
    }
    const auth = operation['x-atrium-auth'] as { credential?: string } | undefined;
    const isPublic = !auth || auth.credential === 'none';
    if (isPublic || !operation.security) operation.security ??= [];

    const parameters: Json[] = operation.parameters ?? [];
    if (parameters.length > 0 || operation.requestBody) declareProblem(operation, 400);
    if (!isPublic) {
      declareProblem(operation, 401);
      declareProblem(operation, 403);
    }
    if (parameters.some((parameter) => parameter.in === 'path') || namesAResource(doc, operation)) declareProblem(operation, 404);
    if (operation.requestBody) declareProblem(operation, 413);
    if (fact?.guessLimited || operation.responses?.['429']) declareProblem(operation, 429);
    declareProblem(operation, 503);
    for (const status of Object.keys(operation.responses ?? {})) {
      if (Number(status) >= 400) declareProblem(operation, Number(status));
    }
  }

  // A schema the server also sends may carry fields a request may not: only request-only schemas are closed.
  const sent = responseSchemaNames(doc);
  for (const name of strictSchemas) {
    if (sent.has(name)) continue;
    const schema = doc.components.schemas[name];
    if (schema?.type === 'object' || schema?.properties) schema.additionalProperties = false;
  }
  addLinks(doc);
  typeNullables(doc.paths);
  typeNullables(doc.components.schemas);
  return document;
}
