import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, toPage } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import {
  CustomerInterventionRuleRequest,
  CustomerInterventionRuleRequestV1,
  CustomerInterventionRulesDto,
  CustomerInterventionRulesDtoV1,
  fromConsoleRequest,
  fromV1Request,
  InterventionRulePageQuery,
  toCustomerInterventionRulesDto,
  toCustomerInterventionRulesDtoV1,
} from './intervention-rules.dto';
import { InterventionRulesService } from './intervention-rules.service';

const WRITE_400 = 'Invalid fields (`errors[]` names each): bad keywords, an unsafe or invalid regular expression, bad intent names, a scope without digital staff or with unknown ones.';
const WRITE_409 = 'Another rule of the tenant has this name, or (create) the tenant has CHAT_RULE_MAX_PER_TENANT rules.';
const LIST_DESCRIPTION = 'In the order the rules apply (oldest first) unless `sort` says otherwise. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.';

/**
 * Human-intervention rules, tenant API view (chat-management-api.md, Tenant API: `POST {T}/v1/customers/interventionRule`,
 * `PUT/DELETE {T}/v1/customers/interventionRule/{id}`), plus the list and read a user needs. Flat bodies
 * (CustomerInterventionRuleRequestV1 / CustomerInterventionRulesDtoV1). Success is 200 for every operation.
 */
@ApiTags('chat: intervention rules')
@Controller('api/:tenant/v1/customers/interventionRule')
@ChatAuth()
export class InterventionRulesV1Controller {
  constructor(private readonly rules: InterventionRulesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createCustomerInterventionRuleV1',
    summary: 'Create a human-intervention rule',
    description: 'When an inbound customer message matches (keywords, regular expressions or a detected intent) and the rule applies to its digital staff, the pipeline switches the contact\'s AI off, opens a to-do and records the reason (per the rule\'s action). Regular expressions are checked when written: syntax, length, no backreferences or nested repetition, and a bounded run on adversarial input.',
  })
  @ApiOkResponse({ type: CustomerInterventionRulesDtoV1 })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: WRITE_409 })
  async create(@CurrentTenant() tenantId: string, @Body() body: CustomerInterventionRuleRequestV1): Promise<CustomerInterventionRulesDtoV1> {
    return toCustomerInterventionRulesDtoV1(await this.rules.create(tenantId, fromV1Request(body), 'v1'));
  }

  @Get()
  @ApiOperation({ operationId: 'pageCustomerInterventionRulesV1', summary: 'Page the tenant\'s human-intervention rules', description: LIST_DESCRIPTION })
  @ApiOkResponse({ type: pageResultSchema(CustomerInterventionRulesDtoV1, 'Human-intervention rules') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  async list(@CurrentTenant() tenantId: string, @Query() query: InterventionRulePageQuery): Promise<Page<CustomerInterventionRulesDtoV1>> {
    const { rows, ...slice } = await this.rules.list(tenantId, query);
    return toPage(rows.map(toCustomerInterventionRulesDtoV1), slice, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getCustomerInterventionRuleV1', summary: 'Read a human-intervention rule' })
  @ApiOkResponse({ type: CustomerInterventionRulesDtoV1 })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<CustomerInterventionRulesDtoV1> {
    return toCustomerInterventionRulesDtoV1(await this.rules.get(tenantId, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateCustomerInterventionRuleV1', summary: 'Change a human-intervention rule', description: 'The required fields are given again; omitted optional fields keep their value (`allContacts: true` empties digitalStaffIds).' })
  @ApiOkResponse({ type: CustomerInterventionRulesDtoV1 })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: 'Another rule of the tenant has this name.' })
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: CustomerInterventionRuleRequestV1): Promise<CustomerInterventionRulesDtoV1> {
    return toCustomerInterventionRulesDtoV1(await this.rules.update(tenantId, id, fromV1Request(body), 'v1'));
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteCustomerInterventionRuleV1', summary: 'Delete a human-intervention rule' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.rules.remove(tenantId, id);
  }
}

/**
 * Human-intervention rules, console view (chat-management-api.md, Console endpoints:
 * `PUT {C}/customers/interventionRule/{id}`), plus create, list, read and delete. The same rules as the V1 view,
 * with scope and action grouped (CustomerInterventionRuleRequest / CustomerInterventionRulesDto).
 */
@ApiTags('chat: intervention rules')
@Controller('api/:tenant/console/customers/interventionRule')
@ChatAuth()
export class InterventionRulesConsoleController {
  constructor(private readonly rules: InterventionRulesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createCustomerInterventionRule', summary: 'Create a human-intervention rule (console view)', description: 'Same rules as `createCustomerInterventionRuleV1`, with `scope` and `action` grouped.' })
  @ApiOkResponse({ type: CustomerInterventionRulesDto })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: WRITE_409 })
  async create(@CurrentTenant() tenantId: string, @Body() body: CustomerInterventionRuleRequest): Promise<CustomerInterventionRulesDto> {
    return toCustomerInterventionRulesDto(await this.rules.create(tenantId, fromConsoleRequest(body), 'console'));
  }

  @Get()
  @ApiOperation({ operationId: 'pageCustomerInterventionRules', summary: 'Page the tenant\'s human-intervention rules (console view)', description: LIST_DESCRIPTION })
  @ApiOkResponse({ type: pageResultSchema(CustomerInterventionRulesDto, 'Human-intervention rules') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  async list(@CurrentTenant() tenantId: string, @Query() query: InterventionRulePageQuery): Promise<Page<CustomerInterventionRulesDto>> {
    const { rows, ...slice } = await this.rules.list(tenantId, query);
    return toPage(rows.map(toCustomerInterventionRulesDto), slice, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getCustomerInterventionRule', summary: 'Read a human-intervention rule (console view)' })
  @ApiOkResponse({ type: CustomerInterventionRulesDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<CustomerInterventionRulesDto> {
    return toCustomerInterventionRulesDto(await this.rules.get(tenantId, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateCustomerInterventionRule', summary: 'Change a human-intervention rule (console view)', description: 'The required fields are given again; omitted optional fields keep their value (`scope.allContacts: true` empties the digital staff list).' })
  @ApiOkResponse({ type: CustomerInterventionRulesDto })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: 'Another rule of the tenant has this name.' })
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: CustomerInterventionRuleRequest): Promise<CustomerInterventionRulesDto> {
    return toCustomerInterventionRulesDto(await this.rules.update(tenantId, id, fromConsoleRequest(body), 'console'));
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteCustomerInterventionRule', summary: 'Delete a human-intervention rule (console view)' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.rules.remove(tenantId, id);
  }
}
