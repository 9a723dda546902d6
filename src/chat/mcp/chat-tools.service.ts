import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { corpContext, findCorpById } from '../contacts/corp-lookup';
import { ExternalContactEntity, type ExternalContactTag } from '../contacts/external-contact.entity';
import { ChatMessagesService } from '../messages/chat-messages.service';
import { CHAT_PLATFORM, type ChatPlatform } from '../platform';
import { AddCustomerTagRequest, CustomerTagsResultDto, DeleteCustomerTagRequest, SendGroupMessageRequest, SendMessageRequest, SendMessageResponse, toSendMessageResponse } from './chat-tools.dto';
import { contactReferenceProblem, planTagAdd, planTagRemove, resolveLibraryTags, tagSelectionProblem, type ContactReference } from './chat-tools.rules';
import { GroupRoomMessages } from './group-room-messages.service';
import { isUuidShaped } from '../../common/ids/uuid-shape';

/** `contact_type` stored on single-chat tool sends (as the console send's `contactType` example). */
const SINGLE_CONTACT_TYPE = 'single';

/**
 * The tool-style operations (chat-management-api.md, "Tool-style endpoints"; issue 6): what the REST endpoints
 * `{T}/mcp/chat/contact/...` and the MCP tools at `/api/{tenant}/mcp` both call, so the two surfaces share every
 * rule. A tool call is the digital staff acting: messages are stored with sender `ai`, and a contact or room whose
 * AI replies are switched off (a person took over) refuses them with 409. Every lookup filters by the tenant:
 * another tenant's ids answer 404.
 */
@Injectable()
export class ChatToolsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CHAT_PLATFORM) private readonly platform: ChatPlatform,
    private readonly messages: ChatMessagesService,
    private readonly groupMessages: GroupRoomMessages,
  ) {}

  /**
   * Sends a text from the digital staff to one contact through the message store and the durable delivery of the
   * console send (ChatMessagesService.sendTextByApi).
   * @returns the stored message, `pending`
   * @throws BadRequestException (400) contact named wrongly, blank or too long text, unknown quoted message, a
   *   customer that is the staff member's contact in several corps
   * @throws NotFoundException (404) no such contact in the tenant (of the staff member, when named)
   * @throws ConflictException (409) AI replies switched off for the contact, or its corp disabled
   */
  async sendMessage(tenantId: string, input: SendMessageRequest): Promise<SendMessageResponse> {
    const contact = await this.findContact(this.dataSource.manager, tenantId, input);
    if (!contact.aiEnabled) {
      throw new ConflictException(
        `AI replies are switched off for contact ${contact.id} (a person is handling this customer); switch them on (POST {C}/workChat/${contact.workChatUserId}/contact/external/${contact.id}/ai/switch) to let the digital staff send.`,
      );
    }
    const message = await this.messages.sendTextByApi(contact, {
      content: input.content,
      sender: 'ai',
      quoteChatMsgId: input.quoteChatMsgId,
      agentChatId: input.agentChatId,
      contactType: SINGLE_CONTACT_TYPE,
    });
    return toSendMessageResponse(message, 'single');
  }

  /**
   * Sends a text from the digital staff into a group room (GroupRoomMessages.sendText).
   * @returns the stored message, `pending`
   * @throws BadRequestException (400); NotFoundException (404) unknown room, or a staff member not in it;
   *   ConflictException (409) AI replies switched off for the room, or its corp disabled
   */
  async sendGroupMessage(tenantId: string, input: SendGroupMessageRequest): Promise<SendMessageResponse> {
    const message = await this.groupMessages.sendText(tenantId, {
      roomId: input.roomId,
      workChatUserId: input.workChatUserId,
      content: input.content,
      sender: 'ai',
      quoteChatMsgId: input.quoteChatMsgId,
      agentChatId: input.agentChatId,
    });
    return toSendMessageResponse(message, 'group');
  }

  /**
   * Adds corp tags of the corp's tag library (platform listTags) to a contact: marks the ones the contact lacks on
   * the platform (markCustomerTags) and stores them on the contact, in one transaction with the contact row locked,
   * so concurrent tag changes of the contact never lose one another and a platform refusal stores nothing. Tags the
   * contact already has are skipped; when nothing is missing, neither the platform nor the row is touched.
   * @throws BadRequestException (400) contact named wrongly, no or too many tags (CHAT_MCP_MAX_TAGS), unknown tag
   *   ids or names, a name in several groups without `groupName`
   * @throws NotFoundException (404) no such contact in the tenant
   * @throws ConflictException (409) the contact's corp is disabled; ChatPlatformError (mapped) platform refusal
   */
  async addCustomerTags(tenantId: string, input: AddCustomerTagRequest): Promise<CustomerTagsResultDto> {
    const selectionProblem = tagSelectionProblem(input, this.config.chatMcp.maxTags);
    if (selectionProblem) throw new BadRequestException(selectionProblem);
    const found = await this.findContact(this.dataSource.manager, tenantId, input);
    const corp = await findCorpById(this.dataSource.manager, tenantId, found.corpId);
    const ctx = corpContext(corp);
    const resolution = resolveLibraryTags(await this.platform.listTags(ctx), input);
    const problems = [
      resolution.unknownIds.length ? `unknown tag id(s): ${resolution.unknownIds.join(', ')}` : '',
      resolution.unknownNames.length ? `no tag named ${resolution.unknownNames.map((name) => `"${name}"`).join(', ')}${input.groupName ? ` in group "${input.groupName}"` : ''}` : '',
      resolution.ambiguousNames.length ? `${resolution.ambiguousNames.map((name) => `"${name}"`).join(', ')} exist(s) in several tag groups: give groupName or the tag id` : '',
    ].filter(Boolean);
    if (problems.length > 0) throw new BadRequestException(`Cannot add the tags of corp "${corp.corpName}": ${problems.join('; ')}. Tags must exist in the corp's tag library.`);
    return this.dataSource.transaction(async (manager) => {
      const contact = await this.lockContact(manager, tenantId, found.id);
      const plan = planTagAdd(contact.tags, resolution.tags);
      if (plan.addTagIds.length === 0) return tagsResult(contact.id, false, [], [], contact.tags);
      if (!contact.sandbox) await this.platform.markCustomerTags(ctx, { userId: contact.workChatUserId, externalUserId: contact.externalUserId, addTagIds: plan.addTagIds });
      await manager.update(ExternalContactEntity, { tenantId, id: contact.id }, { tags: plan.next });
      return tagsResult(contact.id, true, plan.addTagIds, [], plan.next);
    });
  }

  /**
   * Deletes tags a contact holds: corp tags by id or name are unmarked on the platform (markCustomerTags), personal
   * tags by name are removed from the stored contact only; all in one transaction with the contact row locked.
   * Tags the contact does not hold are ignored; when none matches, nothing is touched.
   * @throws BadRequestException (400) contact named wrongly, no or too many tags
   * @throws NotFoundException (404) no such contact in the tenant
   * @throws ConflictException (409) the contact's corp is disabled (when corp tags must be unmarked);
   *   ChatPlatformError (mapped) platform refusal
   */
  async deleteCustomerTags(tenantId: string, input: DeleteCustomerTagRequest): Promise<CustomerTagsResultDto> {
    const selectionProblem = tagSelectionProblem(input, this.config.chatMcp.maxTags);
    if (selectionProblem) throw new BadRequestException(selectionProblem);
    const found = await this.findContact(this.dataSource.manager, tenantId, input);
    return this.dataSource.transaction(async (manager) => {
      const contact = await this.lockContact(manager, tenantId, found.id);
      const plan = planTagRemove(contact.tags, input);
      if (plan.removed.length === 0) return tagsResult(contact.id, false, [], [], contact.tags);
      if (plan.removeTagIds.length > 0 && !contact.sandbox) {
        const corp = await findCorpById(manager, tenantId, contact.corpId);
        await this.platform.markCustomerTags(corpContext(corp), { userId: contact.workChatUserId, externalUserId: contact.externalUserId, removeTagIds: plan.removeTagIds });
      }
      await manager.update(ExternalContactEntity, { tenantId, id: contact.id }, { tags: plan.next });
      return tagsResult(contact.id, true, [], plan.removed, plan.next);
    });
  }

  /**
   * The contact a tool request names (see contactReferenceProblem).
   * @throws BadRequestException (400) named wrongly, or a customer that is the staff member's contact in several corps
   * @throws NotFoundException (404) no such contact in the tenant
   */
  private async findContact(manager: EntityManager, tenantId: string, ref: ContactReference): Promise<ExternalContactEntity> {
    const problem = contactReferenceProblem(ref);
    if (problem) throw new BadRequestException(problem);
    // REST bodies may carry null for an optional field (class-validator's IsOptional): it means "not given".
    const contactId = ref.contactId ?? undefined;
    const workChatUserId = ref.workChatUserId ?? undefined;
    if (contactId !== undefined) {
      const contact = isUuidShaped(contactId) ? await manager.findOneBy(ExternalContactEntity, { tenantId, id: contactId, ...(workChatUserId !== undefined ? { workChatUserId } : {}) }) : null;
      if (!contact) throw new NotFoundException(`No contact ${contactId}${workChatUserId !== undefined ? ` of staff member ${workChatUserId}` : ''} in this tenant (not found).`);
      return contact;
    }
    const externalUserId = ref.externalUserId!;
    const contacts = await manager.find(ExternalContactEntity, { where: { tenantId, workChatUserId, externalUserId }, take: 2 });
    if (contacts.length === 0) throw new NotFoundException(`Staff member ${workChatUserId} has no customer ${externalUserId} in this tenant (not found).`);
    if (contacts.length > 1) throw new BadRequestException(`Customer ${externalUserId} is a contact of staff member ${workChatUserId} in several corps; name the contact by \`contactId\`.`);
    return contacts[0];
  }

  /** Reads the contact with its row locked (`FOR UPDATE`) until the transaction ends. */
  private async lockContact(manager: EntityManager, tenantId: string, contactId: string): Promise<ExternalContactEntity> {
    const contact = await manager.findOne(ExternalContactEntity, { where: { tenantId, id: contactId }, lock: { mode: 'pessimistic_write' } });
    if (!contact) throw new NotFoundException(`No contact ${contactId} in this tenant (not found).`);
    return contact;
  }
}

function tagsResult(contactId: string, changed: boolean, addedTagIds: string[], removed: ExternalContactTag[], tags: ExternalContactTag[]): CustomerTagsResultDto {
  return { contactId, changed, addedTagIds, removed: removed.map((tag) => ({ ...tag })), tags: tags.map((tag) => ({ ...tag })) };
}
