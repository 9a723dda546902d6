import { ConflictException, HttpStatus, Inject, Injectable, Logger, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { ValidateFunction } from 'ajv';
import { DataSource, EntityManager } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { toOrder } from '../../common/paging/page';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { FieldProblem, fieldErrors } from '../intervention-rules/field-errors';
import { baseUrlProblems } from '../../common/outbound/address-policy';
import { OutboundErrorCode, OutboundRequestError } from '../../common/outbound/guarded-http';
import type { OutboundClient, OutboundUseSettings } from '../../common/outbound/outbound-client';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { ToolProviderEntity } from './tool-provider.entity';
import { ajvProblems, buildToolRequest, compileInputSchema, ToolOperation, toolOperationsProblems, ToolSchemaTooLargeError } from './tool-operations.rules';
import { CreateOrUpdateToolApiProviderRequest, TOOL_PROVIDER_SORT_FIELDS, ToolProviderPageQuery } from './tool-providers.dto';
import { uniqueViolation } from '../common/db-support';
import { containsMatch, likeContains } from '../../database/like-contains';
import { ListPager, type ListSlice } from '../../common/paging/list-pager';

/** Why a tool call failed (ToolCallError.code). */
export type ToolCallErrorCode = 'unknown_provider' | 'provider_disabled' | 'unknown_operation' | 'invalid_arguments' | 'request_too_large' | OutboundErrorCode;

const STATUS_OF: Record<ToolCallErrorCode, HttpStatus> = {
  unknown_provider: HttpStatus.NOT_FOUND,
  provider_disabled: HttpStatus.CONFLICT,
  unknown_operation: HttpStatus.NOT_FOUND,
  invalid_arguments: HttpStatus.BAD_REQUEST,
  request_too_large: HttpStatus.PAYLOAD_TOO_LARGE,
  invalid_url: HttpStatus.BAD_REQUEST,
  blocked_address: HttpStatus.BAD_REQUEST,
  dns_error: HttpStatus.BAD_GATEWAY,
  timeout: HttpStatus.GATEWAY_TIMEOUT,
  too_many_redirects: HttpStatus.BAD_GATEWAY,
  response_too_large: HttpStatus.BAD_GATEWAY,
  network_error: HttpStatus.BAD_GATEWAY,
  aborted: HttpStatus.GATEWAY_TIMEOUT,
};

/**
 * A tool call that could not be made or did not complete. `code` says why (the reply pipeline turns it into the
 * function result the model sees); as a ProblemException it renders as problem+json with `code` if it ever reaches
 * HTTP. The message never holds the secret or the arguments.
 */
export class ToolCallError extends ProblemException {
  constructor(
    readonly code: ToolCallErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(STATUS_OF[code], message, { code, ...details });
  }
}

/** The reply of a completed call (any HTTP status). */
export interface ToolCallResult {
  /** 2xx */
  ok: boolean;
  status: number;
  contentType: string | null;
  /** Parsed JSON when the reply is JSON, else its text. */
  body: unknown;
  durationMs: number;
  redirects: number;
}

/** An operation as the model sees it: a function with JSON Schema parameters. */
export interface ToolFunction {
  providerId: string;
  providerName: string;
  name: string;
  description: string | null;
  parameters: Record<string, unknown>;
}

const VALIDATOR_CACHE_MAX = 500;
const USER_AGENT = 'Atrium-ToolCaller/0.1';

/**
 * Tool API providers of a tenant (chat-management-api.md, Console endpoints: `GET/PUT/DELETE
 * {C}/toolApiProviders/{id}`, plus create and list; issue 6, "Configuration resources": "calls made with timeouts and
 * never to loopback or private addresses unless allowed by configuration"). For the reply pipeline: {@link listTools}
 * (the functions a model may call) and {@link call}. Every query filters by the tenant.
 */
@Injectable()
export class ToolProvidersService {
  private readonly logger = new Logger(ToolProvidersService.name);
  private readonly validators = new Map<string, ValidateFunction>();

  /** The tool providers' outbound client (CHAT_TOOL_ALLOW_PRIVATE_NETWORKS, CHAT_TOOL_MAX_RESPONSE_BYTES). */
  private readonly outbound: OutboundClient;

  constructor(
    private readonly pager: ListPager,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    outboundHttp: OutboundHttp,
  ) {
    this.outbound = outboundHttp.client(toolOutboundSettings(config.chatTools));
  }

  /**
   * @throws BadRequestException (400) bad base URL, auth or operations; PayloadTooLargeException (413) an input
   *   schema over CHAT_TOOL_MAX_SCHEMA_BYTES; ConflictException (409) name taken, or CHAT_TOOL_MAX_PROVIDERS reached
   */
  async create(tenantId: string, input: CreateOrUpdateToolApiProviderRequest): Promise<ToolProviderEntity> {
    const auth = input.auth ?? { type: 'none' as const };
    const row = this.dataSource.getRepository(ToolProviderEntity).create({
      tenantId,
      name: input.name,
      description: input.description ?? null,
      baseUrl: input.baseUrl,
      authType: auth.type,
      authHeaderName: auth.type === 'header' ? (auth.headerName ?? null) : null,
      authUsername: auth.type === 'basic' ? (auth.username ?? null) : null,
      authSecret: auth.type === 'none' ? null : (auth.secret ?? null),
      operations: input.operations,
      timeoutMs: input.timeoutMs ?? this.config.chatTools.defaultTimeoutMs,
      enabled: input.enabled ?? true,
    });
    this.assertValid(row, input);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chat_tool_provider:${tenantId}`]);
      const count = await manager.getRepository(ToolProviderEntity).countBy({ tenantId });
      if (count >= this.config.chatTools.maxProviders) {
        throw new ConflictException(`The tenant already has ${count} tool API providers; at most ${this.config.chatTools.maxProviders} are allowed (CHAT_TOOL_MAX_PROVIDERS).`);
      }
      return saveUnique(manager, row);
    });
  }

  /** A page of the tenant's providers, newest first unless sorted otherwise. */
  async list(tenantId: string, query: ToolProviderPageQuery): Promise<ListSlice<ToolProviderEntity>> {
    const order = toOrder(query.sort, TOOL_PROVIDER_SORT_FIELDS, { createdAt: 'DESC' });
    const builder = this.dataSource.getRepository(ToolProviderEntity).createQueryBuilder('provider').where('provider.tenant_id = :tenantId', { tenantId });
    if (query.name) builder.andWhere(...containsMatch('provider.name', 'name', query.name));
    for (const [property, direction] of Object.entries(order)) builder.addOrderBy(`provider.${property}`, direction);
    return this.pager.page(builder, query, { search: Boolean(query.name) });
  }

  /** @throws NotFoundException (404) no such provider in the tenant */
  async get(tenantId: string, id: string): Promise<ToolProviderEntity> {
    const row = await this.dataSource.getRepository(ToolProviderEntity).findOneBy({ tenantId, id });
    if (!row) throw new NotFoundException(`No tool API provider ${id} in this tenant.`);
    return row;
  }

  /**
   * Replaces the provider's fields; omitted optional fields keep their value. An omitted secret is kept while the
   * auth type stays the same; type `none` clears it.
   * @throws NotFoundException (404); BadRequestException (400); PayloadTooLargeException (413); ConflictException (409)
   */
  async update(tenantId: string, id: string, input: CreateOrUpdateToolApiProviderRequest): Promise<ToolProviderEntity> {
    const row = await this.get(tenantId, id);
    row.name = input.name;
    if (input.description !== undefined) row.description = input.description;
    row.baseUrl = input.baseUrl;
    if (input.auth) {
      const keepSecret = input.auth.type === row.authType && input.auth.secret === undefined;
      row.authSecret = input.auth.type === 'none' ? null : keepSecret ? row.authSecret : (input.auth.secret ?? null);
      row.authType = input.auth.type;
      row.authHeaderName = input.auth.type === 'header' ? (input.auth.headerName ?? null) : null;
      row.authUsername = input.auth.type === 'basic' ? (input.auth.username ?? null) : null;
    }
    row.operations = input.operations;
    if (input.timeoutMs !== undefined) row.timeoutMs = input.timeoutMs;
    if (input.enabled !== undefined) row.enabled = input.enabled;
    this.assertValid(row, input);
    return saveUnique(this.dataSource.manager, row);
  }

  /** @throws NotFoundException (404) no such provider in the tenant */
  async remove(tenantId: string, id: string): Promise<void> {
    const result = await this.dataSource.getRepository(ToolProviderEntity).delete({ tenantId, id });
    if (!result.affected) throw new NotFoundException(`No tool API provider ${id} in this tenant.`);
  }

  /** The operations of the tenant's enabled providers as functions a model may call (for the reply pipeline). */
  async listTools(tenantId: string): Promise<ToolFunction[]> {
    const providers = await this.dataSource.getRepository(ToolProviderEntity).find({ where: { tenantId, enabled: true }, order: { createdAt: 'ASC', id: 'ASC' } });
    return providers.flatMap((provider) =>
      provider.operations.map((operation) => ({ providerId: provider.id, providerName: provider.name, name: operation.name, description: operation.description ?? null, parameters: operation.inputSchema })),
    );
  }

  /**
   * Calls one operation of a provider (for the reply pipeline): checks the arguments against the operation's input
   * schema (defaults filled in), builds the request (tool-operations.rules.ts), adds the provider's authentication
   * and sends it through the common outbound client (src/common/outbound) with the provider's timeout,
   * CHAT_TOOL_MAX_REDIRECTS and CHAT_TOOL_MAX_RESPONSE_BYTES; every address it would connect to (each DNS answer,
   * each redirect) must pass the address policy under CHAT_TOOL_ALLOW_PRIVATE_NETWORKS. Any HTTP status is a result (`ok` false for
   * non-2xx); logs name the tenant, provider, operation, status and time, never the secret or the arguments.
   * @param args the model's arguments (a JSON object)
   * @throws ToolCallError unknown_provider, provider_disabled, unknown_operation, invalid_arguments (with `errors`),
   *   request_too_large, invalid_url, blocked_address, dns_error, timeout, too_many_redirects, response_too_large,
   *   network_error
   */
  async call(tenantId: string, providerId: string, operationName: string, args: unknown): Promise<ToolCallResult> {
    const provider = await this.dataSource.getRepository(ToolProviderEntity).findOneBy({ tenantId, id: providerId });
    if (!provider) throw new ToolCallError('unknown_provider', `No tool API provider ${providerId} in this tenant.`);
    if (!provider.enabled) throw new ToolCallError('provider_disabled', `The tool API provider "${provider.name}" is disabled.`);
    const operation = provider.operations.find((candidate) => candidate.name === operationName);
    if (!operation) throw new ToolCallError('unknown_operation', `The tool API provider "${provider.name}" has no operation "${operationName}".`);
    const values = (typeof args === 'object' && args !== null && !Array.isArray(args) ? structuredClone(args) : args) as Record<string, unknown>;
    const validate = this.validatorFor(provider, operation);
    if (!validate(values)) {
      const errors = ajvProblems(validate.errors, 'arguments');
      throw new ToolCallError('invalid_arguments', `Invalid arguments for ${operation.name}: ${errors.map((error) => `${error.field} ${error.message}`).join('; ')}`, { errors });
    }
    let request;
    try {
      request = buildToolRequest(provider.baseUrl, operation, values);
    } catch (error) {
      throw new ToolCallError('invalid_arguments', `Invalid arguments for ${operation.name}: ${(error as Error).message}`);
    }
    if (request.body !== undefined && Buffer.byteLength(request.body) > this.config.chatTools.maxRequestBytes) {
      throw new ToolCallError('request_too_large', `The arguments of ${operation.name} are over ${this.config.chatTools.maxRequestBytes} bytes of JSON.`);
    }
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': USER_AGENT, ...authHeaders(provider) };
    if (request.body !== undefined) headers['content-type'] = 'application/json';
    const started = Date.now();
    const label = `Tenant ${tenantId}, tool provider ${provider.id}, operation ${operation.name}`;
    try {
      const response = await this.outbound.request({
        url: request.url,
        method: request.method,
        headers,
        body: request.body,
        timeoutMs: provider.timeoutMs,
        sensitiveHeaders: provider.authHeaderName ? [provider.authHeaderName] : [],
      });
      const durationMs = Date.now() - started;
      this.logger.log(`${label}: HTTP ${response.status} in ${durationMs} ms`);
      const contentType = typeof response.headers['content-type'] === 'string' ? response.headers['content-type'] : null;
      return { ok: response.status >= 200 && response.status < 300, status: response.status, contentType, body: parseBody(response.body, contentType), durationMs, redirects: response.redirects };
    } catch (error) {
      if (!(error instanceof OutboundRequestError)) throw error;
      this.logger.warn(`${label}: ${error.code} after ${Date.now() - started} ms: ${error.message}`);
      throw new ToolCallError(error.code, error.message);
    }
  }

  /** The compiled input schema of an operation, cached per provider version. */
  private validatorFor(provider: ToolProviderEntity, operation: ToolOperation): ValidateFunction {
    const key = `${provider.id}:${provider.updatedAt.getTime()}:${operation.name}`;
    let validate = this.validators.get(key);
    if (!validate) {
      validate = compileInputSchema(operation.inputSchema);
      if (this.validators.size >= VALIDATOR_CACHE_MAX) this.validators.delete(this.validators.keys().next().value as string);
      this.validators.set(key, validate);
    }
    return validate;
  }

  /**
   * Base URL, auth, timeout and operations of a row about to be saved.
   * @throws BadRequestException (400) with field errors; PayloadTooLargeException (413) an input schema too large
   */
  private assertValid(row: ToolProviderEntity, input: CreateOrUpdateToolApiProviderRequest): void {
    const limits = this.config.chatTools;
    const problems: FieldProblem[] = baseUrlProblems(row.baseUrl, this.outbound.policy(), { credentialsHint: 'put them in auth (the secret is write-only)' }).map((message) => ({ field: 'baseUrl', message }));
    if (row.authType === 'header' && !row.authHeaderName) problems.push({ field: 'auth.headerName', message: 'is required for auth type header' });
    if (row.authHeaderName && ['host', 'content-length', 'content-type', 'transfer-encoding', 'connection'].includes(row.authHeaderName.toLowerCase())) {
      problems.push({ field: 'auth.headerName', message: `cannot be ${row.authHeaderName}` });
    }
    if (row.authType === 'basic' && !row.authUsername) problems.push({ field: 'auth.username', message: 'is required for auth type basic' });
    if (row.authType !== 'none' && !row.authSecret) problems.push({ field: 'auth.secret', message: `is required for auth type ${row.authType}` });
    if (input.auth && input.auth.type !== 'header' && input.auth.headerName !== undefined) problems.push({ field: 'auth.headerName', message: 'only applies to auth type header' });
    if (input.auth && input.auth.type !== 'basic' && input.auth.username !== undefined) problems.push({ field: 'auth.username', message: 'only applies to auth type basic' });
    if (input.auth?.type === 'none' && input.auth.secret !== undefined) problems.push({ field: 'auth.secret', message: 'does not apply to auth type none' });
    if (row.timeoutMs > limits.maxTimeoutMs) problems.push({ field: 'timeoutMs', message: `must not be greater than ${limits.maxTimeoutMs} (CHAT_TOOL_MAX_TIMEOUT_MS)` });
    if (row.operations.length === 0) problems.push({ field: 'operations', message: 'needs at least one operation' });
    try {
      problems.push(
        ...toolOperationsProblems(row.operations, {
          maxOperations: limits.maxOperations,
          maxSchemaBytes: limits.maxSchemaBytes,
        }),
      );
    } catch (error) {
      if (error instanceof ToolSchemaTooLargeError) throw new PayloadTooLargeException(`${error.message} (CHAT_TOOL_MAX_SCHEMA_BYTES).`);
      throw error;
    }
    if (problems.length > 0) throw fieldErrors(problems);
  }
}

/** The authentication headers of a provider (the secret goes only here). */
function authHeaders(provider: ToolProviderEntity): Record<string, string> {
  if (!provider.authSecret) return {};
  if (provider.authType === 'bearer') return { authorization: `Bearer ${provider.authSecret}` };
  if (provider.authType === 'header' && provider.authHeaderName) return { [provider.authHeaderName]: provider.authSecret };
  if (provider.authType === 'basic') return { authorization: `Basic ${Buffer.from(`${provider.authUsername ?? ''}:${provider.authSecret}`).toString('base64')}` };
  return {};
}

/** JSON when the content type says so (and it parses), else UTF-8 text. */
function parseBody(body: Buffer, contentType: string | null): unknown {
  const text = body.toString('utf8');
  if (contentType && /[/+]json\b/i.test(contentType)) {
    try {
      return text.length > 0 ? JSON.parse(text) : null;
    } catch {
      return text;
    }
  }
  return text;
}

/** Saves the row; the unique name index becomes 409. */
async function saveUnique(manager: EntityManager, row: ToolProviderEntity): Promise<ToolProviderEntity> {
  try {
    return await manager.getRepository(ToolProviderEntity).save(row);
  } catch (error) {
    if (uniqueViolation(error) === 'ux_chat_tool_provider_tenant_name') {
      throw new ConflictException(`The tenant already has a tool API provider named "${row.name}".`);
    }
    throw error;
  }
}

/**
 * The tool providers' outbound use (issue 6 "never to loopback or private addresses unless allowed by configuration";
 * issue 19 item 1): CHAT_TOOL_ALLOW_PRIVATE_NETWORKS, CHAT_TOOL_MAX_RESPONSE_BYTES, CHAT_TOOL_MAX_REDIRECTS.
 */
export function toolOutboundSettings(tools: AppConfig['chatTools']): OutboundUseSettings {
  return {
    use: 'tool',
    switchName: 'CHAT_TOOL_ALLOW_PRIVATE_NETWORKS',
    allowPrivateNetworks: tools.allowPrivateNetworks,
    maxResponseBytes: tools.maxResponseBytes,
    maxResponseBytesName: 'CHAT_TOOL_MAX_RESPONSE_BYTES',
    defaultTimeoutMs: tools.defaultTimeoutMs,
    maxRedirects: tools.maxRedirects,
  };
}
