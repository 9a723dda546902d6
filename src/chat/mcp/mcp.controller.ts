import {
  ArgumentsHost,
  BadRequestException,
  Catch,
  Controller,
  Delete,
  ExceptionFilter,
  Get,
  HttpException,
  HttpStatus,
  Inject,
  Logger,
  NotFoundException,
  Param,
  PayloadTooLargeException,
  Post,
  Req,
  Res,
  UnsupportedMediaTypeException,
  UseFilters,
} from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { ApiAcceptedResponse, ApiBody, ApiExtension, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Request, Response } from 'express';
import { Public } from '../../common/auth/auth.decorators';
import { ProblemException } from '../../common/http/problem-details';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { CHAT_OAUTH_SETTINGS, type ChatOAuthSettings } from '../auth/chat-oauth.settings';
import type { ChatPrincipal } from '../auth/chat-principal';
import { CHAT_READ_SCOPE, CHAT_WRITE_SCOPE } from '../auth/chat-scopes';
import { CurrentTenant } from '../auth/chat-auth.decorators';
import { TENANT_SLUG_PATTERN } from '../tenants/tenant-slug';
import { ChatMcpServerFactory, MCP_TOOL_NAMES } from './chat-mcp-server.factory';
import { CHAT_TOOLS_TAG } from './chat-tools.controller';
import { MCP_PATH, McpAuth, mcpResourceUrl, PROTECTED_RESOURCE_METADATA_PREFIX } from './mcp-auth';
import { ERROR_MEDIA_TYPE_EXTENSION, JSON_RPC_ERROR_SCHEMA, JSON_RPC_REQUEST_SCHEMA, JSON_RPC_RESPONSE_SCHEMA, ProtectedResourceMetadataDto } from './mcp.dto';

/** A JSON-RPC error response declaration (application/json, not problem+json). */
const jsonRpcError = (status: number, description: string) => ApiResponse({ status, description, content: { 'application/json': { schema: JSON_RPC_ERROR_SCHEMA } } });

/** JSON-RPC 2.0 error codes used before the MCP transport sees a message. */
export const JSON_RPC_PARSE_ERROR = -32700;
export const JSON_RPC_INVALID_REQUEST = -32600;

/**
 * The MCP endpoint's answer when its JSON body can't be read (issue 22 item 6): the app reads JSON bodies after
 * authentication (common/http/body-parsing.ts) and fails with problem+json; a JSON-RPC client expects a JSON-RPC
 * error instead. Bound to the POST handler only, where nothing else throws these three: the guard's 401/403/404/503
 * keep their problem+json and challenges. Malformed or too deeply nested JSON → 400 with `-32700` (parse error);
 * a body over the limit → 413, a charset other than UTF-8 → 415, both `-32600` (invalid request). `id` is null: the
 * request's id could not be read.
 */
@Catch(BadRequestException, PayloadTooLargeException, UnsupportedMediaTypeException)
export class McpBodyErrorFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const status = exception.getStatus();
    const detail = typeof exception.getResponse() === 'object' ? (exception.getResponse() as { message?: unknown }).message : exception.message;
    const code = status === HttpStatus.BAD_REQUEST ? JSON_RPC_PARSE_ERROR : JSON_RPC_INVALID_REQUEST;
    const prefix = code === JSON_RPC_PARSE_ERROR ? 'Parse error' : 'Invalid Request';
    response.status(status).json({ jsonrpc: '2.0', error: { code, message: `${prefix}: ${typeof detail === 'string' ? detail : exception.message}` }, id: null });
  }
}

/**
 * The MCP server of a tenant (issue 6, "Tool-style endpoints"): the four tool-style operations as Model Context
 * Protocol tools over the Streamable HTTP transport at `POST /api/{tenant}/mcp`. Stateless: each POST gets a new
 * McpServer and transport (`sessionIdGenerator: undefined`, JSON responses instead of SSE), so any instance behind
 * the load balancer can answer any message and nothing is kept in memory between requests. GET (the optional SSE
 * stream) and DELETE (session end) answer 405, as the transport specification allows for a server without sessions.
 *
 * Auth: McpCredentialStrategy (the chat OAuth2 rules, `chat:read` at the door, `chat:write` per tool call; Origin
 * allow-list; tokens for the endpoint's own resource). The JSON body is read after the guard with the default limit
 * (HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES); a body that can't be read and transport errors (wrong Accept or Content-Type,
 * malformed JSON-RPC) are JSON-RPC error bodies with 400/406/413/415 (McpBodyErrorFilter and the SDK transport), as
 * MCP clients expect.
 */
@ApiTags(CHAT_TOOLS_TAG)
@Controller(`api/:tenant/${MCP_PATH}`)
@McpAuth()
export class McpController {
  private readonly logger = new Logger(McpController.name);

  constructor(private readonly servers: ChatMcpServerFactory) {}

  @Post()
  @ApiOperation({
    operationId: 'mcpEndpoint',
    summary: 'MCP server of the tenant (Streamable HTTP, stateless)',
    description:
      'Model Context Protocol over Streamable HTTP (JSON-RPC 2.0 in the body; send `Accept: application/json, text/event-stream` and `Content-Type: application/json`). Stateless: no `Mcp-Session-Id`; every answer is JSON. ' +
      `Tools: \`${MCP_TOOL_NAMES.sendMessage}\`, \`${MCP_TOOL_NAMES.sendGroupMessage}\`, \`${MCP_TOOL_NAMES.addCustomerTags}\`, \`${MCP_TOOL_NAMES.deleteCustomerTags}\` — the tool-style endpoints \`POST /api/{tenant}/mcp/chat/contact/...\` with the same fields and rules. ` +
      `OAuth2 bearer token as every chat route; \`${CHAT_READ_SCOPE}\` connects and lists the tools, \`tools/call\` needs \`${CHAT_WRITE_SCOPE}\` (otherwise a tool error "403 Forbidden: …"). ` +
      'A 401 names the protected resource metadata (`WWW-Authenticate: Bearer …, resource_metadata="…/.well-known/oauth-protected-resource/api/{tenant}/mcp"`). ' +
      'Tool failures are tool results with `isError: true` and the text `<status> <title>: <detail>` of the REST problem (e.g. `404 Not Found: …`).',
  })
  @ApiBody({ schema: JSON_RPC_REQUEST_SCHEMA })
  @ApiOkResponse({ description: 'The JSON-RPC response(s) (application/json).', schema: JSON_RPC_RESPONSE_SCHEMA })
  @ApiAcceptedResponse({ description: 'Only notifications or responses were sent (no body).' })
  @ApiExtension(ERROR_MEDIA_TYPE_EXTENSION, { 'application/json': [HttpStatus.BAD_REQUEST, HttpStatus.NOT_ACCEPTABLE, HttpStatus.PAYLOAD_TOO_LARGE, HttpStatus.UNSUPPORTED_MEDIA_TYPE] })
  @(jsonRpcError(HttpStatus.BAD_REQUEST, 'Malformed JSON (JSON-RPC error -32700, parse error) or not a JSON-RPC message (-32700 / -32600); a JSON-RPC error body, not problem+json.'))
  @(jsonRpcError(HttpStatus.PAYLOAD_TOO_LARGE, 'The body is over HTTP_JSON_DEFAULT_BODY_LIMIT_BYTES (JSON-RPC error -32600).'))
  @(jsonRpcError(HttpStatus.NOT_ACCEPTABLE, 'Accept does not list both application/json and text/event-stream (JSON-RPC error -32000).'))
  @(jsonRpcError(HttpStatus.UNSUPPORTED_MEDIA_TYPE, 'Content-Type is not application/json, or a charset other than UTF-8 (JSON-RPC error).'))
  @UseFilters(McpBodyErrorFilter)
  async handle(@CurrentTenant() tenantId: string, @Req() request: Request & { principal?: ChatPrincipal }, @Res() response: Response): Promise<void> {
    const server = this.servers.create({ tenantId, scopes: request.principal?.scopes ?? [] });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (error) => this.logger.debug(`MCP transport (tenant ${tenantId}): ${error.message}`);
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request, response, request.body);
    } catch (error) {
      this.logger.error(`MCP request of tenant ${tenantId} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!response.headersSent) response.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null });
    }
  }

  @Get()
  @ApiOperation({ operationId: 'mcpSseStream', summary: 'No SSE stream: 405', description: 'The optional server-to-client SSE stream of the Streamable HTTP transport is not offered by this stateless server: 405 with `Allow: POST`.' })
  @ApiResponse({ status: HttpStatus.METHOD_NOT_ALLOWED, description: 'Always: the server is stateless (problem+json, `Allow: POST`).' })
  sseStream(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response, 'GET');
  }

  @Delete()
  @ApiOperation({ operationId: 'mcpEndSession', summary: 'No sessions: 405', description: 'Session termination of the Streamable HTTP transport; this stateless server has no sessions: 405 with `Allow: POST`.' })
  @ApiResponse({ status: HttpStatus.METHOD_NOT_ALLOWED, description: 'Always: the server is stateless (problem+json, `Allow: POST`).' })
  endSession(@Res({ passthrough: true }) response: Response): never {
    return methodNotAllowed(response, 'DELETE');
  }
}

/** 405 with `Allow: POST`: the stateless server has neither a server-to-client SSE stream (GET) nor sessions (DELETE). */
function methodNotAllowed(response: Response, method: string): never {
  response.setHeader('Allow', 'POST');
  throw new ProblemException(HttpStatus.METHOD_NOT_ALLOWED, `${method} is not supported: this MCP server is stateless (no SSE stream, no sessions); POST JSON-RPC messages.`);
}

/**
 * OAuth 2.0 Protected Resource Metadata of each tenant's MCP endpoint (RFC 9728; MCP authorization: clients read it
 * after a 401 to find the authorization server). Public, and the same for every well-formed tenant id: it says how
 * to get a token, not whether the tenant exists.
 */
@ApiTags(CHAT_TOOLS_TAG)
@Controller(`${PROTECTED_RESOURCE_METADATA_PREFIX.slice(1)}/api/:tenant/${MCP_PATH}`)
export class McpResourceMetadataController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {}

  @Get()
  @Public()
  @ApiParam({ name: 'tenant', description: 'Tenant id (slug).', example: 'acme', schema: { type: 'string', pattern: '^[a-z][a-z0-9-]{1,62}$' } })
  @ApiOperation({
    operationId: 'getMcpProtectedResourceMetadata',
    summary: 'OAuth protected resource metadata of the tenant\'s MCP endpoint',
    description: 'RFC 9728 document naming the authorization server and scopes of `/api/{tenant}/mcp`. Public. 404 for an id that is not a tenant slug.',
  })
  @ApiOkResponse({ type: ProtectedResourceMetadataDto })
  metadata(@Param('tenant') tenantId: string): ProtectedResourceMetadataDto {
    if (!TENANT_SLUG_PATTERN.test(tenantId)) throw new NotFoundException(`"${tenantId}" is not a tenant id.`);
    const publicUrl = this.config.chatAuth.publicUrl;
    return {
      resource: mcpResourceUrl(publicUrl, tenantId),
      // ChatModule provides the resolved OAuth settings (this module is imported by it, so it looks them up).
      authorization_servers: [this.moduleRef.get<ChatOAuthSettings>(CHAT_OAUTH_SETTINGS, { strict: false }).issuer],
      scopes_supported: [CHAT_READ_SCOPE, CHAT_WRITE_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: `Atrium chat tools (tenant ${tenantId})`,
      resource_documentation: `${publicUrl}/docs`,
    };
  }
}
