import { HttpException, HttpStatus, Injectable, NotFoundException } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ProblemException } from '../../common/http/problem-details';
import { ContactWayEntity } from '../contact-ways/contact-way.entity';
import { corpContext, findCorpById } from '../contacts/corp-lookup';
import { ExternalContactEntity } from '../contacts/external-contact.entity';
import { toChatContactsExternalDto } from '../contacts/external-contacts.dto';
import { ChatPlatformSimulator, type ChatCorpContext } from '../platform';
import {
  InjectSimulatorCustomerRequest,
  InjectSimulatorGroupChatRequest,
  InjectSimulatorMessageRequest,
  InjectSimulatorStaffRequest,
  ListSimulatorMessagesQuery,
  SimulatedMessageDto,
  SimulatorCustomerDto,
  SimulatorGroupChatDto,
  SimulatorInboundMessageDto,
  SimulatorStaffDto,
  toSimulatedMessageDto,
  toSimulatorGroupChatDto,
  toSimulatorInboundMessageDto,
  toSimulatorStaffDto,
} from './simulator-api.dto';

/**
 * The simulator's outside world over HTTP (issue 5, "The enterprise chat platform port": "lets a test or demo inject
 * customers and inbound messages through a documented simulator endpoint"). Resolves the tenant's corp and calls
 * ChatPlatformSimulator, which publishes the platform events (a customer injected becomes a stored contact through
 * ContactSyncService's listener before the call returns). Everything answers 404 unless CHAT_PLATFORM_MODE is
 * `simulator`.
 */
@Injectable()
export class SimulatorApiService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly simulator: ChatPlatformSimulator,
  ) {}

  /** @throws NotFoundException (404) simulator off or unknown corp */
  async injectStaff(tenantId: string, corpId: string, input: InjectSimulatorStaffRequest): Promise<SimulatorStaffDto> {
    const ctx = await this.context(tenantId, corpId);
    return toSimulatorStaffDto(await this.simulator.injectStaff(ctx, input));
  }

  /**
   * A customer adds a staff member; returns the contact Atrium stored from the event.
   * @throws NotFoundException (404) simulator off, unknown corp, contact way or customer; BadRequestException (400)
   *   no staff member can be told; ProblemException (500) a listener of the event failed (the customer is injected)
   */
  async injectCustomer(tenantId: string, corpId: string, input: InjectSimulatorCustomerRequest): Promise<SimulatorCustomerDto> {
    const ctx = await this.context(tenantId, corpId);
    let contactWayConfigId = input.contactWayConfigId;
    if (input.contactWayId !== undefined) {
      const way = await this.dataSource.getRepository(ContactWayEntity).findOneBy({ tenantId, corpId, id: String(input.contactWayId) });
      if (!way) throw new NotFoundException(`Corp ${corpId} has no contact way ${input.contactWayId}.`);
      contactWayConfigId = way.configId;
    }
    const injected = await publishing(() =>
      this.simulator.injectCustomer(ctx, {
        name: input.name,
        userId: input.userId,
        contactWayConfigId,
        state: input.state,
        externalUserId: input.externalUserId,
        type: input.type,
        gender: input.gender,
        avatarUrl: input.avatarUrl,
        unionId: input.unionId,
        corpName: input.corpName,
        addedAt: input.addedAt ? new Date(input.addedAt) : undefined,
      }),
    );
    const contact = await this.dataSource.getRepository(ExternalContactEntity).findOneBy({ tenantId, corpId, externalUserId: injected.contact.externalUserId, workChatUserId: injected.follow.userId });
    return {
      externalUserId: injected.contact.externalUserId,
      userId: injected.follow.userId,
      state: injected.follow.state ?? null,
      addedAt: injected.follow.createdAt.toISOString(),
      contact: contact ? toChatContactsExternalDto(contact, ctx.corpName) : null,
    };
  }

  /** @throws NotFoundException (404) simulator off, unknown corp or customer; ConflictException (409) chat id taken */
  async injectGroupChat(tenantId: string, corpId: string, input: InjectSimulatorGroupChatRequest): Promise<SimulatorGroupChatDto> {
    const ctx = await this.context(tenantId, corpId);
    return toSimulatorGroupChatDto(await this.simulator.injectGroupChat(ctx, input));
  }

  /**
   * A customer writes; the `message.received` event is published (the messages area stores and answers it).
   * @throws NotFoundException (404) simulator off, unknown corp, customer or group chat; BadRequestException (400);
   *   ConflictException (409) msgId of another message; ProblemException (500) a listener failed
   */
  async injectMessage(tenantId: string, corpId: string, input: InjectSimulatorMessageRequest): Promise<SimulatorInboundMessageDto> {
    const ctx = await this.context(tenantId, corpId);
    const event = await publishing(() =>
      this.simulator.injectInboundMessage(ctx, {
        externalUserId: input.externalUserId,
        userId: input.userId,
        chatId: input.chatId,
        msgType: input.msgType,
        content: input.content,
        media: input.media ? { ...input.media } : undefined,
        msgId: input.msgId,
        sentAt: input.sentAt ? new Date(input.sentAt) : undefined,
      }),
    );
    return toSimulatorInboundMessageDto(event);
  }

  /** Messages of the corp on the simulated platform, oldest first. @throws NotFoundException (404) */
  async listMessages(tenantId: string, corpId: string, query: ListSimulatorMessagesQuery): Promise<SimulatedMessageDto[]> {
    const ctx = await this.context(tenantId, corpId);
    return (await this.simulator.listMessages(ctx, query)).map(toSimulatedMessageDto);
  }

  /** The corp's platform context; 404 first when the simulator is off. */
  private async context(tenantId: string, corpId: string): Promise<ChatCorpContext & { corpName: string }> {
    if (!this.simulator.enabled) throw new NotFoundException('The chat platform simulator is off: CHAT_PLATFORM_MODE is not "simulator".');
    const corp = await findCorpById(this.dataSource.manager, tenantId, corpId);
    return { ...corpContext(corp), corpName: corp.corpName };
  }
}

/**
 * Runs an injection whose event listeners may fail (the simulator throws their AggregateError after storing): one
 * HTTP error is passed on as it is, anything else becomes a 500 problem naming the listeners' messages.
 */
async function publishing<T>(inject: () => Promise<T>): Promise<T> {
  try {
    return await inject();
  } catch (error) {
    if (!(error instanceof AggregateError)) throw error;
    const errors = error.errors as unknown[];
    if (errors.length === 1 && errors[0] instanceof HttpException) throw errors[0];
    const reasons = errors.map((item) => (item instanceof Error ? item.message : String(item))).join('; ');
    throw new ProblemException(HttpStatus.INTERNAL_SERVER_ERROR, `The simulated platform stored the injection, but ${errors.length} event listener(s) failed: ${reasons}`);
  }
}
