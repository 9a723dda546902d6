import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { Page } from '../../common/paging/page';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import type { ChatPrincipal } from '../auth/chat-principal';
import { pageResultSchema } from '../common/page-result';
import { CustomerTodoDto, CustomerTodoPageQuery, ProcessTodoRequest } from './customer-todos.dto';
import { CustomerTodosService } from './customer-todos.service';

/**
 * Digital-staff customer to-dos (chat-management-api.md, Tenant API: `POST {T}/v1/chat/digitalStaff/customer/todo/process`
 * processDigitalStaffCustomerTodo), plus the list and read an operator needs to find them. The inbound pipeline
 * opens them (a human-intervention rule matched); operators process them here. Success is 200 for every operation.
 */
@ApiTags('chat: digital staff')
@Controller('api/:tenant/v1/chat/digitalStaff/customer/todo')
@ChatAuth()
export class CustomerTodosController {
  constructor(private readonly todos: CustomerTodosService) {}

  @Get()
  @ApiOperation({
    operationId: 'pageDigitalStaffCustomerTodos',
    summary: 'Page the tenant\'s digital-staff customer to-dos',
    description: 'Newest first unless `sort` says otherwise; filter by status (open / processed), contactId, digitalStaffId. Sort fields: createdAt, updatedAt, processedAt. `size` above 200 → 400.',
  })
  @ApiOkResponse({ type: pageResultSchema(CustomerTodoDto, 'Customer to-dos') })
  @ApiBadRequestResponse({ description: 'Invalid page, size, sort field or filter.' })
  list(@CurrentTenant() tenantId: string, @Query() query: CustomerTodoPageQuery): Promise<Page<CustomerTodoDto>> {
    return this.todos.list(tenantId, query);
  }

  @Post('process')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'processDigitalStaffCustomerTodo',
    summary: 'Process (close) a digital-staff customer to-do',
    description:
      'Manual handling of a digital-staff customer to-do: marks it processed by the caller, with an optional note; `enableAi: true` switches the contact\'s AI replies back on in the same transaction. Returns the processed to-do (the spec gives no response body; this one is additive). Processing an already processed to-do → 409.',
  })
  @ApiOkResponse({ type: CustomerTodoDto })
  @ApiBadRequestResponse({ description: 'Invalid fields (todoId not a UUID, enableAi not a boolean, note too long).' })
  @ApiConflictResponse({ description: 'The to-do is already processed; or enableAi and its contact no longer exists.' })
  process(@CurrentTenant() tenantId: string, @CurrentPrincipal() principal: ChatPrincipal, @Body() body: ProcessTodoRequest): Promise<CustomerTodoDto> {
    // who processes it: the access token's subject
    return this.todos.process(tenantId, principal.subject, body);
  }

  @Get(':id')
  @ApiOperation({ operationId: 'getDigitalStaffCustomerTodo', summary: 'Read a digital-staff customer to-do' })
  @ApiOkResponse({ type: CustomerTodoDto })
  @ApiBadRequestResponse({ description: 'The id is not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Param('id', ParseUUIDPipe) id: string): Promise<CustomerTodoDto> {
    return this.todos.get(tenantId, id);
  }
}
