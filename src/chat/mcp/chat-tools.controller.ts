import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBadGatewayResponse, ApiBadRequestResponse, ApiConflictResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChatAuth, CurrentTenant } from '../auth/chat-auth.decorators';
import { AddCustomerTagRequest, DeleteCustomerTagRequest, SendGroupMessageRequest, SendMessageRequest, SendMessageResponse } from './chat-tools.dto';
import { ChatToolsService } from './chat-tools.service';

/** OpenAPI tag of the tool-style endpoints and the MCP endpoint. */
export const CHAT_TOOLS_TAG = 'chat: tools (MCP)';

/**
 * The tool-style endpoints (chat-management-api.md, "Tool-style endpoints": `POST {T}/mcp/chat/contact/...`; issue
 * 6): what an AI agent calls to act as the tenant's digital staff — send a text to a contact or a group room, add or
 * delete a customer's tags. The same operations are MCP tools at `/api/{tenant}/mcp` (McpController); both call
 * {@link ChatToolsService}. OAuth2 as every chat route: `chat:write`, the token's tenant claim must name `{tenant}`.
 * Success is 200; the tag operations answer without a body (the spec's "-").
 */
@ApiTags(CHAT_TOOLS_TAG)
@Controller('api/:tenant/mcp/chat/contact')
@ChatAuth()
export class ChatToolsController {
  constructor(private readonly tools: ChatToolsService) {}

  @Post('message/send')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'mcpSendMessage',
    summary: 'Send a text to a contact as the digital staff',
    description:
      'Stores the text as a message of the contact (sender `ai`: a tool call is the digital staff acting; the console send records `staff`) and delivers it through the chat platform with the same durable job as the console send: ' +
      'the answer is `pending`, the message then becomes `sent` or `failed` in the contact\'s history. Name the contact by `contactId`, or by `workChatUserId` + `externalUserId`. ' +
      'Text: not blank, at most CHAT_MESSAGE_MAX_TEXT_CHARS characters. 409 when AI replies are switched off for the contact (a person is handling the customer) or its corp is disabled. MCP tool: `send_message`.',
  })
  @ApiOkResponse({ type: SendMessageResponse })
  @ApiBadRequestResponse({ description: 'Invalid fields, the contact named neither or both ways, blank or too long text, unknown quoted message, a customer in several corps of the staff member (give contactId).' })
  @ApiConflictResponse({ description: 'AI replies are switched off for the contact, or its corp is disabled.' })
  sendMessage(@CurrentTenant() tenantId: string, @Body() body: SendMessageRequest): Promise<SendMessageResponse> {
    return this.tools.sendMessage(tenantId, body);
  }

  @Post('message/send-group')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'mcpSendGroupMessage',
    summary: 'Send a text to a customer group chat as the digital staff',
    description:
      'Stores the text as a message of the group room (`contactId` = the room id, `contactType` `group`, sender `ai`) and delivers it into the platform\'s group chat with a durable job (port sendGroupMessage): ' +
      '`pending` → `sent` | `failed`. Sent as the room\'s owner, or as `workChatUserId` when that staff member owns the room or is one of its staff members (404 otherwise). ' +
      '409 when AI replies are switched off for the room or its corp is disabled. MCP tool: `send_group_message`.',
  })
  @ApiOkResponse({ type: SendMessageResponse })
  @ApiBadRequestResponse({ description: 'Invalid fields, blank or too long text, unknown quoted message.' })
  @ApiConflictResponse({ description: 'AI replies are switched off for the room, or its corp is disabled.' })
  sendGroupMessage(@CurrentTenant() tenantId: string, @Body() body: SendGroupMessageRequest): Promise<SendMessageResponse> {
    return this.tools.sendGroupMessage(tenantId, body);
  }

  @Post('customer/tag/add')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'mcpAddCustomerTag',
    summary: 'Add tags to a customer contact',
    description:
      'Adds corp tags of the corp\'s tag library, named by `tagIds` and/or `tagNames` (`groupName` picks the group of a name used in several), to the contact: marked on the platform and stored on the contact in one step (a platform refusal stores nothing). ' +
      'Idempotent: tags the contact already has are skipped; nothing missing → nothing is sent. At most CHAT_MCP_MAX_TAGS tags per request. No response body. MCP tool: `add_customer_tags`.',
  })
  @ApiOkResponse({ description: 'The contact has the tags (no body).' })
  @ApiBadRequestResponse({ description: 'Invalid fields, the contact named neither or both ways, no or too many tags, tag ids or names not in the corp\'s tag library, a name in several groups without groupName.' })
  @ApiConflictResponse({ description: 'The contact\'s corp is disabled.' })
  @ApiBadGatewayResponse({ description: 'The chat platform failed (problem+json with the platform\'s error).' })
  async addCustomerTag(@CurrentTenant() tenantId: string, @Body() body: AddCustomerTagRequest): Promise<void> {
    await this.tools.addCustomerTags(tenantId, body);
  }

  @Post('customer/tag/delete')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'mcpDeleteCustomerTag',
    summary: 'Delete tags from a customer contact',
    description:
      'Removes the tags the contact holds that match `tagIds` (corp tags) or `tagNames` (corp or personal tags; `groupName` limits names to one group): corp tags are unmarked on the platform, all are removed from the stored contact, in one step. ' +
      'Idempotent: tags the contact does not hold are ignored. No response body. MCP tool: `delete_customer_tags`.',
  })
  @ApiOkResponse({ description: 'The contact no longer has the tags (no body).' })
  @ApiBadRequestResponse({ description: 'Invalid fields, the contact named neither or both ways, no or too many tags.' })
  @ApiConflictResponse({ description: 'The contact\'s corp is disabled.' })
  @ApiBadGatewayResponse({ description: 'The chat platform failed (problem+json with the platform\'s error).' })
  async deleteCustomerTag(@CurrentTenant() tenantId: string, @Body() body: DeleteCustomerTagRequest): Promise<void> {
    await this.tools.deleteCustomerTags(tenantId, body);
  }
}
