import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, toPage } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CustomerTagRuleDto, CustomerTagRuleRequest, TagRulePageQuery, toCustomerTagRuleDto } from './tag-rules.dto';
import { TagRulesService } from './tag-rules.service';

const WRITE_400 = 'Invalid fields (`errors[]` names each): no keywords, blank / padded / too long / repeated keywords or tag names, bad platform tag ids, no tag to add.';

/**
 * Keyword tag rules (chat-management-api.md, Console endpoints: `GET, PUT, DELETE {C}/customers/tagRule/{id}`; DELETE
 * has no response body), plus the create and list a user needs. Success is 200 for every operation.
 */
@ApiTags('chat: tag rules')
@Controller('api/:tenant/console/customers/tagRule')
@ChatAuth()
export class TagRulesController {
  constructor(private readonly rules: TagRulesService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createCustomerTagRule',
    summary: 'Create a keyword tag rule',
    description: 'When an inbound customer message contains the keywords (any or all, case-insensitive), the pipeline adds the rule\'s tag names and platform tags to the contact.',
  })
  @ApiOkResponse({ type: CustomerTagRuleDto })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: 'Another rule of the tenant has this name, or the tenant has CHAT_RULE_MAX_PER_TENANT tag rules.' })
  async create(@CurrentTenant() tenantId: string, @Body() body: CustomerTagRuleRequest): Promise<CustomerTagRuleDto> {
    return toCustomerTagRuleDto(await this.rules.create(tenantId, body));
  }

  @Get()
  @ApiOperation({ operationId: 'pageCustomerTagRules', summary: 'Page the tenant\'s keyword tag rules', description: 'Oldest first (the order rules apply in) unless `sort` says otherwise. Sort fields: createdAt, updatedAt, name. `size` above 200 → 400.' })
  @ApiOkResponse({ type: pageResultSchema(CustomerTagRuleDto, 'Keyword tag rules') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  async list(@CurrentTenant() tenantId: string, @Query() query: TagRulePageQuery): Promise<Page<CustomerTagRuleDto>> {
    const { rows, ...slice } = await this.rules.list(tenantId, query);
    return toPage(rows.map(toCustomerTagRuleDto), slice, query);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getCustomerTagRule', summary: 'Read a keyword tag rule' })
  @ApiOkResponse({ type: CustomerTagRuleDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<CustomerTagRuleDto> {
    return toCustomerTagRuleDto(await this.rules.get(tenantId, id));
  }

  @Put(':id')
  @ApiOperation({ operationId: 'updateCustomerTagRule', summary: 'Change a keyword tag rule', description: 'The required fields are given again; omitted optional fields keep their value.' })
  @ApiOkResponse({ type: CustomerTagRuleDto })
  @ApiBadRequestResponse({ description: WRITE_400 })
  @ApiConflictResponse({ description: 'Another rule of the tenant has this name.' })
  async update(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: CustomerTagRuleRequest): Promise<CustomerTagRuleDto> {
    return toCustomerTagRuleDto(await this.rules.update(tenantId, id, body));
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteCustomerTagRule', summary: 'Delete a keyword tag rule' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.rules.remove(tenantId, id);
  }
}
