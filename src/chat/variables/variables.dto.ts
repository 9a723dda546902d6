import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import { IsArray, IsBoolean, IsDefined, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, IsUUID, Matches, MaxLength, Min } from 'class-validator';
import { VariableDefinitionEntity } from './variable-definition.entity';
import { VARIABLE_SOURCES, VariableSource } from './variable-resolution.rules';
import { VariableScopeEntity } from './variable-scope.entity';
import { TENANT_SUBJECT, VariableValueEntity } from './variable-value.entity';
import { VARIABLE_NAME_PATTERN, VARIABLE_TYPES, VariableType } from './variable-value.rules';

/** `true`/`false` query strings (and real booleans) to booleans; anything else is left for @IsBoolean to refuse. */
export const toBoolean = ({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value);

/** OpenAPI schema of a variable value: any JSON value but null (its type is the definition's). */
const ANY_JSON: { oneOf: SchemaObject[] } = {
  oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object', additionalProperties: true }, { type: 'array', items: {} }],
};

const SOURCE_DESCRIPTION =
  'What a value of this scope\'s variables belongs to: `tenant` (one global value per variable, no subject), `digital_staff` (a value per digital staff; subject = digital staff id) or `contact` (a value per external contact; subject = contact id). A contact sees tenant, digital staff and contact variables; on equal names the most specific wins (contact > digital_staff > tenant).';

const TYPE_DESCRIPTION =
  'Type of the values: `string` (JSON string), `number` (JSON number; "12" is refused), `boolean`, `date` ("YYYY-MM-DD" or an ISO 8601 date-time with a zone), `enum` (one of `options`), `json` (any JSON value). null is never a value.';

// ---------------------------------------------------------------- scopes

/** Body of `POST {C}/variableScopes` and `PUT {C}/variableScopes/{id}` (chat-management-api.md: VariableScopePayload). PUT replaces every field. */
export class VariableScopePayload {
  @ApiProperty({ description: 'Name of the scope; unique per (tenant, source).', maxLength: 100, example: 'Customer profile' })
  @IsString() @IsNotEmpty() @MaxLength(100) @Matches(/^\S(.*\S)?$/, { message: 'name must not start or end with spaces' })
  name: string;

  @ApiProperty({ description: `${SOURCE_DESCRIPTION} Changing it is refused (409) while the scope has values.`, enum: VARIABLE_SOURCES, example: 'contact' })
  @IsIn(VARIABLE_SOURCES, { message: `source must be one of ${VARIABLE_SOURCES.join(', ')}` })
  source: VariableSource;

  @ApiPropertyOptional({ description: 'Operator\'s description; omitted or "" = none.', maxLength: 500, example: 'What we know about each customer.' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;
}

/** Query of `GET {C}/variableScopes`. */
export class VariableScopeListQuery {
  @ApiProperty({ description: 'Only scopes of this source (required).', enum: VARIABLE_SOURCES, example: 'contact' })
  @IsIn(VARIABLE_SOURCES, { message: `source must be one of ${VARIABLE_SOURCES.join(', ')}` })
  source: VariableSource;
}

/** Query of the deletes of a scope or a definition. */
export class VariableDeleteQuery {
  @ApiPropertyOptional({ description: 'Also delete what it contains (a scope\'s definitions and values; a definition\'s values), in one transaction. Without it, a non-empty scope or a definition with values is refused (409).', type: Boolean, default: false })
  @IsOptional() @Transform(toBoolean) @IsBoolean()
  recursive?: boolean;
}

/** A variable scope as returned (chat-management-api.md: VariableScopeDto). */
export class VariableScopeDto {
  @ApiProperty({ description: 'Id of the scope (UUID).', example: '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Name (unique per tenant and source).', example: 'Customer profile' }) name: string;
  @ApiProperty({ description: SOURCE_DESCRIPTION, enum: VARIABLE_SOURCES, example: 'contact' }) source: VariableSource;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Number of variable definitions in the scope.', example: 3 }) definitionCount: number;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a scope row (and its definition count) to its response. */
export function toVariableScopeDto(row: VariableScopeEntity, definitionCount: number): VariableScopeDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    name: row.name,
    source: row.source,
    description: row.description,
    definitionCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- definitions

/**
 * Body of `POST {C}/variableScopes/{scopeId}/definitions` and `PUT {C}/variableScopes/{scopeId}/definitions/{id}`
 * (chat-management-api.md: VariableDefinitionPayload). PUT replaces every field.
 */
export class VariableDefinitionPayload {
  @ApiProperty({
    description: 'Name used in templates as `{{name}}`: a letter or "_", then letters, digits or "_" (letters of any script), at most 64; unique within the scope (409).',
    maxLength: 64,
    pattern: VARIABLE_NAME_PATTERN.source,
    example: 'memberLevel',
  })
  @IsString() @Matches(VARIABLE_NAME_PATTERN, { message: 'name must start with a letter or "_" and contain only letters, digits and "_" (at most 64)' })
  name: string;

  @ApiProperty({ description: `${TYPE_DESCRIPTION} Changing the type is refused (409) while the variable has values.`, enum: VARIABLE_TYPES, example: 'enum' })
  @IsIn(VARIABLE_TYPES, { message: `type must be one of ${VARIABLE_TYPES.join(', ')}` })
  type: VariableType;

  @ApiPropertyOptional({
    description: 'Allowed values of an `enum` (required for enum, distinct, 1..CHAT_VARIABLE_MAX_ENUM_OPTIONS strings of at most 100 characters); refused for other types. Removing an option that a value uses is refused (409).',
    type: [String],
    example: ['gold', 'silver', 'bronze'],
  })
  @IsOptional() @IsArray()
  options?: unknown[];

  @ApiPropertyOptional({
    description: 'Default value, standing in for subjects without a value; must match the type (400 with the reason). Omitted or null = no default (the variable is then invisible for subjects without a value).',
    ...ANY_JSON,
    nullable: true,
    example: 'silver',
  })
  @IsOptional()
  defaultValue?: unknown;

  @ApiPropertyOptional({ description: 'Operator\'s description; omitted or "" = none.', maxLength: 500, example: 'Loyalty level from the CRM.' })
  @IsOptional() @IsString() @MaxLength(500)
  description?: string;
}

/** A variable definition as returned (chat-management-api.md: VariableDefinitionDto). */
export class VariableDefinitionDto {
  @ApiProperty({ description: 'Id of the definition (UUID).' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Id of its scope.' }) scopeId: string;
  @ApiProperty({ description: 'Name, used in templates as `{{name}}`.', example: 'memberLevel' }) name: string;
  @ApiProperty({ description: TYPE_DESCRIPTION, enum: VARIABLE_TYPES, example: 'enum' }) type: VariableType;
  @ApiProperty({ description: 'Allowed values of an enum; null for other types.', type: [String], nullable: true, example: ['gold', 'silver', 'bronze'] }) options: string[] | null;
  @ApiProperty({ description: 'Default value (JSON of the type), or null when there is none.', ...ANY_JSON, nullable: true, example: 'silver' }) defaultValue: unknown;
  @ApiProperty({ description: 'Operator\'s description, or null.', type: String, nullable: true }) description: string | null;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a definition row to its response. */
export function toVariableDefinitionDto(row: VariableDefinitionEntity): VariableDefinitionDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    scopeId: row.scopeId,
    name: row.name,
    type: row.type,
    options: row.options,
    defaultValue: row.defaultValue ?? null,
    description: row.description,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- values

/**
 * Body of `POST {C}/variables` (chat-management-api.md: CreateVariableValueRequest): the value of one variable for
 * one subject. Name the variable by `definitionId`, or by `scopeId` + `name`.
 */
export class CreateVariableValueRequest {
  @ApiPropertyOptional({ description: 'Id of the variable definition. Give this, or scopeId and name.', format: 'uuid' })
  @IsOptional() @IsUUID()
  definitionId?: string;

  @ApiPropertyOptional({ description: 'Scope of the variable: with `name` instead of definitionId, or alongside it as a check (400 when it is not the definition\'s scope).', format: 'uuid' })
  @IsOptional() @IsUUID()
  scopeId?: string;

  @ApiPropertyOptional({ description: 'Name of the variable in `scopeId` (instead of definitionId).', maxLength: 64, example: 'memberLevel' })
  @IsOptional() @IsString() @MaxLength(64)
  name?: string;

  @ApiPropertyOptional({
    description:
      'Who the value is for, by the scope\'s source: omitted or null for `tenant`; a digital staff id (UUID) for `digital_staff`; an external contact id (UUID, the spec\'s contactId) for `contact`. An unknown subject → 404.',
    type: String,
    nullable: true,
    maxLength: 64,
  })
  @IsOptional() @IsString() @MaxLength(64)
  subjectId?: string | null;

  @ApiProperty({ description: 'The value; must match the definition\'s type (400 with the reason). At most CHAT_VARIABLE_VALUE_MAX_BYTES of JSON (413).', ...ANY_JSON, example: 'gold' })
  @IsDefined({ message: 'value is required (null is not a value)' })
  value: unknown;
}

/** Body of `PUT {C}/variables/{id}` (chat-management-api.md: PutVariableValueRequest): the new value. */
export class PutVariableValueRequest {
  @ApiProperty({ description: 'The new value; must match the definition\'s type (400 with the reason). At most CHAT_VARIABLE_VALUE_MAX_BYTES of JSON (413).', ...ANY_JSON, example: 'silver' })
  @IsDefined({ message: 'value is required (null is not a value)' })
  value: unknown;
}

/** Query of `GET {C}/variables`. */
export class VariableValueListQuery {
  @ApiProperty({ description: 'Scope whose values to list (required).', format: 'uuid' })
  @IsUUID()
  scopeId: string;

  @ApiPropertyOptional({ description: 'Only values of this subject (digital staff id or contact id).', maxLength: 64 })
  @IsOptional() @IsString() @MaxLength(64)
  subjectId?: string;

  @ApiPropertyOptional({ description: 'Only values of this variable definition.', format: 'uuid' })
  @IsOptional() @IsUUID()
  definitionId?: string;

  @ApiPropertyOptional({ description: 'Most values returned, 1..CHAT_VARIABLE_LIST_MAX (default 1000, also the default limit); above → 400. Values are ordered by subject, then variable name.', minimum: 1 })
  @IsOptional() @Type(() => Number) @IsInt() @Min(1)
  limit?: number;
}

/** A variable value as returned (chat-management-api.md: VariableValueDto). */
export class VariableValueDto {
  @ApiProperty({ description: 'Id of the value (UUID).' }) id: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'Scope of the variable.' }) scopeId: string;
  @ApiProperty({ description: 'Variable definition.' }) definitionId: string;
  @ApiProperty({ description: 'Name of the variable.', example: 'memberLevel' }) name: string;
  @ApiProperty({ description: 'Type of the variable.', enum: VARIABLE_TYPES }) type: VariableType;
  @ApiProperty({ description: 'Subject: digital staff id or contact id; null in a tenant scope.', type: String, nullable: true }) subjectId: string | null;
  @ApiProperty({ description: 'The value (JSON of the type).', ...ANY_JSON, example: 'gold' }) value: unknown;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last changed (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/** Maps a value row and its definition to its response. */
export function toVariableValueDto(row: VariableValueEntity, definition: Pick<VariableDefinitionEntity, 'name' | 'type'>): VariableValueDto {
  return {
    id: row.id,
    tenantId: row.tenantId,
    scopeId: row.scopeId,
    definitionId: row.definitionId,
    name: definition.name,
    type: definition.type,
    subjectId: row.subjectId === TENANT_SUBJECT ? null : row.subjectId,
    value: row.value,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

// ---------------------------------------------------------------- resolution

/** Query of `GET {C}/variables/resolve`. */
export class ResolveContactVariablesQuery {
  @ApiProperty({ description: 'External contact (the spec\'s contactId).', format: 'uuid' })
  @IsUUID()
  contactId: string;

  @ApiPropertyOptional({ description: 'Digital staff whose variables apply; default: the one bound to the staff user the contact is added to.', format: 'uuid' })
  @IsOptional() @IsUUID()
  digitalStaffId?: string;
}

/** One variable visible to a contact. */
export class ResolvedVariableDto {
  @ApiProperty({ description: 'Name (`{{name}}`).', example: 'memberLevel' }) name: string;
  @ApiProperty({ description: 'Type.', enum: VARIABLE_TYPES }) type: VariableType;
  @ApiProperty({ description: 'The value in effect.', ...ANY_JSON, example: 'gold' }) value: unknown;
  @ApiProperty({ description: 'Source of the scope it came from.', enum: VARIABLE_SOURCES }) source: VariableSource;
  @ApiProperty({ description: 'Scope it came from.' }) scopeId: string;
  @ApiProperty({ description: 'Definition it came from.' }) definitionId: string;
  @ApiProperty({ description: 'Whether the definition\'s default stands in (no value set for the subject).' }) fromDefault: boolean;
}

/** The variables a contact sees (tenant, its digital staff's, its own; most specific wins). */
export class ContactVariablesDto {
  @ApiProperty({ description: 'The contact.' }) contactId: string;
  @ApiProperty({ description: 'The digital staff whose variables were included, or null when none applies.', type: String, nullable: true }) digitalStaffId: string | null;
  @ApiProperty({ description: 'Visible variables, by name.', type: [ResolvedVariableDto] }) variables: ResolvedVariableDto[];
}
