import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Matches, MaxLength, Min, ValidateNested } from 'class-validator';
import { PageBoundsQueryDto, SortParam } from '../../common/paging/page';
import { TOOL_AUTH_TYPES, ToolAuthType, ToolProviderEntity } from './tool-provider.entity';
import { TOOL_METHODS, ToolMethod, ToolOperation } from './tool-operations.rules';

/** HTTP header names (RFC 9110 token characters). */
export const HEADER_NAME_PATTERN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/** How calls authenticate (write side). The secret is write-only. */
export class ToolApiAuthRequest {
  @ApiProperty({ description: '`none`; `bearer` (Authorization: Bearer <secret>); `header` (<headerName>: <secret>); `basic` (HTTP Basic with username and secret as password).', enum: TOOL_AUTH_TYPES, example: 'bearer' })
  @IsIn(TOOL_AUTH_TYPES)
  type: ToolAuthType;

  @ApiPropertyOptional({ description: 'Header carrying the secret; required for type `header` (not Host, Content-Length, Content-Type, Transfer-Encoding, Connection).', maxLength: 100, example: 'X-Api-Key' })
  @IsOptional() @IsString() @Matches(HEADER_NAME_PATTERN, { message: 'headerName must be a header name (1..100 token characters)' })
  headerName?: string;

  @ApiPropertyOptional({ description: 'User name; required for type `basic`.', maxLength: 200, example: 'atrium' })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200) @Matches(/^[^:\r\n]*$/, { message: 'username must not contain ":" or line breaks' })
  username?: string;

  @ApiPropertyOptional({
    description: 'Bearer token, header value or basic password. Write-only: never returned or logged. Required for bearer, header and basic on create; on update, omit it to keep the stored one (when the type is unchanged).',
    writeOnly: true,
    maxLength: 4096,
  })
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(4096) @Matches(/^[^\r\n]*$/, { message: 'secret must not contain line breaks' })
  secret?: string;
}

/** One operation (documentation of the shape; the service checks it with Ajv, see tool-operations.rules.ts). */
export class ToolOperationDto implements ToolOperation {
  @ApiProperty({ description: 'Function name the model calls: a letter, then letters, digits, "_" or "-" (1..64); unique in the provider.', example: 'get_order' })
  name: string;

  @ApiPropertyOptional({ description: 'What the operation does, for the model (up to 1000 characters).', example: 'Look an order up by its number.' })
  description?: string;

  @ApiProperty({ description: 'HTTP method. GET and DELETE send the arguments (other than path placeholders) as query parameters; POST, PUT and PATCH as a JSON body.', enum: TOOL_METHODS, example: 'GET' })
  method: ToolMethod;

  @ApiProperty({ description: 'Path appended to the base URL, starting with "/" (no query, no "." or ".." segments); `{arg}` placeholders take required arguments.', example: '/orders/{orderId}' })
  path: string;

  @ApiProperty({
    description: 'JSON Schema (draft-07) of the arguments: an object schema; compiled by Ajv in strict mode (unknown keywords refused; formats date, time, date-time, email, uri, uuid, ipv4, ipv6; `$ref` only within the schema; `pattern`s and `patternProperties` run on the RE2 engine in linear time: JavaScript syntax without backreferences, lookahead/lookbehind, atomic groups or possessive quantifiers, refused with 400 naming the construct). At most CHAT_TOOL_MAX_SCHEMA_BYTES of JSON (413).',
    type: 'object',
    additionalProperties: true,
    example: { type: 'object', properties: { orderId: { type: 'string', pattern: '^[A-Z0-9-]{1,20}$' } }, required: ['orderId'], additionalProperties: false },
  })
  inputSchema: Record<string, unknown>;
}

/**
 * Body of `POST {C}/toolApiProviders` and `PUT {C}/toolApiProviders/{id}` (chat-management-api.md:
 * CreateOrUpdateToolApiProviderRequest). On update the required fields are given again; omitted optional fields keep
 * their value (and an omitted secret is kept).
 */
export class CreateOrUpdateToolApiProviderRequest {
  @ApiProperty({ description: 'Name of the provider, unique within the tenant.', maxLength: 100, example: 'Order system' })
  @IsString() @IsNotEmpty() @MaxLength(100)
  name: string;

  @ApiPropertyOptional({ description: 'Operator\'s description; null clears it on update.', type: String, nullable: true, maxLength: 500 })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string | null;

  @ApiProperty({
    description: 'http(s) URL the operations\' paths are appended to; no credentials, query or fragment. Loopback and private addresses are refused unless CHAT_TOOL_ALLOW_PRIVATE_NETWORKS is true; metadata, link-local and unspecified addresses and this server\'s own ports always; host names are resolved and checked on every call.',
    maxLength: 2048,
    example: 'https://orders.example.com/api',
  })
  @IsString() @IsNotEmpty() @MaxLength(2048)
  baseUrl: string;

  @ApiPropertyOptional({ description: 'How calls authenticate. Default `{ "type": "none" }` on create; omitted on update keeps it.', type: ToolApiAuthRequest })
  @IsOptional() @ValidateNested() @Type(() => ToolApiAuthRequest)
  auth?: ToolApiAuthRequest;

  @ApiProperty({ description: 'The operations the model may call (1..CHAT_TOOL_MAX_OPERATIONS, names unique).', type: [ToolOperationDto] })
  @IsArray() @IsObject({ each: true, message: 'each operation must be an object' })
  operations: ToolOperationDto[];

  @ApiPropertyOptional({ description: 'Time limit of one call (connection, redirects and reply), ms; 10..CHAT_TOOL_MAX_TIMEOUT_MS. Default CHAT_TOOL_DEFAULT_TIMEOUT_MS on create.', minimum: 10, example: 5000 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(10)
  timeoutMs?: number;

  @ApiPropertyOptional({ description: 'A disabled provider is kept but its operations cannot be called. Default true on create.', default: true })
  @IsOptional() @IsBoolean()
  enabled?: boolean;
}

/** Authentication as returned: the secret only as a presence flag. */
export class ToolApiAuthDto {
  @ApiProperty({ description: 'Authentication type.', enum: TOOL_AUTH_TYPES }) type: ToolAuthType;
  @ApiProperty({ description: 'Header carrying the secret (type header), or null.', type: String, nullable: true }) headerName: string | null;
  @ApiProperty({ description: 'User name (type basic), or null.', type: String, nullable: true }) username: string | null;
  @ApiProperty({ description: 'Whether a secret is stored (the secret itself is never returned).' }) hasSecret: boolean;
}

/** A tool API provider as returned (ToolApiProviderDTO). */
export class ToolApiProviderDTO {
  @ApiProperty({ description: 'Id of the provider (UUID).', format: 'uuid' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name, unique within the tenant.' }) name: string;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Base URL of the calls.' }) baseUrl: string;
  @ApiProperty({ description: 'How calls authenticate.', type: ToolApiAuthDto }) auth: ToolApiAuthDto;
  @ApiProperty({ description: 'Operations the model may call.', type: [ToolOperationDto] }) operations: ToolOperationDto[];
  @ApiProperty({ description: 'Time limit of one call, ms.', example: 5000 }) timeoutMs: number;
  @ApiProperty({ description: 'Whether its operations may be called.' }) enabled: boolean;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Sort fields of the provider list. */
export const TOOL_PROVIDER_SORT_FIELDS = { createdAt: 'createdAt', updatedAt: 'updatedAt', name: 'name' } as const;

/** Query of `GET {C}/toolApiProviders`. */
export class ToolProviderPageQuery extends PageBoundsQueryDto {
  @SortParam(TOOL_PROVIDER_SORT_FIELDS, ['createdAt,desc'])
  sort?: string[];

  @ApiPropertyOptional({ description: 'Only providers whose name contains this text (case-insensitive). Sort fields: createdAt, updatedAt, name (default createdAt,desc).', maxLength: 100 })
  @IsOptional() @IsString() @MaxLength(100)
  name?: string;
}

/** Maps a row to its response; the secret never leaves. */
export function toToolApiProviderDto(row: ToolProviderEntity): ToolApiProviderDTO {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    description: row.description,
    baseUrl: row.baseUrl,
    auth: { type: row.authType, headerName: row.authHeaderName, username: row.authUsername, hasSecret: Boolean(row.authSecret) },
    operations: row.operations,
    timeoutMs: row.timeoutMs,
    enabled: row.enabled,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
