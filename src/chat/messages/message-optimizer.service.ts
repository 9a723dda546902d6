import { BadGatewayException, BadRequestException, Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { chatLlm, type ChatLlm } from '../../llm/chat-llm-settings';
import type { ChatMessage } from '../../llm/chat-model';
import type { ChatMessageEntity } from './chat-message.entity';
import { ChatMessagesService } from './chat-messages.service';
import { MessageCommentEntity } from './message-comment.entity';
import { MessageAdviceOptimizerRequest, MessageCommentRequestOptimize, OptimizeDTO } from './message-optimize.dto';
import { adviceOptimizePrompt, cleanModelAnswer, commentOptimizePrompt } from './message-optimize.prompts';

/** The reason given when the chat wing has no model (400). */
export const NO_CHAT_MODEL = 'no chat model configured: set CHAT_LLM_BASE_URL and CHAT_LLM_MODEL';

/**
 * Comment optimize and advice optimize (chat-management-api.md, Contact message: OptimizeDTO): asks the chat wing's
 * default model (CHAT_LLM_BASE_URL, CHAT_LLM_MODEL, CHAT_LLM_API_KEY, CHAT_LLM_TIMEOUT_MS) through src/llm to
 * improve an operator's review or rewrite a message following advice. Nothing is stored.
 */
@Injectable()
export class MessageOptimizerService {
  /** CHAT_LLM_*'s client, built once; null when unset. */
  private readonly llm: ChatLlm | null;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly messages: ChatMessagesService,
    outboundHttp: OutboundHttp,
  ) {
    this.llm = chatLlm(config.chatLlm, outboundHttp.client(config.chatOutbound.llm));
  }

  /**
   * Rewrites the caller's draft review (or saved comment) of a message into a clear, actionable one.
   * @throws BadRequestException (400) no model configured; no draft given and no saved comment
   * @throws NotFoundException (404) unknown message of this contact
   * @throws BadGatewayException (502) the model failed, timed out or answered nothing
   */
  async optimizeComment(tenantId: string, workChatUserId: string, contactId: string, messageId: string, reviewer: string, body: MessageCommentRequestOptimize): Promise<OptimizeDTO> {
    const llm = this.requireModel();
    const message = await this.messages.findMessage(tenantId, workChatUserId, contactId, messageId);
    let draft = body.content;
    if (draft === undefined) {
      const saved = await this.dataSource.manager.findOneBy(MessageCommentEntity, { tenantId, messageId: message.id, reviewer });
      draft = saved?.content ?? undefined;
    }
    if (!draft?.trim()) throw new BadRequestException('Nothing to optimize: send `content` (your draft review) or save a comment with text first.');
    const optimized = await this.complete(llm, commentOptimizePrompt({ message: describe(message), draft }));
    return { original: draft, optimized, advice: null, model: llm.settings.model };
  }

  /**
   * Rewrites a text message following the operator's advice.
   * @throws BadRequestException (400) no model configured; the message has no text
   * @throws NotFoundException (404) unknown message of this contact
   * @throws BadGatewayException (502) the model failed, timed out or answered nothing
   */
  async optimizeAdvice(tenantId: string, workChatUserId: string, contactId: string, messageId: string, body: MessageAdviceOptimizerRequest): Promise<OptimizeDTO> {
    const llm = this.requireModel();
    const message = await this.messages.findMessage(tenantId, workChatUserId, contactId, messageId);
    if (message.msgType !== 'text' || !message.content) throw new BadRequestException(`Message ${messageId} is a ${message.msgType} message; only text messages can be rewritten.`);
    const optimized = await this.complete(llm, adviceOptimizePrompt({ message: message.content, advice: body.advice }));
    return { original: message.content, optimized, advice: body.advice, model: llm.settings.model };
  }

  /** The chat wing's model (CHAT_LLM_*). @throws BadRequestException (400) none configured */
  private requireModel(): ChatLlm {
    if (!this.llm) throw new BadRequestException(NO_CHAT_MODEL);
    return this.llm;
  }

  private async complete(llm: ChatLlm, messages: ChatMessage[]): Promise<string> {
    const { model } = llm.settings;
    let answer: string;
    try {
      answer = await llm.model.complete(messages, { timeoutMs: this.config.chatLlm.timeoutMs, temperature: 0.3 });
    } catch (error) {
      throw new BadGatewayException(`The chat model (${model}) failed: ${(error as Error).message}`);
    }
    const text = cleanModelAnswer(answer ?? '');
    if (!text) throw new BadGatewayException(`The chat model (${model}) answered nothing.`);
    return text;
  }
}

/** The message as the model sees it: its text, or a note on its attachment. */
function describe(message: ChatMessageEntity): string {
  return message.msgType === 'text' ? (message.content ?? '') : `[${message.msgType} attachment${message.attachmentFileName ? ` ${message.attachmentFileName}` : ''}]`;
}
