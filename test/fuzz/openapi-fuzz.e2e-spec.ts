import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sample } from 'openapi-sampler';
import request from 'supertest';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { newCorp } from '../chat/support/way-factories';
import { newAgent, TestAgent } from '../support/deploy-factories';
import { createResponseChecker } from '../support/response-contract';
import { startTestApp, TEST_OWNER_TOKEN, TestApp } from '../support/test-app';

/**
 * The fuzz stage (issue 22 item 4, acceptance 4): every operation of the committed openapi.json is called with the
 * credentials of its wing (agent token, owner token, evaluation API key, chat token with chat:read chat:write,
 * platform-admin token) on data the stage seeds itself, with requests built from the schemas: openapi-sampler's
 * example first, then fast-check variants (valid ones, and invalid ones: an unknown field where the document says
 * `additionalProperties: false`, a required field left out, a field of the wrong type, a malformed id).
 * Checks borrowed from Schemathesis: no 500 (other 5xx only where the operation declares them: peers, the exec
 * sandbox, the database), status and content type declared, 2xx bodies valid, and no 2xx to a request the schema
 * forbids. Fixed seed (ATRIUM_FUZZ_SEED, printed on failure) and budget (ATRIUM_FUZZ_BUDGET_MS, default 5 minutes).
 * `POST /api/exec` only ever runs `true`; the stage's own tokens, keys, clients and tenant are never revoked.
 * Skip it with ATRIUM_FUZZ=off (e.g. on the second Node version of CI).
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- the document is walked as plain JSON */
type Json = any;

const SEED = Number(process.env.ATRIUM_FUZZ_SEED ?? 22022);
const BUDGET_MS = Number(process.env.ATRIUM_FUZZ_BUDGET_MS ?? 300_000);
const REQUEST_TIMEOUT_MS = 15_000;
const FUZZ_TENANT = 'fuzz-tenant';
const EVAL_KEY = 'fuzz-eval-api-key-0123456789abcdef';
/** The committed document (ATRIUM_FUZZ_DOCUMENT: another file, e.g. a freshly served one before it is committed). */
const DOCUMENT: Json = JSON.parse(readFileSync(process.env.ATRIUM_FUZZ_DOCUMENT ?? join(__dirname, '../../openapi.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const describeFuzz = process.env.ATRIUM_FUZZ === 'off' ? describe.skip : describe;

interface Operation {
  method: string;
  path: string;
  operation: Json;
}

type Variant = 'valid' | 'extra-field' | 'missing-required' | 'wrong-type' | 'malformed-id';

function deref(schema: Json, depth = 0): Json {
  let current = schema;
  while (current?.$ref && depth++ < 20) current = DOCUMENT.components.schemas[String(current.$ref).split('/').pop()!];
  if (current?.allOf) {
    const parts = current.allOf.map((part: Json) => deref(part, depth + 1));
    const merged: Json = { ...current, type: 'object', properties: {}, required: [] };
    delete merged.allOf;
    for (const part of parts) {
      Object.assign(merged.properties, part?.properties ?? {});
      merged.required.push(...(part?.required ?? []));
      if (part?.additionalProperties === false) merged.additionalProperties = false;
    }
    return merged;
  }
  return current;
}

/** A fast-check arbitrary of values valid against `schema` (bounded sizes; URLs point at nothing reachable). */
function arbitraryFor(input: Json, depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(input);
  if (!schema || depth > 4) return fc.constant(schema ? sample(schema, { skipReadOnly: true }, DOCUMENT) : null);
  const nullable = (arbitrary: fc.Arbitrary<unknown>) => (schema.nullable ? fc.option(arbitrary, { nil: null, freq: 6 }) : arbitrary);
  if (schema.enum) return nullable(fc.constantFrom(...schema.enum));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return nullable(fc.oneof(...alternatives.map((alternative: Json) => arbitraryFor(alternative, depth + 1))));
  switch (schema.type) {
    case 'string': {
      if (schema.format === 'uuid') return nullable(fc.uuid());
      if (schema.format === 'date-time') return nullable(fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true }).map((date) => date.toISOString()));
      if (schema.format === 'date') return nullable(fc.date({ min: new Date('2001-01-01'), max: new Date('2099-01-01'), noInvalidDate: true }).map((date) => date.toISOString().slice(0, 10)));
      if (schema.format === 'email') return nullable(fc.emailAddress());
      if (schema.format === 'uri' || schema.format === 'url' || /url|endpoint/i.test(schema.description ?? '')) return nullable(fc.constantFrom('http://127.0.0.1:9/', 'https://example.invalid/x'));
      if (schema.pattern) {
        try {
          return nullable(fc.stringMatching(new RegExp(schema.pattern)).filter((text) => text.length <= (schema.maxLength ?? 200) && text.length >= (schema.minLength ?? 0)));
        } catch {
          return nullable(fc.constant(sample(schema, {}, DOCUMENT)));
        }
      }
      return nullable(fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 40, 40)) }));
    }
    case 'integer': {
      const min = Math.max(schema.minimum ?? -1000, Number.MIN_SAFE_INTEGER);
      return nullable(fc.integer({ min, max: Math.min(schema.maximum ?? min + 2000, Number.MAX_SAFE_INTEGER) }));
    }
    case 'number': {
      const min = schema.minimum ?? -1000;
      return nullable(fc.double({ min, max: schema.maximum ?? min + 2000, noNaN: true, noDefaultInfinity: true }));
    }
    case 'boolean':
      return nullable(fc.boolean());
    case 'array':
      return nullable(fc.array(arbitraryFor(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)) }));
    default: {
      if (!schema.properties) return nullable(fc.constant({}));
      const properties = Object.fromEntries(Object.entries(schema.properties).filter(([, property]: [string, Json]) => !property.readOnly).map(([name, property]) => [name, arbitraryFor(property, depth + 1)]));
      return nullable(fc.record(properties, { requiredKeys: (schema.required ?? []).filter((name: string) => name in properties) }));
    }
  }
}

/** A value of the wrong JSON type for `schema`. */
function wrongTypeFor(schema: Json): unknown {
  const resolved = deref(schema);
  if (resolved?.enum) return '~not-one-of-the-values~';
  switch (resolved?.type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'maybe';
    case 'array':
      return 'not-an-array';
    case 'object':
      return 'not-an-object';
    default:
      return undefined;
  }
}

function operations(): Operation[] {
  return Object.entries(DOCUMENT.paths).flatMap(([path, item]: [string, Json]) => METHODS.filter((method) => item[method]).map((method) => ({ method, path, operation: item[method] })));
}

describeFuzz('fuzz stage: every operation of openapi.json (issue 22 item 4)', () => {
  let testApp: TestApp;
  let agent: TestAgent;
  let chatToken: string;
  let adminToken: string;
  const protectedValues = new Set<string>([FUZZ_TENANT, 'env-1']);
  /** Ids the stage created or seeded, by collection path (`/api/{tenant}/corps`). */
  const created = new Map<string, string[]>();

  beforeAll(async () => {
    testApp = await startTestApp({ EVAL_API_KEYS: EVAL_KEY, EVAL_ADMIN_PASSWORD: 'fuzz-admin-password-0123456789' });
    await newTenant(testApp, FUZZ_TENANT);
    const chatClient = await newClient(testApp, { tenantId: FUZZ_TENANT, scopes: ['chat:read', 'chat:write'] });
    const adminClient = await newClient(testApp, { platformAdmin: true });
    chatToken = (await builtInToken(testApp.baseUrl, chatClient, 'chat:read chat:write')).access_token;
    adminToken = (await builtInToken(testApp.baseUrl, adminClient)).access_token;
    agent = await newAgent(testApp.baseUrl, { permissions: ['deploy', 'exec', 'list', 'delete'] });
    for (const value of [chatClient.clientId, adminClient.clientId, agent.tokenPrefix, agent.agentId, agent.contactId]) protectedValues.add(value);
    const corp = await newCorp(testApp, chatToken, FUZZ_TENANT, 'Fuzz Corp');
    created.set('/api/{tenant}/console/workChat/corps', [corp.id]);
  });
  afterAll(() => testApp?.close());

  it(`answers every operation within its contract (seed ${SEED}, budget ${BUDGET_MS} ms)`, async () => {
    const started = Date.now();
    const check = await createResponseChecker(DOCUMENT);
    const all = operations();
    const failures: string[] = [];
    const timeouts: string[] = [];
    let examples = 0;
    const statuses: Record<string, number> = {};
    const exercised = new Set<string>();

    const credentialFor = (operation: Json): Record<string, string> => {
      const requirement = Object.entries(operation.security?.[0] ?? {})[0] as [string, string[]] | undefined;
      if (!requirement) return {};
      const [scheme, scopes] = requirement;
      if (scheme === 'deployAgentToken') return { Authorization: `Bearer ${agent.token}` };
      if (scheme === 'deployOwnerToken') return { Authorization: `Bearer ${TEST_OWNER_TOKEN}` };
      if (scheme === 'evaluationApiKey') return { 'X-API-Key': EVAL_KEY };
      return { Authorization: `Bearer ${scopes.includes('platform:admin') ? adminToken : chatToken}` };
    };

    /** The collection a path parameter names (`/x/{id}` → `/x`). */
    const collectionOf = (path: string, name: string) => path.slice(0, path.indexOf(`{${name}}`) - 1);

    const pathValue = (path: string, parameter: Json, random: fc.Arbitrary<unknown>, seed: number): string => {
      if (parameter.name === 'tenant') return FUZZ_TENANT;
      const pool = created.get(collectionOf(path, parameter.name)) ?? [];
      let value = pool.length > 0 && seed % 4 !== 3 ? pool[pool.length - 1 - (seed % pool.length)] : String(fc.sample(random, { seed, numRuns: 1 })[0]);
      if (protectedValues.has(value)) value = `fuzz-other-${seed}`;
      return encodeURIComponent(value);
    };

    const runOne = async (entry: Operation, variant: Variant, seed: number) => {
      const { method, path, operation } = entry;
      let url = path;
      const query: Record<string, unknown> = {};
      const parameters: Json[] = operation.parameters ?? [];
      let forbidden = false;
      for (const parameter of parameters) {
        const schema = parameter.schema ?? {};
        if (parameter.in === 'path') {
          let value = pathValue(path, parameter, arbitraryFor(schema), seed);
          if (variant === 'malformed-id' && parameter.name !== 'tenant' && (schema.format === 'uuid' || schema.type === 'integer')) {
            value = 'not-an-id';
            forbidden = true;
          }
          url = url.replace(`{${parameter.name}}`, value);
        } else if (parameter.in === 'query' && (parameter.required || seed % 2 === 0)) {
          const value = fc.sample(arbitraryFor(schema), { seed: seed + parameter.name.length, numRuns: 1 })[0];
          if (value !== null && value !== undefined) query[parameter.name] = value;
        }
      }
      const content = operation.requestBody?.content ?? {};
      const [mediaType] = Object.keys(content);
      const bodySchema = mediaType ? deref(content[mediaType].schema) : undefined;
      let body: Json;
      if (bodySchema) {
        body = variant === 'valid' ? sample(content[mediaType].schema, { skipReadOnly: true }, DOCUMENT) : fc.sample(arbitraryFor(bodySchema), { seed, numRuns: 1 })[0];
        if (seed % 3 === 1 && variant === 'valid') body = fc.sample(arbitraryFor(bodySchema), { seed, numRuns: 1 })[0];
        const required: string[] = bodySchema.required ?? [];
        const properties = Object.keys(bodySchema.properties ?? {});
        if (body && typeof body === 'object' && !Array.isArray(body) && mediaType === 'application/json') {
          if (variant === 'extra-field' && bodySchema.additionalProperties === false) {
            body.fuzzUnknownField = 'x';
            forbidden = true;
          } else if (variant === 'missing-required' && required.length > 0) {
            delete body[required[seed % required.length]];
            forbidden = true;
          } else if (variant === 'wrong-type' && properties.length > 0) {
            const name = properties[seed % properties.length];
            const wrong = wrongTypeFor(bodySchema.properties[name]);
            if (wrong !== undefined) {
              body[name] = wrong;
              forbidden = true;
            }
          }
        }
      }
      if (variant !== 'valid' && !forbidden) return;
      // `POST /api/exec` only ever runs a harmless command.
      if (path === '/api/exec' && body && typeof body === 'object' && typeof body.command === 'string') body.command = 'true';

      let call = (request(testApp.baseUrl) as Json)[method](url).query(query).timeout(REQUEST_TIMEOUT_MS).set(credentialFor(operation));
      if (mediaType === 'multipart/form-data' && body && typeof body === 'object') {
        for (const [name, value] of Object.entries(body)) {
          const property = bodySchema.properties?.[name];
          if (property?.format === 'binary' || property?.items?.format === 'binary') call = call.attach(name, Buffer.from('fuzz\n'), { filename: 'fuzz.txt', contentType: 'text/plain' });
          else if (value !== null && value !== undefined) call = call.field(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
        }
      } else if (mediaType && mediaType.includes('xml')) {
        call = call.set('Content-Type', mediaType).send(typeof body === 'string' ? body : '<xml><ToUserName>fuzz</ToUserName></xml>');
      } else if (mediaType) {
        call = call.send(body ?? {});
      }
      examples++;
      exercised.add(`${method} ${path}`);
      const repro = `${method.toUpperCase()} ${url}?${new URLSearchParams(query as Record<string, string>)} [${variant}, seed ${seed}] body=${JSON.stringify(body)?.slice(0, 300)}`;
      let response: Json;
      try {
        response = await call;
      } catch (error) {
        timeouts.push(`${repro}: ${(error as Error).message}`);
        return;
      }
      const status: number = response.status;
      statuses[`${String(status)[0]}xx`] = (statuses[`${String(status)[0]}xx`] ?? 0) + 1;
      const declared = operation.responses?.[String(status)];
      if (status === 500 || (status >= 500 && !declared)) failures.push(`${repro}: ${status} ${response.text?.slice(0, 200)}`);
      if (forbidden && status >= 200 && status < 300) failures.push(`${repro}: ${status} to a request the schema forbids`);
      const buffer = Buffer.isBuffer(response.body) ? response.body : Buffer.from(response.text ?? '');
      const result = check({ method, path: url, query: '', status, contentType: response.headers['content-type'], body: buffer });
      failures.push(...result.violations.map((violation) => `${violation} — ${repro}`));
      // Keep what creates make, for the operations on /x/{id}.
      if (status >= 200 && status < 300 && method === 'post' && typeof response.body?.id === 'string' && !path.endsWith('}')) {
        const pool = created.get(path) ?? [];
        pool.push(response.body.id);
        created.set(path, pool);
      }
    };

    // Round 0: sampler examples, creates first and deletes last; then fast-check variants until the budget is spent.
    const ordered = [...all].sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete') || Number(b.method === 'post') - Number(a.method === 'post'));
    const variants: Variant[] = ['valid', 'extra-field', 'missing-required', 'wrong-type', 'malformed-id'];
    let round = 0;
    while (Date.now() - started < BUDGET_MS) {
      for (const [index, entry] of ordered.entries()) {
        if (Date.now() - started >= BUDGET_MS) break;
        const variant = round === 0 ? 'valid' : variants[(round + index) % variants.length];
        await runOne(entry, variant, SEED + round * 1000 + index);
      }
      round++;
    }
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const summary = `fuzz: ${exercised.size} of ${all.length} operations × ${(examples / Math.max(exercised.size, 1)).toFixed(1)} examples on average = ${examples} requests in ${seconds} s, ${round} rounds, seed ${SEED}; answers ${JSON.stringify(statuses)}; ${timeouts.length} timed out`;
    console.log(summary + (timeouts.length ? `\n  ${timeouts.slice(0, 10).join('\n  ')}` : ''));
    const unique = [...new Set(failures)];
    if (unique.length > 0) throw new Error(`${summary}\n${unique.length} failure(s) (rerun with ATRIUM_FUZZ_SEED=${SEED}):\n  ${unique.slice(0, 80).join('\n  ')}`);
    expect(exercised.size).toBe(all.length);
  }, BUDGET_MS + 180_000);
});
