import { Injectable, Logger } from '@nestjs/common';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toProblem } from '../../common/http/problem-details';
import { CHAT_WRITE_SCOPE } from '../auth/chat-scopes';
import { ChatToolsService } from './chat-tools.service';
import { ADD_CUSTOMER_TAGS_INPUT, CUSTOMER_TAGS_OUTPUT, DELETE_CUSTOMER_TAGS_INPUT, SEND_GROUP_MESSAGE_INPUT, SEND_MESSAGE_INPUT, SEND_MESSAGE_OUTPUT } from './chat-tools.schemas';

/** Name and version the MCP server reports in `initialize`. */
export const MCP_SERVER_INFO = { name: 'atrium-chat', version: '0.1.0' } as const;

/** The MCP tools, by name, with the REST endpoint each mirrors. */
export const MCP_TOOL_NAMES = {
  sendMessage: 'send_message',
  sendGroupMessage: 'send_group_message',
  addCustomerTags: 'add_customer_tags',
  deleteCustomerTags: 'delete_customer_tags',
} as const;

/** Who calls: the tenant the request acts for and the scopes of the access token. */
export interface McpCaller {
  tenantId: string;
  scopes: string[];
}

const INSTRUCTIONS =
  'Tools of the Atrium chat management service for one tenant: you act as the tenant\'s digital staff (AI employee). ' +
  'send_message texts one customer contact, send_group_message texts a customer group chat; both store the message (sender "ai") ' +
  'and deliver it through the enterprise chat platform in the background (status "pending" → "sent" | "failed"). ' +
  'add_customer_tags / delete_customer_tags change a contact\'s tags (idempotent). Calling a tool needs the chat:write scope.';

/**
 * Builds the MCP server of one request (stateless Streamable HTTP: a new server per request, see McpController)
 * with the four tools of the tool-style endpoints (issue 6, "Tool-style endpoints"). Each tool validates its input
 * with the zod schema that mirrors the REST DTO, then calls the same {@link ChatToolsService} method as the REST
 * endpoint, for the caller's tenant. Results are the JSON text of the response plus `structuredContent`. Errors are
 * tool errors (`isError: true`) whose text is `<status> <title>: <detail>` of the problem the REST endpoint would
 * answer (e.g. `404 Not Found: …` for another tenant's contact); a call without `chat:write` is one too (403).
 * Capabilities: `tools` with `listChanged: false` (nothing else is served).
 */
@Injectable()
export class ChatMcpServerFactory {
  private readonly logger = new Logger(ChatMcpServerFactory.name);

  constructor(private readonly tools: ChatToolsService) {}

  /** A new server for one request of `caller`. */
  create(caller: McpCaller): McpServer {
    const server = new McpServer(MCP_SERVER_INFO, { instructions: INSTRUCTIONS });
    server.registerTool(
      MCP_TOOL_NAMES.sendMessage,
      {
        title: 'Send a message to a customer',
        description:
          'Sends a text from the digital staff to one customer contact, as its staff member. Name the contact by contactId, or by workChatUserId + externalUserId. ' +
          'Refused when AI replies are switched off for the contact (a person took over) or its corp is disabled. Same as POST /api/{tenant}/mcp/chat/contact/message/send.',
        inputSchema: SEND_MESSAGE_INPUT,
        outputSchema: SEND_MESSAGE_OUTPUT,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      (args) => this.run(caller, MCP_TOOL_NAMES.sendMessage, () => this.tools.sendMessage(caller.tenantId, args)),
    );
    server.registerTool(
      MCP_TOOL_NAMES.sendGroupMessage,
      {
        title: 'Send a message to a customer group chat',
        description:
          'Sends a text from the digital staff into a group room (customer group chat), as the room\'s owner or the given staff member of the room. ' +
          'Refused when AI replies are switched off for the room. Same as POST /api/{tenant}/mcp/chat/contact/message/send-group.',
        inputSchema: SEND_GROUP_MESSAGE_INPUT,
        outputSchema: SEND_MESSAGE_OUTPUT,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      },
      (args) => this.run(caller, MCP_TOOL_NAMES.sendGroupMessage, () => this.tools.sendGroupMessage(caller.tenantId, args)),
    );
    server.registerTool(
      MCP_TOOL_NAMES.addCustomerTags,
      {
        title: 'Tag a customer',
        description:
          'Adds corp tags (by tagIds or tagNames of the corp\'s tag library) to a customer contact, on the platform and in Atrium. Tags the contact already has are skipped (idempotent). ' +
          'Same as POST /api/{tenant}/mcp/chat/contact/customer/tag/add.',
        inputSchema: ADD_CUSTOMER_TAGS_INPUT,
        outputSchema: CUSTOMER_TAGS_OUTPUT,
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      },
      (args) => this.run(caller, MCP_TOOL_NAMES.addCustomerTags, () => this.tools.addCustomerTags(caller.tenantId, args)),
    );
    server.registerTool(
      MCP_TOOL_NAMES.deleteCustomerTags,
      {
        title: 'Remove tags from a customer',
        description:
          'Removes tags (by tagIds or tagNames) that a customer contact holds, on the platform and in Atrium. Tags the contact does not hold are ignored (idempotent). ' +
          'Same as POST /api/{tenant}/mcp/chat/contact/customer/tag/delete.',
        inputSchema: DELETE_CUSTOMER_TAGS_INPUT,
        outputSchema: CUSTOMER_TAGS_OUTPUT,
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      },
      (args) => this.run(caller, MCP_TOOL_NAMES.deleteCustomerTags, () => this.tools.deleteCustomerTags(caller.tenantId, args)),
    );
    // registerTool advertises `tools.listChanged: true`; a stateless server (one per request, no stream) can never
    // send that notification, so it says so (issue 22 item 6: only capabilities that can be honoured).
    server.server.registerCapabilities({ tools: { listChanged: false } });
    return server;
  }

  /** Runs a tool for the caller: scope check, the service call, and the result or the problem as a tool error. */
  private async run(caller: McpCaller, tool: string, call: () => Promise<object>): Promise<CallToolResult> {
    if (!caller.scopes.includes(CHAT_WRITE_SCOPE)) {
      return toolError(403, 'Forbidden', `Calling a tool needs the ${CHAT_WRITE_SCOPE} scope, which the access token lacks (it has: ${caller.scopes.join(' ') || 'none'}).`);
    }
    try {
      const result = await call();
      return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
    } catch (error) {
      const problem = toProblem(error, `/api/${caller.tenantId}/mcp#${tool}`);
      if (problem.status >= 500) this.logger.error(`MCP tool ${tool} failed for tenant ${caller.tenantId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return toolError(problem.status, problem.title, problem.detail ?? problem.title);
    }
  }
}

/** A tool error result: `<status> <title>: <detail>`. */
function toolError(status: number, title: string, detail: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: `${status} ${title}: ${detail}` }] };
}
