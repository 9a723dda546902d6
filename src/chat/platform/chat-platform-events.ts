import { Injectable, Logger } from '@nestjs/common';

/**
 * Events that come from the chat platform to the chat wing (DESIGN.md, External peers; issue 6, "The inbound
 * pipeline"). The simulator publishes them when a customer or a message is injected; a platform callback endpoint
 * publishes the same shapes in HTTP mode. The inbound pipeline subscribes once at start-up.
 */

/** Message types a customer can send (the platform's inbound `msgtype`). */
export const INBOUND_MESSAGE_TYPES = ['text', 'image', 'video', 'file', 'emotion', 'voice', 'link', 'location'] as const;
export type InboundMessageType = (typeof INBOUND_MESSAGE_TYPES)[number];

/** An attachment of an inbound message, as described by the platform (the bytes stay on the platform). */
export interface InboundMedia {
  fileName?: string;
  contentType?: string;
  sizeBytes?: number;
  /** Where the platform serves it, when it says. */
  url?: string;
}

/** Fields every platform event carries. */
interface PlatformEventBase {
  tenantId: string;
  /** Atrium's corp record the event belongs to. */
  corpId: string;
  platformCorpId: string;
  /** When it happened on the platform. */
  occurredAt: Date;
}

/**
 * A customer added a staff member (WeCom callback `change_external_contact` / `add_external_contact`), e.g. by
 * scanning a contact way: `state` is that contact way's state.
 */
export interface ExternalContactAddedEvent extends PlatformEventBase {
  type: 'external_contact.added';
  userId: string;
  externalUserId: string;
  state?: string;
}

/**
 * A customer sent a message, to a staff member (`chatType` single) or into a customer group chat (`chatType` group,
 * `chatId` set; `userId` is then the group owner). `msgId` is the platform's id: unique, the same on a redelivery,
 * so a listener can ignore a message it has already handled.
 */
export interface InboundMessageEvent extends PlatformEventBase {
  type: 'message.received';
  msgId: string;
  chatType: 'single' | 'group';
  userId: string;
  externalUserId: string;
  chatId?: string;
  msgType: InboundMessageType;
  /** Text of a text message (or a caption/description the platform gives for others). */
  content?: string;
  media?: InboundMedia;
}

export type ChatPlatformEvent = ExternalContactAddedEvent | InboundMessageEvent;

/** Handles one event. A listener should be idempotent: the platform redelivers (same `msgId`). */
export type ChatPlatformEventListener = (event: ChatPlatformEvent) => void | Promise<void>;

/**
 * The registry of listeners to platform events (an explicit, framework-free publish/subscribe: no Nest event
 * emitter). `publish` awaits every listener in subscription order, so whoever injects or receives an event learns
 * whether it was handled.
 */
@Injectable()
export class ChatPlatformEvents {
  private readonly logger = new Logger('ChatPlatformEvents');
  private readonly listeners = new Set<ChatPlatformEventListener>();

  /**
   * Adds a listener.
   * @returns a function that removes it again (call it in onModuleDestroy)
   */
  subscribe(listener: ChatPlatformEventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Number of listeners subscribed (diagnosis: "is anything handling inbound messages"). */
  get listenerCount(): number {
    return this.listeners.size;
  }

  /**
   * Delivers `event` to every listener, one after the other; a failing listener does not stop the others.
   * @throws AggregateError of the listeners' errors when any failed (after all ran)
   */
  async publish(event: ChatPlatformEvent): Promise<void> {
    const errors: unknown[] = [];
    for (const listener of [...this.listeners]) {
      try {
        await listener(event);
      } catch (error) {
        this.logger.error(`a listener failed on ${event.type} (tenant ${event.tenantId})`, (error as Error)?.stack);
        errors.push(error);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, `${errors.length} listener(s) failed on ${event.type}`);
  }
}
