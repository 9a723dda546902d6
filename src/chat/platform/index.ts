/** The public surface of the chat platform port, for the rest of the chat wing. */
export * from './chat-platform.port';
export { ChatPlatformError } from './chat-platform.error';
export * from './chat-platform-events';
export { ChatPlatformModule } from './chat-platform.module';
export { ChatPlatformSimulator, type InjectCustomerInput, type InjectGroupChatInput, type InjectInboundMessageInput, type InjectStaffInput, type SimulatedMessage } from './simulator/chat-platform-simulator';
export { ERRCODE_RULES, classifyPlatformFailure } from './platform-errcodes';
