import { Body, Controller, Get, HttpCode, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import {
  InjectSimulatorCustomerRequest,
  InjectSimulatorGroupChatRequest,
  InjectSimulatorMessageRequest,
  InjectSimulatorStaffRequest,
  ListSimulatorMessagesQuery,
  SimulatedMessageDto,
  SimulatorCustomerDto,
  SimulatorGroupChatDto,
  SimulatorInboundMessageDto,
  SimulatorStaffDto,
} from './simulator-api.dto';
import { SimulatorApiService } from './simulator-api.service';

const SIMULATOR_OFF = 'Every simulator operation answers 404 unless CHAT_PLATFORM_MODE is `simulator` (the default).';

/**
 * The built-in chat platform simulator's endpoint for tests and demos (issue 5, "The enterprise chat platform port";
 * acceptance 5: "injects a customer through the simulator"): act as the platform's outside world for one of the
 * tenant's corps — staff join, customers add staff (through a contact way), group chats appear, customers write —
 * and see what the wing sent. Not part of chat-management-api.md.
 */
@ApiTags('chat: simulator')
@Controller('api/:tenant/console/simulator/corps/:corpId')
@ChatAuth()
@ApiParam({ name: 'corpId', description: 'Id of the corp link (WorkChatCorpRelateDto.id).', format: 'uuid' })
export class SimulatorApiController {
  constructor(private readonly simulator: SimulatorApiService) {}

  @Post('staff')
  @HttpCode(200)
  @ApiOperation({ operationId: 'injectSimulatorStaff', summary: 'Simulator: a staff member joins the corp', description: `Creates or changes a staff member on the simulated platform (staff sync lists them). ${SIMULATOR_OFF}` })
  @ApiOkResponse({ type: SimulatorStaffDto })
  @ApiBadRequestResponse({ description: 'Invalid fields or corpId.' })
  injectStaff(@CurrentTenant() tenantId: string, @Param('corpId', ParseUUIDPipe) corpId: string, @Body() body: InjectSimulatorStaffRequest): Promise<SimulatorStaffDto> {
    return this.simulator.injectStaff(tenantId, corpId, body);
  }

  @Post('customers')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'injectSimulatorCustomer',
    summary: 'Simulator: a customer adds a staff member',
    description:
      'The customer scans a contact way (contactWayId or contactWayConfigId: its staff member and state) or adds `userId` directly. The platform event `external_contact.added` is handled before the answer: ' +
      `the response carries the contact Atrium stored (its id is the console's contactId). ${SIMULATOR_OFF}`,
  })
  @ApiOkResponse({ type: SimulatorCustomerDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, no staff member given or found, or userId not on the contact way.' })
  injectCustomer(@CurrentTenant() tenantId: string, @Param('corpId', ParseUUIDPipe) corpId: string, @Body() body: InjectSimulatorCustomerRequest): Promise<SimulatorCustomerDto> {
    return this.simulator.injectCustomer(tenantId, corpId, body);
  }

  @Post('group-chats')
  @HttpCode(200)
  @ApiOperation({ operationId: 'injectSimulatorGroupChat', summary: 'Simulator: a customer group chat appears', description: `Creates a group chat owned by a staff member, with staff and customer members (sync it with guide/syncGroup). ${SIMULATOR_OFF}` })
  @ApiOkResponse({ type: SimulatorGroupChatDto })
  @ApiBadRequestResponse({ description: 'Invalid fields.' })
  @ApiConflictResponse({ description: 'The chat id exists.' })
  injectGroupChat(@CurrentTenant() tenantId: string, @Param('corpId', ParseUUIDPipe) corpId: string, @Body() body: InjectSimulatorGroupChatRequest): Promise<SimulatorGroupChatDto> {
    return this.simulator.injectGroupChat(tenantId, corpId, body);
  }

  @Post('messages')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'injectSimulatorMessage',
    summary: 'Simulator: a customer writes',
    description: `Stores an inbound message on the simulated platform and publishes \`message.received\` (a known msgId is a redelivery). Returns the published event. ${SIMULATOR_OFF}`,
  })
  @ApiOkResponse({ type: SimulatorInboundMessageDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, a text without content, or an ambiguous staff member.' })
  @ApiConflictResponse({ description: 'msgId belongs to another message.' })
  injectMessage(@CurrentTenant() tenantId: string, @Param('corpId', ParseUUIDPipe) corpId: string, @Body() body: InjectSimulatorMessageRequest): Promise<SimulatorInboundMessageDto> {
    return this.simulator.injectMessage(tenantId, corpId, body);
  }

  @Get('messages')
  @ApiOperation({ operationId: 'listSimulatorMessages', summary: 'Simulator: messages of the corp', description: `What the wing sent (outbound) and customers wrote (inbound), oldest first: the latest \`limit\` (default 50). ${SIMULATOR_OFF}` })
  @ApiOkResponse({ type: [SimulatedMessageDto] })
  @ApiBadRequestResponse({ description: 'Invalid filter.' })
  listMessages(@CurrentTenant() tenantId: string, @Param('corpId', ParseUUIDPipe) corpId: string, @Query() query: ListSimulatorMessagesQuery): Promise<SimulatedMessageDto[]> {
    return this.simulator.listMessages(tenantId, corpId, query);
  }
}
