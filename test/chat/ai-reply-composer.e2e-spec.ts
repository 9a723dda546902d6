import request from 'supertest';
import { AiReplyComposer, ModelNotConfiguredError } from '../../src/chat/ai-reply/ai-reply-composer.service';
import { ChatMessagesService } from '../../src/chat/messages/chat-messages.service';
import { chatCompletion, type LocalPeer, startLocalPeer, toolCallCompletion } from '../support/peers/local-peers';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { newCorp, newDigitalStaff, newStaffUser, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;
type ModelRequest = { model: string; messages: Json[]; tools?: Json[]; tool_choice?: string };

/**
 * The AI reply composer (issue 6, "The inbound pipeline": the reply step) against a real local OpenAI-compatible
 * model server and a real local tool provider: the prompt holds the persona, the group configuration, the script
 * found for the customer's text (rendered), the variable values and the history; the model calls a provider
 * operation (made over HTTP, loopback allowed by CHAT_TOOL_ALLOW_PRIVATE_NETWORKS) and reports an intent; a failing
 * call goes back to the model as an error result; the final text is rendered with the contact's variables. Also:
 * the tool-round cap, a model failure, and no model configured (ModelNotConfiguredError, 400).
 */
describe('AI reply composer', () => {
  let testApp: TestApp;
  let model: LocalPeer;
  let tools: LocalPeer;
  let token: string;
  let acme: TestCorp;
  let contact: Json;
  let staffId: string;
  let providerId: string;
  let scriptId: string;
  /** What the model server does next: `reply` (tool calls, then text), `loop` (tool calls forever), `fail` (HTTP 500). */
  let mode: 'reply' | 'loop' | 'fail' = 'reply';
  const C = '/api/acme/console';
  const api = (method: 'get' | 'post', path: string) => request(testApp.baseUrl)[method](path).auth(token, { type: 'bearer' });
  const composer = () => testApp.app.get(AiReplyComposer);
  const modelRequests = () => model.requests.map((entry) => entry.body as ModelRequest);

  beforeAll(async () => {
    model = await startLocalPeer(({ body }) => {
      const req = body as ModelRequest;
      if (mode === 'fail') return { status: 500, body: { error: { message: 'model overloaded' } } };
      const last = req.messages.at(-1)!;
      if (mode === 'reply' && last.role === 'tool') return { body: chatCompletion('Hi {{customerName}}, order A-1 has shipped. {{unknownThing}}') };
      return {
        body: toolCallCompletion([
          { name: 'report_customer_intent', arguments: { intent: 'order_status', confidence: 0.9 } },
          { name: 'get_order', arguments: { orderNo: 'A-1' } },
          { name: 'get_order', arguments: { wrong: true } },
          { name: 'no_such_function', arguments: {} },
        ]),
      };
    });
    tools = await startLocalPeer(({ path }) => (path.startsWith('/api/orders/') ? { body: { order: decodeURIComponent(path.slice('/api/orders/'.length)), status: 'shipped' } } : { status: 404, body: { error: 'no route' } }));
    testApp = await startTestApp({ CHAT_LLM_BASE_URL: `${model.url}/v1`, CHAT_LLM_MODEL: 'local-model', CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true', CHAT_AI_REPLY_MAX_TOOL_ROUNDS: '2' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    acme = await newCorp(testApp, token, 'acme', 'Acme Retail');
    const staff = await newDigitalStaff(testApp, 'acme', 'Mia');
    staffId = staff.id;
    await newStaffUser(testApp, acme, 'zhangsan', { digitalStaffId: staffId });
    await api('post', `${C}/simulator/corps/${acme.id}/staff`).send({ userId: 'zhangsan' });
    const injected = await api('post', `${C}/simulator/corps/${acme.id}/customers`).send({ name: 'Lily', userId: 'zhangsan' }).expect(200);
    contact = injected.body.contact;

    const scope = (await api('post', `${C}/variableScopes`).send({ name: 'Customer facts', source: 'contact' }).expect(200)).body.id;
    await api('post', `${C}/variableScopes/${scope}/definitions`).send({ name: 'customerName', type: 'string' }).expect(200);
    await api('post', `${C}/variables`).send({ scopeId: scope, name: 'customerName', subjectId: contact.id, value: 'Lily Chen' }).expect(200);
    const category = (await api('post', `${C}/chat/script-category`).send({ name: 'Logistics' }).expect(200)).body.id;
    scriptId = (await api('post', `${C}/chat/script-content`).send({ categoryId: category, title: 'Shipping times', content: 'Dear {{customerName}}, parcels leave our warehouse within 2 days.', keywords: ['shipping'] }).expect(200)).body.id;
    const group = (await api('post', `${C}/userConversationGroups`).send({ name: 'Order questions', description: 'Customers asking about orders', systemPrompt: 'Always ask for the order number first.' }).expect(200)).body.id;
    await api('post', `${C}/userConversations`).send({ contactId: contact.id, conversationGroupId: group, digitalStaffId: staffId }).expect(200);
    providerId = (
      await api('post', `${C}/toolApiProviders`)
        .send({
          name: 'Order system',
          baseUrl: `${tools.url}/api`,
          operations: [{ name: 'get_order', description: 'Status of an order', method: 'GET', path: '/orders/{orderNo}', inputSchema: { type: 'object', properties: { orderNo: { type: 'string' } }, required: ['orderNo'] } }],
        })
        .expect(200)
    ).body.id;
    await testApp.app.get(ChatMessagesService).storeInbound({
      tenantId: 'acme',
      corpId: acme.id,
      contactId: contact.id,
      workChatUserId: 'zhangsan',
      msgType: 'text',
      content: 'Where is my order A-1? How long does shipping take?',
      platformMsgId: 'inbound-1',
      sentAt: new Date(),
    });
  });
  afterAll(async () => {
    await testApp?.close();
    await model?.close();
    await tools?.close();
  });
  beforeEach(() => {
    model.requests.length = 0;
    tools.requests.length = 0;
    mode = 'reply';
  });

  it('builds the prompt, lets the model call the provider and report an intent, and renders the reply', async () => {
    const reply = await composer().compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId });

    expect(reply.originalAiContent).toBe('Hi {{customerName}}, order A-1 has shipped. {{unknownThing}}');
    expect(reply.text).toBe('Hi Lily Chen, order A-1 has shipped. {{unknownThing}}');
    expect(reply.detectedIntent).toEqual({ name: 'order_status', confidence: 0.9 });
    expect(reply.scriptIds).toEqual([scriptId]);
    expect(reply.toolCalls).toEqual([
      { providerId, operation: 'get_order', ok: true, status: 200, durationMs: expect.any(Number) },
      { providerId, operation: 'get_order', ok: false, durationMs: expect.any(Number) },
    ]);

    // The model server got the prompt, then the tool results.
    const [first, second] = modelRequests();
    expect(modelRequests()).toHaveLength(2);
    expect(first.model).toBe('local-model');
    const system = first.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('You are Mia, a helpful shop assistant.');
    expect(system.content).toContain('Order questions');
    expect(system.content).toContain('Always ask for the order number first.');
    expect(system.content).toContain('Dear Lily Chen, parcels leave our warehouse within 2 days.');
    expect(system.content).toContain('customerName: Lily Chen');
    expect(first.messages.at(-1)).toEqual({ role: 'user', content: 'Where is my order A-1? How long does shipping take?' });
    expect(first.tools!.map((tool) => tool.function.name).sort()).toEqual(['get_order', 'report_customer_intent']);
    expect(first.tools!.find((tool) => tool.function.name === 'get_order')!.function).toMatchObject({ description: '[Order system] Status of an order', parameters: { required: ['orderNo'] } });
    expect(first.tool_choice).toBe('auto');

    const toolResults = second.messages.filter((message) => message.role === 'tool');
    expect(second.messages.find((message) => message.role === 'assistant' && message.tool_calls)?.tool_calls).toHaveLength(4);
    expect(toolResults).toHaveLength(4);
    expect(JSON.parse(toolResults[0].content)).toEqual({ ok: true });
    expect(JSON.parse(toolResults[1].content)).toEqual({ ok: true, status: 200, body: { order: 'A-1', status: 'shipped' } });
    expect(JSON.parse(toolResults[2].content)).toMatchObject({ ok: false, error: 'invalid_arguments' });
    expect(JSON.parse(toolResults[3].content)).toMatchObject({ ok: false, error: 'unknown_function' });

    // The tool server got exactly the one valid call.
    expect(tools.requests.map((entry) => `${entry.method} ${entry.path}`)).toEqual(['GET /api/orders/A-1']);
  });

  it('stops after CHAT_AI_REPLY_MAX_TOOL_ROUNDS: the last round offers no tool choice, and further calls fail the compose', async () => {
    mode = 'loop';
    await expect(composer().compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId })).rejects.toThrow(/still called tools after 2 rounds/);
    expect(modelRequests().map((req) => req.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(tools.requests).toHaveLength(2);
  });

  it('fails with an Error (for the caller\'s retry) when the model fails, and honours an aborted signal', async () => {
    mode = 'fail';
    const failure = await composer().compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/The chat model \(local-model\) failed/);
    expect(failure).not.toBeInstanceOf(ModelNotConfiguredError);
    expect(model.requests).toHaveLength(1); // no SDK retries: the caller's job decides

    model.requests.length = 0;
    mode = 'reply';
    const controller = new AbortController();
    controller.abort(new Error('stop now'));
    await expect(composer().compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId, signal: controller.signal })).rejects.toThrow('stop now');
    expect(model.requests).toHaveLength(0);
  });

  it('answers 404 for another digital staff or contact id', async () => {
    await expect(composer().compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: crypto.randomUUID() })).rejects.toMatchObject({ status: 404 });
    await expect(composer().compose({ tenantId: 'acme', contactId: crypto.randomUUID(), digitalStaffId: staffId })).rejects.toMatchObject({ status: 404 });
    expect(model.requests).toHaveLength(0);
  });

  it('throws ModelNotConfiguredError (400) when CHAT_LLM_* is unset', async () => {
    const bare = await startTestApp();
    try {
      const error = await bare.app.get(AiReplyComposer).compose({ tenantId: 'acme', contactId: contact.id, digitalStaffId: staffId }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ModelNotConfiguredError);
      expect((error as ModelNotConfiguredError).getStatus()).toBe(400);
      expect((error as Error).message).toBe('no chat model configured: set CHAT_LLM_BASE_URL and CHAT_LLM_MODEL');
    } finally {
      await bare.close();
    }
  });
});
