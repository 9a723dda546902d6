import request from 'supertest';
import { ChatInboundPipeline, type ReplyOutcome } from '../../src/chat/pipeline/chat-inbound-pipeline.service';
import { eventually } from '../support/async';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';
import { dataSourceOf, newCorp, type TestCorp } from './support/way-factories';

type Json = Record<string, any>;
type Method = 'get' | 'post' | 'put' | 'delete';

const SCRIPT_CONTENT = 'Orders ship within 48 hours from our Shanghai warehouse.';
const OUT_OF_HOURS = 'We are closed now; we answer from 9:00.';

interface ModelBody {
  messages: { role: string; content: string | null; tool_calls?: unknown[] }[];
  tools?: { type: string; function: { name: string } }[];
}

/** An OpenAI-compatible completion that calls functions. */
function toolCallCompletion(calls: { name: string; arguments: Record<string, unknown> }[]) {
  return {
    id: `chatcmpl-${Math.random().toString(36).slice(2)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'local-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: null, tool_calls: calls.map((call, index) => ({ id: `call_${index + 1}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })) },
        finish_reason: 'tool_calls',
      },
    ],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/**
 * The inbound AI reply pipeline (issue 6, "The inbound pipeline"; acceptance 2) on the real app with the platform
 * simulator, a real local OpenAI-compatible model server and a real local tool API server: customers and messages
 * are injected through the simulator's HTTP endpoint, replies are read from what the simulated platform received.
 */
describe('inbound AI reply pipeline (simulator → rules → model with tools → one delivered reply)', () => {
  let testApp: TestApp;
  let model: LocalPeer;
  let tools: LocalPeer;
  let token: string;
  let otherToken: string;
  let corp: TestCorp;
  let avaId: string;
  const api = (method: Method, path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const S = () => `/api/acme/console/simulator/corps/${corp.id}`;
  const sql = <T = Json>(text: string, values: unknown[] = []) => dataSourceOf(testApp).query(text, values) as Promise<T[]>;
  /** Model requests that asked about a customer message containing `marker`. */
  const modelRequestsAbout = (marker: string) => model.requests.filter((entry) => JSON.stringify((entry.body as ModelBody).messages).includes(marker));

  /** A customer of `userId` injected through the simulator; returns its contact id and platform id. */
  async function newCustomer(name: string, userId = 'zhangsan'): Promise<{ contactId: string; externalUserId: string }> {
    const injected = await api('post', `${S()}/customers`).send({ name, userId }).expect(200);
    return { contactId: injected.body.contact.id, externalUserId: injected.body.externalUserId };
  }

  /** The customer writes; returns the stored inbound message's id. */
  async function say(externalUserId: string, content: string, msgId?: string): Promise<string> {
    const sent = await api('post', `${S()}/messages`).send({ externalUserId, content, ...(msgId ? { msgId } : {}) }).expect(200);
    const [row] = await sql<{ id: string }>('SELECT id FROM chat_message WHERE tenant_id = $1 AND platform_msg_id = $2', ['acme', sent.body.msgId]);
    return row.id;
  }

  const outcome = (messageId: string): Promise<ReplyOutcome> => testApp.app.get(ChatInboundPipeline).waitForOutcome('acme', messageId, { timeoutMs: 30_000 });
  const outbound = async (externalUserId: string): Promise<Json[]> => (await api('get', `${S()}/messages?direction=outbound&externalUserId=${externalUserId}`).expect(200)).body;
  /** Waits until the simulated platform has received `count` messages for the customer, then returns them. */
  const delivered = (externalUserId: string, count: number) =>
    eventually(`${count} outbound message(s) to ${externalUserId}`, async () => {
      const messages = await outbound(externalUserId);
      return messages.length >= count ? messages : undefined;
    });

  beforeAll(async () => {
    tools = await startLocalPeer(({ path }) => ({ body: { orderId: path.split('/').pop(), status: 'shipped', carrier: 'SF Express' } }));
    model = await startLocalPeer(({ body }) => {
      const { messages, tools: offered = [] } = body as ModelBody;
      if (messages.some((message) => message.role === 'tool')) {
        const system = messages[0].content ?? '';
        const script = system.includes(SCRIPT_CONTENT) ? SCRIPT_CONTENT : '(no script offered)';
        const tool = messages.filter((message) => message.role === 'tool').map((message) => message.content ?? '').join('\n');
        return { body: chatCompletion(`Dear {{memberLevel}} member, your order is ${tool.includes('shipped') ? 'shipped' : 'unknown'}. ${script}`) };
      }
      const latest = [...messages].reverse().find((message) => message.role === 'user')?.content ?? '';
      if (latest.includes('fail-model')) return { status: 500, body: { error: { message: 'model overloaded' } } };
      const intent = latest.includes('human') ? 'human_request' : 'order_status';
      const orderTool = offered.map((tool) => tool.function.name).find((name) => name !== 'report_customer_intent');
      const orderId = /A-\d+/.exec(latest)?.[0] ?? 'A-0';
      return { body: toolCallCompletion([{ name: 'report_customer_intent', arguments: { intent, confidence: 0.9 } }, ...(orderTool ? [{ name: orderTool, arguments: { orderId } }] : [])]) };
    });
    testApp = await startTestApp({
      CHAT_LLM_BASE_URL: `${model.url}/v1`,
      CHAT_LLM_MODEL: 'local-model',
      CHAT_TOOL_ALLOW_PRIVATE_NETWORKS: 'true',
      CHAT_AI_REPLY_RETRY_DELAY_MS: '50',
      CHAT_AI_REPLY_ATTEMPTS: '2',
    });
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    corp = await newCorp(testApp, token, 'acme', 'Acme Retail');

    // Ava answers zhangsan's customers around the clock; Nora answers lisi's, whose service time excludes now.
    for (const [userId, name] of [['zhangsan', 'Zhang San'], ['lisi', 'Li Si']]) {
      await api('post', '/api/acme/console/workChat/user').send({ workChatCorpId: corp.workChatCorpId, workChatUserId: userId, name }).expect(200);
    }
    avaId = (await api('post', '/api/acme/v1/chat/staff').send({ name: 'Ava', persona: 'You are Ava of Acme Retail.' }).expect(200)).body.id;
    const noraId = (await api('post', '/api/acme/v1/chat/staff').send({ name: 'Nora', persona: 'You are Nora of Acme Retail.' }).expect(200)).body.id;
    await api('post', '/api/acme/v1/chat/staff/bind').send({ staffId: avaId, corpName: 'Acme Retail', workChatUserIds: ['zhangsan'] }).expect(200);
    await api('post', '/api/acme/v1/chat/staff/bind').send({ staffId: noraId, corpName: 'Acme Retail', workChatUserIds: ['lisi'] }).expect(200);
    const today = ((new Date().getUTCDay() + 6) % 7) + 1;
    const otherDay = ((today + 2) % 7) + 1; // three days away: never today in UTC, whatever the hour
    await api('post', '/api/acme/v1/chat/digital-staff/service-time')
      .send({ staffId: noraId, timeZone: 'UTC', windows: [{ dayOfWeek: otherDay, start: '09:00', end: '10:00' }], outOfHoursMessage: OUT_OF_HOURS })
      .expect(200);

    await api('post', '/api/acme/console/customers/tagRule').send({ name: 'Order questions', keywords: ['order'], tagNames: ['order-question'] }).expect(200);
    await api('post', '/api/acme/v1/customers/interventionRule').send({ name: 'Complaints', matchType: 'keywords', patterns: ['complaint'], reason: 'Complaint: a person answers.' }).expect(200);
    await api('post', '/api/acme/v1/customers/interventionRule').send({ name: 'Wants a human', matchType: 'intent', patterns: ['human_request'], reason: 'The customer asked for a person.' }).expect(200);
    const category = (await api('post', '/api/acme/console/chat/script-category').send({ name: 'Shipping' }).expect(200)).body.id;
    await api('post', '/api/acme/console/chat/script-content').send({ categoryId: category, title: 'Shipping times', content: SCRIPT_CONTENT, keywords: ['order'] }).expect(200);
    await api('post', '/api/acme/console/toolApiProviders')
      .send({
        name: 'Orders',
        baseUrl: tools.url,
        operations: [{ name: 'get_order', description: 'Look an order up.', method: 'GET', path: '/orders/{orderId}', inputSchema: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] } }],
      })
      .expect(200);
  }, 60_000);

  afterAll(async () => {
    await testApp?.close();
    await model?.close();
    await tools?.close();
  });

  /** A contact variable `memberLevel` with `value` for the contact. */
  let levelDefinitionId: string | undefined;
  async function setMemberLevel(contactId: string, value: string): Promise<void> {
    if (!levelDefinitionId) {
      const scope = (await api('post', '/api/acme/console/variableScopes').send({ name: 'Customer facts', source: 'contact' }).expect(200)).body.id;
      levelDefinitionId = (await api('post', `/api/acme/console/variableScopes/${scope}/definitions`).send({ name: 'memberLevel', type: 'string', defaultValue: 'valued' }).expect(200)).body.id;
    }
    await api('post', '/api/acme/console/variables').send({ definitionId: levelDefinitionId, subjectId: contactId, value }).expect(200);
  }

  it('tags the customer, calls the tool, and delivers exactly one reply with the variable value and the script', async () => {
    const mia = await newCustomer('Mia');
    await setMemberLevel(mia.contactId, 'gold');
    const messageId = await say(mia.externalUserId, 'Where is my order A-17?', 'msg-mia-1');

    const result = await outcome(messageId);
    expect(result).toEqual({ status: 'replied', messageId: expect.any(String), text: `Dear gold member, your order is shipped. ${SCRIPT_CONTENT}` });
    const [sent] = await delivered(mia.externalUserId, 1);
    expect(sent).toMatchObject({ direction: 'outbound', chatType: 'single', userId: 'zhangsan', msgType: 'text', content: `Dear gold member, your order is shipped. ${SCRIPT_CONTENT}` });
    // The tool server was called with the model's arguments; the keyword tag rule tagged the customer.
    expect(tools.requests).toEqual(expect.arrayContaining([expect.objectContaining({ method: 'GET', path: '/orders/A-17' })]));
    const [contact] = await sql('SELECT tags FROM chat_external_contact WHERE id = $1', [mia.contactId]);
    expect(contact.tags).toEqual([{ tagName: 'order-question', type: 2 }]);
    const replies = await sql('SELECT id, content, original_ai_content, sender, direction, status, in_reply_to_message_id FROM chat_message WHERE contact_id = $1 AND direction = $2', [mia.contactId, 'out']);
    expect(replies).toEqual([
      { id: (result as { messageId: string }).messageId, content: sent.content, original_ai_content: `Dear {{memberLevel}} member, your order is shipped. ${SCRIPT_CONTENT}`, sender: 'ai', direction: 'out', status: 'sent', in_reply_to_message_id: messageId },
    ]);
    const intents = await sql('SELECT intent_name, source, message_id FROM chat_intention_record WHERE contact_id = $1', [mia.contactId]);
    expect(intents).toEqual([{ intent_name: 'order_status', source: 'pipeline', message_id: messageId }]);

    // The platform redelivers the message: nothing new is stored, composed or sent.
    const modelCalls = model.requests.length;
    expect(await say(mia.externalUserId, 'Where is my order A-17?', 'msg-mia-1')).toBe(messageId);
    expect(await sql('SELECT status FROM chat_ai_reply WHERE contact_id = $1', [mia.contactId])).toEqual([{ status: 'sent' }]);
    expect(model.requests.length).toBe(modelCalls);
    expect(await outbound(mia.externalUserId)).toHaveLength(1);
  });

  it('an intervention keyword switches the AI off and opens a to-do; processing it switches the AI on and the next message is answered', async () => {
    const ned = await newCustomer('Ned');
    const complaint = await say(ned.externalUserId, 'I want to file a complaint about the delivery.');
    expect(await outcome(complaint)).toEqual({ status: 'intervened', reason: expect.stringContaining('Complaint: a person answers.') });
    expect(modelRequestsAbout('file a complaint')).toHaveLength(0);
    const contact = await api('get', `/api/acme/console/workChat/zhangsan/contact/external/${ned.contactId}`).expect(200);
    expect(contact.body.aiEnabled).toBe(false);
    const todos = await api('get', `/api/acme/v1/chat/digitalStaff/customer/todo?contactId=${ned.contactId}`).expect(200);
    expect(todos.body.content).toEqual([expect.objectContaining({ contactId: ned.contactId, digitalStaffId: avaId, sourceMessageId: complaint, status: 'open', reason: expect.stringContaining('Complaint: a person answers.') })]);

    // AI off: a further message is stored but not answered.
    const ignored = await say(ned.externalUserId, 'Hello? Where is my order A-5?');
    expect(await outcome(ignored)).toEqual({ status: 'skipped', reason: 'AI replies are switched off for this contact.' });

    await api('post', '/api/acme/v1/chat/digitalStaff/customer/todo/process').send({ todoId: todos.body.content[0].id, enableAi: true, note: 'Called the customer.' }).expect(200);
    expect((await api('get', `/api/acme/console/workChat/zhangsan/contact/external/${ned.contactId}`).expect(200)).body.aiEnabled).toBe(true);
    const next = await say(ned.externalUserId, 'Thanks. And my order A-6?');
    expect(await outcome(next)).toMatchObject({ status: 'replied' });
    const sent = await delivered(ned.externalUserId, 1);
    expect(sent).toHaveLength(1);
  });

  it('an intent-type intervention rule matching the detected intent intervenes and nothing is sent', async () => {
    const ivy = await newCustomer('Ivy');
    const messageId = await say(ivy.externalUserId, 'Let me talk to a human please');
    expect(await outcome(messageId)).toEqual({ status: 'intervened', reason: expect.stringContaining('The customer asked for a person.') });
    expect(await sql('SELECT intent_name FROM chat_intention_record WHERE contact_id = $1', [ivy.contactId])).toEqual([{ intent_name: 'human_request' }]);
    const todos = await api('get', `/api/acme/v1/chat/digitalStaff/customer/todo?contactId=${ivy.contactId}`).expect(200);
    expect(todos.body.content).toEqual([expect.objectContaining({ sourceMessageId: messageId, status: 'open' })]);
    expect((await api('get', `/api/acme/console/workChat/zhangsan/contact/external/${ivy.contactId}`).expect(200)).body.aiEnabled).toBe(false);
    expect(await sql('SELECT id FROM chat_message WHERE contact_id = $1 AND direction = $2', [ivy.contactId, 'out'])).toEqual([]);
    expect(await outbound(ivy.externalUserId)).toEqual([]);
  });

  it('out of service time: the out-of-hours message is sent once per out-of-service window, the model is not asked', async () => {
    const otto = await newCustomer('Otto', 'lisi');
    const first = await say(otto.externalUserId, 'Is anyone there? My order A-9');
    const second = await say(otto.externalUserId, 'Hello??');
    const firstOutcome = await outcome(first);
    expect(firstOutcome).toEqual({ status: 'out_of_hours', messageId: expect.any(String), text: OUT_OF_HOURS });
    expect(await outcome(second)).toEqual({ status: 'out_of_hours', messageId: null, text: null });
    const [sent] = await delivered(otto.externalUserId, 1);
    expect(sent.content).toBe(OUT_OF_HOURS);
    expect(await outbound(otto.externalUserId)).toHaveLength(1);
    expect(modelRequestsAbout('My order A-9')).toHaveLength(0);
    const notices = await sql('SELECT inbound_message_id, message_id FROM chat_out_of_hours_notice WHERE contact_id = $1', [otto.contactId]);
    expect(notices).toEqual([{ inbound_message_id: first, message_id: (firstOutcome as { messageId: string }).messageId }]);
  });

  it('ai-intervene queues a reply to the latest message even with the AI off: true, then false; 404 for another tenant', async () => {
    const kim = await newCustomer('Kim');
    const path = `/api/acme/console/workChat/zhangsan/contact/external/${kim.contactId}/ai-intervene`;
    expect((await api('post', path).expect(200)).body).toBe(false); // nothing to reply to yet
    expect((await api('post', `/api/acme/console/workChat/zhangsan/contact/external/${kim.contactId}/ai/switch`).expect(200)).body).toBe(false);
    const messageId = await say(kim.externalUserId, 'Could you check order A-33?');
    expect(await outcome(messageId)).toMatchObject({ status: 'skipped' });

    expect((await api('post', path).expect(200)).body).toBe(true);
    expect((await api('post', path).expect(200)).body).toBe(false);
    const replied = await eventually('the operator-requested reply', async () => {
      const result = await testApp.app.get(ChatInboundPipeline).outcomeOf('acme', messageId);
      return result?.status === 'replied' ? result : undefined;
    });
    expect(replied).toMatchObject({ text: `Dear valued member, your order is shipped. ${SCRIPT_CONTENT}` });
    expect(await delivered(kim.externalUserId, 1)).toHaveLength(1);
    expect((await api('post', path).expect(200)).body).toBe(false); // already answered

    await request(testApp.baseUrl).post(`/api/globex/console/workChat/zhangsan/contact/external/${kim.contactId}/ai-intervene`).auth(otherToken, { type: 'bearer' }).expect(404);
    await request(testApp.baseUrl).post(`/api/acme/console/workChat/zhangsan/contact/external/${kim.contactId}/ai-intervene`).auth(otherToken, { type: 'bearer' }).expect(403);
    await api('post', `/api/acme/console/workChat/lisi/contact/external/${kim.contactId}/ai-intervene`).expect(404);
    await api('post', '/api/acme/console/workChat/zhangsan/contact/external/not-a-uuid/ai-intervene').expect(400);
    expect(await outbound(kim.externalUserId)).toHaveLength(1);
  });

  it('a model that keeps failing is retried CHAT_AI_REPLY_ATTEMPTS times, then the reply ends failed with the reason', async () => {
    const fay = await newCustomer('Fay');
    const messageId = await say(fay.externalUserId, 'please fail-model now');
    const result = await outcome(messageId);
    expect(result).toEqual({ status: 'failed', reason: expect.stringMatching(/^Failed after 2 attempts \(CHAT_AI_REPLY_ATTEMPTS=2\): The chat model \(local-model\) failed: /) });
    expect(await sql('SELECT attempts FROM chat_ai_reply WHERE inbound_message_id = $1', [messageId])).toEqual([{ attempts: 2 }]);
    expect(await outbound(fay.externalUserId)).toEqual([]);
  });
});
