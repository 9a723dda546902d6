import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query, Res } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiPayloadTooLargeResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { ContactVariablesDto, CreateVariableValueRequest, PutVariableValueRequest, ResolveContactVariablesQuery, VariableValueDto, VariableValueListQuery } from './variables.dto';
import { VariablesService } from './variables.service';

/**
 * Variable values (chat-management-api.md, Console endpoints: `GET/POST {C}/variables`, `PUT/DELETE
 * {C}/variables/{id}`; POST, PUT and DELETE answer without a body, as the spec says), plus
 * `GET {C}/variables/resolve`, which shows what a contact's replies will see.
 */
@ApiTags('chat: variables')
@Controller('api/:tenant/console/variables')
@ChatAuth()
export class VariableValuesController {
  constructor(private readonly variables: VariablesService) {}

  @Get()
  @ApiOperation({
    operationId: 'listVariableValues',
    summary: 'List the values of a variable scope',
    description: '`scopeId` is required (400 without). Optional filters: `subjectId`, `definitionId`. Ordered by subject, then variable name; at most `limit` values (default and maximum CHAT_VARIABLE_LIST_MAX; above → 400).',
  })
  @ApiOkResponse({ type: [VariableValueDto] })
  @ApiBadRequestResponse({ description: 'scopeId missing or not a UUID, or limit out of range.' })
  list(@CurrentTenant() tenantId: string, @Query() query: VariableValueListQuery): Promise<VariableValueDto[]> {
    return this.variables.list(tenantId, query);
  }

  @Get('resolve')
  @ApiOperation({
    operationId: 'resolveContactVariables',
    summary: 'The variables a contact sees',
    description:
      'What `{{name}}` placeholders resolve to in replies to this contact: variables of tenant scopes, of the digital staff (the one given, else the one bound to the staff user the contact is added to) and of the contact; on equal names the most specific wins (contact > digital staff > tenant), and a set value beats a default.',
  })
  @ApiOkResponse({ type: ContactVariablesDto })
  @ApiBadRequestResponse({ description: 'contactId missing or not a UUID.' })
  resolve(@CurrentTenant() tenantId: string, @Query() query: ResolveContactVariablesQuery): Promise<ContactVariablesDto> {
    return this.variables.resolveForContactDto(tenantId, query.contactId, query.digitalStaffId);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createVariableValue',
    summary: 'Set a variable\'s value for a subject',
    description:
      'Names the variable by `definitionId` (or `scopeId` + `name`) and the subject by `subjectId` (none for tenant scopes, a digital staff id or a contact id otherwise). The value must match the variable\'s type (400 with the reason). One value per variable and subject: a second one is 409 (the problem\'s `valueId` names the existing value; PUT it). No response body; the `Location` header names the new value.',
  })
  @ApiOkResponse({ description: 'Stored (no body).', headers: { Location: { description: 'Path of the new value (`/api/{tenant}/console/variables/{id}`).', schema: { type: 'string' } } } })
  @ApiBadRequestResponse({ description: 'Invalid fields, a subject that does not fit the scope\'s source, or a value that does not match the type.' })
  @ApiConflictResponse({ description: 'The subject already has a value for this variable.' })
  @ApiPayloadTooLargeResponse({ description: 'The value is larger than CHAT_VARIABLE_VALUE_MAX_BYTES of JSON.' })
  async create(@CurrentTenant() tenantId: string, @Body() body: CreateVariableValueRequest, @Res({ passthrough: true }) response: Response): Promise<void> {
    const created = await this.variables.create(tenantId, body);
    response.setHeader('Location', `/api/${tenantId}/console/variables/${created.id}`);
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateVariableValue', summary: 'Change a variable value', description: 'The new value must match the variable\'s type (400 with the reason). No response body.' })
  @ApiOkResponse({ description: 'Changed (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID, or the value does not match the type.' })
  @ApiPayloadTooLargeResponse({ description: 'The value is larger than CHAT_VARIABLE_VALUE_MAX_BYTES of JSON.' })
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: PutVariableValueRequest): Promise<void> {
    await this.variables.update(tenantId, id, body);
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteVariableValue', summary: 'Delete a variable value', description: 'The subject falls back to the variable\'s default, if any. No response body.' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.variables.remove(tenantId, id);
  }
}
