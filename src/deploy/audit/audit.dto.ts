import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches, Validate, ValidatorConstraint, ValidatorConstraintInterface } from 'class-validator';
import { PageBoundsQueryDto } from '../../common/paging/page';
import type { AuditEntryEntity } from './audit-entry.entity';

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

@ValidatorConstraint({ name: 'calendarDate' })
class CalendarDateConstraint implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    return typeof value === 'string' && isCalendarDate(value);
  }
  defaultMessage(): string {
    return 'date must be a real date in the format YYYY-MM-DD';
  }
}

/** Query of `GET /api/admin/audit` (deployment-gateway.md, Endpoints: query `date` in format `YYYY-MM-DD`). */
export class AuditQueryDto extends PageBoundsQueryDto {
  @ApiPropertyOptional({ description: 'UTC day to read, `YYYY-MM-DD`; defaults to today (UTC).', example: '2026-11-21' })
  @IsOptional() @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'date must be in the format YYYY-MM-DD' }) @Validate(CalendarDateConstraint)
  date?: string;
}

/** One audit row as the owner reads it. */
export class AuditEntryDto {
  @ApiProperty({ description: 'Row id (increasing).' }) id: string;
  @ApiProperty({ description: 'When the call happened (ISO 8601, UTC).' }) occurredAt: string;
  @ApiProperty({ description: 'Public prefix of the token used (`owner` for the owner credential).', nullable: true, type: String }) tokenPrefix: string | null;
  @ApiProperty({ description: 'Agent id of the caller.', nullable: true, type: String }) agentId: string | null;
  @ApiProperty({ description: 'Namespace (contactId) of the caller.', nullable: true, type: String }) namespace: string | null;
  @ApiProperty({ description: 'Action: register, deploy, upload, exec, list, delete, admin.list-tokens, admin.revoke-token, admin.read-audit.' }) action: string;
  @ApiProperty({ description: 'What the action was about (deployment id, path, token prefix).', nullable: true, type: String }) target: string | null;
  @ApiProperty({ description: 'allowed, refused (4xx) or failed (5xx).', enum: ['allowed', 'refused', 'failed'] }) outcome: string;
  @ApiProperty({ description: 'HTTP status returned.' }) status: number;
  @ApiProperty({ description: 'Client IP address.', nullable: true, type: String }) clientAddress: string | null;
  @ApiProperty({ description: 'For exec: the command, with secret-looking values masked.', nullable: true, type: String }) command: string | null;
  @ApiProperty({ description: 'For exec: the exit code.', nullable: true, type: Number }) exitCode: number | null;
  @ApiProperty({ description: 'Reason of a refusal or failure.', nullable: true, type: String }) detail: string | null;
}

/** Maps an audit row to its response shape. */
export function toAuditEntryDto(entry: AuditEntryEntity): AuditEntryDto {
  return { ...entry, occurredAt: entry.occurredAt.toISOString() };
}
