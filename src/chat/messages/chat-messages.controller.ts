import { Body, Controller, Get, HttpCode, Param, Post, UploadedFile, UseInterceptors } from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBadGatewayResponse,
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentPrincipal } from '../../common/auth/auth.decorators';
import { UploadedFileCleanupInterceptor } from '../../common/http/uploaded-file-cleanup.interceptor';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import type { ChatPrincipal } from '../auth/chat-principal';
import { ChatContactsMessageDto, MessageCommentDto, MessageCommentRequest, SEND_MESSAGE_MULTIPART_SCHEMA, SendChatContactMessageFieldsDto } from './chat-messages.dto';
import { ChatMessagesService } from './chat-messages.service';
import { MessageAdviceOptimizerRequest, MessageCommentRequestOptimize, OptimizeDTO } from './message-optimize.dto';
import { MessageOptimizerService } from './message-optimizer.service';
import { MessageUploadLimitInterceptor } from './message-upload-limit.interceptor';

/**
 * Contact messages on the console paths (chat-management-api.md, Console endpoints:
 * `{C}/workChat/{workChatUserId}/contact/{contactId}/message/...`): send (multipart), review comments, and the
 * comment / advice optimize calls to the chat wing's model.
 * `workChatUserId` is the staff member's platform userid; the contact must be theirs in this tenant (404).
 */
@ApiTags('chat: messages')
@Controller('api/:tenant/console/workChat/:workChatUserId/contact/:contactId/message')
@ChatAuth()
@ApiParam({ name: 'workChatUserId', description: 'The staff member\'s platform userid.', example: 'zhangsan' })
@ApiParam({ name: 'contactId', description: 'External contact id (uuid).' })
export class ChatMessagesController {
  constructor(
    private readonly messages: ChatMessagesService,
    private readonly optimizer: MessageOptimizerService,
  ) {}

  @Post('send')
  @HttpCode(200)
  @UseInterceptors(UploadedFileCleanupInterceptor, MessageUploadLimitInterceptor, FileInterceptor('file'))
  @ApiConsumes('multipart/form-data')
  @ApiBody({ schema: SEND_MESSAGE_MULTIPART_SCHEMA })
  @ApiOperation({
    operationId: 'sendChatContactMessage',
    summary: 'Send a message to a contact',
    description:
      'multipart/form-data: `request` (JSON text: `msgType` text|image|video|file|emotion, `msgBody.content` for text, optional `quoteChatMsgId`), optional `originalAiContent`, `agentChatId`, `contactType`, and `file` ' +
      '(required for image, video, file and emotion (GIF), refused for text). The attachment\'s type is decided from its bytes (image: png, jpeg, gif, webp, bmp; emotion: gif; video: mp4, quicktime; file: anything). ' +
      'Size limits per type: CHAT_MESSAGE_MAX_IMAGE_BYTES, …_VIDEO_…, …_FILE_…, …_EMOTION_BYTES (413). The attachment goes to the file storage, the message is stored `pending` and delivered through the chat platform by a durable job: ' +
      'it becomes `sent` (with the platform\'s message id) or `failed` (with the platform\'s reason). On any refusal nothing is stored.',
  })
  @ApiOkResponse({ type: ChatContactsMessageDto })
  @ApiBadRequestResponse({ description: 'Bad `request` JSON or fields, a file missing or refused for the type, bytes not of the type, unknown quoted message.' })
  @ApiPayloadTooLargeResponse({ description: 'Attachment over its type\'s limit; nothing stored.' })
  @ApiConflictResponse({ description: 'The contact\'s corp is disabled.' })
  send(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId') contactId: string,
    @Body() fields: SendChatContactMessageFieldsDto,
    @UploadedFile() file: Express.Multer.File | undefined,
  ): Promise<ChatContactsMessageDto> {
    return this.messages.send(tenantId, workChatUserId, contactId, fields, file);
  }

  @Get(':id/comment')
  @ApiOperation({ operationId: 'getChatContactMessageComment', summary: 'Read your review of a message', description: 'The comment the caller (token subject) left on the message; 404 when none yet.' })
  @ApiOkResponse({ type: MessageCommentDto })
  getComment(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId') contactId: string,
    @Param('id') id: string,
    @CurrentPrincipal() principal: ChatPrincipal,
  ): Promise<MessageCommentDto> {
    return this.messages.getComment(tenantId, workChatUserId, contactId, id, principal.subject);
  }

  @Post(':id/comment')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'commentChatContactMessage',
    summary: 'Review an AI message',
    description: 'Creates or replaces the caller\'s comment (rating 1..5, text, tags; at least one). One comment per message and reviewer. Only AI messages (digital staff replies, or sends with `originalAiContent`) are reviewed (409 otherwise).',
  })
  @ApiOkResponse({ type: MessageCommentDto })
  @ApiBadRequestResponse({ description: 'Invalid or empty comment.' })
  @ApiConflictResponse({ description: 'The message is not an AI message.' })
  saveComment(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId') contactId: string,
    @Param('id') id: string,
    @Body() body: MessageCommentRequest,
    @CurrentPrincipal() principal: ChatPrincipal,
  ): Promise<MessageCommentDto> {
    return this.messages.saveComment(tenantId, workChatUserId, contactId, id, principal.subject, body);
  }

  @Post(':id/comment/optimize')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'optimizeChatContactMessageComment',
    summary: 'Improve a review with the model',
    description: 'The chat wing\'s model (CHAT_LLM_BASE_URL, CHAT_LLM_MODEL) rewrites the draft review `content` (default: your saved comment) into a clear, actionable one. Nothing is stored. 400 when no model is configured.',
  })
  @ApiOkResponse({ type: OptimizeDTO })
  @ApiBadRequestResponse({ description: 'No model configured, or nothing to optimize.' })
  @ApiBadGatewayResponse({ description: 'The model failed or timed out (CHAT_LLM_TIMEOUT_MS).' })
  optimizeComment(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId') contactId: string,
    @Param('id') id: string,
    @Body() body: MessageCommentRequestOptimize,
    @CurrentPrincipal() principal: ChatPrincipal,
  ): Promise<OptimizeDTO> {
    return this.optimizer.optimizeComment(tenantId, workChatUserId, contactId, id, principal.subject, body);
  }

  @Post(':id/advice/optimize')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'optimizeChatContactMessageAdvice',
    summary: 'Rewrite a message following advice',
    description: 'The chat wing\'s model rewrites the text message following `advice`. Nothing is stored or sent. 400 when no model is configured or the message has no text.',
  })
  @ApiOkResponse({ type: OptimizeDTO })
  @ApiBadRequestResponse({ description: 'No model configured, invalid advice, or not a text message.' })
  @ApiBadGatewayResponse({ description: 'The model failed or timed out (CHAT_LLM_TIMEOUT_MS).' })
  optimizeAdvice(
    @CurrentTenant() tenantId: string,
    @Param('workChatUserId') workChatUserId: string,
    @Param('contactId') contactId: string,
    @Param('id') id: string,
    @Body() body: MessageAdviceOptimizerRequest,
  ): Promise<OptimizeDTO> {
    return this.optimizer.optimizeAdvice(tenantId, workChatUserId, contactId, id, body);
  }
}
