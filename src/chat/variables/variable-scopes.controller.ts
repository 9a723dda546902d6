import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { VariableScopesService } from './variable-scopes.service';
import { VariableDefinitionDto, VariableDefinitionPayload, VariableDeleteQuery, VariableScopeDto, VariableScopeListQuery, VariableScopePayload } from './variables.dto';

/**
 * Variable scopes and definitions (chat-management-api.md, Console endpoints: `GET {C}/variableScopes?source=`,
 * `GET/PUT/DELETE {C}/variableScopes/{id}`, `GET/PUT/DELETE {C}/variableScopes/{scopeId}/definitions/{id}`), plus
 * the create of a scope and the create and list of definitions that the spec leaves out. Success is 200 for every
 * operation; DELETE answers with the deleted resource (the spec lists the DTO for these rows).
 */
@ApiTags('chat: variables')
@Controller('api/:tenant/console/variableScopes')
@ChatAuth()
export class VariableScopesController {
  constructor(private readonly scopes: VariableScopesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listVariableScopes',
    summary: 'List the tenant\'s variable scopes of one source',
    description: '`source` is required (400 without): `tenant`, `digital_staff` or `contact`. Ordered by name. At most CHAT_VARIABLE_MAX_SCOPES scopes exist per tenant, so the list is not paged.',
  })
  @ApiOkResponse({ type: [VariableScopeDto] })
  @ApiBadRequestResponse({ description: 'source missing or not one of tenant, digital_staff, contact.' })
  list(@CurrentTenant() tenantId: string, @Query() query: VariableScopeListQuery): Promise<VariableScopeDto[]> {
    return this.scopes.listScopes(tenantId, query.source);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createVariableScope',
    summary: 'Create a variable scope',
    description: 'A scope groups variable definitions; its `source` says whom a value belongs to (tenant, a digital staff, a contact). Names are unique per (tenant, source) (409). At most CHAT_VARIABLE_MAX_SCOPES per tenant (409).',
  })
  @ApiOkResponse({ type: VariableScopeDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'Duplicate name for this source, or the tenant\'s scope limit is reached.' })
  create(@CurrentTenant() tenantId: string, @Body() body: VariableScopePayload): Promise<VariableScopeDto> {
    return this.scopes.createScope(tenantId, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getVariableScope', summary: 'Read a variable scope' })
  @ApiOkResponse({ type: VariableScopeDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<VariableScopeDto> {
    return this.scopes.getScope(tenantId, id);
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateVariableScope',
    summary: 'Replace a variable scope',
    description: 'Replaces name, source and description (omitted description = none). Changing the source is refused (409) while the scope has values, since their subjects would no longer fit.',
  })
  @ApiOkResponse({ type: VariableScopeDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'Duplicate name for the source, or a source change while values exist.' })
  update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: VariableScopePayload): Promise<VariableScopeDto> {
    return this.scopes.updateScope(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({
    operationId: 'deleteVariableScope',
    summary: 'Delete a variable scope',
    description: 'Refused (409) while the scope has variable definitions, unless `recursive=true`, which deletes its definitions and their values too (one transaction). Answers with the deleted scope.',
  })
  @ApiOkResponse({ type: VariableScopeDto, description: 'The deleted scope.' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID, or recursive is not true/false.' })
  @ApiConflictResponse({ description: 'The scope has definitions and recursive is not set.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Query() query: VariableDeleteQuery): Promise<VariableScopeDto> {
    return this.scopes.deleteScope(tenantId, id, query.recursive === true);
  }

  @Get(':scopeId/definitions')
  @ApiOperation({
    operationId: 'listVariableDefinitions',
    summary: 'List the variable definitions of a scope',
    description: 'Ordered by name. At most CHAT_VARIABLE_MAX_DEFINITIONS exist per scope, so the list is not paged.',
  })
  @ApiOkResponse({ type: [VariableDefinitionDto] })
  @ApiBadRequestResponse({ description: 'The scope id is not a UUID.' })
  listDefinitions(@CurrentTenant() tenantId: string, @Param('scopeId', ParseUUIDPipe) scopeId: string): Promise<VariableDefinitionDto[]> {
    return this.scopes.listDefinitions(tenantId, scopeId);
  }

  @Post(':scopeId/definitions')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createVariableDefinition',
    summary: 'Define a variable in a scope',
    description:
      'A typed variable (string, number, boolean, date, enum with options, json), used in scripts and replies as `{{name}}`. The name is unique within the scope (409); the default must match the type (400 with the reason). At most CHAT_VARIABLE_MAX_DEFINITIONS per scope (409).',
  })
  @ApiOkResponse({ type: VariableDefinitionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, options that do not fit the type, or a default that does not match it.' })
  @ApiConflictResponse({ description: 'Duplicate name in the scope, or the scope\'s definition limit is reached.' })
  @ApiPayloadTooLargeResponse({ description: 'The default is larger than CHAT_VARIABLE_VALUE_MAX_BYTES of JSON.' })
  createDefinition(@CurrentTenant() tenantId: string, @Param('scopeId', ParseUUIDPipe) scopeId: string, @Body() body: VariableDefinitionPayload): Promise<VariableDefinitionDto> {
    return this.scopes.createDefinition(tenantId, scopeId, body);
  }

  @Get(':scopeId/definitions/:id')
  @ApiOperation({ operationId: 'getVariableDefinition', summary: 'Read a variable definition' })
  @ApiOkResponse({ type: VariableDefinitionDto })
  @ApiBadRequestResponse({ description: 'An id is not a UUID.' })
  getDefinition(@CurrentTenant() tenantId: string, @Param('scopeId', ParseUUIDPipe) scopeId: string, @Param('id', ParseUUIDPipe) id: string): Promise<VariableDefinitionDto> {
    return this.scopes.getDefinition(tenantId, scopeId, id);
  }

  @Put(':scopeId/definitions/:id')
  @ApiOperation({
    operationId: 'updateVariableDefinition',
    summary: 'Replace a variable definition',
    description: 'Replaces name, type, options, default and description. Existing values must stay valid: changing the type while values exist, or dropping enum options that values use, is refused (409).',
  })
  @ApiOkResponse({ type: VariableDefinitionDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, options or default.' })
  @ApiConflictResponse({ description: 'Duplicate name, or a change that existing values would not match.' })
  @ApiPayloadTooLargeResponse({ description: 'The default is larger than CHAT_VARIABLE_VALUE_MAX_BYTES of JSON.' })
  updateDefinition(
    @CurrentTenant() tenantId: string,
    @Param('scopeId', ParseUUIDPipe) scopeId: string,
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: VariableDefinitionPayload,
  ): Promise<VariableDefinitionDto> {
    return this.scopes.updateDefinition(tenantId, scopeId, id, body);
  }

  @Delete(':scopeId/definitions/:id')
  @ApiOperation({
    operationId: 'deleteVariableDefinition',
    summary: 'Delete a variable definition',
    description: 'Refused (409) while values exist, unless `recursive=true`, which deletes them too (one transaction). Answers with the deleted definition.',
  })
  @ApiOkResponse({ type: VariableDefinitionDto, description: 'The deleted definition.' })
  @ApiBadRequestResponse({ description: 'An id is not a UUID, or recursive is not true/false.' })
  @ApiConflictResponse({ description: 'The variable has values and recursive is not set.' })
  removeDefinition(
    @CurrentTenant() tenantId: string,
    @Param('scopeId', ParseUUIDPipe) scopeId: string,
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: VariableDeleteQuery,
  ): Promise<VariableDefinitionDto> {
    return this.scopes.deleteDefinition(tenantId, scopeId, id, query.recursive === true);
  }
}
