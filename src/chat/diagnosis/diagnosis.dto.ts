import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsUUID } from 'class-validator';
import { DIAGNOSIS_CHECK_NAMES, DIAGNOSIS_CHECK_STATUSES, type DiagnosisCheck, type DiagnosisCheckName, type DiagnosisCheckStatus, isHealthy, summarize } from './diagnosis.rules';

/**
 * Body of `POST {C}/workChat/diagnose` (chat-management-api.md: DiagnoseRequest): exactly one of `chatContactId`
 * (contact entry) or `chatStaffId` (staff entry). "Exactly one" is checked by the service (400 with the reason).
 */
export class DiagnoseRequest {
  @ApiPropertyOptional({
    description: 'Contact entry: the id of an external contact (customer) of the tenant (`id` of ExternalContactDtoV1 / ChatContactsExternalDto, the spec\'s contactId). Give this or chatStaffId, not both.',
    format: 'uuid',
    example: '6f1c2b9e-8d4a-4e1f-9b3c-2a7d5e0f4c81',
  })
  @IsOptional() @IsUUID(undefined, { message: 'chatContactId must be a UUID (the id of an external contact)' })
  chatContactId?: string;

  @ApiPropertyOptional({
    description: 'Staff entry: the id of a digital staff of the tenant (`id` of ChatStaffDto, from POST /api/{tenant}/v1/chat/staff). Give this or chatContactId, not both.',
    format: 'uuid',
    example: '0b6f7c1e-3c1a-4d8e-9a57-2f0d6c1b9e42',
  })
  @IsOptional() @IsUUID(undefined, { message: 'chatStaffId must be a UUID (the id of a digital staff)' })
  chatStaffId?: string;
}

/** One named check of a diagnosis. */
export class DiagnosisCheckDto {
  @ApiProperty({
    description: [
      'Stable name of the check:',
      '`contactExists` the contact is in this tenant;',
      '`aiSwitch` AI replies are on for the contact;',
      '`staffUser` the contact\'s staff user is known and bound to a digital staff (staff entry: the digital staff is bound to at least one staff user);',
      '`digitalStaff` the digital staff exists and is enabled;',
      '`serviceTime` its service time says it is in service now (no configuration: always in service);',
      '`defaultScene` a default contact way (scene code) serves the staff user or digital staff;',
      '`conversationGroup` a conversation group is assigned (not modelled in this version: always `warn`, "not configured");',
      '`platformReachable` the chat platform (or the built-in simulator) accepts the corp\'s credentials within CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS.',
    ].join(' '),
    enum: DIAGNOSIS_CHECK_NAMES,
    example: 'serviceTime',
  })
  name: DiagnosisCheckName;

  @ApiProperty({
    description: '`pass`; `fail` (the digital staff will not answer until this is fixed); `warn` (worth knowing, does not stop replies); `skip` (not checked because an earlier check failed).',
    enum: DIAGNOSIS_CHECK_STATUSES,
    example: 'fail',
  })
  status: DiagnosisCheckStatus;

  @ApiProperty({
    description: 'What was found and, unless it passed, what to do (naming the operation that fixes it).',
    example: 'Out of service now (Wednesday 20:00 Europe/Berlin); windows: Mon 09:00–18:00, Tue 09:00–18:00. Customers writing now get the out-of-hours message. If it should answer now, widen the windows: POST /api/{tenant}/v1/chat/digital-staff/service-time.',
  })
  reason: string;
}

/**
 * The answer of `POST {C}/workChat/diagnose`. The spec leaves the response a free-form object; this is its
 * documented shape.
 */
export class DiagnoseResultDto {
  @ApiProperty({ description: 'Which entry was diagnosed.', enum: ['contact', 'staff'], example: 'contact' })
  subject: 'contact' | 'staff';

  @ApiProperty({ description: 'The contact diagnosed (contact entry), else null.', type: String, format: 'uuid', nullable: true })
  chatContactId: string | null;

  @ApiProperty({ description: 'The digital staff diagnosed (staff entry), else null.', type: String, format: 'uuid', nullable: true })
  chatStaffId: string | null;

  @ApiProperty({ description: 'True when no check failed (warnings allowed): the digital staff can answer now.', example: false })
  healthy: boolean;

  @ApiProperty({ description: 'One line: which checks failed or warned.', example: '1 of 8 checks failed: serviceTime; warning: conversationGroup.' })
  summary: string;

  @ApiProperty({ description: 'The chat platform adapter in use (CHAT_PLATFORM_MODE).', enum: ['simulator', 'http'], example: 'simulator' })
  platformMode: 'simulator' | 'http';

  @ApiProperty({ description: 'When the checks ran (ISO 8601); the service-time check is judged at this instant.', format: 'date-time' })
  checkedAt: string;

  @ApiProperty({ description: 'The checks, in order (contact entry: contactExists, aiSwitch, staffUser, digitalStaff, serviceTime, defaultScene, conversationGroup, platformReachable; staff entry: digitalStaff, staffUser, serviceTime, defaultScene, conversationGroup, platformReachable).', type: [DiagnosisCheckDto] })
  checks: DiagnosisCheckDto[];
}

/** Builds the answer from the checks of one entry. */
export function toDiagnoseResultDto(
  subject: { kind: 'contact'; chatContactId: string } | { kind: 'staff'; chatStaffId: string },
  checks: DiagnosisCheck[],
  platformMode: 'simulator' | 'http',
  checkedAt: Date,
): DiagnoseResultDto {
  return {
    subject: subject.kind,
    chatContactId: subject.kind === 'contact' ? subject.chatContactId : null,
    chatStaffId: subject.kind === 'staff' ? subject.chatStaffId : null,
    healthy: isHealthy(checks),
    summary: summarize(checks),
    platformMode,
    checkedAt: checkedAt.toISOString(),
    checks: checks.map((entry) => ({ name: entry.name, status: entry.status, reason: entry.reason })),
  };
}
