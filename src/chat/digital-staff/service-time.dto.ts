import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMinSize, IsArray, IsInt, IsNotEmpty, IsObject, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { MESSAGE_MAX_CHARS } from './digital-staff.dto';
import { DigitalStaffServiceTimeEntity } from './service-time.entity';

/** One weekly window of a service-time configuration (local time of the configuration's time zone). */
export class ServiceTimeWindowDto {
  @ApiProperty({ description: 'ISO day of the week: 1 = Monday … 7 = Sunday.', minimum: 1, maximum: 7, example: 1 })
  @IsInt() @Min(1) @Max(7)
  dayOfWeek: number;

  @ApiProperty({ description: 'Local start time "HH:mm" (00:00..23:59), inclusive.', pattern: '^([01]\\d|2[0-3]):[0-5]\\d$', example: '09:00' })
  @IsString() @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'start must be a time "HH:mm" from 00:00 to 23:59' })
  start: string;

  @ApiProperty({ description: 'Local end time "HH:mm" (00:01..24:00), exclusive; after start. "24:00" is the end of the day.', pattern: '^(([01]\\d|2[0-3]):[0-5]\\d|24:00)$', example: '18:00' })
  @IsString() @Matches(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, { message: 'end must be a time "HH:mm" from 00:01 to 24:00' })
  end: string;
}

/**
 * Body of `POST {T}/v1/chat/digital-staff/service-time` (chat-management-api.md: CreateServiceTimeRequest): the whole
 * configuration of one digital staff, which replaces any existing one.
 */
export class CreateServiceTimeRequest {
  @ApiProperty({ description: 'Id of the digital staff (ChatStaffDto.id).', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' })
  @IsUUID()
  staffId: string;

  @ApiProperty({ description: 'IANA time zone of the windows (daylight-saving time is followed).', maxLength: 64, example: 'Asia/Shanghai' })
  @IsString() @IsNotEmpty() @MaxLength(64)
  timeZone: string;

  @ApiProperty({
    description:
      'Weekly windows in local time, at least one, at most CHAT_SERVICE_TIME_MAX_WINDOWS (default 70). Windows of the same day must not overlap (touching is fine); a span over midnight is two windows (…–24:00 and 00:00–…).',
    type: [ServiceTimeWindowDto],
    example: [
      { dayOfWeek: 1, start: '09:00', end: '12:00' },
      { dayOfWeek: 1, start: '13:30', end: '18:00' },
      { dayOfWeek: 6, start: '10:00', end: '16:00' },
    ],
  })
  @IsArray() @ArrayMinSize(1) @IsObject({ each: true }) @ValidateNested({ each: true }) @Type(() => ServiceTimeWindowDto)
  windows: ServiceTimeWindowDto[];

  @ApiPropertyOptional({ description: 'Reply sent to customers who write outside the windows; none when omitted or "".', maxLength: MESSAGE_MAX_CHARS, example: 'We are back at 9:00 tomorrow.' })
  @IsOptional() @IsString() @MaxLength(MESSAGE_MAX_CHARS)
  outOfHoursMessage?: string;
}

/** Query of `GET` and `DELETE {T}/v1/chat/digital-staff/service-time`. */
export class ServiceTimeQuery {
  @ApiProperty({ description: 'Id of the digital staff (ChatStaffDto.id).', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' })
  @IsUUID()
  staffId: string;
}

/** The service-time configuration of a digital staff (chat-management-api.md: ChatDigitalStaffServiceTimeDto). */
export class ChatDigitalStaffServiceTimeDto {
  @ApiProperty({ description: 'Id of the digital staff.', format: 'uuid', example: '6a1f1c9e-2b7d-4e0a-9c55-0d7f3b8e1a24' }) staffId: string;
  @ApiProperty({ description: 'Tenant id.', example: 'acme' }) tenantId: string;
  @ApiProperty({ description: 'IANA time zone of the windows.', example: 'Asia/Shanghai' }) timeZone: string;
  @ApiProperty({ description: 'Weekly windows, ordered by day and start.', type: [ServiceTimeWindowDto] }) windows: ServiceTimeWindowDto[];
  @ApiProperty({ description: 'Reply outside the windows, or null.', type: String, nullable: true }) outOfHoursMessage: string | null;
  @ApiProperty({ description: 'Whether the digital staff is in service at the time of the response.' }) inServiceNow: boolean;
  @ApiProperty({ description: 'Number of writes of this configuration: 1 when created, +1 per replacement.', example: 1 }) version: number;
  @ApiProperty({ description: 'Created (ISO 8601).', format: 'date-time' }) createdAt: string;
  @ApiProperty({ description: 'Last replaced (ISO 8601).', format: 'date-time' }) updatedAt: string;
}

/**
 * Maps a row to its response.
 * @param inServiceNow whether the staff is in service at the time of the response (isInServiceTime of the row, now)
 */
export function toChatDigitalStaffServiceTimeDto(row: DigitalStaffServiceTimeEntity, inServiceNow: boolean): ChatDigitalStaffServiceTimeDto {
  return {
    staffId: row.digitalStaffId,
    tenantId: row.tenantId,
    timeZone: row.timeZone,
    windows: row.windows.map((window) => ({ dayOfWeek: window.day_of_week, start: window.start, end: window.end })),
    outOfHoursMessage: row.outOfHoursMessage,
    inServiceNow,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
