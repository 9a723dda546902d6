import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { GroupRoomsService } from '../group-rooms/group-rooms.service';
import { ContactSyncService } from './contact-sync.service';
import { SyncCustomerRequest, SyncCustomerResultDto, SyncGroupRequest, SyncGroupResultDto } from './guide-sync.dto';

/**
 * The console guide's sync steps (chat-management-api.md, Console endpoints: `POST {C}/workChat/user/guide/syncGroup`
 * and `…/syncCustomer`): pull a staff user's group chats or customers from the chat platform and store them. Both
 * are idempotent: a repeated sync reports everything unchanged. The spec gives no response body; these return what
 * the sync did (clients may ignore it).
 */
@ApiTags('chat: guide')
@Controller('api/:tenant/console/workChat/user/guide')
@ChatAuth()
export class GuideSyncController {
  constructor(
    private readonly contacts: ContactSyncService,
    private readonly rooms: GroupRoomsService,
  ) {}

  @Post('syncGroup')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'guideSyncGroup',
    summary: 'Sync the group chats a staff user owns',
    description: 'Pulls the customer group chats the staff user owns from the platform (cursor paging, at most CHAT_SYNC_MAX_ITEMS) with their members, and upserts group rooms and members.',
  })
  @ApiOkResponse({ type: SyncGroupResultDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or the platform refused (problem with platformErrorCode).' })
  @ApiConflictResponse({ description: 'The corp is disabled.' })
  syncGroup(@CurrentTenant() tenantId: string, @Body() body: SyncGroupRequest): Promise<SyncGroupResultDto> {
    return this.rooms.syncGroups(tenantId, body);
  }

  @Post('syncCustomer')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'guideSyncCustomer',
    summary: 'Sync a staff user\'s customers',
    description: 'Pulls the staff user\'s customers from the platform (cursor paging, at most CHAT_SYNC_MAX_ITEMS) and upserts their contacts, keeping the AI switch, profiles and open id Atrium holds.',
  })
  @ApiOkResponse({ type: SyncCustomerResultDto })
  @ApiBadRequestResponse({ description: 'Invalid fields, or the platform refused (problem with platformErrorCode).' })
  @ApiConflictResponse({ description: 'The corp is disabled.' })
  syncCustomer(@CurrentTenant() tenantId: string, @Body() body: SyncCustomerRequest): Promise<SyncCustomerResultDto> {
    return this.contacts.syncCustomers(tenantId, body);
  }
}
