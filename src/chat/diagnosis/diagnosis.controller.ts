import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { DiagnoseRequest, DiagnoseResultDto } from './diagnosis.dto';
import { DiagnosisService } from './diagnosis.service';

/**
 * One-click diagnosis (chat-management-api.md, Console endpoints: `POST {C}/workChat/diagnose`, DiagnoseRequest →
 * object). The spec gives no operationId for this row; it is `diagnoseWorkChat`. Success is 200 (spec, Endpoints).
 */
@ApiTags('chat: diagnosis')
@Controller('api/:tenant/console/workChat/diagnose')
@ChatAuth()
export class DiagnosisController {
  constructor(private readonly diagnosis: DiagnosisService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'diagnoseWorkChat',
    summary: 'Diagnose why a contact or a digital staff gets no AI replies',
    description: [
      'Give exactly one of `chatContactId` (contact entry) or `chatStaffId` (staff entry: the id of a digital staff, ChatStaffDto.id); neither or both → 400.',
      'Runs named checks and answers each with `pass`, `fail`, `warn` or `skip` and a reason that says what to do.',
      'Contact entry: contactExists (in this tenant), aiSwitch, staffUser (known and bound to a digital staff), digitalStaff (exists, enabled), serviceTime (in service now, by the digital staff\'s weekly windows in its time zone; none configured = always in service), defaultScene (a default contact way for the staff user or digital staff), conversationGroup (not modelled in this version: always `warn`, "not configured"), platformReachable (the platform — or the built-in simulator — accepts the corp\'s credentials within CHAT_DIAGNOSIS_PLATFORM_TIMEOUT_MS).',
      'Staff entry: digitalStaff, staffUser (bound to at least one staff user), serviceTime, defaultScene, conversationGroup, platformReachable (every corp of its staff users).',
      'An unknown id (or another tenant\'s) is not an error: its first check fails with the reason and the rest are skipped. Read-only; `healthy` is true when no check failed.',
    ].join(' '),
  })
  @ApiOkResponse({ type: DiagnoseResultDto })
  @ApiBadRequestResponse({ description: 'Neither or both of chatContactId and chatStaffId, an id that is not a UUID, or unknown fields (problem+json).' })
  diagnose(@CurrentTenant() tenantId: string, @Body() body: DiagnoseRequest): Promise<DiagnoseResultDto> {
    return this.diagnosis.diagnose(tenantId, body);
  }
}
