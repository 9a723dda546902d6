import request from 'supertest';
import { ExternalContactEntity } from '../../src/chat/contacts/external-contact.entity';
import { ChatMessageEntity } from '../../src/chat/messages/chat-message.entity';
import { ChatPlatformSimulator } from '../../src/chat/platform/simulator/chat-platform-simulator';
import { DigitalStaffSandbox } from '../../src/chat/sandbox/digital-staff-sandbox.service';
import { sandboxExternalUserId } from '../../src/chat/sandbox/sandbox.rules';
import { builtInToken, newClient, newTenant } from '../chat/support/chat-test-app';
import { corpContext, dataSourceOf, newCorp, newDigitalStaff, newStaffUser, type TestCorp } from '../chat/support/way-factories';
import { eventually } from '../support/async';
import { waitForRun as waitForRunToEnd } from '../support/evaluation-runs';
import { chatCompletion, type LocalPeer, startLocalPeer } from '../support/peers/local-peers';
import { startTestApp, type TestApp } from '../support/test-app';

const API_KEY = 'eval-api-key-0123456789abcdef';

type Json = Record<string, any>;

/** The text of an OpenAI-style message content (a string, or an array of text parts). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('');
  return '';
}

/**
 * The digital staff's model (a real OpenAI-compatible server on 127.0.0.1): answers the last customer (user) message
 * and says how many customer messages it was shown, so a test sees the conversation history the chat wing built.
 */
function staffModelReply(messages: { role: string; content: unknown }[]): string {
  const customer = messages.filter((message) => message.role === 'user').map((message) => textOf(message.content));
  const last = customer[customer.length - 1] ?? '';
  const asked = ['When do you open?', 'Do you ship abroad?', 'Hi there'].find((question) => last.includes(question)) ?? last.slice(-60);
  return `Ava answers: ${asked} [customer messages ${customer.length}]`;
}

/**
 * Evaluation targets of kind `digital_staff` (issue 6, acceptance 7): a run's cases talk to a chat digital staff
 * through the chat wing's sandbox — the same inbound pipeline and composer as real customers, with a real local model
 * server — as sandbox contacts (one per case, never a real customer, nothing sent to the platform); settings are
 * validated against the chat wing; the sandbox's refusals become errored cases.
 */
describe('digital_staff evaluation targets (chat sandbox)', () => {
  let testApp: TestApp;
  let models: LocalPeer;
  let corp: TestCorp;
  let staff: Json;
  let token: string;
  const api = (method: 'get' | 'post' | 'patch', path: string) => request(testApp.baseUrl)[method](path).set('X-API-Key', API_KEY);
  const waitForRun = (id: string) => waitForRunToEnd(testApp.baseUrl, API_KEY, id, { timeoutMs: 90_000 });
  const db = () => dataSourceOf(testApp);
  const sandboxContacts = () => db().getRepository(ExternalContactEntity).find({ where: { tenantId: 'acme', sandbox: true }, order: { createdAt: 'ASC' } });
  const newTarget = (settings: Json, name = 'Ava in the sandbox') => api('post', '/api/targets').send({ name, kind: 'digital_staff', digital_staff: settings });

  beforeAll(async () => {
    models = await startLocalPeer(({ body }) => {
      const { model, messages } = body as { model: string; messages: { role: string; content: unknown }[] };
      return { body: chatCompletion(staffModelReply(messages), model) };
    });
    testApp = await startTestApp({ EVAL_API_KEYS: API_KEY, CHAT_LLM_BASE_URL: `${models.url}/v1`, CHAT_LLM_MODEL: 'staff-model', CHAT_LLM_API_KEY: 'staff-model-key' });
    await newTenant(testApp, 'acme');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    corp = await newCorp(testApp, token, 'acme', 'Acme Retail');
    staff = await newDigitalStaff(testApp, 'acme', 'Ava');
    // Two staff users bound to Ava: the sandbox talks through the oldest one.
    await newStaffUser(testApp, corp, 'zhangsan', { digitalStaffId: staff.id });
    await new Promise((resolve) => setTimeout(resolve, 5)); // distinct created_at
    await newStaffUser(testApp, corp, 'lisi', { digitalStaffId: staff.id });
  }, 60_000);
  afterAll(async () => {
    await testApp?.close();
    await models?.close();
  });

  it('runs a scenario against the digital staff: replies from the pipeline, one sandbox contact per case, nothing on the platform', async () => {
    const target = await newTarget({ tenant_id: 'acme', digital_staff_id: staff.id, timeout_ms: 60_000 }).expect(201);
    expect(target.body).toMatchObject({ kind: 'digital_staff', channel: { tenant_id: 'acme', digital_staff_id: staff.id, timeout_ms: 60_000 }, secret_fields: [] });
    const scenario = await api('post', '/api/scenarios')
      .send({
        name: 'Ava basics',
        cases: [
          { id: 'hours', input: 'When do you open?', rules: [{ type: 'contains', value: 'When do you open?' }, { type: 'starts-with', value: 'Ava answers:' }] },
          { id: 'shipping', turns: ['Hi there', 'Do you ship abroad?'], rules: [{ type: 'contains-all', value: ['Do you ship abroad?', '[customer messages 2]'] }] },
        ],
      })
      .expect(201);
    const created = await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id, concurrency: 2 }).expect(201);
    const run = await waitForRun(created.body.id);
    const report = await api('get', `/api/reports/${run.id}`).expect(200);
    const byCase = Object.fromEntries(report.body.cases.map((item: Json) => [item.case_id, item]));
    expect({ status: run.status, summary: run.summary, errors: report.body.cases.map((item: Json) => item.error) }).toMatchObject({
      status: 'completed',
      summary: { total_cases: 2, passed_cases: 2, errored_cases: 0 },
    });

    // The outputs are the model's answers, with the history the chat wing kept: each case is its own conversation.
    expect(byCase.hours.output).toBe('Ava answers: When do you open? [customer messages 1]');
    expect(byCase.shipping.output).toBe('Ava answers: Do you ship abroad? [customer messages 2]');
    expect(byCase.shipping.transcript.map((turn: Json) => turn.reply)).toEqual(['Ava answers: Hi there [customer messages 1]', 'Ava answers: Do you ship abroad? [customer messages 2]']);
    expect(models.requests.every((entry) => entry.headers.authorization === 'Bearer staff-model-key')).toBe(true);

    // One sandbox contact per case, under the oldest bound staff user, AI on.
    const contacts = await sandboxContacts();
    const expectedIds = [`${run.id}:hours:0`, `${run.id}:shipping:0`].map(sandboxExternalUserId).sort();
    expect(contacts.map((contact) => contact.externalUserId).sort()).toEqual(expectedIds);
    for (const contact of contacts) {
      expect(contact).toMatchObject({ sandbox: true, aiEnabled: true, corpId: corp.id, workChatUserId: 'zhangsan', name: expect.stringMatching(/^Evaluation sandbox /) });
    }

    // The conversation is stored in the chat wing: customer messages in, AI replies out, marked sent without the platform.
    const shippingContact = contacts.find((contact) => contact.externalUserId === sandboxExternalUserId(`${run.id}:shipping:0`))!;
    const conversation = await eventually('the AI replies delivered (sandbox: marked sent)', async () => {
      const rows = await db().getRepository(ChatMessageEntity).find({ where: { tenantId: 'acme', contactId: shippingContact.id }, order: { createdAt: 'ASC' } });
      return rows.length === 4 && rows.every((row) => row.status !== 'pending') ? rows : undefined;
    });
    expect(conversation.map((row) => [row.direction, row.sender, row.content, row.status])).toEqual([
      ['in', 'customer', 'Hi there', 'received'],
      ['out', 'ai', 'Ava answers: Hi there [customer messages 1]', 'sent'],
      ['in', 'customer', 'Do you ship abroad?', 'received'],
      ['out', 'ai', 'Ava answers: Do you ship abroad? [customer messages 2]', 'sent'],
    ]);
    expect(conversation.filter((row) => row.direction === 'out').every((row) => row.platformMsgId === null && row.sentAt instanceof Date)).toBe(true);
    expect(conversation.filter((row) => row.direction === 'in').every((row) => row.platformMsgId?.startsWith('sandbox-'))).toBe(true);

    // Nothing reached the (simulated) platform for them.
    const simulator = testApp.app.get(ChatPlatformSimulator);
    for (const contact of contacts) expect(await simulator.listMessages(corpContext(corp), { externalUserId: contact.externalUserId })).toEqual([]);
    expect(await db().query(`SELECT count(*)::int AS n FROM chat_sim_message WHERE external_user_id LIKE 'sandbox-%'`)).toEqual([{ n: 0 }]);
  });

  it('creates one sandbox contact for concurrent messages of the same session', async () => {
    const sandbox = testApp.app.get(DigitalStaffSandbox);
    const before = (await sandboxContacts()).length;
    const results = await Promise.allSettled(
      ['Hi there', 'When do you open?', 'Do you ship abroad?'].map((message) => sandbox.exchange({ tenantId: 'acme', digitalStaffId: staff.id, sessionKey: 'concurrent-session', message, timeoutMs: 60_000 })),
    );
    expect(results.some((result) => result.status === 'fulfilled')).toBe(true);
    const contacts = (await sandboxContacts()).filter((contact) => contact.externalUserId === sandboxExternalUserId('concurrent-session'));
    expect(contacts).toHaveLength(1);
    expect((await sandboxContacts()).length).toBe(before + 1);
    const inbound = await db().getRepository(ChatMessageEntity).countBy({ tenantId: 'acme', contactId: contacts[0].id, direction: 'in' });
    expect(inbound).toBe(3);
  });

  it('marks cases errored when the digital staff cannot answer (no bound staff user, disabled), before any model call', async () => {
    const lonely = await newDigitalStaff(testApp, 'acme', 'Lonely');
    const target = await newTarget({ tenant_id: 'acme', digital_staff_id: lonely.id, timeout_ms: 10_000 }, 'Lonely').expect(201);
    const scenario = await api('post', '/api/scenarios').send({ name: 'Lonely', cases: [{ id: 'a', input: 'Hello?', rules: [{ type: 'contains', value: 'x' }] }] }).expect(201);
    const requestsBefore = models.requests.length;
    const run = await waitForRun((await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201)).body.id);
    expect(run).toMatchObject({ status: 'completed', summary: { total_cases: 1, errored_cases: 1 } });
    const report = await api('get', `/api/reports/${run.id}`).expect(200);
    expect(report.body.cases[0].error).toContain('no staff user is bound to digital staff "Lonely"');

    await db().query(`UPDATE chat_digital_staff SET enabled = false WHERE id = $1`, [lonely.id]);
    const disabled = await waitForRun((await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201)).body.id);
    expect((await api('get', `/api/reports/${disabled.id}`).expect(200)).body.cases[0].error).toContain('is disabled');
    expect(models.requests.length).toBe(requestsBefore);
  });

  it('validates the settings against the chat wing (400 naming what is missing)', async () => {
    const refused = async (body: Json, detail: string | RegExp) => {
      const response = await api('post', '/api/targets').send(body).expect(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(JSON.stringify(response.body)).toMatch(detail);
    };
    await refused({ name: 'x', kind: 'digital_staff' }, 'needs its \\"digital_staff\\" settings');
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'nowhere', digital_staff_id: staff.id } }, 'chat tenant \\"nowhere\\" does not exist');
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: '00000000-0000-4000-8000-000000000000' } }, 'digital staff 00000000-0000-4000-8000-000000000000 does not exist in chat tenant \\"acme\\"');
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: 'not-a-uuid' } }, /digital_staff_id/);
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: staff.id, timeout_ms: 600_001 } }, /timeout_ms/);
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: staff.id, extra: 1 } }, /extra/);
    await refused({ name: 'x', kind: 'http', digital_staff: { tenant_id: 'acme', digital_staff_id: staff.id } }, 'takes only');

    // Another tenant's digital staff is not found in this tenant.
    await newTenant(testApp, 'globex');
    const foreign = await newDigitalStaff(testApp, 'globex', 'Gina');
    await refused({ name: 'x', kind: 'digital_staff', digital_staff: { tenant_id: 'acme', digital_staff_id: foreign.id } }, `digital staff ${foreign.id} does not exist in chat tenant \\"acme\\"`);

    const target = await newTarget({ tenant_id: 'acme', digital_staff_id: staff.id }).expect(201);
    const bad = await api('patch', `/api/targets/${target.body.id}`).send({ digital_staff: { tenant_id: 'globex', digital_staff_id: staff.id } }).expect(400);
    expect(bad.body.detail).toContain(`digital staff ${staff.id} does not exist in chat tenant "globex"`);
    await api('patch', `/api/targets/${target.body.id}`).send({ http: { url: 'http://127.0.0.1:9/', body_template: { m: '{{message}}' }, reply_path: '$.reply' } }).expect(400);
    const moved = await api('patch', `/api/targets/${target.body.id}`).send({ digital_staff: { tenant_id: 'globex', digital_staff_id: foreign.id, timeout_ms: 5_000 } }).expect(200);
    expect(moved.body.channel).toEqual({ tenant_id: 'globex', digital_staff_id: foreign.id, timeout_ms: 5_000 });
  });

  it('delivers a console message to a sandbox contact without calling the platform', async () => {
    const contact = await db().getRepository(ExternalContactEntity).save(
      db().getRepository(ExternalContactEntity).create({
        tenantId: 'acme', corpId: corp.id, externalUserId: sandboxExternalUserId('console-probe'), workChatUserId: 'lisi', name: 'Evaluation sandbox console-probe',
        tags: [], profile: {}, aiEnabled: false, sandbox: true, state: null, stateAt: null, addedAt: new Date(),
      }),
    );
    const sent = await request(testApp.baseUrl)
      .post(`/api/acme/console/workChat/lisi/contact/${contact.id}/message/send`)
      .auth(token, { type: 'bearer' })
      .field('request', JSON.stringify({ msgType: 'text', msgBody: { content: 'Hello sandbox' } }))
      .expect(200);
    const row = await eventually('the message leaves pending', async () => {
      const found = await db().getRepository(ChatMessageEntity).findOneBy({ tenantId: 'acme', id: sent.body.id });
      return found && found.status !== 'pending' ? found : undefined;
    });
    expect(row).toMatchObject({ status: 'sent', platformMsgId: null, failureReason: null, deliveryAttempts: 1 });
    expect(await testApp.app.get(ChatPlatformSimulator).listMessages(corpContext(corp), { externalUserId: contact.externalUserId })).toEqual([]);
  });

  it('errors a case the intervention rules take over, naming the outcome and reason (not retried)', async () => {
    await request(testApp.baseUrl)
      .post('/api/acme/v1/customers/interventionRule')
      .auth(token, { type: 'bearer' })
      .send({ name: 'Refunds go to a person', matchType: 'keywords', patterns: ['refund'], reason: 'Refunds need a person.' })
      .expect(200);
    const target = await newTarget({ tenant_id: 'acme', digital_staff_id: staff.id, timeout_ms: 30_000 }, 'Ava refunds').expect(201);
    const scenario = await api('post', '/api/scenarios').send({ name: 'Refund', cases: [{ id: 'refund', input: 'I want a refund', rules: [{ type: 'contains', value: 'refund' }] }] }).expect(201);
    const run = await waitForRun((await api('post', '/api/runs').send({ scenario_id: scenario.body.id, target_id: target.body.id }).expect(201)).body.id);
    expect(run).toMatchObject({ status: 'completed', summary: { total_cases: 1, errored_cases: 1 } });
    const report = await api('get', `/api/reports/${run.id}`).expect(200);
    expect(report.body.cases[0].error).toMatch(/^digital staff target \(intervened\): the digital staff did not reply: intervened \(.+\)$/);
    const contact = await db().getRepository(ExternalContactEntity).findOneByOrFail({ tenantId: 'acme', externalUserId: sandboxExternalUserId(`${run.id}:refund:0`) });
    expect(contact).toMatchObject({ sandbox: true, aiEnabled: false });
    // Sent once: an intervention is not retried.
    expect(await db().getRepository(ChatMessageEntity).countBy({ tenantId: 'acme', contactId: contact.id, direction: 'in' })).toBe(1);
  });
});
