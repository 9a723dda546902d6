import { getDataSourceToken } from '@nestjs/typeorm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DigitalStaffEntity } from '../../src/chat/digital-staff/digital-staff.entity';
import { InterventionRulesService } from '../../src/chat/intervention-rules/intervention-rules.service';
import { startTestApp, type TestApp } from '../support/test-app';
import { builtInToken, newClient, newTenant } from './support/chat-test-app';

/**
 * Human-intervention rules (chat-management-api.md: `POST {T}/v1/customers/interventionRule`,
 * `PUT/DELETE {T}/v1/customers/interventionRule/{id}`, `PUT {C}/customers/interventionRule/{id}`, plus list / get /
 * create / delete in both views): the two views of the same rows, write-time checks (field errors, regexes RE2 can't run,
 * unknown digital staff), update semantics, paging, the per-tenant cap, tenant isolation and scopes, and the
 * `matching()` read method the inbound pipeline will use.
 */
describe('human-intervention rules ({T}/v1/customers/interventionRule, {C}/customers/interventionRule)', () => {
  let testApp: TestApp;
  let dataSource: DataSource;
  let token: string;
  let otherToken: string;
  let readOnlyToken: string;
  let staffId: string;
  let otherStaffId: string;
  const v1 = (tenant = 'acme') => `/api/${tenant}/v1/customers/interventionRule`;
  const consolePath = (tenant = 'acme') => `/api/${tenant}/console/customers/interventionRule`;
  const api = (method: 'get' | 'post' | 'put' | 'delete', path: string, bearer = token) => request(testApp.baseUrl)[method](path).auth(bearer, { type: 'bearer' });
  const keywordRule = (name: string, extra: Record<string, unknown> = {}) => ({ name, matchType: 'keywords', patterns: ['complaint', '投诉'], reason: 'Complaint: a person answers.', ...extra });

  beforeAll(async () => {
    testApp = await startTestApp({ CHAT_RULE_MAX_PER_TENANT: '12' });
    dataSource = testApp.app.get<DataSource>(getDataSourceToken());
    await newTenant(testApp, 'acme');
    await newTenant(testApp, 'globex');
    await newTenant(testApp, 'initech');
    token = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme' }))).access_token;
    otherToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'globex' }))).access_token;
    readOnlyToken = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'acme', scopes: ['chat:read'] }))).access_token;
    const staff = dataSource.getRepository(DigitalStaffEntity);
    staffId = (await staff.save({ tenantId: 'acme', name: 'Ava', persona: 'You are Ava.', description: null, welcomeMessage: null, enabled: true })).id;
    otherStaffId = (await staff.save({ tenantId: 'globex', name: 'Gus', persona: 'You are Gus.', description: null, welcomeMessage: null, enabled: true })).id;
  });
  afterAll(() => testApp?.close());

  it('creates a rule through V1 (200, flat view) and shows the same row in the console view (grouped)', async () => {
    const created = await api('post', v1()).send(keywordRule('Complaints')).expect(200);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      tenantId: 'acme',
      name: 'Complaints',
      description: null,
      matchType: 'keywords',
      patterns: ['complaint', '投诉'],
      allContacts: true,
      digitalStaffIds: [],
      enabled: true,
      switchAiOff: true,
      createTodo: true,
      reason: 'Complaint: a person answers.',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const viaConsole = await api('get', `${consolePath()}/${created.body.id}`).expect(200);
    expect(viaConsole.body).toEqual({
      id: created.body.id,
      tenantId: 'acme',
      name: 'Complaints',
      description: null,
      matchType: 'keywords',
      patterns: ['complaint', '投诉'],
      scope: { allContacts: true, digitalStaffIds: [] },
      enabled: true,
      action: { switchAiOff: true, createTodo: true, reason: 'Complaint: a person answers.' },
      createdAt: created.body.createdAt,
      updatedAt: created.body.updatedAt,
    });
    expect((await api('get', `${v1()}/${created.body.id}`).expect(200)).body).toEqual(created.body);
    const rows = await dataSource.query('SELECT tenant_id, match_type, patterns FROM chat_intervention_rule WHERE id = $1', [created.body.id]);
    expect(rows).toEqual([{ tenant_id: 'acme', match_type: 'keywords', patterns: ['complaint', '投诉'] }]);
  });

  it('creates a scoped regex rule through the console view, shown flat through V1', async () => {
    const created = await api('post', consolePath())
      .send({ name: 'Phone numbers', matchType: 'regex', patterns: ['\\b1\\d{10}\\b'], scope: { allContacts: false, digitalStaffIds: [staffId] }, action: { switchAiOff: false, reason: 'Shared a phone number.' } })
      .expect(200);
    expect(created.body).toMatchObject({ scope: { allContacts: false, digitalStaffIds: [staffId] }, action: { switchAiOff: false, createTodo: true, reason: 'Shared a phone number.' } });
    const flat = await api('get', `${v1()}/${created.body.id}`).expect(200);
    expect(flat.body).toMatchObject({ allContacts: false, digitalStaffIds: [staffId], switchAiOff: false, createTodo: true, matchType: 'regex' });
  });

  it('answers 400 with field errors for missing and malformed fields, in either view', async () => {
    const missing = await api('post', v1()).send({ matchType: 'keywords' }).expect(400);
    expect(missing.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(missing.body.errors.map((entry: { field: string }) => entry.field)).toEqual(expect.arrayContaining(['name', 'patterns', 'reason']));
    const badType = await api('post', v1()).send(keywordRule('X', { matchType: 'fuzzy' })).expect(400);
    expect(badType.body.errors).toEqual([expect.objectContaining({ field: 'matchType' })]);
    await api('post', v1()).send(keywordRule('X', { tenantId: 'globex' })).expect(400);
    const nested = await api('post', consolePath()).send({ name: 'X', matchType: 'keywords', patterns: ['a'], scope: { allContacts: 'yes' }, action: {} }).expect(400);
    expect(nested.body.errors.map((entry: { field: string }) => entry.field).sort()).toEqual(['action.reason', 'scope.allContacts']);
    const keywords = await api('post', v1()).send(keywordRule('X', { patterns: ['ok', ' padded', 'OK'] })).expect(400);
    expect(keywords.body.errors).toEqual([
      { field: 'patterns[1]', messages: ['must not start or end with spaces'] },
      { field: 'patterns[2]', messages: ['repeats patterns[0]'] },
    ]);
    const intents = await api('post', v1()).send(keywordRule('X', { matchType: 'intent', patterns: ['bad!intent'] })).expect(400);
    expect(intents.body.errors).toEqual([{ field: 'patterns[0]', messages: ['an intent name has letters, digits, spaces, "_", ".", ":" or "-" only'] }]);
  });

  it('checks regular expressions when written: RE2 syntax, unsupported constructs named, length (400)', async () => {
    const response = await api('post', v1()).send(keywordRule('Regexes', { matchType: 'regex', patterns: ['(unclosed', 'refund(?!ed)', '(?<=my )order', 'x'.repeat(201), '(a)\\1'] })).expect(400);
    const byField = Object.fromEntries(response.body.errors.map((entry: { field: string; messages: string[] }) => [entry.field, entry.messages.join(' | ')]));
    expect(byField['patterns[0]']).toMatch(/^is not a valid regular expression for the RE2 engine: /);
    expect(byField['patterns[1]']).toBe('uses a negative lookahead "(?!", which the linear-time RE2 engine does not support');
    expect(byField['patterns[2]']).toBe('uses a lookbehind "(?<=", which the linear-time RE2 engine does not support');
    expect(byField['patterns[3]']).toBe('is 201 characters long; at most 200 are allowed');
    expect(byField['patterns[4]']).toBe('uses a backreference "\\1", which the linear-time RE2 engine does not support');
    expect(await dataSource.query("SELECT count(*)::int AS n FROM chat_intervention_rule WHERE name = 'Regexes'")).toEqual([{ n: 0 }]);
  });

  it('checks the scope: digital staff required when not all contacts, none when all, each of the tenant (400)', async () => {
    const none = await api('post', v1()).send(keywordRule('Scoped', { allContacts: false })).expect(400);
    expect(none.body.errors).toEqual([{ field: 'digitalStaffIds', messages: ['must name at least one digital staff when allContacts is false'] }]);
    const both = await api('post', v1()).send(keywordRule('Scoped', { allContacts: true, digitalStaffIds: [staffId] })).expect(400);
    expect(both.body.errors).toEqual([{ field: 'digitalStaffIds', messages: ['must be empty when allContacts is true (the rule applies to every contact)'] }]);
    const foreign = await api('post', consolePath()).send({ name: 'Scoped', matchType: 'keywords', patterns: ['x'], scope: { allContacts: false, digitalStaffIds: [otherStaffId] }, action: { reason: 'r' } }).expect(400);
    expect(foreign.body.errors).toEqual([{ field: 'scope.digitalStaffIds', messages: [`no digital staff ${otherStaffId} in this tenant`] }]);
    await api('post', v1()).send(keywordRule('Scoped', { allContacts: false, digitalStaffIds: ['not-a-uuid'] })).expect(400);
  });

  it('updates through either view: required fields again, omitted optional ones kept; duplicate names 409', async () => {
    const created = await api('post', v1()).send(keywordRule('Lawyers', { description: 'legal threats', switchAiOff: false, enabled: false })).expect(200);
    const id = created.body.id;
    const updated = await api('put', `${v1()}/${id}`).send({ name: 'Legal threats', matchType: 'keywords', patterns: ['lawyer', 'court'], reason: 'Legal: escalate.' }).expect(200);
    expect(updated.body).toMatchObject({ name: 'Legal threats', description: 'legal threats', patterns: ['lawyer', 'court'], switchAiOff: false, enabled: false, createTodo: true, reason: 'Legal: escalate.' });
    const consoleUpdate = await api('put', `${consolePath()}/${id}`)
      .send({ name: 'Legal threats', matchType: 'keywords', patterns: ['lawyer'], enabled: true, description: null, scope: { allContacts: false, digitalStaffIds: [staffId] }, action: { switchAiOff: true, reason: 'Legal!' } })
      .expect(200);
    expect(consoleUpdate.body).toMatchObject({ description: null, enabled: true, patterns: ['lawyer'], scope: { allContacts: false, digitalStaffIds: [staffId] }, action: { switchAiOff: true, createTodo: true, reason: 'Legal!' } });
    const widened = await api('put', `${v1()}/${id}`).send({ name: 'Legal threats', matchType: 'keywords', patterns: ['lawyer'], allContacts: true, reason: 'Legal!' }).expect(200);
    expect(widened.body).toMatchObject({ allContacts: true, digitalStaffIds: [] });
    const duplicate = await api('put', `${consolePath()}/${id}`).send({ name: 'Complaints', matchType: 'keywords', patterns: ['x'], scope: { allContacts: true }, action: { reason: 'r' } }).expect(409);
    expect(duplicate.body.detail).toBe('The tenant already has a human-intervention rule named "Complaints".');
    expect((await api('post', v1()).send(keywordRule('Complaints')).expect(409)).body.detail).toBe('The tenant already has a human-intervention rule named "Complaints".');
    const unsafe = await api('put', `${v1()}/${id}`).send({ name: 'Legal threats', matchType: 'regex', patterns: ['(x)\\1y'], reason: 'r' }).expect(400);
    expect(unsafe.body.errors[0].field).toBe('patterns[0]');
  });

  it('pages and filters in both views, in the order rules apply unless sorted; size over 200 is 400', async () => {
    await api('post', v1()).send(keywordRule('Intent: cancel', { matchType: 'intent', patterns: ['cancel_order'] })).expect(200);
    const all = await api('get', v1()).expect(200);
    expect(all.body).toMatchObject({ page: 0, size: 20, totalPages: 1 });
    expect(all.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Complaints', 'Phone numbers', 'Legal threats', 'Intent: cancel']);
    expect(all.body.totalElements).toBe(4);
    const sorted = await api('get', `${consolePath()}?sort=name,desc&size=2&page=1`).expect(200);
    expect(sorted.body).toMatchObject({ page: 1, size: 2, totalElements: 4, totalPages: 2 });
    expect(sorted.body.content.map((rule: { name: string; scope: unknown }) => [rule.name, typeof rule.scope])).toEqual([['Intent: cancel', 'object'], ['Complaints', 'object']]);
    const regex = await api('get', `${v1()}?matchType=regex`).expect(200);
    expect(regex.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Phone numbers']);
    const byName = await api('get', `${v1()}?name=${encodeURIComponent('LEGAL')}&enabled=true`).expect(200);
    expect(byName.body.content.map((rule: { name: string }) => rule.name)).toEqual(['Legal threats']);
    await api('get', `${v1()}?size=201`).expect(400);
    await api('get', `${v1()}?sort=patterns,asc`).expect(400);
    await api('get', `${v1()}?matchType=fuzzy`).expect(400);
  });

  it('tells the pipeline what a message triggers (matching): keywords, regex with digital staff scope, intents', async () => {
    const rules = testApp.app.get(InterventionRulesService);
    const complaint = await rules.matching('acme', { text: 'This is a COMPLAINT' });
    expect(complaint.matches.map((match) => match.ruleName)).toEqual(['Complaints']);
    expect(complaint).toMatchObject({ switchAiOff: true, createTodo: true, reasons: ['Complaint: a person answers.'] });
    const phone = await rules.matching('acme', { text: 'call 13800138000', digitalStaffId: staffId });
    expect(phone.matches).toEqual([expect.objectContaining({ ruleName: 'Phone numbers', matched: ['\\b1\\d{10}\\b'], switchAiOff: false, createTodo: true })]);
    expect((await rules.matching('acme', { text: 'call 13800138000' })).matches).toEqual([]);
    const intent = await rules.matching('acme', { text: 'whatever' }, 'Cancel_Order');
    expect(intent.matches.map((match) => match.ruleName)).toEqual(['Intent: cancel']);
    expect((await rules.matching('globex', { text: 'complaint' })).matches).toEqual([]);
  });

  it('keeps tenants apart: another tenant\'s token is 403 on these paths, another tenant\'s ids are 404', async () => {
    const id = (await api('get', `${v1()}?name=Complaints`).expect(200)).body.content[0].id;
    await api('get', v1(), otherToken).expect(403);
    await api('post', consolePath(), otherToken).send(keywordRule('Sneaky')).expect(403);
    await api('get', `${v1('globex')}/${id}`, otherToken).expect(404);
    await api('get', `${consolePath('globex')}/${id}`, otherToken).expect(404);
    await api('put', `${v1('globex')}/${id}`, otherToken).send(keywordRule('Taken over')).expect(404);
    await api('put', `${consolePath('globex')}/${id}`, otherToken).send({ name: 'Taken over', matchType: 'keywords', patterns: ['x'], scope: { allContacts: true }, action: { reason: 'r' } }).expect(404);
    await api('delete', `${v1('globex')}/${id}`, otherToken).expect(404);
    await api('delete', `${consolePath('globex')}/${id}`, otherToken).expect(404);
    expect((await api('get', v1('globex'), otherToken).expect(200)).body.totalElements).toBe(0);
    expect((await api('get', `${v1()}/${id}`).expect(200)).body.name).toBe('Complaints');
  });

  it('needs chat:write for writes (403) and chat:read for reads', async () => {
    await api('get', v1(), readOnlyToken).expect(200);
    await api('get', consolePath(), readOnlyToken).expect(200);
    const refused = await api('post', v1(), readOnlyToken).send(keywordRule('Read only')).expect(403);
    expect(refused.body.detail).toBe('POST operations need the chat:write scope, which the token lacks.');
    const id = (await api('get', v1()).expect(200)).body.content[0].id;
    await api('put', `${v1()}/${id}`, readOnlyToken).send(keywordRule('Read only')).expect(403);
    await api('put', `${consolePath()}/${id}`, readOnlyToken).send({ name: 'Read only', matchType: 'keywords', patterns: ['x'], scope: { allContacts: true }, action: { reason: 'r' } }).expect(403);
    await api('delete', `${v1()}/${id}`, readOnlyToken).expect(403);
    await api('delete', `${consolePath()}/${id}`, readOnlyToken).expect(403);
  });

  it('deletes through either view (200, empty body), then 404; non-UUID ids are 400', async () => {
    const first = await api('post', v1()).send(keywordRule('Temp one')).expect(200);
    const second = await api('post', consolePath()).send({ name: 'Temp two', matchType: 'keywords', patterns: ['x'], scope: { allContacts: true }, action: { reason: 'r' } }).expect(200);
    const deleted = await api('delete', `${v1()}/${first.body.id}`).expect(200);
    expect(deleted.text).toBe('');
    expect((await api('delete', `${consolePath()}/${second.body.id}`).expect(200)).text).toBe('');
    const gone = await api('get', `${consolePath()}/${first.body.id}`).expect(404);
    expect(gone.body.detail).toBe(`No human-intervention rule ${first.body.id} in this tenant.`);
    await api('delete', `${v1()}/${second.body.id}`).expect(404);
    await api('get', `${v1()}/not-a-uuid`).expect(400);
  });

  it('caps the rules of a tenant at CHAT_RULE_MAX_PER_TENANT (409)', async () => {
    const initech = (await builtInToken(testApp.baseUrl, await newClient(testApp, { tenantId: 'initech' }))).access_token;
    for (let index = 0; index < 12; index += 1) await api('post', v1('initech'), initech).send(keywordRule(`Rule ${index}`)).expect(200);
    const full = await api('post', v1('initech'), initech).send(keywordRule('One too many')).expect(409);
    expect(full.body.detail).toBe('The tenant already has 12 human-intervention rules; at most 12 are allowed (CHAT_RULE_MAX_PER_TENANT). Delete unused ones first.');
    await api('post', v1(), token).send(keywordRule('Acme still can')).expect(200);
  });
  it('documents every route of the four configuration resources with its method, path and operationId (spec ids where given)', async () => {
    const document = (await request(testApp.baseUrl).get('/docs-json').expect(200)).body as { paths: Record<string, Record<string, { operationId?: string; security?: unknown[] }>> };
    const expected: [string, string, string][] = [
      ['post', '/api/{tenant}/v1/customers/interventionRule', 'createCustomerInterventionRuleV1'],
      ['get', '/api/{tenant}/v1/customers/interventionRule', 'pageCustomerInterventionRulesV1'],
      ['get', '/api/{tenant}/v1/customers/interventionRule/{id}', 'getCustomerInterventionRuleV1'],
      ['put', '/api/{tenant}/v1/customers/interventionRule/{id}', 'updateCustomerInterventionRuleV1'],
      ['delete', '/api/{tenant}/v1/customers/interventionRule/{id}', 'deleteCustomerInterventionRuleV1'],
      ['post', '/api/{tenant}/console/customers/interventionRule', 'createCustomerInterventionRule'],
      ['get', '/api/{tenant}/console/customers/interventionRule', 'pageCustomerInterventionRules'],
      ['get', '/api/{tenant}/console/customers/interventionRule/{id}', 'getCustomerInterventionRule'],
      ['put', '/api/{tenant}/console/customers/interventionRule/{id}', 'updateCustomerInterventionRule'],
      ['delete', '/api/{tenant}/console/customers/interventionRule/{id}', 'deleteCustomerInterventionRule'],
      ['post', '/api/{tenant}/console/customers/tagRule', 'createCustomerTagRule'],
      ['get', '/api/{tenant}/console/customers/tagRule', 'pageCustomerTagRules'],
      ['get', '/api/{tenant}/console/customers/tagRule/{id}', 'getCustomerTagRule'],
      ['put', '/api/{tenant}/console/customers/tagRule/{id}', 'updateCustomerTagRule'],
      ['delete', '/api/{tenant}/console/customers/tagRule/{id}', 'deleteCustomerTagRule'],
      ['post', '/api/{tenant}/console/customers/intentionRecord', 'createCustomerIntentionRecord'],
      ['get', '/api/{tenant}/console/customers/intentionRecord', 'pageCustomerIntentionRecords'],
      ['get', '/api/{tenant}/console/customers/intentionRecord/{id}', 'getCustomerIntentionRecord'],
      ['put', '/api/{tenant}/console/customers/intentionRecord/{id}', 'updateCustomerIntentionRecord'],
      ['delete', '/api/{tenant}/console/customers/intentionRecord/{id}', 'deleteCustomerIntentionRecord'],
      ['post', '/api/{tenant}/console/toolApiProviders', 'createToolApiProvider'],
      ['get', '/api/{tenant}/console/toolApiProviders', 'pageToolApiProviders'],
      ['get', '/api/{tenant}/console/toolApiProviders/{id}', 'getToolApiProvider'],
      ['put', '/api/{tenant}/console/toolApiProviders/{id}', 'updateToolApiProvider'],
      ['delete', '/api/{tenant}/console/toolApiProviders/{id}', 'deleteToolApiProvider'],
    ];
    const served = expected.map(([method, path]) => [method, path, document.paths[path]?.[method]?.operationId ?? null]);
    expect(served).toEqual(expected);
    for (const [method, path] of expected) expect(document.paths[path][method].security).toEqual([{ oauth2: [method === 'get' ? 'chat:read' : 'chat:write'] }]);
  });
});
