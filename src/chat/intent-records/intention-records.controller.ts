import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page, toPage } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { pageResultSchema } from '../common/page-result';
import { CreateCustomerIntentionRecord, CustomerIntentionRecordDto, IntentionRecordPageQuery, ModifyCustomerIntentionRecord, toCustomerIntentionRecordDto } from './intention-records.dto';
import { IntentionRecordsService } from './intention-records.service';

/**
 * Intent records (chat-management-api.md, Console endpoints: `PUT {C}/customers/intentionRecord/{id}`), plus the
 * list (by contact), read, create and delete a user needs. Records are mostly written by the inbound pipeline when it
 * detects an intent; operators review them here. Success is 200 for every operation.
 */
@ApiTags('chat: intent records')
@Controller('api/:tenant/console/customers/intentionRecord')
@ChatAuth()
export class IntentionRecordsController {
  constructor(private readonly records: IntentionRecordsService) {}

  @Get()
  @ApiOperation({ operationId: 'pageCustomerIntentionRecords', summary: 'Page the tenant\'s intent records', description: 'Newest first unless `sort` says otherwise; filter by contactId, status, intentName. Sort fields: createdAt, updatedAt, intentName, confidence. `size` above 200 → 400.' })
  @ApiOkResponse({ type: pageResultSchema(CustomerIntentionRecordDto, 'Intent records') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  async list(@CurrentTenant() tenantId: string, @Query() query: IntentionRecordPageQuery): Promise<Page<CustomerIntentionRecordDto>> {
    const { rows, ...slice } = await this.records.list(tenantId, query);
    return toPage(rows.map(toCustomerIntentionRecordDto), slice, query);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ operationId: 'createCustomerIntentionRecord', summary: 'Record an intent by hand', description: 'The pipeline records detected intents itself (source `pipeline`); this records one for an operator (source `operator`).' })
  @ApiOkResponse({ type: CustomerIntentionRecordDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or the contact is not one of the tenant\'s.' })
  @ApiConflictResponse({ description: 'The message already has a record of this intent.' })
  async create(@CurrentTenant() tenantId: string, @Body() body: CreateCustomerIntentionRecord): Promise<CustomerIntentionRecordDto> {
    return toCustomerIntentionRecordDto(await this.records.create(tenantId, body));
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getCustomerIntentionRecord', summary: 'Read an intent record' })
  @ApiOkResponse({ type: CustomerIntentionRecordDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  async get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<CustomerIntentionRecordDto> {
    return toCustomerIntentionRecordDto(await this.records.get(tenantId, id));
  }

  @Put(':id')
  @ApiOperation({
    operationId: 'updateCustomerIntentionRecord',
    summary: 'Review an intent record',
    description: 'Confirm or reject the intent, reopen it, note why, or correct its name. Omitted fields keep their value; `reviewedAt` is stamped when the verdict changes and cleared on reopening.',
  })
  @ApiOkResponse({ type: CustomerIntentionRecordDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or none given.' })
  @ApiConflictResponse({ description: 'The corrected intent is already recorded for the same message.' })
  async modify(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string, @Body() body: ModifyCustomerIntentionRecord): Promise<CustomerIntentionRecordDto> {
    return toCustomerIntentionRecordDto(await this.records.modify(tenantId, id, body));
  }

  @Delete(':id')
  @ApiOperation({ operationId: 'deleteCustomerIntentionRecord', summary: 'Delete an intent record' })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  remove(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.records.remove(tenantId, id);
  }
}
