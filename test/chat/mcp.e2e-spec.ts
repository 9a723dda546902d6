import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import request from 'supertest';
import { ChatMessageEntity } from '../../src/chat/messages/chat-message.entity';
import type { PlatformTagGroup } from '../../src/chat/platform/chat-platform.port';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { eventually } from '../support/async';
import { startTestApp, type TestApp } from '../support/test-app';
import { corpContext, dataSourceOf, type TestCorp, newTwoTenantChat } from './support/way-factories';

type Json = Record<string, any>;

/**
 * The MCP server at `/api/{tenant}/mcp` (issue 6, "Tool-style endpoints"; acceptance 5) with the SDK's real
 * `Client` over Streamable HTTP: it lists exactly the four tools and calls each, with the effects checked through
 * the REST API, the database and the platform simulator; tool errors carry the REST problem ("404 Not Found" for
 * another tenant's contact); a read-only token lists but cannot call; another tenant's token and a bad token are
 * refused (403 / 401 with the protected resource metadata); GET and DELETE answer 405.
 */
describe('MCP server (Streamable HTTP, stateless)', () => {
  let testApp: TestApp;
  let token: string;
  let readOnly: string;
  let otherToken: string;
  let acme: TestCorp;
  let contact: Json;
  let otherContact: Json;
  let room: Json;
  let level: PlatformTagGroup;
  const clients: Client[] = [];
  const post = (path: string, bearer = token) => request(testApp.baseUrl).post(path).auth(bearer, { type: 'bearer' });
  const get = (path: string, bearer = token) => request(testApp.baseUrl).get(path).auth(bearer, { type: 'bearer' });
  const simulator = () => testApp.app.get(ChatPlatformSimulator);
  const messageRows = () => dataSourceOf(testApp).getRepository(ChatMessageEntity).count();

  /** An MCP client connected to `/api/{tenant}/mcp` with the bearer token in every request. */
  const connect = async (bearer: string, tenant = 'acme') => {
    const client = new Client({ name: 'atrium-e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${testApp.baseUrl}/api/${tenant}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  const textOf = (result: Json) => (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');
  const waitForSent = (id: string) =>
    eventually(`message ${id} delivered`, async () => {
      const row = await dataSourceOf(testApp).getRepository(ChatMessageEntity).findOneBy({ id });
      return row && row.status !== 'pending' ? row : undefined;
    }, { timeoutMs: 15_000 });

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_PUBLIC_URL: 'http://atrium.example.com' });
    const cast = await newTwoTenantChat(testApp);
    ({ token, readOnly, otherToken, acme } = cast);
    const { globex } = cast;
    const C = (corp: TestCorp) => `/api/${corp.tenantId}/console/simulator/corps/${corp.id}`;
    await post(`${C(acme)}/staff`).send({ userId: 'zhangsan' }).expect(200);
    await post(`${C(globex)}/staff`, otherToken).send({ userId: 'zhangsan' }).expect(200);
    contact = (await post(`${C(acme)}/customers`).send({ name: 'Lily', userId: 'zhangsan' }).expect(200)).body.contact;
    otherContact = (await post(`${C(globex)}/customers`, otherToken).send({ name: 'Olga', userId: 'zhangsan' }).expect(200)).body.contact;
    await post(`${C(acme)}/group-chats`).send({ name: 'VIP room', ownerUserId: 'zhangsan', memberExternalUserIds: [contact.externalUserId] }).expect(200);
    await post('/api/acme/console/workChat/user/guide/syncGroup').send({ corpId: acme.id, workChatUserId: 'zhangsan' }).expect(200);
    room = (await get('/api/acme/console/workChat/zhangsan/contact/room').expect(200)).body.content[0];
    level = await simulator().createTags(corpContext(acme), { groupName: 'Level', tags: [{ name: 'VIP' }, { name: 'New' }] });
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await testApp?.close();
  });

  it('lists exactly the four tools, with input schemas that mirror the REST bodies', async () => {
    const client = await connect(token);
    expect(client.getServerVersion()).toMatchObject({ name: 'atrium-chat' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(['add_customer_tags', 'delete_customer_tags', 'send_group_message', 'send_message']);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.send_message.inputSchema).toMatchObject({ type: 'object', required: ['content'], additionalProperties: false });
    expect(Object.keys(byName.send_message.inputSchema.properties ?? {}).sort()).toEqual(['agentChatId', 'contactId', 'content', 'externalUserId', 'quoteChatMsgId', 'workChatUserId']);
    expect(byName.send_group_message.inputSchema).toMatchObject({ required: ['roomId', 'content'] });
    expect(Object.keys(byName.add_customer_tags.inputSchema.properties ?? {}).sort()).toEqual(['contactId', 'externalUserId', 'groupName', 'tagIds', 'tagNames', 'workChatUserId']);
    expect(byName.delete_customer_tags.annotations).toMatchObject({ idempotentHint: true, destructiveHint: true });
    expect(byName.send_message.outputSchema).toMatchObject({ type: 'object' });
  });

  it('send_message stores an AI message and the platform receives it', async () => {
    const client = await connect(token);
    const result = await client.callTool({ name: 'send_message', arguments: { contactId: contact.id, content: 'Hello from the MCP tool' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ chatType: 'single', contactId: contact.id, workChatUserId: 'zhangsan', sender: 'ai', content: 'Hello from the MCP tool', status: 'pending' });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const row = await waitForSent((result.structuredContent as Json).messageId);
    expect(row).toMatchObject({ status: 'sent', sender: 'ai', contactId: contact.id });
    const onPlatform = await simulator().listMessages(corpContext(acme), { externalUserId: contact.externalUserId, direction: 'outbound' });
    expect(onPlatform.map((message) => message.content)).toContain('Hello from the MCP tool');
  });

  it('send_group_message delivers into the group chat', async () => {
    const client = await connect(token);
    const result = await client.callTool({ name: 'send_group_message', arguments: { roomId: room.id, content: 'Hello, room' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ chatType: 'group', contactId: room.id, sender: 'ai' });
    expect((await waitForSent((result.structuredContent as Json).messageId)).status).toBe('sent');
    const onPlatform = await simulator().listMessages(corpContext(acme), { chatId: room.chatId, direction: 'outbound' });
    expect(onPlatform.map((message) => message.content)).toContain('Hello, room');
  });

  it('add_customer_tags and delete_customer_tags change the contact\'s tags, idempotently', async () => {
    const client = await connect(token);
    const contactPath = `/api/acme/console/workChat/zhangsan/contact/external/${contact.id}`;
    const added = await client.callTool({ name: 'add_customer_tags', arguments: { workChatUserId: 'zhangsan', externalUserId: contact.externalUserId, tagNames: ['VIP', 'New'] } });
    expect(added.isError).toBeFalsy();
    expect(added.structuredContent).toMatchObject({ contactId: contact.id, changed: true, addedTagIds: level.tags.map((tag) => tag.tagId) });
    expect((await get(contactPath).expect(200)).body.tags.map((tag: Json) => tag.tagName)).toEqual(['VIP', 'New']);
    const again = await client.callTool({ name: 'add_customer_tags', arguments: { contactId: contact.id, tagNames: ['VIP'] } });
    expect(again.structuredContent).toMatchObject({ changed: false, addedTagIds: [] });
    const deleted = await client.callTool({ name: 'delete_customer_tags', arguments: { contactId: contact.id, tagNames: ['VIP'] } });
    expect(deleted.structuredContent).toMatchObject({ changed: true, removed: [expect.objectContaining({ tagName: 'VIP' })], tags: [expect.objectContaining({ tagName: 'New' })] });
    expect((await get(contactPath).expect(200)).body.tags.map((tag: Json) => tag.tagName)).toEqual(['New']);
    const follow = (await simulator().getExternalContact(corpContext(acme), contact.externalUserId)).followers.find((f) => f.userId === 'zhangsan')!;
    expect(follow.tags.map((tag) => tag.tagName)).toEqual(['New']);
    const deletedAgain = await client.callTool({ name: 'delete_customer_tags', arguments: { contactId: contact.id, tagNames: ['VIP'] } });
    expect(deletedAgain.structuredContent).toMatchObject({ changed: false, removed: [] });
  });

  it('answers another tenant\'s contact, a bad input and a refused rule with tool errors, storing nothing', async () => {
    const client = await connect(token);
    const before = await messageRows();
    const foreign = await client.callTool({ name: 'send_message', arguments: { contactId: otherContact.id, content: 'Hello' } });
    expect(foreign.isError).toBe(true);
    expect(textOf(foreign)).toMatch(/^404 Not Found: .*not found/);
    const foreignTags = await client.callTool({ name: 'add_customer_tags', arguments: { contactId: otherContact.id, tagNames: ['VIP'] } });
    expect(textOf(foreignTags)).toMatch(/^404 Not Found/);
    const invalid = await client.callTool({ name: 'send_message', arguments: { contactId: 'not-a-uuid', content: 'Hello' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Input validation error/);
    const neither = await client.callTool({ name: 'send_message', arguments: { content: 'Hello' } });
    expect(textOf(neither)).toMatch(/^400 Bad Request: Name the contact/);
    const unknownTag = await client.callTool({ name: 'add_customer_tags', arguments: { contactId: contact.id, tagNames: ['Platinum'] } });
    expect(textOf(unknownTag)).toMatch(/^400 Bad Request: .*no tag named "Platinum"/);
    expect(await messageRows()).toBe(before);
  });

  it('lets a read-only token list the tools but not call them', async () => {
    const client = await connect(readOnly);
    expect((await client.listTools()).tools).toHaveLength(4);
    const before = await messageRows();
    const result = await client.callTool({ name: 'send_message', arguments: { contactId: contact.id, content: 'Hello' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^403 Forbidden: .*chat:write/);
    const tags = await client.callTool({ name: 'add_customer_tags', arguments: { contactId: contact.id, tagNames: ['VIP'] } });
    expect(textOf(tags)).toMatch(/^403 Forbidden/);
    expect(await messageRows()).toBe(before);
  });

  it('refuses another tenant\'s token (403) and a bad or missing token (401, naming the protected resource metadata)', async () => {
    await expect(connect(otherToken)).rejects.toThrow(/403/);
    await expect(connect(token, 'globex')).rejects.toThrow(/403/);
    await expect(connect('not-a-token')).rejects.toThrow(/401/);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const anonymous = await request(testApp.baseUrl).post('/api/acme/mcp').set('Accept', 'application/json, text/event-stream').send(initialize).expect(401);
    expect(anonymous.headers['www-authenticate']).toBe('Bearer realm="atrium-chat", resource_metadata="http://atrium.example.com/.well-known/oauth-protected-resource/api/acme/mcp"');
    const metadata = await request(testApp.baseUrl).get('/.well-known/oauth-protected-resource/api/acme/mcp').expect(200);
    expect(metadata.body).toEqual({
      resource: 'http://atrium.example.com/api/acme/mcp',
      authorization_servers: ['http://atrium.example.com/oauth'],
      scopes_supported: ['chat:read', 'chat:write'],
      bearer_methods_supported: ['header'],
      resource_name: 'Atrium chat tools (tenant acme)',
      resource_documentation: 'http://atrium.example.com/docs',
    });
    await request(testApp.baseUrl).get('/.well-known/oauth-protected-resource/api/Not_A_Tenant/mcp').expect(404);
  });

  it('speaks the stateless transport: JSON answers without a session, 405 for GET and DELETE, 406 without the Accept types', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const ok = await post('/api/acme/mcp').set('Accept', 'application/json, text/event-stream').send(initialize).expect(200);
    expect(ok.headers['content-type']).toContain('application/json');
    expect(ok.headers['mcp-session-id']).toBeUndefined();
    expect(ok.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'atrium-chat' }, capabilities: { tools: {} } } });
    const listed = await post('/api/acme/mcp').set('Accept', 'application/json, text/event-stream').send({ jsonrpc: '2.0', id: 2, method: 'tools/list' }).expect(200);
    expect(listed.body.result.tools).toHaveLength(4);
    const sse = await get('/api/acme/mcp').set('Accept', 'text/event-stream').expect(405);
    expect(sse.headers.allow).toBe('POST');
    await request(testApp.baseUrl).delete('/api/acme/mcp').auth(token, { type: 'bearer' }).expect(405);
    const notAcceptable = await post('/api/acme/mcp').set('Accept', 'application/json').send(initialize).expect(406);
    expect(notAcceptable.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
  });

  it('documents the MCP endpoint as one POST operation under the chat security, GET and DELETE as their 405', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body;
    const path = document.paths['/api/{tenant}/mcp'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'post']);
    expect(Object.keys(path.get.responses)).toContain('405');
    expect(Object.keys(path.delete.responses)).toContain('405');
    // Its transport errors are JSON-RPC bodies (application/json), named for the document enrichment.
    expect(path.post['x-atrium-error-media-type']).toEqual({ 'application/json': [400, 406, 413, 415] });
    expect(path.post).toMatchObject({ operationId: 'mcpEndpoint', security: [{ oauth2: ['chat:read'] }], tags: ['chat: tools (MCP)'], 'x-atrium-auth': { credential: 'McpCredentialStrategy', permission: 'tenant-from-path' } });
    expect(path.post.requestBody.content['application/json'].schema).toMatchObject({ required: ['jsonrpc', 'method'] });
    expect(document.paths['/.well-known/oauth-protected-resource/api/{tenant}/mcp'].get['x-atrium-auth']).toEqual({ credential: 'none', permission: null });
  });
});
