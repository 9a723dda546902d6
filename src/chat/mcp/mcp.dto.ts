import { ApiProperty } from '@nestjs/swagger';

/**
 * OpenAPI shapes of the MCP endpoint (Model Context Protocol, Streamable HTTP transport: JSON-RPC 2.0 messages in
 * POST bodies) and of its OAuth 2.0 Protected Resource Metadata document (RFC 9728). Documentation only: the MCP
 * SDK validates and answers the JSON-RPC messages itself.
 */

/** A JSON-RPC 2.0 request or notification as MCP clients send it. */
export const JSON_RPC_REQUEST_SCHEMA = {
  type: 'object',
  required: ['jsonrpc', 'method'],
  description: 'A JSON-RPC 2.0 message (or an array of them). A message without `id` is a notification (answered 202, no body).',
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }], description: 'Request id, echoed in the response.' },
    method: {
      type: 'string',
      description: 'MCP method: `initialize`, `notifications/initialized`, `ping`, `tools/list`, `tools/call`.',
      example: 'tools/call',
    },
    params: {
      type: 'object',
      additionalProperties: true,
      description: 'Method parameters; for `tools/call`: `{ "name": "<tool>", "arguments": { … } }`.',
      example: { name: 'send_message', arguments: { contactId: '6f1c2a52-8a47-4c5e-9d0e-3f3b7e0c9a11', content: 'Hi Lily, your order ships tomorrow.' } },
    },
  },
};

/** A JSON-RPC 2.0 response: `result` or `error`. */
export const JSON_RPC_RESPONSE_SCHEMA = {
  type: 'object',
  required: ['jsonrpc'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }], nullable: true },
    result: {
      type: 'object',
      additionalProperties: true,
      description: 'For `tools/call`: `content` (the JSON text of the result), `structuredContent` (the same as an object) and `isError` (true for a tool error, whose text is `<status> <title>: <detail>`).',
    },
    error: {
      type: 'object',
      properties: { code: { type: 'integer', example: -32602 }, message: { type: 'string' }, data: {} },
      description: 'A JSON-RPC error: unknown method (-32601), invalid params such as an unknown tool (-32602), parse error (-32700).',
    },
  },
};

/** A JSON-RPC 2.0 error response sent before a message reaches the MCP server (bad body, Accept or Content-Type). */
export const JSON_RPC_ERROR_SCHEMA = {
  type: 'object',
  required: ['jsonrpc', 'error', 'id'],
  properties: {
    jsonrpc: { type: 'string', enum: ['2.0'] },
    id: { type: 'string', nullable: true, description: 'null: the request\'s id could not be read.' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'integer', example: -32700 }, message: { type: 'string', example: 'Parse error: The request body is not valid JSON.' }, data: {} },
    },
  },
};

/**
 * Operation extension naming the media type of an operation's transport errors when they are not problem+json (the
 * MCP endpoint answers JSON-RPC errors, as MCP clients expect): the document enrichment keeps those declarations.
 */
export const ERROR_MEDIA_TYPE_EXTENSION = 'x-atrium-error-media-type';

/** OAuth 2.0 Protected Resource Metadata of a tenant's MCP endpoint (RFC 9728, section 2). */
export class ProtectedResourceMetadataDto {
  @ApiProperty({ description: 'The protected resource: the tenant\'s MCP endpoint URL.', example: 'https://atrium.example.com/api/acme/mcp' })
  resource: string;

  @ApiProperty({ description: 'Issuer(s) of the access tokens the endpoint accepts (the built-in server at $CHAT_PUBLIC_URL/oauth, or CHAT_OAUTH_ISSUER).', type: [String], example: ['https://atrium.example.com/oauth'] })
  authorization_servers: string[];

  @ApiProperty({ description: 'Scopes: chat:read to connect and list the tools, chat:write to call them.', type: [String], example: ['chat:read', 'chat:write'] })
  scopes_supported: string[];

  @ApiProperty({ description: 'How the token is sent.', type: [String], example: ['header'] })
  bearer_methods_supported: string[];

  @ApiProperty({ description: 'Human-readable name of the resource.', example: 'Atrium chat tools (tenant acme)' })
  resource_name: string;

  @ApiProperty({ description: 'Where the API is documented.', example: 'https://atrium.example.com/docs' })
  resource_documentation: string;
}
