import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import addFormats from 'ajv-formats';
import OpenAPIBackend from 'openapi-backend';

/**
 * Every response an e2e suite gets is checked against the served OpenAPI document (issue 22 item 3, acceptance 3):
 * the status is declared for the operation, the content type is declared for that status, and the body is valid
 * against its schema (openapi-backend's response validation, Ajv underneath). A recorder on the test app keeps each
 * exchange; `test/support/response-contract.setup.ts` checks them after the suite, fails it with the list of
 * violations and writes the count to `$TMPDIR/atrium-response-contract/`.
 *
 * `ATRIUM_RESPONSE_CONTRACT=off` turns the check off (e.g. to bisect a failure); `report` writes violations without
 * failing.
 */

/** Where each suite writes `{ suite, checked, outside, violations }` (the lead sums `checked`). */
export const RESPONSE_CONTRACT_DIR = join(tmpdir(), 'atrium-response-contract');

/**
 * Responses deliberately outside the document, by path prefix, with the reason. Anything not under `/api/` is
 * served by something other than the API controllers.
 */
export const OUTSIDE_THE_CONTRACT: { prefix: string; reason: string }[] = [
  { prefix: '/docs', reason: 'Swagger UI assets and the document itself' },
  { prefix: '/oauth', reason: 'the built-in OAuth2 server (oidc-provider): RFC 6749 answers, not problem+json' },
  { prefix: '/.well-known', reason: 'RFC 8414 / RFC 9728 / OIDC discovery documents, fixed by their RFCs' },
  { prefix: '/metrics', reason: 'Prometheus text exposition' },
  { prefix: '/', reason: 'published sites (`/<contactId>/<directory>/…`): the users\' own static content' },
  { prefix: '(another Host)', reason: 'requests to the sites origin (DEPLOY_SITES_ORIGIN), where the API is deliberately not served' },
];

/** Answers a suite provokes on purpose outside the document, by operation and status, with the reason. */
export const DELIBERATE_ANSWERS: { operationId: string; status: number; reason: string }[] = [
  { operationId: 'injectSimulatorMessage', status: 500, reason: 'simulator-api.e2e-spec.ts makes a listener fail on purpose to show the 500 that names the failure' },
];

/** Largest body kept for validation; larger ones (downloads) are checked for status and content type only. */
const MAX_RECORDED_BYTES = 2 * 1024 * 1024;

interface Exchange {
  method: string;
  path: string;
  query: string;
  status: number;
  /** The Host header; the API is checked on 127.0.0.1/localhost only. */
  host?: string;
  contentType?: string;
  body?: Buffer;
  truncated: boolean;
}

interface State {
  exchanges: Exchange[];
  document?: Record<string, unknown>;
  checked: number;
  outside: number;
  violations: string[];
}

const state: State = { exchanges: [], checked: 0, outside: 0, violations: [] };

/** The check's mode from ATRIUM_RESPONSE_CONTRACT: `enforce` (default), `report` or `off`. */
export function responseContractMode(): 'enforce' | 'report' | 'off' {
  const mode = process.env.ATRIUM_RESPONSE_CONTRACT ?? 'enforce';
  return mode === 'off' || mode === 'report' ? mode : 'enforce';
}

/**
 * Installs the recorder as the app's first middleware (call before configureApp): it keeps method, path, status,
 * content type and body of every response.
 */
export function installResponseRecorder(app: NestExpressApplication): void {
  if (responseContractMode() === 'off') return;
  app.use((request: Request, response: Response, next: NextFunction) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let truncated = false;
    const keep = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
      size += buffer.length;
      if (size > MAX_RECORDED_BYTES) truncated = true;
      else chunks.push(buffer);
    };
    const write = response.write.bind(response) as (...args: unknown[]) => boolean;
    const end = response.end.bind(response) as (...args: unknown[]) => Response;
    response.write = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return write(...args);
    }) as Response['write'];
    response.end = ((...args: unknown[]) => {
      keep(args[0], args[1]);
      return end(...args);
    }) as Response['end'];
    const [path, query = ''] = request.originalUrl.split('?');
    response.on('finish', () => {
      state.exchanges.push({
        method: request.method.toLowerCase(),
        path,
        query,
        status: response.statusCode,
        host: request.headers.host,
        contentType: response.getHeader('content-type')?.toString(),
        body: truncated ? undefined : Buffer.concat(chunks),
        truncated,
      });
    });
    next();
  });
}

/** Keeps the served document (GET /docs-json) of the first app a suite starts. */
export async function loadServedDocument(baseUrl: string): Promise<void> {
  if (responseContractMode() === 'off' || state.document) return;
  const response = await fetch(`${baseUrl}/docs-json`);
  if (response.ok) state.document = (await response.json()) as Record<string, unknown>;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is walked as plain JSON */
type Json = any;

/**
 * A copy of the document for the body validator: openapi-backend compiles only `application/json` schemas, so each
 * response's `application/problem+json` schema is also given under that key (the content type itself is checked
 * against the original document).
 */
function forBodyValidation(document: Json): Json {
  const copy = structuredClone(document);
  for (const item of Object.values(copy.paths ?? {}) as Json[]) {
    for (const operation of Object.values(item ?? {}) as Json[]) {
      for (const response of Object.values(operation?.responses ?? {}) as Json[]) {
        const problem = response?.content?.['application/problem+json'];
        if (problem && !response.content['application/json']) response.content['application/json'] = problem;
      }
    }
  }
  return copy;
}

function mediaType(contentType: string | undefined): string | undefined {
  return contentType?.split(';')[0].trim().toLowerCase();
}

/** The declared response for `status`: exact, then `4XX`-style, then `default`. */
function declaredResponse(operation: Json, status: number): Json {
  const responses = operation.responses ?? {};
  return responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
}

/** Whether `declared` (e.g. `application/json`, `text/*`, `*\/*`) covers the media type `actual`. */
function coversMediaType(declared: string, actual: string): boolean {
  if (declared === '*/*' || declared === actual) return true;
  return declared.endsWith('/*') && actual.startsWith(declared.slice(0, -1));
}

/** One request and its response, as the checker needs them. */
export type CheckedExchange = Omit<Exchange, 'truncated'> & { truncated?: boolean };

/**
 * Builds a checker over `document`: for one exchange under `/api/`, the contract violations (status declared for
 * the operation, content type declared for that status, JSON body valid against its schema), one line each, or
 * `undefined` when no operation matches the path.
 */
export async function createResponseChecker(document: Record<string, unknown>): Promise<(exchange: CheckedExchange) => { operationId?: string; violations: string[] }> {
  const api = new OpenAPIBackend({
    definition: forBodyValidation(document) as never,
    quick: true,
    validate: true,
    ajvOpts: { strict: false },
    // uuid, email, uri, date-time… are checked, not ignored.
    customizeAjv: (ajv) => {
      addFormats(ajv as never);
      return ajv;
    },
  });
  await api.init();
  return (exchange) => {
    const where = `${exchange.method.toUpperCase()} ${exchange.path} → ${exchange.status}`;
    const operation: Json = api.router.matchOperation({ method: exchange.method, path: exchange.path, headers: {}, query: exchange.query } as never);
    if (!operation) {
      // Nest's own 404 for a path no controller serves is the problem every unknown route gets.
      if (exchange.status === 404 && mediaType(exchange.contentType) === 'application/problem+json') return { violations: [] };
      return { violations: [`${where}: no operation in the document matches this path`] };
    }
    const name = `${where} (${operation.operationId})`;
    const result = { operationId: operation.operationId as string, violations: [] as string[] };
    if (DELIBERATE_ANSWERS.some((answer) => answer.operationId === operation.operationId && answer.status === exchange.status)) return result;
    const declared = declaredResponse(operation, exchange.status);
    if (!declared) {
      result.violations.push(`${name}: status ${exchange.status} is not declared (declared: ${Object.keys(operation.responses ?? {}).join(', ')})`);
      return result;
    }
    const actualType = mediaType(exchange.contentType);
    const declaredTypes = Object.keys(declared.content ?? {});
    const bodyLength = exchange.body?.length ?? (exchange.truncated ? Infinity : 0);
    if (exchange.method === 'head' || bodyLength === 0) return result;
    if (!actualType || !declaredTypes.some((type) => coversMediaType(type.toLowerCase(), actualType))) {
      result.violations.push(`${name}: content type ${actualType ?? '(none)'} is not declared (declared: ${declaredTypes.join(', ') || 'no body'})`);
      return result;
    }
    if (!actualType.endsWith('json') || !exchange.body) return result;
    let body: unknown;
    try {
      body = JSON.parse(exchange.body.toString('utf8'));
    } catch {
      result.violations.push(`${name}: the body is not JSON`);
      return result;
    }
    const validation = api.validateResponse(body, operation, exchange.status);
    if (validation.errors?.length) {
      const errors = validation.errors.slice(0, 3).map((error) => `${error.instancePath || '/'} ${error.message}${error.params ? ' ' + JSON.stringify(error.params) : ''}`);
      result.violations.push(`${name}: body breaks the schema: ${errors.join('; ')}`);
    }
    return result;
  };
}

/**
 * Checks every recorded exchange against the served document. Exchanges outside `/api/` are counted as outside the
 * contract ({@link OUTSIDE_THE_CONTRACT}); `/api/` paths that match no operation are violations.
 */
export async function checkRecordedResponses(): Promise<{ checked: number; outside: number; violations: string[] }> {
  const exchanges = state.exchanges.splice(0);
  if (exchanges.length === 0 || !state.document) return { checked: state.checked, outside: state.outside + exchanges.length, violations: state.violations };
  const check = await createResponseChecker(state.document);
  for (const exchange of exchanges) {
    if (!exchange.path.startsWith('/api/') || (exchange.host && !/^(127\.0\.0\.1|localhost)(:\d+)?$/.test(exchange.host))) {
      state.outside++;
      continue;
    }
    state.checked++;
    state.violations.push(...check(exchange).violations);
  }
  return { checked: state.checked, outside: state.outside, violations: state.violations };
}

/** Writes the suite's figures to {@link RESPONSE_CONTRACT_DIR} (one file per suite). */
export function writeResponseContractReport(suitePath: string, figures: { checked: number; outside: number; violations: string[] }): void {
  mkdirSync(RESPONSE_CONTRACT_DIR, { recursive: true });
  const file = join(RESPONSE_CONTRACT_DIR, `${basename(suitePath).replace(/\W+/g, '_')}.json`);
  writeFileSync(file, JSON.stringify({ suite: suitePath, ...figures }, null, 2));
}
