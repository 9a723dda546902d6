import { Controller, Header, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { CONTACT_ID_PARAM, STAFF_PARAM } from '../contacts/console-contacts.controller';
import { ChatInboundPipeline } from './chat-inbound-pipeline.service';

/**
 * Immediate AI intervention (chat-management-api.md, Console endpoints:
 * `POST {C}/workChat/{workChatUserId}/contact/external/{contactId}/ai-intervene`; States and transitions: "immediate
 * AI intervention (boolean result)"). A contact of another staff member or tenant answers 404.
 */
@ApiTags('chat: contacts')
@Controller('api/:tenant/console/workChat/:workChatUserId/contact/external')
@ChatAuth()
@STAFF_PARAM
export class AiInterveneController {
  constructor(private readonly pipeline: ChatInboundPipeline) {}

  @Post(':contactId/ai-intervene')
  @HttpCode(200)
  @Header('Content-Type', 'application/json; charset=utf-8')
  @CONTACT_ID_PARAM
  @ApiOperation({
    operationId: 'aiInterveneChatContactsExternal',
    summary: 'Ask the digital staff to reply to a contact now',
    description:
      'No body. Queues an AI reply to the contact\'s latest inbound customer message (single chat), even when the contact\'s AI reply switch is off or ' +
      'the digital staff is out of service time: an operator asked for it. The reply is composed and sent by the durable reply job, exactly once per message. ' +
      'Returns true when a reply was queued; false when the contact has no inbound message yet, or that message already has a reply ' +
      '(sent, or an out-of-hours message) or one queued or being composed.',
  })
  @ApiOkResponse({ description: 'Whether a reply was queued.', schema: { type: 'boolean', example: true } })
  @ApiBadRequestResponse({ description: 'contactId is not a UUID, or no chat model is configured (CHAT_LLM_BASE_URL / CHAT_LLM_MODEL unset).' })
  @ApiConflictResponse({ description: 'The contact\'s staff user is bound to no digital staff.' })
  aiIntervene(@CurrentTenant() tenantId: string, @Param('workChatUserId') workChatUserId: string, @Param('contactId', ParseUUIDPipe) contactId: string): Promise<boolean> {
    return this.pipeline.requestImmediateReply(tenantId, workChatUserId, contactId);
  }
}
