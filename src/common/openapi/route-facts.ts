import { INestApplication, ParseUUIDPipe, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { GuessLimiter } from '../auth/guess-limiter';
import { AUTH_REQUIREMENT, AuthRequirement, PUBLIC_ROUTE, strategiesOf } from '../auth/auth.decorators';

/** JSON-schema constraints derived from validators (a subset of an OpenAPI 3.0 schema object). */
export type SchemaConstraints = Record<string, unknown>;

/**
 * What the running app enforces on one route, read from the same Nest and class-validator metadata the pipeline
 * uses (issue 22 item 2: the document comes from the declarations that validate).
 */
export interface RouteFacts {
  /** Lower-case HTTP method as in the OpenAPI document (`get`, `post`, …). */
  method: string;
  /** OpenAPI path (`/api/{tenant}/corps/{id}`). */
  path: string;
  /** Constraints of each path parameter, from its pipes (ParseUUIDPipe) or the class-validator rules of a params DTO. */
  pathParams: Record<string, SchemaConstraints>;
  /** Constraints of each query parameter, from the class-validator rules of the query DTO. */
  queryParams: Record<string, SchemaConstraints>;
  /** The DTO class of the JSON body, when the route takes one (the ValidationPipe forbids unknown fields in it). */
  bodyClass?: Type<unknown>;
  /** The credential check of this route runs under a guessing limit (GuessLimiter): it can answer 429. */
  guessLimited: boolean;
  /** Its `@Authenticated` requirement (handler's, else its controller's); undefined when it declares none. */
  requirement?: AuthRequirement;
  /** Marked `@Public()` (handler or controller). */
  isPublic: boolean;
}

const HTTP_METHODS: Partial<Record<RequestMethod, string>> = {
  [RequestMethod.GET]: 'get',
  [RequestMethod.POST]: 'post',
  [RequestMethod.PUT]: 'put',
  [RequestMethod.DELETE]: 'delete',
  [RequestMethod.PATCH]: 'patch',
  [RequestMethod.OPTIONS]: 'options',
  [RequestMethod.HEAD]: 'head',
};

const BODY = 3;
const QUERY = 4;
const PARAM = 5;

/** Joins Nest path segments and turns `:name` into `{name}`, the way @nestjs/swagger names its paths. */
export function toOpenApiPath(...segments: string[]): string {
  const joined = '/' + segments.map((segment) => segment.replace(/^\/+|\/+$/g, '')).filter(Boolean).join('/');
  return joined.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * Schema constraints that a class-validator decorator set implies for one scalar value (path or query parameter,
 * or a body property): `@IsUUID` → `format: uuid`, `@IsInt` → `type: integer`, `@Min`/`@Max` → bounds,
 * `@MinLength`/`@MaxLength` → length bounds, `@IsIn` → `enum`. Case-insensitive `@Matches` patterns are left out
 * (JSON-schema patterns have no flags).
 */
export function constraintsOf(target: Type<unknown>, property: string): SchemaConstraints {
  const constraints: SchemaConstraints = {};
  const rules = getMetadataStorage()
    .getTargetValidationMetadatas(target, '', true, false)
    .filter((rule) => rule.propertyName === property && !rule.each);
  for (const rule of rules) {
    const [first, second] = rule.constraints ?? [];
    switch (rule.name) {
      case 'isUuid':
        constraints.type = 'string';
        constraints.format = 'uuid';
        break;
      case 'isInt':
        constraints.type = 'integer';
        break;
      case 'min':
        constraints.minimum = first;
        break;
      case 'max':
        constraints.maximum = first;
        break;
      case 'minLength':
        constraints.minLength = first;
        break;
      case 'maxLength':
        constraints.maxLength = first;
        break;
      case 'isIn':
        if (Array.isArray(first)) constraints.enum = first;
        break;
      case 'matches': {
        const pattern = jsonSchemaPattern(first instanceof RegExp ? first.source : String(first), first instanceof RegExp ? first.flags : String(second ?? ''));
        if (pattern) constraints.pattern = pattern;
        break;
      }
    }
  }
  return constraints;
}

/**
 * A JSON-schema `pattern` (no flags) equal to the regular expression `source` with `flags`: as is without `i`; with
 * `i` only when every letter sits in a character-class range (`[0-9a-f]` → `[0-9a-fA-F]`); otherwise none.
 */
export function jsonSchemaPattern(source: string, flags: string): string | undefined {
  if (!flags.includes('i')) return flags.replace(/[gu]/g, '') === '' ? source : undefined;
  const outsideClasses = source.replace(/\[[^\]]*\]/g, '').replace(/\\[dDwWsSbB]|\{\d+(,\d*)?\}/g, '');
  if (/[A-Za-z]/.test(outsideClasses)) return undefined;
  return source.replace(/\[([^\]]*)\]/g, (whole, inner: string) => `[${inner.replace(/a-f(?!A)/g, 'a-fA-F').replace(/a-z(?!A)/g, 'a-zA-Z')}]`);
}

/** Properties of a DTO class that carry class-validator rules. */
function validatedProperties(target: Type<unknown>): string[] {
  return [...new Set(getMetadataStorage().getTargetValidationMetadatas(target, '', true, false).map((rule) => rule.propertyName))];
}

/** Whether `type` or one of its constructor dependencies (up to `depth` levels) is the GuessLimiter. */
function dependsOnGuessLimiter(type: unknown, depth = 3): boolean {
  if (type === GuessLimiter) return true;
  if (typeof type !== 'function' || depth === 0) return false;
  const parameters: unknown[] = Reflect.getMetadata('design:paramtypes', type) ?? [];
  return parameters.some((parameter) => dependsOnGuessLimiter(parameter, depth - 1));
}

function isUuidPipe(pipe: unknown): boolean {
  return pipe === ParseUUIDPipe || pipe instanceof ParseUUIDPipe;
}

interface RouteArgument {
  index: number;
  data?: unknown;
  pipes?: unknown[];
}

/**
 * Reads the facts of every controller route of `app` (controllers of every module, their `@Get`/`@Post`… handlers,
 * the pipes and DTO classes of their parameters and their `@Authenticated` strategy).
 */
export function collectRouteFacts(app: INestApplication): RouteFacts[] {
  const facts: RouteFacts[] = [];
  const seen = new Set<Type<unknown>>();
  for (const module of app.get(ModulesContainer, { strict: false }).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Type<unknown> | null;
      if (!controller || seen.has(controller)) continue;
      seen.add(controller);
      const controllerPaths = [Reflect.getMetadata(PATH_METADATA, controller) ?? '/'].flat() as string[];
      for (const key of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = Object.getOwnPropertyDescriptor(controller.prototype, key)?.value;
        if (key === 'constructor' || typeof handler !== 'function') continue;
        const requestMethod = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const routePaths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (requestMethod === undefined || routePaths === undefined) continue;
        const method = HTTP_METHODS[requestMethod];
        if (!method) continue;
        const argumentsByKey: Record<string, RouteArgument> = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, key) ?? {};
        const parameterTypes: unknown[] = Reflect.getMetadata('design:paramtypes', controller.prototype, key) ?? [];
        const pathParams: Record<string, SchemaConstraints> = {};
        const queryParams: Record<string, SchemaConstraints> = {};
        let bodyClass: Type<unknown> | undefined;
        for (const [argumentKey, argument] of Object.entries(argumentsByKey)) {
          const kind = Number(argumentKey.split(':')[0]);
          const type = parameterTypes[argument.index];
          const isDto = typeof type === 'function' && ![String, Number, Boolean, Object, Array].includes(type as never);
          if (kind === PARAM && typeof argument.data === 'string') {
            if ((argument.pipes ?? []).some(isUuidPipe)) pathParams[argument.data] = { type: 'string', format: 'uuid' };
          } else if ((kind === PARAM || kind === QUERY) && argument.data === undefined && isDto) {
            const target = kind === PARAM ? pathParams : queryParams;
            for (const property of validatedProperties(type as Type<unknown>)) {
              const constraints = constraintsOf(type as Type<unknown>, property);
              if (Object.keys(constraints).length > 0) target[property] = constraints;
            }
          } else if (kind === BODY && argument.data === undefined && isDto) {
            bodyClass = type as Type<unknown>;
          }
        }
        const requirement: AuthRequirement | undefined = Reflect.getMetadata(AUTH_REQUIREMENT, handler) ?? Reflect.getMetadata(AUTH_REQUIREMENT, controller);
        const isPublic = Boolean(Reflect.getMetadata(PUBLIC_ROUTE, handler) ?? Reflect.getMetadata(PUBLIC_ROUTE, controller));
        const guessLimited = (requirement ? strategiesOf(requirement.strategy) : []).some((strategy) => dependsOnGuessLimiter(strategy));
        for (const controllerPath of controllerPaths) {
          for (const routePath of [routePaths].flat()) {
            facts.push({ method, path: toOpenApiPath(controllerPath, routePath), pathParams, queryParams, bodyClass, guessLimited, requirement, isPublic });
          }
        }
      }
    }
  }
  return facts;
}
