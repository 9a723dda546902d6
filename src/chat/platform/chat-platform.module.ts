import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OutboundHttp } from '../../common/outbound/outbound.service';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { ChatPlatformEvents } from './chat-platform-events';
import { CHAT_PLATFORM, type ChatPlatform } from './chat-platform.port';
import { HttpChatPlatform, httpChatPlatformOptions } from './http-chat-platform';
import { ChatPlatformSimulator } from './simulator/chat-platform-simulator';
import { CHAT_SIMULATOR_ENTITIES } from './simulator';

/**
 * Chooses the chat platform adapter from configuration: the simulator unless CHAT_PLATFORM_MODE is `http`.
 * @param config the resolved configuration
 * @param simulator the simulator (used in simulator mode)
 * @param outboundHttp the outbound clients; the HTTP adapter sends through the chat platform's (CHAT_PLATFORM_*)
 */
export function chooseChatPlatform(config: AppConfig, simulator: ChatPlatformSimulator, outboundHttp: OutboundHttp): ChatPlatform {
  return config.chatPlatform.mode === 'http' ? new HttpChatPlatform(httpChatPlatformOptions(config.chatPlatform, outboundHttp.client(config.chatOutbound.platform))) : simulator;
}

/**
 * The enterprise chat platform port (DESIGN.md, External peers; issue 5). Exports:
 * - `CHAT_PLATFORM`: the configured {@link ChatPlatform} (inject with `@Inject(CHAT_PLATFORM)`);
 * - `ChatPlatformEvents`: subscribe to customers added and inbound messages, publish from a platform callback;
 * - `ChatPlatformSimulator`: inject customers, group chats and inbound messages, list what was sent (simulator mode).
 * Imported by the chat wing's ChatModule; it has no controllers of its own.
 */
@Module({
  imports: [TypeOrmModule.forFeature(CHAT_SIMULATOR_ENTITIES)],
  providers: [
    ChatPlatformEvents,
    ChatPlatformSimulator,
    { provide: CHAT_PLATFORM, useFactory: chooseChatPlatform, inject: [APP_CONFIG, ChatPlatformSimulator, OutboundHttp] },
  ],
  exports: [CHAT_PLATFORM, ChatPlatformEvents, ChatPlatformSimulator],
})
export class ChatPlatformModule {}
