import { Module } from '@nestjs/common';
import { JobsModule } from '../../jobs/jobs.module';
import { ChatMessagesModule } from '../messages/chat-messages.module';
import { ChatPlatformModule } from '../platform/chat-platform.module';
import { ChatMcpServerFactory } from './chat-mcp-server.factory';
import { ChatToolsController } from './chat-tools.controller';
import { ChatToolsService } from './chat-tools.service';
import { DELIVER_GROUP_ROOM_MESSAGE } from './group-room-messages.job';
import { GroupRoomMessages } from './group-room-messages.service';
import { McpCredentialStrategy } from './mcp-auth';
import { McpController, McpResourceMetadataController } from './mcp.controller';

/**
 * Tool-style endpoints and the MCP server of the chat wing (issue 6, "Tool-style endpoints"; chat-management-api.md,
 * `{T}/mcp/chat/contact/...`), imported by ChatModule:
 * - `POST /api/{tenant}/mcp/chat/contact/{message/send, message/send-group, customer/tag/add, customer/tag/delete}`
 *   (ChatToolsController) and the same four operations as MCP tools at `POST /api/{tenant}/mcp` (McpController),
 *   both over {@link ChatToolsService};
 * - the group-room message delivery job (GroupRoomMessages) and the MCP endpoint's credential rule
 *   (McpCredentialStrategy), which reaches ChatModule's ChatCredentialStrategy through ModuleRef.
 */
@Module({
  imports: [ChatMessagesModule, ChatPlatformModule, JobsModule.forFeature([DELIVER_GROUP_ROOM_MESSAGE])],
  controllers: [ChatToolsController, McpController, McpResourceMetadataController],
  providers: [ChatToolsService, GroupRoomMessages, ChatMcpServerFactory, McpCredentialStrategy],
})
export class ChatMcpModule {}
