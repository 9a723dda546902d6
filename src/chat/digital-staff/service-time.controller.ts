import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { DigitalStaffService } from './digital-staff.service';
import { ChatDigitalStaffServiceTimeDto, CreateServiceTimeRequest, ServiceTimeQuery } from './service-time.dto';

/**
 * The service time of a digital staff (chat-management-api.md, Tenant API: `{T}/v1/chat/digital-staff/service-time`
 * getServiceTime, createOrUpdateServiceTime, deleteServiceTime; Limits: one configuration per digital staff).
 */
@ApiTags('chat: digital staff')
@Controller('api/:tenant/v1/chat/digital-staff/service-time')
@ChatAuth()
export class ServiceTimeController {
  constructor(private readonly digitalStaff: DigitalStaffService) {}

  @Get()
  @ApiOperation({
    operationId: 'getServiceTime',
    summary: 'Read the service time of a digital staff',
    description: '404 when the digital staff is unknown or has no service time configured (it is then always in service).',
  })
  @ApiOkResponse({ type: ChatDigitalStaffServiceTimeDto })
  @ApiBadRequestResponse({ description: 'staffId missing or not a UUID.' })
  get(@CurrentTenant() tenantId: string, @Query() query: ServiceTimeQuery): Promise<ChatDigitalStaffServiceTimeDto> {
    return this.digitalStaff.getServiceTime(tenantId, query.staffId);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'createOrUpdateServiceTime',
    summary: 'Create or replace the service time of a digital staff',
    description:
      'Exactly one configuration exists per digital staff: this creates it or replaces it whole (`version` counts the writes), also under concurrent requests. Weekly windows in local time of an IANA time zone (daylight-saving time followed), [start, end) with end after start ("24:00" ends the day), no overlapping windows on the same day. Every problem is listed in the 400 `errors`.',
  })
  @ApiOkResponse({ type: ChatDigitalStaffServiceTimeDto })
  @ApiBadRequestResponse({ description: 'Unknown time zone, bad day or time, a window not ending after it starts, overlapping windows, or too many windows.' })
  put(@CurrentTenant() tenantId: string, @Body() body: CreateServiceTimeRequest): Promise<ChatDigitalStaffServiceTimeDto> {
    return this.digitalStaff.putServiceTime(tenantId, body);
  }

  @Delete()
  @ApiOperation({
    operationId: 'deleteServiceTime',
    summary: 'Delete the service time of a digital staff',
    description: 'The digital staff is then always in service. 404 when it is unknown or has no service time.',
  })
  @ApiOkResponse({ description: 'Deleted (no body).' })
  @ApiBadRequestResponse({ description: 'staffId missing or not a UUID.' })
  remove(@CurrentTenant() tenantId: string, @Query() query: ServiceTimeQuery): Promise<void> {
    return this.digitalStaff.deleteServiceTime(tenantId, query.staffId);
  }
}
